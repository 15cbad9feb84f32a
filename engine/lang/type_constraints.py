"""Type constraints as users write them (``type = list(object({a = optional(string, "x")}))``),
parsed from the expression tree into the types of ``engine.lang.types``.

A constraint is syntax, never evaluated (``list(string)`` is not a function call), except for the
default of an ``optional`` attribute: a constant, evaluated once here with no names or functions in
scope and converted to its type. So this module sits above the evaluator, which itself converts
with ``engine.lang.types`` and must not import the parser back.
"""

from __future__ import annotations

from typing import Any

from engine.lang import ast
from engine.lang.eval import EvalContext, evaluate
from engine.lang.types import (
    ANY,
    COLLECTIONS,
    KEYWORDS,
    ConversionError,
    ObjectType,
    TupleType,
    Type,
    convert,
)
from vocab.errors import CtlError


class TypeConstraintError(CtlError):
    """A ``type = ...`` argument is not a valid type constraint."""


def _invalid(expr: ast.Expr, detail: str, hint: str = "") -> TypeConstraintError:
    return TypeConstraintError("Invalid type specification", detail=detail, hint=hint, range=expr.rng)


def parse_type(expr: ast.Expr) -> Type:
    """The type constraint written as ``expr`` (the value of a ``type`` argument)."""
    if type(expr) is ast.Parens:
        return parse_type(expr.inner)
    if type(expr) is ast.ScopeTraversal and not expr.steps:
        return _parse_keyword(expr)
    if type(expr) is ast.FunctionCall:
        return _parse_call(expr)
    if type(expr) in (ast.Literal, ast.Template, ast.TemplateWrap):
        raise TypeConstraintError(
            "Invalid quoted type constraints",
            detail="Type constraints are written as keywords and type constructors, not strings.",
            hint="Remove the quotes, e.g. type = string or type = list(string).",
            range=expr.rng,
        )
    raise _invalid(
        expr,
        "A type is a keyword (string, number, bool, any) or a type constructor such as list(string).",
    )


def parse_variable_type(expr: ast.Expr) -> Type:
    """A variable's ``type``: as ``parse_type``, plus the bare ``list`` and ``map`` of Terraform 0.11.

    Terraform still reads those two (not ``set``, and only as the whole type) as ``list(any)`` and
    ``map(any)``, so older modules declare them; ``fmt`` rewrites them to the modern spelling.
    """
    if type(expr) is ast.ScopeTraversal and not expr.steps and expr.root in _LEGACY_BARE:
        return COLLECTIONS[expr.root](ANY)
    return parse_type(expr)


_LEGACY_BARE = ("list", "map")


def _parse_keyword(expr: ast.ScopeTraversal) -> Type:
    name = expr.root
    if name in KEYWORDS:
        return KEYWORDS[name]
    if name in COLLECTIONS:
        raise _invalid(
            expr, f'The "{name}" type needs its element type.', hint=f"Write {name}(any) or {name}(string)."
        )
    if name in ("object", "tuple", "optional"):
        raise _invalid(expr, f'The "{name}" type constructor needs an argument.')
    raise _invalid(expr, f'The keyword "{name}" is not a valid type specification.')


def _single_arg(expr: ast.FunctionCall) -> ast.Expr:
    """The one argument of ``list(…)``, ``object(…)`` and the like; a second one is refused where it
    is written, as HCL refuses it."""
    if expr.expand_final or len(expr.args) != 1:
        what = "the element type" if expr.name in COLLECTIONS else "the attribute types" if expr.name == "object" \
            else "the element types" if expr.name == "tuple" else "the type"
        at = expr.args[1] if len(expr.args) > 1 else expr
        raise _invalid(at, f"The {expr.name} type constructor requires one argument specifying {what}.")
    return expr.args[0]


def _parse_call(expr: ast.FunctionCall) -> Type:
    name = expr.name
    if name in COLLECTIONS:
        return COLLECTIONS[name](parse_type(_single_arg(expr)))
    if name == "object":
        return _parse_object(_single_arg(expr))
    if name == "tuple":
        arg = _single_arg(expr)
        if not isinstance(arg, ast.TupleCons):
            raise _invalid(
                arg, "The tuple type constructor requires a list of element types: tuple([string, number])."
            )
        return TupleType(tuple(parse_type(e) for e in arg.items))
    if name == "optional":
        raise _invalid(expr, 'The keyword "optional" is valid only as a modifier for object type attributes.')
    raise _invalid(expr, f'Keyword "{name}" is not a valid type constructor.')


def _attr_name(key: ast.Expr) -> str | None:
    if isinstance(key, ast.Literal) and isinstance(key.value, str):
        return key.value
    if isinstance(key, ast.ScopeTraversal) and not key.steps:
        return key.root
    return None


def _parse_object(arg: ast.Expr) -> ObjectType:
    if not isinstance(arg, ast.ObjectCons):
        raise _invalid(
            arg, "The object type constructor requires an object of attribute types: object({name = string})."
        )
    attrs: dict[str, Type] = {}
    optional: dict[str, Any] = {}
    for item in arg.items:
        name = _attr_name(item.key)
        if name is None:
            raise _invalid(item.key, "Object type attribute names must be plain identifiers.")
        if name in attrs:
            raise _invalid(item.key, f'The attribute "{name}" is declared more than once.')
        value = item.value
        if isinstance(value, ast.FunctionCall) and value.name == "optional":
            attrs[name], optional[name] = _parse_optional(value)
        else:
            attrs[name] = parse_type(value)
    return ObjectType(attrs, optional)


def _parse_optional(expr: ast.FunctionCall) -> tuple[Type, Any]:
    """``optional(T)`` or ``optional(T, default)``; the default is a constant, converted to ``T`` now."""
    if expr.expand_final or not 1 <= len(expr.args) <= 2:
        raise _invalid(expr, 'The "optional" modifier takes a type and, optionally, a default value.')
    t = parse_type(expr.args[0])
    if len(expr.args) == 1:
        return t, None
    default_expr = expr.args[1]
    raw = evaluate(default_expr, EvalContext({}, functions={}))
    try:
        return t, convert(raw, t)
    except ConversionError as e:
        raise TypeConstraintError(
            "Invalid default value for optional attribute",
            detail=f"The default value does not fit {t}: {e.summary}.",
            range=default_expr.rng,
        ) from None
