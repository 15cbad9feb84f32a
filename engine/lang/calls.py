"""Function calls in expressions: the function library, ``try``/``can``, and provider functions.

A rule of the evaluator: ``engine.lang.eval`` dispatches ``FunctionCall`` nodes to ``eval_call``
and hands it ``evaluate`` for the arguments; import the evaluator, not this module.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from engine.lang import ast
from engine.lang.evaluation import CallsUnknown, EvalContext, EvalError, Evaluate, did_you_mean
from engine.lang.operators import scalar_to_string
from vocab.errors import CtlError
from vocab.positions import SourceRange
from vocab.values import UNKNOWN, Marked, Unknown, contains_unknown, deep_unmark, mark, type_name, unmark


@functools.cache
def _library() -> tuple[Callable[..., Any], Callable[[], Iterable[str]], tuple[type[BaseException], ...]]:
    """The function library, imported on first call so this module loads without it."""
    from engine.lang.functions import FunctionError, call_function, function_names

    return call_function, function_names, (FunctionError, CtlError)


@functools.cache
def _library_names() -> frozenset[str]:
    return frozenset(_library()[1]())


def _error_types(ctx: EvalContext) -> tuple[type[BaseException], ...]:
    if ctx.functions is None:
        return _library()[2]
    try:
        return _library()[2]
    except ImportError:
        return (CtlError,)


def _unknown_function(node: ast.FunctionCall, names: Iterable[str]) -> EvalError:
    hint = did_you_mean(node.name, names)
    if node.name == "type":
        hint = 'type() is a function of `ctl console` only: its answer is a type, not a value.'
    return EvalError(
        "Call to unknown function",
        detail=f'There is no function named "{node.name}".',
        hint=hint,
        range=_name_range(node),
    )


def _name_range(node: ast.FunctionCall, *, paren: bool = False) -> SourceRange:
    """Where the call's name is written (with ``paren``, through its opening parenthesis), which is
    where OpenTofu and Terraform point when there is no such function (or, with the parenthesis,
    when it fails as a whole); the whole call where the name is not spelt out at its start (a
    template embedded in JSON or YAML)."""
    rng = node.rng
    text = rng.text
    start = rng.byte_span()[0]
    name = node.name.encode()
    if text is None or text.src[start:start + len(name)] != name:
        return rng
    end = start + len(name)
    if paren:
        opening = text.src.find(b"(", end, rng.byte_span()[1])
        end = opening + 1 if opening >= 0 and not text.src[end:opening].strip() else end
    return SourceRange.in_text(text, start, end)


def eval_call(node: ast.FunctionCall, ctx: EvalContext, evaluate: Evaluate) -> Any:
    """The value of a function call: a special form, a provider's function or the library's."""
    fns = ctx.functions
    if fns is not None and type(fns) is CallsUnknown:
        return UNKNOWN
    special = _SPECIAL_FORMS.get(node.name)
    if special is not None:
        return special(node, ctx, evaluate)
    if node.name.startswith("provider::"):
        return _eval_provider_call(node, ctx, evaluate)
    fn: Callable[[list[Any]], object] | None = None
    if fns is not None:
        fn = fns.get(node.name)
        if fn is None:
            raise _unknown_function(node, fns)
    elif node.name not in _library_names():
        current = frozenset(_library()[1]())
        if node.name not in current:
            raise _unknown_function(node, current)
    args = _call_args(node, ctx, evaluate)
    if not isinstance(args, list):
        return args
    try:
        if fn is not None:
            return fn(args)
        return _library()[0](node.name, args, ctx.func_ctx)
    except EvalError:
        raise
    except _error_types(ctx) as e:
        raise _function_error(e, node) from None


def _eval_provider_call(node: ast.FunctionCall, ctx: EvalContext, evaluate: Evaluate) -> Any:
    """``provider::NAME::FUNC(...)``: a function the provider plugin defines, run by the provider."""
    find = ctx.func_ctx.provider_function if ctx.func_ctx is not None else None
    fn = find(node.name) if find is not None else None
    if fn is None:
        raise EvalError("Call to unknown function", range=node.rng,
                        detail=f'There is no function named "{node.name}".',
                        hint="Provider functions come from provider plugins (protocol 5.5/6.5 or later) "
                             "selected by `ctl init`; `ctl providers schema --json` lists them.")
    args = _call_args(node, ctx, evaluate)
    if not isinstance(args, list):
        return args
    try:
        return fn(args)
    except EvalError:
        raise
    except CtlError as e:
        raise _function_error(e, node) from None


def _call_args(node: ast.FunctionCall, ctx: EvalContext, evaluate: Evaluate) -> list[Any] | Unknown | Marked:
    """Evaluated arguments, with ``f(a, list...)`` spreading the final list.

    An unknown spread makes the call's result unknown: that result (with the spread value's marks,
    so a sensitive unknown stays sensitive) is returned instead of the arguments.
    """
    args = [evaluate(a, ctx) for a in node.args]
    if not node.expand_final or not args:
        return args
    last, marks = unmark(args.pop())
    if isinstance(last, Unknown):
        return Marked(UNKNOWN, marks) if marks else UNKNOWN
    if not isinstance(last, list):
        what = "null" if last is None else type_name(last)
        raise EvalError(
            "Invalid expanding argument value",
            detail=f"The expanding argument (indicated by ...) must be a list, not {what}.",
            range=node.args[-1].rng,
        )
    args.extend(mark(x, marks) for x in last)
    return args


def _function_error(e: BaseException, node: ast.FunctionCall) -> EvalError:
    """A failed call as HCL reports it: a bad argument at where that argument starts, the call as a
    whole at its name and parenthesis, too few arguments at the closing parenthesis."""
    idx = getattr(e, "arg_index", None)
    heading = getattr(e, "heading", None)
    summary = getattr(e, "summary", None) or str(e)
    extra = getattr(e, "detail", "")
    message = f"{summary}: {extra}" if extra else summary
    if not message.endswith("."):
        message += "."  # a sentence, as HCL words every failed call
    if heading == "Not enough function arguments":
        return EvalError(heading, detail=message, range=_closing_range(node), context=node.rng)
    rng = _name_range(node, paren=True)
    if isinstance(idx, int) and idx >= 0 and node.args:
        if idx < len(node.args):
            rng = start_range(node.args[idx])
        elif node.expand_final:
            rng = node.args[-1].rng
    if heading is not None:
        return EvalError(heading, detail=message, range=rng, context=node.rng)
    if hasattr(e, "heading") and isinstance(idx, int):  # the library's own wording, as HCL's
        return EvalError("Invalid function argument", detail=message, hint=getattr(e, "hint", ""), range=rng,
                         context=node.rng)
    message = message.removeprefix(f'Call to function "{node.name}" failed: ')  # said once, below
    return EvalError(
        "Invalid function argument" if isinstance(idx, int) else "Error in function call",
        detail=f'Call to function "{node.name}" failed: {message}',
        hint=getattr(e, "hint", ""),
        range=rng if isinstance(idx, int) else _name_range(node, paren=True),
        context=node.rng,
    )


def _closing_range(node: ast.FunctionCall) -> SourceRange:
    """The call's closing parenthesis, where HCL points when arguments are missing."""
    rng = node.rng
    text = rng.text
    end = rng.byte_span()[1]
    if text is None or text.src[end - 1:end] != b")":
        return rng
    return SourceRange.in_text(text, end - 1, end)


def start_range(expr: ast.Expr) -> SourceRange:
    """Where an expression starts, as HCL's ``StartRange`` has it: a bad function argument is shown
    there, not over the whole argument. A constructor starts at its bracket, a conditional or an
    operation at its first operand, a call at its name and parenthesis, a quoted string at the text
    inside the quotes; anything else is its whole range."""
    if isinstance(expr, ast.Conditional):
        return start_range(expr.cond)
    if isinstance(expr, ast.BinaryOp):
        return start_range(expr.left)
    if isinstance(expr, ast.FunctionCall):
        return _name_range(expr, paren=True)
    rng = expr.rng
    text = rng.text
    if text is None:
        return rng
    start, end = rng.byte_span()
    if isinstance(expr, ast.TupleCons | ast.ObjectCons | ast.ForExpr | ast.UnaryOp):
        return SourceRange.in_text(text, start, start + 1)
    if isinstance(expr, ast.Literal | ast.Template) and text.src[start:start + 1] == b'"' and end - start >= 2:
        if isinstance(expr, ast.Template) and expr.parts and not isinstance(expr.parts[0], str):
            first = expr.parts[0]
            return start_range(first) if isinstance(first, ast.Expr) else rng
        return SourceRange.in_text(text, start + 1, _literal_end(text.src, start + 1, end - 1))
    return rng


def _literal_end(src: bytes, start: int, end: int) -> int:
    """Where the literal text that opens a quoted template ends: at its first ``${`` or ``%{`` that
    is not escaped (``$${``), or at the closing quote."""
    i = start
    while i < end:
        if src[i:i + 2] in (b"${", b"%{"):
            return i
        if src[i:i + 3] in (b"$${", b"%%{"):
            i += 3
            continue
        i += 2 if src[i:i + 1] == b"\\" else 1
    return end


def _eval_try(node: ast.FunctionCall, ctx: EvalContext, evaluate: Evaluate) -> Any:
    """``try(a, b, ...)``: the first argument that evaluates without error.

    An argument that depends on unknown values might still fail once they are known, so the
    result is then unknown rather than a guess.
    """
    if not node.args:
        raise EvalError("Error in function call", range=_name_range(node, paren=True), context=node.rng,
                        detail='Call to function "try" failed: at least one argument is required.')
    failures: list[EvalError] = []
    for arg in node.args:
        try:
            v = evaluate(arg, ctx)
        except EvalError as e:
            failures.append(e)
            continue
        if contains_unknown(v):
            return mark(UNKNOWN, deep_unmark(v)[1])
        return v
    first = failures[0]
    raise EvalError(
        "Error in function call",
        detail=f'Call to function "try" failed: no expression succeeded; the first failed with: {first}',
        range=node.rng,
    )


def _eval_can(node: ast.FunctionCall, ctx: EvalContext, evaluate: Evaluate) -> Any:
    """``can(x)``: whether ``x`` evaluates without error (unknown while it depends on unknowns)."""
    if not node.args:
        raise EvalError("Not enough function arguments", range=_closing_range(node), context=node.rng,
                        detail='Function "can" expects 1 argument(s). Missing value for "expression".')
    if len(node.args) > 1:
        raise EvalError("Too many function arguments", range=start_range(node.args[1]), context=node.rng,
                        detail='Function "can" expects only 1 argument(s).')
    try:
        v = evaluate(node.args[0], ctx)
    except EvalError:
        return False
    if contains_unknown(v):
        return Unknown("bool")
    return True


def _eval_templatestring(node: ast.FunctionCall, ctx: EvalContext, evaluate: Evaluate) -> Any:
    """``templatestring(local.tpl, { name = "x" })``: render a template held in a string value.

    The first argument is any expression whose value is a string, a literal included
    (``templatestring("hello $${name}", …)``), as OpenTofu takes it (Terraform 1.9 asked for a
    reference); the template sees only the variables given, like ``templatefile``.
    """
    if len(node.args) != 2:
        raise EvalError("Invalid function argument",
                        detail='Function "templatestring" takes exactly two arguments.', range=node.rng)
    source, variables = node.args
    text, text_marks = unmark(evaluate(source, ctx))
    given, given_marks = deep_unmark(evaluate(variables, ctx))
    marks = text_marks | given_marks
    if isinstance(text, Unknown) or contains_unknown(given):
        return mark(Unknown("string"), marks)
    template = text if isinstance(text, str) else scalar_to_string(text)  # "${1 + 1}" is the number 2
    if template is None:
        reason = "argument must not be null" if text is None else f"string required, but have {type_name(text)}"
        raise EvalError("Invalid function argument", detail=f'Invalid value for "data" parameter: {reason}.',
                        range=start_range(source))
    if not isinstance(given, dict):
        reason = "argument must not be null" if given is None else "invalid vars value: must be a map"
        raise EvalError("Invalid function argument", detail=f'Invalid value for "vars" parameter: {reason}.',
                        range=start_range(variables))
    from engine.lang.hcl import parse_template

    expr = parse_template(template, source.rng.filename, source.rng.start.line, source.rng.start.column)
    inner = EvalContext(variables=dict(given), func_ctx=ctx.func_ctx, functions=ctx.functions)
    return mark(evaluate(expr, inner), marks)


_SPECIAL_FORMS: dict[str, Callable[[ast.FunctionCall, EvalContext, Evaluate], Any]] = {
    "try": _eval_try,
    "can": _eval_can,
    "templatestring": _eval_templatestring,
}
