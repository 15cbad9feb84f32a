"""The Typer ``autocompletion=`` callbacks: state addresses and workspace names for the shell.

Each runs on a Tab press, so none may fail loudly: any problem gives no suggestions rather than a
traceback in the user's command line.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from cli.completion.addresses import addresses
from cli.completion.containers import with_containers
from cli.completion.workspaces import DEFAULT_WORKSPACE, selected_workspace, state_file, workspaces


def complete_instances(ctx: click.Context, incomplete: str) -> list[str]:
    """Resource instance addresses in the state: for ``state show`` and ``--replace``."""
    return _matching(_instances(ctx), incomplete)


def complete_addresses(ctx: click.Context, incomplete: str) -> list[str]:
    """Instances, plus whole resources and modules: for ``state rm/mv/list``, ``--target``, ``--exclude``."""
    return _matching(with_containers(_instances(ctx)), incomplete)


def complete_workspaces(ctx: click.Context, incomplete: str) -> list[str]:
    """Workspaces one could switch to: every existing one but the selected one."""
    try:
        root = _root(ctx)
        current = selected_workspace(root)
        return _matching((n for n in workspaces(root) if n != current), incomplete)
    except Exception:  # a Tab press must never print a traceback into the user's command line
        return []


def complete_deletable_workspaces(ctx: click.Context, incomplete: str) -> list[str]:
    """Workspaces ``workspace delete`` accepts: never ``default`` nor the selected one."""
    return [n for n in complete_workspaces(ctx, incomplete) if n != DEFAULT_WORKSPACE]


def _matching(values: Iterable[str], incomplete: str) -> list[str]:
    return [v for v in values if v.startswith(incomplete)]


def _root(ctx: click.Context) -> Path:
    """The configuration directory, honouring ``--chdir`` (parsed, but its callback never ran)."""
    chdir = ctx.find_root().params.get("chdir") or "."
    return (Path.cwd() / Path(chdir)).resolve()


def _instances(ctx: click.Context) -> list[str]:
    """Every current instance address of the selected workspace's state; [] on any problem."""
    try:
        path = state_file(_root(ctx))
        if path is None:
            return []
        return addresses(path)
    except Exception:  # a Tab press must never print a traceback into the user's command line
        return []
