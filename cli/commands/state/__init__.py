"""``ctl state ...``: the group and its subcommands."""
