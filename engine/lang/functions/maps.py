"""Map functions: keys lookup merge transpose values zipmap.

``keys`` and ``values`` list a map in key order (as Terraform does), so their results line up with
each other. ``keys``, ``values``, ``lookup``, ``merge`` and ``zipmap`` are ``unknown_ok``: unknown
*values* inside a map do not hide its keys, so the result is known as far as it can be.
"""

from __future__ import annotations

from typing import Any

from engine.lang.functions._args import (
    describe,
    want_map,
    want_str,
    want_str_list,
)
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn
from vocab.types import STRING, Collection, type_of_value
from vocab.values import UNKNOWN, ListValue, MapValue, Null, Unknown, contains_unknown, deep_unmark, mark


def _keys(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    if a[0] is None:
        raise ArgError(0, "argument must not be null")
    if not isinstance(a[0], dict):
        raise ArgError(0, "must have map or object type")
    m = a[0]
    return ListValue(sorted(m), STRING) if isinstance(m, MapValue) else sorted(m)  # an object's are a tuple


def _lookup(a: Args, _c: FunctionContext) -> object:
    if len(a) > 3:  # cty declares the default as a variadic parameter, and counts here
        raise CallError(f"lookup() takes two or three arguments, got {len(a)}")
    if isinstance(a[0], Unknown) or contains_unknown(a[1]):
        return UNKNOWN
    if not isinstance(a[0], dict):
        raise ArgError(0, "lookup() requires a map as the first argument")
    m, key = a[0], want_str(a[1], 1)
    if key in m:
        return m[key]
    if len(a) > 2:
        return a[2]
    if not isinstance(m, MapValue):  # an object: its attributes are known before the call
        raise ArgError(0, f'the given object has no attribute "{key}"')
    raise CallError(f'lookup failed to find key "{key}"')


def _merge(a: Args, _c: FunctionContext) -> object:
    out: dict[str, Any] = {}
    for v in a:
        if v is None or type(v) is Null:
            continue
        if isinstance(v, Unknown):
            return UNKNOWN
        if not isinstance(v, dict):
            raise CallError(f'arguments must be maps or objects, got "{describe(v)}"')
        out.update(v)
    kind = _same_map_type(a)
    return out if kind is None else MapValue(out, kind.element)


def _same_map_type(args: Args) -> Collection | None:
    """The map type every argument has, if they have one: merging maps of one type gives a map of
    it, as in Terraform; any other mix gives an object whose attributes keep their own types
    (typed nulls too: ``merge({a = tostring(null)})`` is an ``object({a: string})``)."""
    if not args or not all(isinstance(v, MapValue) or type(v) is Null for v in args):
        return None
    first = type_of_value(args[0])
    if not isinstance(first, Collection) or first.kind != "map":
        return None
    return first if all(type_of_value(v) == first for v in args[1:]) else None


def _transpose(a: Args, _c: FunctionContext) -> dict[str, Any]:
    m = want_map(a[0], 0, "map of list of string")
    out: dict[str, list[str]] = {}
    for key in sorted(m):
        if m[key] is None:
            raise ArgError(0, f'the value for key "{key}" is null; a list of strings is required')
        if not isinstance(m[key], list):
            raise ArgError(0, f'element "{key}": list of string required, but have {describe(m[key])}')
        for v in want_str_list(m[key], 0):
            out.setdefault(v, []).append(key)
    return {k: out[k] for k in sorted(out)}


def _values(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return UNKNOWN
    if not isinstance(a[0], dict):
        raise CallError("values() requires a map as the first argument")
    m = a[0]
    found = [m[k] for k in sorted(m)]
    return ListValue(found, m.element) if isinstance(m, MapValue) else found


def _zipmap(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown) or isinstance(a[1], Unknown) or contains_unknown(a[0]):
        return UNKNOWN
    plain_keys, key_marks = deep_unmark(a[0])  # a sensitive key marks the whole map: keys are shown
    if not isinstance(a[1], list):
        raise CallError("values argument must be a list or tuple value")
    vals = a[1]
    if isinstance(plain_keys, list):  # the counts, then the nulls, as OpenTofu and Terraform check them
        if len(plain_keys) != len(vals):
            raise CallError(f"number of keys ({len(plain_keys)}) does not match number of values ({len(vals)})")
        for index, key in enumerate(plain_keys):
            if key is None or type(key) is Null:
                raise CallError(f"keys list has null value at index {index}")
    keys = want_str_list(plain_keys, 0)
    zipped = dict(zip(keys, vals, strict=True))
    if isinstance(vals, ListValue):  # a list's elements make a map of its element type, a tuple's an object
        return mark(MapValue(zipped, vals.element), key_marks)
    return mark(zipped, key_marks)


FUNCTIONS = {
    "keys": fn(_keys, "inputMap", unknown_ok=True, element_marks=True),
    "lookup": fn(_lookup, "inputMap", "key", variadic="default", unknown_ok=True, element_marks=True, typed_nulls=True),
    "merge": fn(_merge, variadic="maps", unknown_ok=True, element_marks=True, typed_nulls=True),
    "transpose": fn(_transpose, "values"),
    "values": fn(_values, "mapping", unknown_ok=True, element_marks=True, typed_nulls=True),
    "zipmap": fn(_zipmap, "keys", "values", unknown_ok=True, element_marks=True, typed_nulls=True),
}
