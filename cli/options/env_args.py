"""``CTL_CLI_ARGS`` and ``CTL_CLI_ARGS_<command>``: extra arguments from the environment (Terraform's
``TF_CLI_ARGS`` and ``TF_CLI_ARGS_plan``).

A CI system sets options once for every step — ``CTL_CLI_ARGS_plan="--lock-timeout=60s --parallelism=4"``
— instead of editing each command line. The value is split like a shell would (quotes work) and
inserted right after the command words (``plan``, ``state list``), before the arguments given on the
command line: ``CTL_CLI_ARGS`` first, then ``CTL_CLI_ARGS_<command>``, then the real arguments, so
for an option given more than once the more specific source wins and the command line wins over
both. Nested commands use underscores: ``CTL_CLI_ARGS_state_list``, ``CTL_CLI_ARGS_workspace_new``.
A bare ``ctl`` or ``ctl --version`` names no command and gets nothing inserted.
"""

from __future__ import annotations

import logging
import os
import shlex
from collections.abc import Mapping

import click

from vocab.errors import UsageError

PREFIX = "CTL_CLI_ARGS"
_log = logging.getLogger(__name__)


def command_words(args: list[str], group: click.Command) -> tuple[list[str], int]:
    """The command names in ``args`` (``["state", "list"]``) and the index just after the last one.

    Options of the groups on the way (``--chdir DIR``, ``--no-color``) are skipped, using the
    group's own parameter definitions to know which options take a value. Returns ``([], 0)`` when
    no complete command is named.
    """
    names: list[str] = []
    cmd = group
    i = 0
    while isinstance(cmd, click.Group) and i < len(args):
        arg = args[i]
        if arg == "--":
            break
        if arg.startswith("-") and arg != "-":
            i += 1 if ("=" in arg or not _takes_value(cmd, arg)) else 2
            continue
        sub = cmd.get_command(click.Context(cmd), arg)
        if sub is None:
            break
        names.append(arg)
        cmd = sub
        i += 1
    if isinstance(cmd, click.Group) or not names:
        return [], 0
    return names, i


def _takes_value(cmd: click.Command, arg: str) -> bool:
    for param in cmd.params:
        if isinstance(param, click.Option) and arg in (*param.opts, *param.secondary_opts):
            return not (param.is_flag or param.count)
    return False


def env_names(names: list[str]) -> list[str]:
    """The variables that apply to a command, general first: ``CTL_CLI_ARGS``, ``CTL_CLI_ARGS_plan``."""
    suffix = "_".join(n.replace("-", "_") for n in names)
    return [PREFIX, f"{PREFIX}_{suffix}"]


def apply(args: list[str], group: click.Command, environ: Mapping[str, str] | None = None) -> list[str]:
    """``args`` with the environment's extra arguments inserted after the command words."""
    env = os.environ if environ is None else environ
    if not any(k.startswith(PREFIX) for k in env):
        return args
    names, end = command_words(args, group)
    if not names:
        return args
    extra: list[str] = []
    for var in env_names(names):
        text = env.get(var, "")
        if not text.strip():
            continue
        try:
            extra += shlex.split(text)
        except ValueError as exc:
            raise UsageError(f"Cannot read {var}: {exc}",
                             hint="Quote values as in a shell, e.g. --var='tags={a=\"b c\"}'.") from None
        _log.debug("added %d arguments from %s", len(shlex.split(text)), var, extra={"variable": var})
    return [*args[:end], *extra, *args[end:]]


__all__ = ["PREFIX", "apply", "command_words", "env_names"]
