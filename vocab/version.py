"""The version of ctl, in one place."""

VERSION = "0.1.0"
