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

A flag takes Terraform's ``=true``/``=false`` on every command that has it (``-lock=false``,
``-upgrade=false``, ``-write=false``, ``-auto-approve=true``): ``--lock=false`` becomes ``--no-lock``,
and ``=false`` of a flag that has no ``--no-`` form (its default is off) is the flag left out.
"""

from __future__ import annotations

import re

import click

from vocab.errors import UsageError

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


# A boolean's value as Go's flag package (Terraform's parser) spells it, compared in lower case, and
# the yes/no ctl took before.
_TRUE = frozenset({"1", "t", "true", "yes"})
_FALSE = frozenset({"0", "f", "false", "no"})


# Terraform's options for a state file of its own local backend, apart from the configured one.
_LEGACY_STATE = frozenset({"--state", "--state-out", "--backup"})


def _named_command(args: list[str], root: click.Command) -> click.Command | None:
    """The (sub)command ``args`` name, found as ``CTL_CLI_ARGS`` finds it (``state mv``)."""
    from cli.options.env_args import command_words

    names, _ = command_words(args, root)
    cmd: click.Command | None = root
    for name in names:
        cmd = cmd.get_command(click.Context(cmd), name) if isinstance(cmd, click.Group) else None
    return cmd


def _flags(cmd: click.Command) -> dict[str, click.Option]:
    """The command's flags by each of their primary names (``--lock``)."""
    return {o: p for p in cmd.params if isinstance(p, click.Option) and p.is_flag and not p.count for o in p.opts}


def bool_values(args: list[str], root: click.Command) -> list[str]:
    """``args`` with every ``--flag=true``/``--flag=false`` of the named command's (or the root
    group's) flags written as click takes it: ``--flag``, ``--no-flag``, or nothing.

    The command is found as ``CTL_CLI_ARGS`` finds it (``state mv``), so a flag means what it
    means on that command. An ``=`` value that is not a boolean is a usage error naming it, and so
    is Terraform's legacy ``-state``/``-state-out``/``-backup``, with what to do instead.
    """
    flags = _flags(root)
    cmd = _named_command(args, root)
    if cmd is not None and cmd is not root:
        flags.update(_flags(cmd))
    end = args.index("--") if "--" in args else len(args)
    out: list[str] = []
    for a in args[:end]:
        name, eq, value = a.partition("=")
        if name in _LEGACY_STATE and (cmd is None or name not in _long_options(cmd)):
            raise UsageError(f"{name} is a legacy option of Terraform's local backend, which ctl does not have",
                             detail="ctl reads and writes the state of the configuration's backend (ctl.tfstate "
                                    "without a backend block), and keeps earlier versions itself.",
                             hint='Name another file with a backend "local" { path = "FILE" } block, or move '
                                  "a state in or out with ctl state push / ctl state pull.")
        option = flags.get(name) if eq and a.startswith("--") else None
        if option is None:
            out.append(a)
            continue
        word = value.strip().lower()
        if word not in _TRUE | _FALSE:
            raise UsageError(f'Invalid value "{value}" for {name}', hint=f"Use {name}=true or {name}=false.")
        if word in _TRUE:
            out.append(name)
        elif option.secondary_opts:
            out.append(option.secondary_opts[0])
        elif option.default:
            raise UsageError(f"{name} cannot be turned off", hint=f"Leave {name} out.")
    return out + args[end:]
