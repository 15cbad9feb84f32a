"""Names, attributes, indexes and splats: ``var.x``, ``a.b[0]``, ``list[*].name``.

A rule of the evaluator: ``engine.lang.eval`` dispatches traversal and splat nodes here and hands
over ``evaluate`` for index keys and sources; import the evaluator, not this module.
"""

from __future__ import annotations

from typing import Any

from engine.lang import ast, numbers
from engine.lang.evaluation import MISSING, EvalContext, EvalError, Evaluate, did_you_mean
from engine.lang.operators import scalar_to_string, to_number
from engine.lang.references import MANAGED_PREFIX
from vocab import types as cty
from vocab.errors import SourceRange
from vocab.values import UNKNOWN, MapValue, SetValue, Unknown, mark, type_name, unmark

# --- names, attributes and indexes ---------------------------------------------------------------


def eval_scope(node: ast.ScopeTraversal, ctx: EvalContext, evaluate: Evaluate) -> Any:
    """A name and the attributes and indexes after it: ``var.x``, ``aws_s3_bucket.b["k"].arn``."""
    name, steps = node.root, node.steps
    v = _lookup(name, ctx)
    if v is MISSING and name == MANAGED_PREFIX and steps and isinstance(steps[0], ast.AttrStep):
        name, steps = steps[0].name, steps[1:]  # ``resource.TYPE.NAME``: ``TYPE.NAME`` spelt out
        v = _lookup(name, ctx)
    if v is MISSING and name == "self":  # bound only in provisioners, connections and postconditions
        rng = node.rng
        text = rng.text
        start = rng.byte_span()[0]
        raise EvalError('Invalid "self" reference',
                        detail='The "self" object is not available in this context. This object can be used only in '
                               "resource provisioner, connection, and postcondition blocks.",
                        range=SourceRange.in_text(text, start, start + len("self")) if text is not None else rng)
    if v is MISSING:
        raise EvalError(
            f'Reference to undeclared name "{name}"',
            hint=did_you_mean(name, ctx.names()),
            range=node.rng,
        )
    for step in steps:
        v = _step(v, step, ctx, evaluate)
    return v


def _lookup(name: str, ctx: EvalContext) -> Any:
    """The value ``name`` has in the innermost scope that binds it, or ``MISSING``."""
    c: EvalContext | None = ctx
    while c is not None:
        v = c.variables.get(name, MISSING)
        if v is not MISSING:
            return v
        c = c.parent
    return MISSING


def eval_relative(node: ast.RelativeTraversal, ctx: EvalContext, evaluate: Evaluate) -> Any:
    """Attributes and indexes after any other expression: ``f(x)[0]``, ``(local.m).a``."""
    v = evaluate(node.source, ctx)
    for step in node.steps:
        v = _step(v, step, ctx, evaluate)
    return v


def _step(v: Any, step: ast.Step, ctx: EvalContext, evaluate: Evaluate) -> Any:
    if isinstance(step, ast.AttrStep):
        if type(v) is dict:
            r = v.get(step.name, MISSING)
            if r is not MISSING:
                return r
        return _get_attr(v, step)
    if isinstance(step, ast.SplatStep):
        return _splat_over(v, step.each, ctx, evaluate)
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
        if isinstance(v, MapValue):
            raise EvalError("Missing map element", detail=f'This map does not have an element with the key "{name}".',
                            range=step.rng)
        raise EvalError(
            "Unsupported attribute",
            detail=f'This object does not have an attribute named "{name}".',
            hint="" if marks else did_you_mean(name, v.keys()),
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
        raise _no_attributes(v, name, step.rng)
    raise EvalError(
        "Unsupported attribute",
        detail=f"Can't access attributes on a primitive-typed value ({type_name(v)}).",
        range=step.rng,
    )


def _no_attributes(v: list[Any], name: str, rng: SourceRange) -> EvalError:
    """An attribute read from a list, set or tuple, as HCL words it: only a list or set of objects
    gets the question whether an element, or all of them, was meant."""
    element = cty.type_of_value(v)
    if isinstance(element, cty.Collection) and isinstance(element.element, cty.ObjectType):
        if element.kind == "set":
            return EvalError("Unsupported attribute", range=rng,
                             detail="Can't access attributes on a set of objects. Did you mean to access an attribute "
                                    "across all elements of the set?", hint=f"Use [*].{name} for all of them.")
        return EvalError("Unsupported attribute", range=rng,
                         detail="Can't access attributes on a list of objects. Did you mean to access an attribute "
                                "for a specific element of the list, or across all elements of the list?",
                         hint=f"Use [0].{name} for one element or [*].{name} for all of them.")
    of_objects = bool(v) and all(isinstance(x, dict) for x in v)  # a counted resource's instances, say
    return EvalError("Unsupported attribute", detail="This value does not have any attributes.", range=rng,
                     hint=f"Use [0].{name} for one element or [*].{name} for all of them." if of_objects else "")


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
    if isinstance(c, SetValue):
        raise EvalError(
            "Invalid index",
            detail="Elements of a set are identified only by their value and don't have any separate "
            "index or key to select with, so it's only possible to perform operations across all "
            "elements of the set.",
            hint="Convert it with tolist() first, or use one() if it holds at most one element.",
            range=rng,
        )
    if isinstance(c, list):
        return mark(c[_list_position(c, k, rng)], marks)
    if isinstance(c, dict):
        s = scalar_to_string(k)
        if s is None:
            raise EvalError(
                "Invalid index",
                detail="The given key does not identify an element in this collection value: string required, but "
                       f"have {type_name(k)}.",
                range=rng,
            )
        if s in c:
            return mark(c[s], marks)
        raise EvalError(
            "Invalid index",
            detail="The given key does not identify an element in this collection value.",
            hint="" if marks else did_you_mean(s, c.keys()),
            range=rng,
        )
    raise EvalError("Invalid index", detail="This value does not have any indices.", range=rng)


def _list_position(c: list[Any], k: Any, rng: SourceRange) -> int:
    n = to_number(k)
    if n is None or (isinstance(n, float) and not numbers.is_whole(n)):
        reason = ("indexing a sequence requires a whole number, but the given index has a fractional part"
                  if n is not None else "a number is required" if isinstance(k, str) else
                  f"number required, but have {type_name(k)}")
        raise EvalError("Invalid index", range=rng,
                        detail=f"The given key does not identify an element in this collection value: {reason}.")
    i = int(n)
    if i < 0:
        detail = "a negative number is not a valid index for a sequence."
    elif i >= len(c):
        raise EvalError("Invalid index", detail="The given key does not identify an element in this collection value.",
                        range=rng)
    else:
        return i
    raise EvalError(
        "Invalid index",
        detail=f"The given key does not identify an element in this collection value: {detail}",
        range=rng,
    )


def eval_splat(node: ast.Splat, ctx: EvalContext, evaluate: Evaluate) -> Any:
    """``list[*].name``: the steps after the splat applied to each element."""
    return _splat_over(evaluate(node.source, ctx), node.each, ctx, evaluate)


def _splat_over(value: Any, each: tuple[ast.Step, ...], ctx: EvalContext, evaluate: Evaluate) -> Any:
    """``each`` applied to every element of ``value`` (a lone value counts as one, null as none)."""
    src, marks = unmark(value)
    if isinstance(src, Unknown):
        return mark(UNKNOWN, marks)
    if src is None:
        return mark([], marks)
    items = src if isinstance(src, list) else [src]
    out = []
    for item in items:
        v = item
        for step in each:
            v = _step(v, step, ctx, evaluate)
        out.append(v)
    return mark(out, marks)
