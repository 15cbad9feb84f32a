"""One console session: a line in, the text to print (or an error) out.

The line is parsed and evaluated by the engine's own expression language, exactly as an attribute
in a ``*.tf`` file would be, never by Python. ``exit`` ends the session and ``help`` explains it,
as in Terraform's console; a blank line prints nothing. The session prints nothing itself: the CLI
decides where text and errors go, and whether an error ends the run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.console.completion import candidates
from engine.console.render import render, render_type
from engine.console.scope import ConsoleScope
from engine.console.types import type_of
from engine.lang import ast
from engine.lang.eval import evaluate
from engine.lang.hcl import parse_expression
from vocab.errors import CtlError, Diagnostic

INPUT_NAME = "<console-input>"  # the "file" errors point into, as Terraform names it

HELP = """\
The console evaluates expressions the way the configuration does. It sees the root module's
variables (var.NAME), locals (local.NAME), module outputs (module.NAME.OUTPUT), resources and
data sources as the state recorded them (TYPE.NAME, data.TYPE.NAME), path.module, path.root,
path.cwd, terraform.workspace, and every function. For example "random_id.a.hex" is the hex
attribute of random_id.a if the state has it.

Type an expression and press Enter to see its value; Tab completes names.

To leave, type "exit" and press Enter, or press Ctrl-D (or Ctrl-C on an empty line)."""


@dataclass(frozen=True)
class Reply:
    """What a line produced: text to print (None: nothing), and whether the session is over."""

    text: str | None = None
    done: bool = False


class ConsoleInputError(CtlError):
    """A line that could not be parsed or evaluated; its diagnostics quote the line itself."""

    def __init__(self, err: CtlError, line: str) -> None:
        super().__init__(err.summary, detail=err.detail, hint=err.hint, range=err.range, address=err.address,
                         snippet=line, exit_code=err.exit_code)
        self._diagnostics = [_quoting(d, line) for d in err.diagnostics()]

    def diagnostics(self) -> list[Diagnostic]:
        return list(self._diagnostics)


def _quoting(d: Diagnostic, line: str) -> Diagnostic:
    in_line = d.range is not None and d.range.filename == INPUT_NAME and d.snippet is None
    return replace(d, snippet=line) if in_line else d


class Session:
    """Evaluates console lines against one scope (loaded once: the state is not read again)."""

    def __init__(self, scope: ConsoleScope) -> None:
        self.scope = scope

    def handle(self, line: str) -> Reply:
        """The reply to one line; raises ``ConsoleInputError`` when the expression is wrong."""
        text = line.strip()
        try:
            text.encode()
        except UnicodeEncodeError:  # bytes that are not UTF-8, passed through by the terminal or a pipe
            raise CtlError("The input is not valid UTF-8",
                           hint="Expressions are UTF-8 text, as configuration files are.") from None
        if not text:
            return Reply()
        if text == "exit":
            return Reply(done=True)
        if text == "help":
            return Reply(HELP)
        return Reply(self.evaluate(text))

    def evaluate(self, text: str) -> str:
        """The value of one expression, as Terraform's console prints it; for ``type(x)``, the type of
        ``x`` as OpenTofu's console prints it."""
        try:
            expr = parse_expression(text, INPUT_NAME)
            subject = _type_subject(expr)
            value = evaluate(expr if subject is None else subject, self.scope.ctx)
        except CtlError as err:
            raise ConsoleInputError(err, text) from None
        if subject is not None:
            return render_type(type_of(self.scope.typer.type_of(subject, self.scope.ctx), value))
        return render(value, self.scope.typer.type_of(expr, self.scope.ctx))

    def complete(self, text: str) -> list[str]:
        """What ``text`` (the end of the line, up to the cursor) may be completed to."""
        return candidates(self.scope, text)


def _type_subject(expr: ast.Expr) -> ast.Expr | None:
    """``x`` when the line is ``type(x)``: the console's own function, whose answer is a type, not a
    value. Anywhere else in an expression it is refused, as OpenTofu refuses it (a type is no value
    to compute with)."""
    while isinstance(expr, ast.Parens):
        expr = expr.inner
    top = expr if isinstance(expr, ast.FunctionCall) and expr.name == "type" else None
    subject = top.args[0] if top is not None and len(top.args) == 1 and not top.expand_final else None
    for node in ast.walk(expr if subject is None else subject):
        if isinstance(node, ast.FunctionCall) and node.name == "type" and node is not top:
            raise CtlError("Invalid use of type function",
                           detail='The console-only "type" function cannot be used as part of an expression.',
                           hint="Ask for the type on a line of its own: type(EXPRESSION).")
    return subject


__all__ = ["HELP", "INPUT_NAME", "ConsoleInputError", "Reply", "Session"]
