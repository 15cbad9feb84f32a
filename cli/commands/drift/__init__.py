"""``ctl drift`` and ``ctl drift adopt``: the group, and the subcommand that attaches to it."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    from cli.commands.drift import adopt, group

    del adopt  # imported for its command, which attaches itself to ``group.drift_app``
    group.register(app)
