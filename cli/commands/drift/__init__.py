"""``ctl drift`` and ``ctl drift adopt``."""
