"""Drift as a workflow: what changed outside ctl, per attribute (``detect``), and the configuration
rewritten to match it where it is written as a literal (``adopt``)."""
