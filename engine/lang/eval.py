"""The expression evaluator: turns an ``engine.lang.ast`` tree into a value.

It runs over every attribute of every resource (tens of thousands of evaluations per plan), so it
dispatches on ``type(node)`` through a dict instead of an ``isinstance`` chain, takes fast paths
for plain dicts and literal keys, and never copies scopes: a for-expression's scope is a child
context chained to its parent, whose bindings are updated in place from one element to the next.

Two kinds of value flow through every rule here: ``Unknown`` (known only after apply) makes any
result that depends on it unknown, and ``Marked`` (sensitive) marks any result derived from it,
so secrets can be masked wherever the result ends up.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.errors import CtlError, SourceRange
from engine.lang import ast
from engine.lang.operators import (
    LOGICAL_OPS,
    OperandError,
    binary,
    bool_operand,
    scalar_to_string,
    to_bool,
    to_number,
    unary,
)
from engine.lang.values import UNKNOWN, Unknown, contains_unknown, deep_unmark, mark, type_name, unmark

if TYPE_CHECKING:
    from engine.lang.functions import FunctionContext

_MISSING = object()


class EvalError(CtlError):
    """An expression could not be evaluated; ``range`` is the offending node's source range."""

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base}: {self.detail}" if self.detail else base


@dataclass(frozen=True, slots=True)
class Reference:
    """A name an expression reads, with its leading static steps (for the dependency graph)."""

    root: str
    parts: tuple[str | int, ...]
    rng: SourceRange


@dataclass(slots=True)
class EvalContext:
    """The names visible to an expression; ``child`` scopes chain to their parent without copying."""

    variables: dict[str, object]
    func_ctx: FunctionContext | None = None
    functions: dict[str, Callable[[list], object]] | None = None
    parent: EvalContext | None = None

    def child(self, bindings: dict[str, object]) -> EvalContext:
        """A nested scope (for-expression, template ``for``) that sees everything this one does."""
        return EvalContext(bindings, self.func_ctx, self.functions, self)

    def names(self) -> set[str]:
        """Every name visible here (only used to suggest a fix after a typo)."""
        out: set[str] = set()
        c: EvalContext | None = self
        while c is not None:
            out.update(c.variables)
            c = c.parent
        return out


def evaluate(expr: ast.Expr, ctx: EvalContext) -> Any:
    """The value of ``expr`` in ``ctx``; raises ``EvalError`` for anything the user got wrong."""
    fn = _DISPATCH.get(type(expr))
    if fn is None:
        raise EvalError(
            "Unsupported expression", detail=f"Cannot evaluate {type(expr).__name__}.", range=expr.rng
        )
    return fn(expr, ctx)


def render_template(template: ast.Template | ast.TemplateWrap, ctx: EvalContext) -> Any:
    """Render a parsed template file (``templatefile``); a lone ``${x}`` yields ``x`` unconverted."""
    return evaluate(template, ctx)


def _did_you_mean(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, sorted(candidates), n=1)
    return f'Did you mean "{close[0]}"?' if close else ""


# --- names, attributes and indexes ---------------------------------------------------------------


def _eval_scope(node: ast.ScopeTraversal, ctx: EvalContext) -> Any:
    name = node.root
    c: EvalContext | None = ctx
    while c is not None:
        v = c.variables.get(name, _MISSING)
        if v is not _MISSING:
            break
        c = c.parent
    else:
        raise EvalError(
            f'Reference to undeclared name "{name}"',
            hint=_did_you_mean(name, ctx.names()),
            range=node.rng,
        )
    for step in node.steps:
        v = _step(v, step, ctx)
    return v


def _eval_relative(node: ast.RelativeTraversal, ctx: EvalContext) -> Any:
    v = evaluate(node.source, ctx)
    for step in node.steps:
        v = _step(v, step, ctx)
    return v


def _step(v: Any, step: ast.Step, ctx: EvalContext) -> Any:
    if isinstance(step, ast.AttrStep):
        if type(v) is dict:
            r = v.get(step.name, _MISSING)
            if r is not _MISSING:
                return r
        return _get_attr(v, step)
    key = step.key
    k = key.value if type(key) is ast.Literal else evaluate(key, ctx)
    return index_value(v, k, step.rng)


def _get_attr(value: Any, step: ast.AttrStep) -> Any:
    v, marks = unmark(value)
    name = step.name
    if isinstance(v, Unknown):
        return mark(UNKNOWN, marks)
    if isinstance(v, dict):
        if name in v:
            return mark(v[name], marks)
        raise EvalError(
            "Unsupported attribute",
            detail=f'This object does not have an attribute named "{name}".',
            hint="" if marks else _did_you_mean(name, v.keys()),
            range=step.rng,
        )
    if v is None:
        raise EvalError(
            "Attempt to get attribute from null value",
            detail="This value is null, so it does not have any attributes.",
            range=step.rng,
        )
    if isinstance(v, list):
        if name.isdigit():  # legacy ``list.0`` form
            return index_value(value, int(name), step.rng)
        raise EvalError(
            "Unsupported attribute",
            detail="Can't access attributes on a list of objects. Did you mean to access an attribute "
            "for a specific element of the list, or across all elements of the list?",
            hint=f"Use [0].{name} for one element or [*].{name} for all of them.",
            range=step.rng,
        )
    raise EvalError(
        "Unsupported attribute",
        detail=f"Can't access attributes on a primitive-typed value ({type_name(v)}).",
        range=step.rng,
    )


def index_value(collection: Any, key: Any, rng: SourceRange) -> Any:
    """``collection[key]`` with HCL's rules: list indexes are whole numbers (numeric strings too),
    map keys are strings (numbers and bools converted); marks on either side mark the element."""
    c, cmarks = unmark(collection)
    k, kmarks = unmark(key)
    marks = cmarks | kmarks
    if isinstance(c, Unknown) or isinstance(k, Unknown):
        return mark(UNKNOWN, marks)
    if c is None:
        raise EvalError(
            "Attempt to index null value",
            detail="This value is null, so it does not have any indices.",
            range=rng,
        )
    if k is None:
        raise EvalError("Invalid index", detail="Can't use a null value as an indexing key.", range=rng)
    if isinstance(c, list):
        return mark(c[_list_position(c, k, rng)], marks)
    if isinstance(c, dict):
        s = scalar_to_string(k)
        if s is None:
            raise EvalError(
                "Invalid index",
                detail="The given key does not identify an element in this collection value: string required.",
                range=rng,
            )
        if s in c:
            return mark(c[s], marks)
        shown = "the given key" if marks else f'no key "{s}"'  # never echo part of a secret
        raise EvalError(
            "Invalid index",
            detail=f"The given key does not identify an element in this collection value: {shown}.",
            hint="" if marks else _did_you_mean(s, c.keys()),
            range=rng,
        )
    raise EvalError(
        "Invalid index", detail=f"This value does not have any indices ({type_name(c)}).", range=rng
    )


def _list_position(c: list, k: Any, rng: SourceRange) -> int:
    n = to_number(k)
    if n is None or (isinstance(n, float) and not n.is_integer()):
        raise EvalError(
            "Invalid index",
            detail="The given key does not identify an element in this collection value: "
            "a whole number is required.",
            range=rng,
        )
    i = int(n)
    if i < 0:
        detail = "a negative number is not a valid index for a sequence."
    elif i >= len(c):
        detail = f"the collection has {len(c)} element{'s' if len(c) != 1 else ''}."
    else:
        return i
    raise EvalError(
        "Invalid index",
        detail=f"The given key does not identify an element in this collection value: {detail}",
        range=rng,
    )


def _eval_splat(node: ast.Splat, ctx: EvalContext) -> Any:
    src, marks = unmark(evaluate(node.source, ctx))
    if isinstance(src, Unknown):
        return mark(UNKNOWN, marks)
    if src is None:
        return mark([], marks)
    items = src if isinstance(src, list) else [src]
    out = []
    for item in items:
        v = item
        for step in node.each:
            v = _step(v, step, ctx)
        out.append(v)
    return mark(out, marks)


# --- operators and conditionals ------------------------------------------------------------------


def _operand_error(e: OperandError, node: ast.BinaryOp | ast.UnaryOp) -> EvalError:
    if isinstance(node, ast.UnaryOp):
        rng = node.operand.rng
    else:
        rng = {"left": node.left.rng, "right": node.right.rng}.get(e.side, node.rng)
    return EvalError(e.summary, detail=e.detail, range=rng)


def _eval_binary(node: ast.BinaryOp, ctx: EvalContext) -> Any:
    if node.op in LOGICAL_OPS:
        return _eval_logical(node, ctx)
    left = evaluate(node.left, ctx)
    right = evaluate(node.right, ctx)
    try:
        return binary(node.op, left, right)
    except OperandError as e:
        raise _operand_error(e, node) from None


def _eval_logical(node: ast.BinaryOp, ctx: EvalContext) -> Any:
    """``&&``/``||`` short-circuit left to right, so ``x != null && x.a`` is safe when x is null."""
    is_and = node.op == "&&"
    try:
        lv, lmarks = unmark(evaluate(node.left, ctx))
        lb = bool_operand(lv, "left")
        if lb is (not is_and):
            return mark(lb, lmarks)
        rv, rmarks = unmark(evaluate(node.right, ctx))
        rb = bool_operand(rv, "right")
    except OperandError as e:
        raise _operand_error(e, node) from None
    if isinstance(rb, Unknown):
        result: Any = Unknown("bool")
    elif isinstance(lb, Unknown):
        result = rb if rb is (not is_and) else Unknown("bool")
    else:
        result = rb
    return mark(result, lmarks | rmarks)


def _eval_unary(node: ast.UnaryOp, ctx: EvalContext) -> Any:
    try:
        return unary(node.op, evaluate(node.operand, ctx))
    except OperandError as e:
        raise _operand_error(e, node) from None


def _condition(value: Any, node: ast.Expr, what: str) -> tuple[bool | Unknown, frozenset[str]]:
    """A condition's value as a bool (or unknown) and its marks; null or non-bool is an error."""
    v, marks = unmark(value)
    if isinstance(v, Unknown):
        return v, marks
    if v is None:
        raise EvalError(
            "Null condition", detail=f"The {what} is null; it must be true or false.", range=node.rng
        )
    b = to_bool(v)
    if b is None:
        raise EvalError(
            "Incorrect condition type",
            detail=f"The {what} must be of type bool, not {type_name(v)}.",
            range=node.rng,
        )
    return b, marks


def _eval_conditional(node: ast.Conditional, ctx: EvalContext) -> Any:
    b, marks = _condition(evaluate(node.cond, ctx), node.cond, "condition expression")
    if isinstance(b, Unknown):
        return mark(UNKNOWN, marks)
    return mark(evaluate(node.true if b else node.false, ctx), marks)


# --- constructors and for-expressions ------------------------------------------------------------


def _eval_tuple(node: ast.TupleCons, ctx: EvalContext) -> list:
    return [evaluate(item, ctx) for item in node.items]


def _key_string(value: Any, node: ast.Expr, what: str) -> str:
    if value is None:
        raise EvalError("Invalid object key", detail=f"The {what} must not be null.", range=node.rng)
    s = scalar_to_string(value)
    if s is None:
        raise EvalError(
            "Invalid object key",
            detail=f"The {what} must be a string, not {type_name(value)}.",
            range=node.rng,
        )
    return s


def _eval_object(node: ast.ObjectCons, ctx: EvalContext) -> Any:
    out: dict[str, Any] = {}
    marks: frozenset[str] = frozenset()
    unknown = False
    for item in node.items:
        kn = item.key
        if type(kn) is ast.Literal and type(kn.value) is str:
            key = kn.value
        else:
            k, kmarks = unmark(evaluate(kn, ctx))
            marks |= kmarks
            if isinstance(k, Unknown):
                unknown = True
                evaluate(item.value, ctx)
                continue
            key = _key_string(k, kn, "object key")
        out[key] = evaluate(item.value, ctx)
    if unknown:
        return mark(UNKNOWN, marks)
    return mark(out, marks)


def _iteration(coll: Any, node: ast.Expr, what: str) -> Iterable[tuple[Any, Any]]:
    """(key, value) pairs of a for/template-for collection: list index order, sorted map keys."""
    if isinstance(coll, list):
        return enumerate(coll)
    if isinstance(coll, dict):
        return ((k, coll[k]) for k in sorted(coll))
    if coll is None:
        raise EvalError(
            "Iteration over null value",
            detail=f"A null value cannot be used as the collection in a {what}.",
            range=node.rng,
        )
    raise EvalError(
        "Iteration over non-iterable value",
        detail=f"A value of type {type_name(coll)} cannot be used as the collection in a {what}.",
        range=node.rng,
    )


def _eval_for(node: ast.ForExpr, ctx: EvalContext) -> Any:
    coll, marks = unmark(evaluate(node.collection, ctx))
    if isinstance(coll, Unknown):
        return mark(UNKNOWN, marks)
    pairs = _iteration(coll, node.collection, "'for' expression")
    bindings: dict[str, object] = {}
    scope = ctx.child(bindings)
    key_var, value_var, key_expr = node.key_var, node.value_var, node.key_expr
    out_list: list = []
    out_map: dict[str, Any] = {}
    for k, v in pairs:
        if key_var is not None:
            bindings[key_var] = k
        bindings[value_var] = v
        if node.cond is not None:
            keep, cmarks = _condition(
                evaluate(node.cond, scope), node.cond, "'if' clause of a 'for' expression"
            )
            marks |= cmarks
            if isinstance(keep, Unknown):
                return mark(UNKNOWN, marks)
            if not keep:
                continue
        if key_expr is None:
            out_list.append(evaluate(node.value_expr, scope))
            continue
        kv, kmarks = unmark(evaluate(key_expr, scope))
        marks |= kmarks
        if isinstance(kv, Unknown):
            return mark(UNKNOWN, marks)
        key = _key_string(kv, key_expr, "key expression of a 'for' expression")
        val = evaluate(node.value_expr, scope)
        if node.group:
            out_map.setdefault(key, []).append(val)
        elif key in out_map:
            raise EvalError(
                "Duplicate object key",
                detail=f"Two different items produced the key \"{key}\" in this 'for' expression.",
                hint="If duplicates are expected, add an ellipsis (...) after the value expression "
                "to group the values by key.",
                range=key_expr.rng,
            )
        else:
            out_map[key] = val
    return mark(out_list if key_expr is None else out_map, marks)


# --- templates -----------------------------------------------------------------------------------


class _Rendered:
    """What a template has produced so far: text pieces, marks seen, and whether anything was unknown."""

    __slots__ = ("marks", "out", "unknown")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.marks: frozenset[str] = frozenset()
        self.unknown = False


def _eval_template(node: ast.Template, ctx: EvalContext) -> Any:
    parts = node.parts
    if len(parts) == 1 and type(parts[0]) is str:
        return parts[0]
    acc = _Rendered()
    _render(parts, ctx, acc)
    if acc.unknown:
        return mark(Unknown("string"), acc.marks)
    return mark("".join(acc.out), acc.marks)


def _render(parts: tuple[ast.TemplatePart, ...], ctx: EvalContext, acc: _Rendered) -> None:
    for p in parts:
        tp = type(p)
        if tp is str:
            acc.out.append(p)  # type: ignore[arg-type]
        elif tp is ast.TemplateIf:
            _render_if(p, ctx, acc)  # type: ignore[arg-type]
        elif tp is ast.TemplateFor:
            _render_for(p, ctx, acc)  # type: ignore[arg-type]
        else:
            _interpolate(evaluate(p, ctx), p, acc)  # type: ignore[arg-type]


def _interpolate(value: Any, node: ast.Expr, acc: _Rendered) -> None:
    v, marks = unmark(value)
    acc.marks |= marks
    if isinstance(v, Unknown):
        acc.unknown = True
        return
    if v is None:
        raise EvalError(
            "Invalid template interpolation value",
            detail="The expression result is null. Cannot include a null value in a string template.",
            range=node.rng,
        )
    s = scalar_to_string(v)
    if s is None:
        raise EvalError(
            "Invalid template interpolation value",
            detail=f"Cannot include the given value in a string template: string required, not {type_name(v)}.",
            range=node.rng,
        )
    acc.out.append(s)


def _render_if(part: ast.TemplateIf, ctx: EvalContext, acc: _Rendered) -> None:
    b, marks = _condition(evaluate(part.cond, ctx), part.cond, "condition of an 'if' directive")
    acc.marks |= marks
    if isinstance(b, Unknown):
        acc.unknown = True
        return
    _render(part.then if b else part.otherwise, ctx, acc)


def _render_for(part: ast.TemplateFor, ctx: EvalContext, acc: _Rendered) -> None:
    coll, marks = unmark(evaluate(part.collection, ctx))
    acc.marks |= marks
    if isinstance(coll, Unknown):
        acc.unknown = True
        return
    bindings: dict[str, object] = {}
    scope = ctx.child(bindings)
    for k, v in _iteration(coll, part.collection, "'for' directive"):
        if part.key_var is not None:
            bindings[part.key_var] = k
        bindings[part.value_var] = v
        _render(part.body, scope, acc)


def _eval_inner(node: ast.TemplateWrap | ast.Parens, ctx: EvalContext) -> Any:
    return evaluate(node.inner, ctx)


def _eval_literal(node: ast.Literal, ctx: EvalContext) -> Any:
    return node.value


# --- function calls ------------------------------------------------------------------------------


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
    return EvalError(
        "Call to unknown function",
        detail=f'There is no function named "{node.name}".',
        hint=_did_you_mean(node.name, names),
        range=node.rng,
    )


def _eval_call(node: ast.FunctionCall, ctx: EvalContext) -> Any:
    special = _SPECIAL_FORMS.get(node.name)
    if special is not None:
        return special(node, ctx)
    if node.name.startswith("provider::"):
        return _eval_provider_call(node, ctx)
    fns = ctx.functions
    fn: Callable[[list], object] | None = None
    if fns is not None:
        fn = fns.get(node.name)
        if fn is None:
            raise _unknown_function(node, fns)
    elif node.name not in _library_names():
        current = frozenset(_library()[1]())
        if node.name not in current:
            raise _unknown_function(node, current)
    args = _call_args(node, ctx)
    if isinstance(args, Unknown):
        return args
    try:
        if fn is not None:
            return fn(args)
        return _library()[0](node.name, args, ctx.func_ctx)
    except EvalError:
        raise
    except _error_types(ctx) as e:
        raise _function_error(e, node) from None


def _eval_provider_call(node: ast.FunctionCall, ctx: EvalContext) -> Any:
    """``provider::NAME::FUNC(...)``: a function the provider plugin defines, run by the provider."""
    find = ctx.func_ctx.provider_function if ctx.func_ctx is not None else None
    fn = find(node.name) if find is not None else None
    if fn is None:
        raise EvalError("Call to unknown function", range=node.rng,
                        detail=f'There is no function named "{node.name}".',
                        hint="Provider functions come from provider plugins (protocol 5.5/6.5 or later) "
                             "selected by `ctl init`; `ctl providers schema --json` lists them.")
    args = _call_args(node, ctx)
    if isinstance(args, Unknown):
        return args
    try:
        return fn(args)
    except EvalError:
        raise
    except CtlError as e:
        raise _function_error(e, node) from None


def _call_args(node: ast.FunctionCall, ctx: EvalContext) -> list | Unknown:
    """Evaluated arguments, with ``f(a, list...)`` spreading the final list; unknown spread -> unknown."""
    args = [evaluate(a, ctx) for a in node.args]
    if not node.expand_final or not args:
        return args
    last, marks = unmark(args.pop())
    if isinstance(last, Unknown):
        return mark(UNKNOWN, marks)
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
    idx = getattr(e, "arg_index", None)
    rng = node.rng
    if isinstance(idx, int) and idx >= 0 and node.args:
        if idx < len(node.args):
            rng = node.args[idx].rng
        elif node.expand_final:
            rng = node.args[-1].rng
    summary = getattr(e, "summary", None) or str(e)
    extra = getattr(e, "detail", "")
    message = f"{summary}: {extra}" if extra else summary
    return EvalError(
        "Invalid function argument" if isinstance(idx, int) else "Error in function call",
        detail=f'Call to function "{node.name}" failed: {message}',
        hint=getattr(e, "hint", ""),
        range=rng,
    )


def _eval_try(node: ast.FunctionCall, ctx: EvalContext) -> Any:
    """``try(a, b, ...)``: the first argument that evaluates without error.

    An argument that depends on unknown values might still fail once they are known, so the
    result is then unknown rather than a guess.
    """
    if not node.args:
        raise EvalError(
            "Invalid function argument", detail='Function "try" needs at least one argument.', range=node.rng
        )
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


def _eval_can(node: ast.FunctionCall, ctx: EvalContext) -> Any:
    """``can(x)``: whether ``x`` evaluates without error (unknown while it depends on unknowns)."""
    if len(node.args) != 1:
        raise EvalError(
            "Invalid function argument", detail='Function "can" takes exactly one argument.', range=node.rng
        )
    try:
        v = evaluate(node.args[0], ctx)
    except EvalError:
        return False
    if contains_unknown(v):
        return Unknown("bool")
    return True


_SPECIAL_FORMS: dict[str, Callable[[ast.FunctionCall, EvalContext], Any]] = {
    "try": _eval_try,
    "can": _eval_can,
}


# --- references ----------------------------------------------------------------------------------


def references(expr: ast.Expr) -> list[Reference]:
    """Every name ``expr`` reads, in source order, except names bound by enclosing ``for``s."""
    out: list[Reference] = []
    _collect(expr, frozenset(), out)
    return out


def _static_parts(steps: tuple[ast.Step, ...]) -> tuple[str | int, ...]:
    parts: list[str | int] = []
    for s in steps:
        if isinstance(s, ast.AttrStep):
            parts.append(s.name)
            continue
        key = s.key
        if type(key) is not ast.Literal:
            break
        v = key.value
        if isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
            parts.append(v)
        elif isinstance(v, float) and v.is_integer():
            parts.append(int(v))
        else:
            break
    return tuple(parts)


def _collect_steps(steps: tuple[ast.Step, ...], bound: frozenset[str], out: list[Reference]) -> None:
    for s in steps:
        if type(s) is ast.IndexStep:
            _collect(s.key, bound, out)


def _collect(node: Any, bound: frozenset[str], out: list[Reference]) -> None:
    t = type(node)
    if t is ast.Literal or t is str:
        return
    if t is ast.ScopeTraversal:
        if node.root not in bound:
            out.append(Reference(node.root, _static_parts(node.steps), node.rng))
        _collect_steps(node.steps, bound, out)
    elif t is ast.RelativeTraversal or t is ast.Splat:
        _collect(node.source, bound, out)
        _collect_steps(node.steps if t is ast.RelativeTraversal else node.each, bound, out)
    elif t is ast.ForExpr or t is ast.TemplateFor:
        _collect(node.collection, bound, out)
        inner = bound | {n for n in (node.key_var, node.value_var) if n is not None}
        if t is ast.TemplateFor:
            for p in node.body:
                _collect(p, inner, out)
        else:
            for sub in (node.key_expr, node.value_expr, node.cond):
                if sub is not None:
                    _collect(sub, inner, out)
    elif t is ast.TemplateIf:
        for p in (node.cond, *node.then, *node.otherwise):
            _collect(p, bound, out)
    else:
        for child in _CHILDREN.get(t, _no_children)(node):
            _collect(child, bound, out)


def _no_children(node: Any) -> tuple[()]:
    return ()


_CHILDREN: dict[type, Callable[[Any], Iterable[Any]]] = {
    ast.FunctionCall: lambda n: n.args,
    ast.Conditional: lambda n: (n.cond, n.true, n.false),
    ast.BinaryOp: lambda n: (n.left, n.right),
    ast.UnaryOp: lambda n: (n.operand,),
    ast.TupleCons: lambda n: n.items,
    ast.ObjectCons: lambda n: [x for it in n.items for x in (it.key, it.value)],
    ast.Template: lambda n: n.parts,
    ast.TemplateWrap: lambda n: (n.inner,),
    ast.Parens: lambda n: (n.inner,),
}

_DISPATCH: dict[type, Callable[[Any, EvalContext], Any]] = {
    ast.Literal: _eval_literal,
    ast.ScopeTraversal: _eval_scope,
    ast.RelativeTraversal: _eval_relative,
    ast.Splat: _eval_splat,
    ast.FunctionCall: _eval_call,
    ast.Conditional: _eval_conditional,
    ast.BinaryOp: _eval_binary,
    ast.UnaryOp: _eval_unary,
    ast.TupleCons: _eval_tuple,
    ast.ObjectCons: _eval_object,
    ast.ForExpr: _eval_for,
    ast.Template: _eval_template,
    ast.TemplateWrap: _eval_inner,
    ast.Parens: _eval_inner,
}
