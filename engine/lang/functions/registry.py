"""The function table and the one entry point the evaluator calls, ``call_function``.

Everything that is the same for every function happens here, once: arity checks, unknown
propagation (any unknown argument makes the result unknown, unless the function declared it can
do better), sensitivity (marks are stripped before the call and the union is put back on the
result, so no function can leak a secret by forgetting), and turning internal argument/call
errors into one consistently worded ``FunctionError``. Dispatch is a dict lookup and a scalar
fast path skips all scanning, since this runs for every call in every resource.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

from engine.lang.functions import (
    conversion,
    crypto,
    datetime,
    encoding,
    filesystem,
    formatting,
    list_search,
    list_shapes,
    lists,
    maps,
    network,
    numeric,
    reductions,
    regex,
    sets,
    strings,
)
from engine.lang.functions._core import ArgError, CallError, FunctionContext, FunctionError, FunctionSpec
from engine.lang.literals import nfc
from vocab.types import untyped_nulls
from vocab.values import SENSITIVE, UNKNOWN, Marked, Null, Unknown, deep_unmark, mark, unmark

# Evaluated by the evaluator (their arguments may fail, or must be references), so no body here.
_SPECIAL_FORMS = {"try": (1, None), "can": (1, 1), "templatestring": (2, 2)}

_FAMILIES = (
    numeric,
    strings,
    formatting,
    regex,
    lists,
    list_shapes,
    list_search,
    maps,
    reductions,
    sets,
    encoding,
    filesystem,
    datetime,
    crypto,
    network,
    conversion,
)


def _build() -> dict[str, FunctionSpec]:
    table: dict[str, FunctionSpec] = {}
    for family in _FAMILIES:
        for name, build in family.FUNCTIONS.items():
            if name in table:
                raise RuntimeError(f"function {name} is defined twice")
            table[name] = build(name)
    return table


_REGISTRY: dict[str, FunctionSpec] = _build()
_NAMES: frozenset[str] = frozenset(_REGISTRY) | frozenset(_SPECIAL_FORMS)
_SCALARS = frozenset({str, int, float, bool, type(None)})


def function_names() -> frozenset[str]:
    """Every function name the language knows, including the special forms ``try`` and ``can``."""
    return _NAMES


def arity(name: str) -> tuple[int, int | None]:
    """(minimum, maximum or None for variadic) argument counts of ``name``."""
    spec = _REGISTRY.get(name)
    if spec is not None:
        return spec.min_args, spec.max_args
    if name in _SPECIAL_FORMS:
        return _SPECIAL_FORMS[name]
    raise _unknown_function(name)


def _unknown_function(name: str) -> FunctionError:
    close = difflib.get_close_matches(name, _NAMES, n=1)
    hint = f'Did you mean "{close[0]}"?' if close else ""
    return FunctionError(f'Call to unknown function "{name}"', hint=hint)


def _arity_error(spec: FunctionSpec, got: int) -> FunctionError:
    """A call with too few or too many arguments, worded as HCL words it: the count of the declared
    parameters (``at least`` when more may follow) and the first one missing, or the first argument
    past the end (``arg_index``)."""
    if got < spec.min_args:
        qualifier = " at least" if spec.max_args is None or spec.max_args > spec.min_args else ""
        return FunctionError(f'Function "{spec.name}" expects{qualifier} {spec.min_args} argument(s). '
                             f'Missing value for "{spec.param_name(got)}"', heading="Not enough function arguments")
    hi = spec.max_args if spec.max_args is not None else got
    return FunctionError(f'Function "{spec.name}" expects only {hi} argument(s)', arg_index=hi,
                         heading="Too many function arguments")


def _scan(v: Any) -> tuple[bool, bool, bool]:
    """(contains an unknown, contains a mark, contains a typed null) in one walk."""
    if isinstance(v, Unknown):
        return True, False, False
    if isinstance(v, Null):
        return False, False, True
    if isinstance(v, Marked):
        u, _, n = _scan(v.value)
        return u, True, n
    unknown = marked = typed = False
    if isinstance(v, list):
        children: Any = v
    elif isinstance(v, dict):
        children = v.values()
    else:
        return False, False, False
    for x in children:
        if type(x) in _SCALARS:
            continue
        u, m, n = _scan(x)
        unknown |= u
        marked |= m
        typed |= n
        if unknown and marked and typed:
            break
    return unknown, marked, typed


def _invoke(spec: FunctionSpec, args: list[Any], ctx: FunctionContext) -> object:
    try:
        result = spec.impl(args, ctx)
        return nfc(result) if type(result) is str else result
    except ArgError as exc:
        summary = f'Invalid value for "{spec.param_name(exc.index)}" parameter: {exc.message}'
        raise FunctionError(summary, arg_index=exc.index) from None
    except CallError as exc:
        raise FunctionError(f'Call to function "{spec.name}" failed: {exc.message}') from None
    except (OverflowError, ZeroDivisionError, RecursionError) as exc:
        raise FunctionError(f'Call to function "{spec.name}" failed: {exc}') from None


def _default_context() -> FunctionContext:
    """For callers without a configuration (a bare expression): paths are relative to the working directory."""
    cwd = Path(os.getcwd())
    return FunctionContext(base_dir=cwd, module_dir=cwd)


def call_function(name: str, args: list[Any], ctx: FunctionContext | None) -> object:
    """Call built-in function ``name``; raises ``FunctionError`` for anything the user got wrong."""
    if ctx is None:
        ctx = _default_context()
    spec = _REGISTRY.get(name)
    if spec is None:
        if name in _SPECIAL_FORMS:
            raise FunctionError(
                f'"{name}" must be evaluated by the expression evaluator, not called directly'
            )
        raise _unknown_function(name)
    n = len(args)
    if n < spec.min_args or (spec.max_args is not None and n > spec.max_args):
        raise _arity_error(spec, n)
    if spec.raw:
        return _invoke(spec, args, ctx)
    has_unknown = has_marks = has_typed_nulls = False
    for a in args:
        if type(a) in _SCALARS:
            continue
        u, m, n = _scan(a)
        has_unknown |= u
        has_marks |= m
        has_typed_nulls |= n
    if has_typed_nulls and not spec.typed_nulls:
        args = [untyped_nulls(a) for a in args]
    if not has_marks:
        if has_unknown and not spec.unknown_ok:
            return UNKNOWN
        return _invoke(spec, args, ctx)
    marks: frozenset[str] = frozenset()
    plain: list[Any] = []
    strip = unmark if spec.element_marks else deep_unmark
    for a in args:
        value, found = strip(a)
        plain.append(value)
        marks |= found
    if has_unknown and not spec.unknown_ok:
        return mark(UNKNOWN, marks)
    try:
        return mark(_invoke(spec, plain, ctx), marks)
    except FunctionError as exc:
        if SENSITIVE not in marks and not spec.element_marks:
            raise
        raise _withheld(spec, exc) from None  # (element_marks: a sensitive element may be quoted)


def _withheld(spec: FunctionSpec, exc: FunctionError) -> FunctionError:
    """The failure of a call with a sensitive argument, without its reason.

    Reasons quote arguments ("cannot convert \"…\" to number"), sometimes altered (a substring,
    a lower-cased copy) so that cutting the secret out would not be enough: only which argument
    was refused is kept.
    """
    reason = "an argument is sensitive, so the reason is not shown"
    if exc.arg_index is not None and exc.arg_index >= 0:
        summary = f'Invalid value for "{spec.param_name(exc.arg_index)}" parameter: {reason}'
    else:
        summary = f'Call to function "{spec.name}" failed: {reason}'
    return FunctionError(summary, arg_index=exc.arg_index,
                         hint="Try the call with a non-sensitive test value to see why it fails.")
