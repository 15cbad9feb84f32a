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
from engine.console.types import (
    DYNAMIC,
    TYPE_FUNCTION,
    TYPE_TYPE,
    CtyType,
    ObjectType,
    TupleType,
    element,
    type_of,
)
from engine.lang import ast
from engine.lang.eval import evaluate
from engine.lang.hcl import parse_expression
from vocab.errors import CtlError, Diagnostic
from vocab.values import Unknown, unmark

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
            call = _type_call(_bare(expr))
            if call is not None:
                return render_type(self._type_given(call))
            _refuse_type_calls(expr)
            value = evaluate(expr, self.scope.ctx)
        except CtlError as err:
            raise ConsoleInputError(err, text) from None
        return render(value, self.scope.typer.type_of(expr, self.scope.ctx))

    def _type_given(self, call: ast.FunctionCall) -> CtyType:
        """What ``type(...)`` answers: the type of its one argument (spread from a list with ``...``)."""
        if len(call.args) != 1:
            raise _arity_error(call)
        (arg,) = call.args
        if not call.expand_final:
            return self._type_of(arg)
        _refuse_type_calls(arg)
        spread, _marks = unmark(evaluate(arg, self.scope.ctx))
        if isinstance(spread, Unknown):  # how many arguments it spreads is not known yet
            return DYNAMIC
        if not isinstance(spread, list):
            raise CtlError("Invalid expanding argument value", range=arg.rng,
                           detail="The expanding argument (indicated by ...) must be of a tuple, list, or set type.")
        if len(spread) != 1:
            raise _arity_error(call, len(spread))
        return type_of(element(self.scope.typer.type_of(arg, self.scope.ctx), 0), spread[0])

    def _type_of(self, expr: ast.Expr) -> CtyType:
        """The type of ``expr``, where a ``type(...)`` call, directly or as an element of a tuple or an
        attribute of an object written out, is a value of the type ``type``, as in OpenTofu's
        console (``type([type(1)])`` is ``tuple([type])``)."""
        expr = _bare(expr)
        call = _type_call(expr)
        if call is not None:
            self._type_given(call)  # what it is asked about must still evaluate
            return TYPE_TYPE
        if isinstance(expr, ast.TupleCons) and _has_type_call(expr):
            return TupleType(tuple(self._type_of(item) for item in expr.items))
        if isinstance(expr, ast.ObjectCons) and _has_type_call(expr):
            attributes: dict[str, CtyType] = {}
            for item in expr.items:
                _refuse_type_calls(item.key)
                alone = ast.ObjectCons(item.key.rng, (ast.ObjectItem(item.key, ast.Literal(item.key.rng, None)),))
                key, _marks = unmark(evaluate(alone, self.scope.ctx))  # the key as an object's key is made
                if not isinstance(key, dict):  # a key not known yet: so is the object's type
                    return DYNAMIC
                attributes[next(iter(key))] = self._type_of(item.value)
            return ObjectType(attributes)
        _refuse_type_calls(expr)
        value = evaluate(expr, self.scope.ctx)
        return type_of(self.scope.typer.type_of(expr, self.scope.ctx), value)

    def complete(self, text: str) -> list[str]:
        """What ``text`` (the end of the line, up to the cursor) may be completed to."""
        return candidates(self.scope, text)


def _bare(expr: ast.Expr) -> ast.Expr:
    while isinstance(expr, ast.Parens):
        expr = expr.inner
    return expr


def _type_call(expr: ast.Expr) -> ast.FunctionCall | None:
    return expr if isinstance(expr, ast.FunctionCall) and expr.name == TYPE_FUNCTION else None


def _has_type_call(expr: ast.Expr) -> bool:
    return any(_type_call(node) is not None for node in ast.walk(expr))


def _refuse_type_calls(expr: ast.Expr) -> None:
    """``type()`` is the console's own function, whose answer is a type, not a value to compute with:
    inside any other expression it is refused, as OpenTofu refuses it."""
    if _has_type_call(expr):
        raise CtlError("Invalid use of type function",
                       detail='The console-only "type" function cannot be used as part of an expression.',
                       hint="Ask for the type on a line of its own: type(EXPRESSION).")


def _arity_error(call: ast.FunctionCall, given: int | None = None) -> CtlError:
    """OpenTofu's words for ``type()`` or ``type(a, b)``."""
    count = len(call.args) if given is None else given
    if count == 0:
        return CtlError("Not enough function arguments", range=call.rng,
                        detail='Function "type" expects 1 argument(s). Missing value for "value".')
    return CtlError("Too many function arguments", range=call.rng,
                    detail='Function "type" expects only 1 argument(s).')


__all__ = ["HELP", "INPUT_NAME", "ConsoleInputError", "Reply", "Session"]
