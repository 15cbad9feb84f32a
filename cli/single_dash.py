"""Terraform's spelling of long options: ``-auto-approve``, ``-out=tfplan``, ``-var 'a=b'``.

Terraform's flags take one dash, and scripts, runbooks and muscle memory carry that spelling over.
ctl's options are click's ``--name``; before parsing, every ``-name`` or ``-name=value`` token (a
dash, a letter, then more letters, digits or dashes) becomes ``--name…``, so
``ctl -chdir=live plan -out=tfplan -lock=false`` works as in Terraform and a misspelt ``-outt`` is
reported as ``--outt`` rather than as a cluster of one-letter options. ctl's only short options
are single letters (``-h``, ``-C``), which this leaves alone, as it leaves negative numbers and
everything after ``--``.

``-no-color`` may also follow the command, as in Terraform: click wants the root group's options
before the command, so such flags are moved there.
"""

from __future__ import annotations

import re

import click

_SINGLE_DASH = re.compile(r"-[a-z][a-z0-9-]+(=.*)?", re.DOTALL)


def double_dashed(args: list[str]) -> list[str]:
    """``args`` with Terraform's one-dash long options spelt as ctl's two-dash ones."""
    end = args.index("--") if "--" in args else len(args)
    return ["-" + a if _SINGLE_DASH.fullmatch(a) else a for a in args[:end]] + args[end:]


def _long_options(cmd: click.Command) -> set[str]:
    return {o for p in cmd.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)}


def root_flags_first(args: list[str], root: click.Group) -> list[str]:
    """Value-less flags of the root group (``--no-color``) given after the command, moved before it.

    A flag the named command defines itself stays where it is, so nothing changes meaning.
    """
    flags = {o for p in root.params if isinstance(p, click.Option) and p.is_flag for o in p.opts}
    command = next((root.get_command(click.Context(root), a) for a in args if not a.startswith("-")), None)
    movable = flags - (_long_options(command) if command is not None else set())
    end = args.index("--") if "--" in args else len(args)
    moved = [a for a in args[:end] if a in movable]
    if not moved:
        return args
    return moved + [a for a in args[:end] if a not in movable] + args[end:]
