"""``ctl console``: evaluate expressions against a configuration and its state, as ``terraform console``.

``open_session(root)`` loads the configuration once, evaluated against the state (read without a
lock, never written), and returns a ``Session`` that turns each line into the text Terraform's
console would print for it. The pieces: ``scope`` (what the expressions see), ``infer`` and
``function_types`` (the types that decide how a value prints), ``render`` (the printing),
``completion`` (Tab completion) and ``session`` (one line in, one reply out).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engine.console.scope import ConsoleScope, open_scope
from engine.console.session import HELP, ConsoleInputError, Reply, Session


def open_session(root_dir: Path, *, var_args: list[tuple[str, str]] | None = None,
                 environ: Mapping[str, str] | None = None) -> Session:
    """A session over the configuration in ``root_dir``; configuration errors raise with all diagnostics."""
    return Session(open_scope(root_dir, var_args=var_args, environ=environ))


__all__ = ["HELP", "ConsoleInputError", "ConsoleScope", "Reply", "Session", "open_session"]
