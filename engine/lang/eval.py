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

from collections.abc import Callable
from typing import Any

from engine.lang import ast, calls, template_eval, traversal
from engine.lang.evaluation import CallsUnknown, EvalContext, EvalError, condition, iteration
from engine.lang.operators import (
    LOGICAL_OPS,
    OperandError,
    binary,
    bool_operand,
    scalar_to_string,
    unary,
)
from engine.lang.references import Reference, references
from engine.lang.types import ConversionError, convert, from_cty
from vocab import types as cty
from vocab.errors import CtlError
from vocab.unify import unify
from vocab.values import UNKNOWN, Null, Unknown, mark, type_name, unmark


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


# --- operators and conditionals ------------------------------------------------------------------


def _operand_error(e: OperandError, node: ast.BinaryOp | ast.UnaryOp) -> EvalError:
    if not e.side:  # the operation itself failed
        rng = node.rng
    elif isinstance(node, ast.UnaryOp):
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


def _eval_conditional(node: ast.Conditional, ctx: EvalContext) -> Any:
    b, marks = condition(evaluate(node.cond, ctx), node.cond)
    if isinstance(b, Unknown):
        return mark(_unknown_result(node, ctx), marks)
    chosen, other = (node.true, node.false) if b else (node.false, node.true)
    return mark(_unified_with(evaluate(chosen, ctx), other, node, ctx), marks)


_SCALARS = frozenset({str, int, float, bool})


def _mismatch(true_type: cty.CtyType, false_type: cty.CtyType) -> str:
    """Where two result types part, as HCL describes it: the first object attribute one side lacks
    or has of another type, the tuples' lengths or first differing element, else both types."""
    if isinstance(true_type, cty.ObjectType) and isinstance(false_type, cty.ObjectType):
        ours, theirs = true_type.attributes, false_type.attributes
        for name in sorted(ours):
            if name not in theirs:
                return f"The 'true' value includes object attribute \"{name}\", which is absent in the 'false' value"
            if ours[name] != theirs[name]:
                return f'Type mismatch for object attribute "{name}": {_mismatch(ours[name], theirs[name])}'
        for name in sorted(theirs.keys() - ours.keys()):
            return f"The 'false' value includes object attribute \"{name}\", which is absent in the 'true' value"
    if isinstance(true_type, cty.TupleType) and isinstance(false_type, cty.TupleType):
        if len(true_type.elements) != len(false_type.elements):
            return (f"The 'true' tuple has length {len(true_type.elements)}, but the 'false' tuple has length "
                    f"{len(false_type.elements)}")
        for index, (left, right) in enumerate(zip(true_type.elements, false_type.elements, strict=True)):
            if left != right:
                return f"Type mismatch for tuple element {index}: {_mismatch(left, right)}"
    return f"The 'true' value is {true_type.friendly_name}, but the 'false' value is {false_type.friendly_name}"


def _result_types(node: ast.Conditional, values: tuple[Any, Any]) -> cty.CtyType:
    """The type both results unify to, by cty's rules: ``false ? "a" : 1`` is a string, a tuple beside
    a set a set, a tuple beside an object an error. A null result takes the other's type."""
    true_type, false_type = (cty.type_of_value(v) for v in values)
    found = unify((true_type, false_type))
    if found is None:
        raise EvalError(
            "Inconsistent conditional result types",
            detail="The true and false result expressions must have consistent types. "
                   f"{_mismatch(true_type, false_type)}.",
            hint="Convert one result to the other's type (tostring(), tolist(), tomap()), or make both the same kind.",
            range=node.true.rng.to(node.false.rng),
        )
    return found


def _other_result(other: ast.Expr, ctx: EvalContext) -> Any:
    """The result not chosen: its errors are not this expression's (HCL reports the chosen result's
    only), so a result that fails counts as a value of any type, as HCL's ``DynamicVal`` does."""
    try:
        return evaluate(other, ctx)
    except CtlError:
        return UNKNOWN


def _unknown_result(node: ast.Conditional, ctx: EvalContext) -> Any:
    """An unknown condition: unknown, of the type both results unify to, which must exist."""
    values = (_other_result(node.true, ctx), _other_result(node.false, ctx))
    found = _result_types(node, values)
    return UNKNOWN if found is cty.DYNAMIC else Unknown(cty.type_string(found))


def _unified_with(value: Any, other: ast.Expr, node: ast.Conditional, ctx: EvalContext) -> Any:
    """The chosen result converted to the type both results unify to, as HCL does.

    ``false ? "a" : 1`` is the string ``"1"``: a number or bool beside a string becomes a string.
    ``var.on ? toset(local.names) : []`` is a set either way, so ``for_each`` accepts it: a tuple
    beside a set becomes a set. ``true ? [1] : {a = 1}`` is an error, as in Terraform.
    """
    other_value = _other_result(other, ctx)
    if (type(value) is type(other_value) and type(value) in _SCALARS) or other_value is None:
        return value
    values = (value, other_value) if node.true is not other else (other_value, value)
    found = _result_types(node, values)
    if found is cty.DYNAMIC:
        return value
    if value is None:  # ``true ? null : "a"`` is a null string
        return Null(found)
    try:
        return convert(value, from_cty(found))
    except ConversionError as e:
        raise EvalError(
            "Inconsistent conditional result types",
            detail=f"The {'false' if node.true is other else 'true'} result value has the wrong type: {e.summary}.",
            range=(node.false if node.true is other else node.true).rng,
        ) from None


# --- constructors and for-expressions ------------------------------------------------------------


def _eval_tuple(node: ast.TupleCons, ctx: EvalContext) -> list[Any]:
    return [item.value if type(item) is ast.Literal else evaluate(item, ctx) for item in node.items]


def _key_string(value: Any, node: ast.Expr, holder: ast.Expr | None) -> str:
    """An object key as a string, or HCL's error: for an object constructor's key (its value,
    ``holder``, is where a null key is shown), else for a ``for`` expression's key."""
    s = None if value is None else scalar_to_string(value)
    if s is not None:
        return s
    reason = "string required, but have " + type_name(value)
    if holder is not None:
        if value is None:
            raise EvalError("Null value as key", detail="Can't use a null value as a key.", range=holder.rng)
        raise EvalError("Incorrect key type", detail=f"Can't use this value as a key: {reason}.", range=node.rng)
    if value is None:
        raise EvalError("Invalid object key", detail="Key expression in 'for' expression must not produce a null value.",
                        range=node.rng)
    raise EvalError("Invalid object key", detail=f"The key expression produced an invalid result: {reason}.",
                    range=node.rng)


def _eval_object(node: ast.ObjectCons, ctx: EvalContext) -> Any:
    out: dict[str, Any] = {}
    marks: frozenset[str] = frozenset()
    unknown = False
    for item in node.items:
        name = item.name
        if name is not None:
            key = name
        else:
            kn = item.key
            k, kmarks = unmark(evaluate(kn, ctx))
            marks |= kmarks
            if isinstance(k, Unknown):
                unknown = True
                evaluate(item.value, ctx)
                continue
            key = _key_string(k, kn, item.value)
        value = item.value
        out[key] = value.value if type(value) is ast.Literal else evaluate(value, ctx)  # most leaves: no call
    if unknown:
        return mark(UNKNOWN, marks)
    return mark(out, marks)


def _eval_for(node: ast.ForExpr, ctx: EvalContext) -> Any:
    coll, marks = unmark(evaluate(node.collection, ctx))
    if isinstance(coll, Unknown):
        return mark(UNKNOWN, marks)
    pairs = iteration(coll, node.collection, "'for' expression")
    bindings: dict[str, object] = {}
    scope = ctx.child(bindings)
    key_var, value_var, key_expr = node.key_var, node.value_var, node.key_expr
    out_list: list[Any] = []
    out_map: dict[str, Any] = {}
    for k, v in pairs:
        if key_var is not None:
            bindings[key_var] = k
        bindings[value_var] = v
        if node.cond is not None:
            keep, cmarks = condition(evaluate(node.cond, scope), node.cond, for_clause=True)
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
        key = _key_string(kv, key_expr, None)
        val = evaluate(node.value_expr, scope)
        if node.group:
            out_map.setdefault(key, []).append(val)
        elif key in out_map:
            raise EvalError(
                "Duplicate object key",
                detail=f"Two different items produced the key \"{key}\" in this 'for' expression. If duplicates are "
                       "expected, use the ellipsis (...) after the value expression to enable grouping by key.",
                hint="If duplicates are expected, add an ellipsis (...) after the value expression "
                "to group the values by key.",
                range=key_expr.rng,
            )
        else:
            out_map[key] = val
    return mark(out_list if key_expr is None else out_map, marks)


def _eval_inner(node: ast.TemplateWrap | ast.Parens, ctx: EvalContext) -> Any:
    return evaluate(node.inner, ctx)


def _eval_literal(node: ast.Literal, ctx: EvalContext) -> Any:
    return node.value


# Function calls, templates and traversals are rules of their own modules, handed ``evaluate`` for
# their sub-expressions (``engine.lang.evaluation.Evaluate``); bound once here, as the dispatch is
# the evaluator's hottest path.
_scope, _relative, _splat = traversal.eval_scope, traversal.eval_relative, traversal.eval_splat
_call, _template = calls.eval_call, template_eval.eval_template

_DISPATCH: dict[type, Callable[[Any, EvalContext], Any]] = {
    ast.Literal: _eval_literal,
    ast.ScopeTraversal: lambda node, ctx: _scope(node, ctx, evaluate),
    ast.RelativeTraversal: lambda node, ctx: _relative(node, ctx, evaluate),
    ast.Splat: lambda node, ctx: _splat(node, ctx, evaluate),
    ast.FunctionCall: lambda node, ctx: _call(node, ctx, evaluate),
    ast.Conditional: _eval_conditional,
    ast.BinaryOp: _eval_binary,
    ast.UnaryOp: _eval_unary,
    ast.TupleCons: _eval_tuple,
    ast.ObjectCons: _eval_object,
    ast.ForExpr: _eval_for,
    ast.Template: lambda node, ctx: _template(node, ctx, evaluate),
    ast.TemplateWrap: _eval_inner,
    ast.Parens: _eval_inner,
}

__all__ = ["CallsUnknown", "EvalContext", "EvalError", "Reference", "evaluate", "references", "render_template"]
