"""Terraform provider plugins behind ctl's adapter interface: process, protocol and values."""
