"""``ctl console``: try expressions against the configuration and its state, as ``terraform console``.

At a terminal it is a prompt with line editing, history kept in ``.ctl/console_history`` (as a shell
keeps its own) and Tab completion, through Python's ``readline`` when the platform has it; an error
is reported and the session goes on. With stdin not a terminal (``echo EXPR | ctl console``) every
line is one expression, every result is printed, and the first error ends the run with exit code 1,
as Terraform's piped console does, so scripts can tell.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import typer

from cli import output
from cli.common import VAR_FILE_HELP, VAR_HELP, hidden_flag, hidden_values, ordered_var_args
from cli.options.globals import options
from vocab.errors import CtlError, ExitCode

if TYPE_CHECKING:
    from engine.console import Session

PROMPT = "> "
HISTORY_FILE = "console_history"
HISTORY_LENGTH = 1000
# Word boundaries for Tab: operators and brackets end a name, but "." and "[…]" are part of one.
_COMPLETER_DELIMS = " \t\n\"(){},=+*/%!<>&|?:"

_HELP = """Evaluate expressions against the configuration, its variables and the state.

The expressions see var.*, local.*, module.*, resources and data sources as the state recorded
them, path.*, terraform.workspace and every function. At a terminal: history in
.ctl/console_history, Tab completion, `exit` or Ctrl-D to leave. Piped: one expression per line,
each result printed; the first error stops the run with exit code 1. The state is only read.

Example: echo 'cidrsubnet(var.cidr, 8, 1)' | ctl console
"""


def register(app: typer.Typer) -> None:
    app.command("console", help=_HELP)(console_command)


def console_command(
    ctx: typer.Context,
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
    compact_warnings: bool = hidden_flag("--compact-warnings"),
    input_: bool = typer.Option(None, "--input/--no-input", hidden=True),  # the console never asks for input
    target: list[str] = hidden_values("--target"),  # every expression can be evaluated: nothing to limit
) -> int:
    from engine.console import open_session
    from engine.session import CTL_DIR

    if compact_warnings:
        output.compact_warnings()

    root = options(ctx).root
    session = open_session(root, var_args=ordered_var_args(var, var_file))
    if session.scope.warnings:
        output.print_diagnostics(session.scope.warnings)
    if sys.stdin.isatty():
        return _interactive(session, root / CTL_DIR / HISTORY_FILE)
    return _piped(session)


def _piped(session: Session) -> int:
    """One expression per line; stop at the first error (exit 1) or at ``exit`` (exit 0)."""
    for line in sys.stdin:
        try:
            reply = session.handle(line)
        except CtlError as err:
            sys.stdout.flush()  # results so far come before the error, wherever both end up
            output.print_error(err)
            return int(ExitCode.ERROR)
        if reply.done:
            break
        if reply.text is not None:
            sys.stdout.write(reply.text + "\n")
    return int(ExitCode.OK)


def _interactive(session: Session, history: Path) -> int:
    """The prompt loop: errors are reported and the session goes on until ``exit`` or Ctrl-D."""
    readline = _setup_readline(session, history)
    try:
        while True:
            try:
                line = input(PROMPT)
            except EOFError:  # Ctrl-D
                sys.stdout.write("exit\n")
                break
            except KeyboardInterrupt:  # Ctrl-C: drop the line; on an empty line, leave
                pending = readline.get_line_buffer() if readline is not None else ""
                sys.stdout.write("\n")
                if pending.strip():
                    continue
                break
            if not _answer(session, line):
                break
    finally:
        if readline is not None:
            _save_history(readline, history)
    return int(ExitCode.OK)


def _answer(session: Session, line: str) -> bool:
    """Print the reply to one line; False once the session is over."""
    try:
        reply = session.handle(line)
    except CtlError as err:
        sys.stdout.flush()
        output.print_error(err)
        return True
    if reply.text is not None:
        sys.stdout.write(reply.text + "\n")
        sys.stdout.flush()
    return not reply.done


class _Completer:
    """readline's completer protocol: called with state 0, 1, 2 … until it returns None."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.matches: list[str] = []

    def __call__(self, text: str, state: int) -> str | None:
        if state == 0:
            try:
                self.matches = self.session.complete(text)
            except Exception:  # a completion must never end the session
                self.matches = []
        return self.matches[state] if state < len(self.matches) else None


def _setup_readline(session: Session, history: Path) -> ModuleType | None:
    """Line editing, history and Tab completion, when Python has a readline module (optional)."""
    try:
        import readline
    except ImportError:
        return None
    readline.set_completer(_Completer(session))
    readline.set_completer_delims(_COMPLETER_DELIMS)
    if "libedit" in (readline.__doc__ or ""):  # macOS's readline speaks editline's language
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    readline.set_history_length(HISTORY_LENGTH)
    with contextlib.suppress(OSError):  # no history yet, or unreadable: start afresh
        readline.read_history_file(str(history))
    return readline


def _save_history(readline: ModuleType, history: Path) -> None:
    try:
        history.parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(str(history))
    except OSError as exc:
        output.warn(f"Could not save the console history to {history}: {exc.strerror or exc}")
