"""Options every command sees (set by the global callback, read through ``ctx.obj``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer


@dataclass
class GlobalOptions:
    root: Path
    no_color: bool = False


def options(ctx: typer.Context) -> GlobalOptions:
    obj = ctx.find_root().obj
    assert isinstance(obj, GlobalOptions)
    return obj


def root_dir(ctx: typer.Context) -> Path:
    """The configuration directory a command runs in (``-C``), from the global options."""
    return options(ctx).root
