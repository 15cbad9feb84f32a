"""The type algebra behind the console's output: Terraform prints ``tolist([...])`` for a list and
``[...]`` for a tuple, ``tomap({...})`` for a map and ``{...}`` for an object.

Values made by a conversion remember their collection type (``ListValue``, ``MapValue``,
``SetValue``), but a value read from state or built by most functions does not, so
``engine.console.infer`` works the type out from the expression, the declared variable types and
the resource schemas, with the language's own type model (``vocab.types``) and unification
(``vocab.unify``); this module adds what the console needs on top of them.

``DYNAMIC`` means "whatever the value is": a Python list is then a tuple, a dict an object, a
``SetValue`` a set, as they would be had they been written as literals.
"""

from __future__ import annotations

from typing import Any

from engine.lang.types import to_cty
from vocab.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    Primitive,
    Repeated,
    TupleType,
    TypeSpecError,
    list_of,
    map_of,
    parse_type,
    set_of,
)
from vocab.types import type_of_value as of_value
from vocab.unify import members
from vocab.unify import unify_or_dynamic as unify
from vocab.values import ListValue, MapValue, Marked, Null, SetValue, Unknown

__all__ = [
    "BOOL", "DYNAMIC", "NUMBER", "STRING", "TYPE_FUNCTION", "TYPE_TYPE", "Collection", "CtyType", "ObjectType",
    "Repeated", "TupleType",
    "attribute", "element", "from_constraint", "from_schema", "list_of", "map_of", "members", "of_value",
    "set_of", "settled", "type_of", "unify",
]

from_constraint = to_cty

# ``type()`` is the console's own function, as in OpenTofu: no configuration can call it. Its answer
# is a value of one more type, ``type``, which only ``type(type(x))`` ever shows.
TYPE_FUNCTION = "type"
TYPE_TYPE = Primitive("type")


def from_schema(rt: Any) -> CtyType:
    """The object type of a resource type's instances: a plugin's own schema type, or the one a
    native adapter's JSON Schema implies (as ``ctl providers schema`` reports it)."""
    value_type = getattr(rt, "value_type", None)
    if isinstance(value_type, CtyType):
        return value_type
    from engine.plugins.native_schema import cty_type

    properties = (getattr(rt, "schema", None) or {}).get("properties") or {}
    try:
        return ObjectType({name: parse_type(cty_type(prop)) for name, prop in properties.items()})
    except TypeSpecError:  # a schema the type encoding cannot express: the values speak for themselves
        return DYNAMIC


def attribute(t: CtyType, name: str) -> CtyType:
    """The type of ``value.name`` (or ``value["name"]``) for a value of type ``t``."""
    if isinstance(t, ObjectType):
        return t.attributes.get(name, DYNAMIC)
    if isinstance(t, Collection | Repeated) and t.kind in ("map", "object"):
        return t.element
    return DYNAMIC


def element(t: CtyType, index: int | None = None) -> CtyType:
    """The type of ``value[index]`` for a sequence of type ``t`` (any element when None)."""
    if isinstance(t, Collection | Repeated) and t.kind in ("list", "set", "tuple"):
        return t.element
    if isinstance(t, TupleType):
        if index is not None:
            return t.elements[index] if 0 <= index < len(t.elements) else DYNAMIC
        return unify(t.elements)
    return DYNAMIC


def settled(t: CtyType, value: Any) -> CtyType:
    """``t`` with every ``any`` element type replaced by the type ``value``'s elements unify to.

    Converting ``[[1], [2, 3]]`` to ``list(any)`` gives a ``list(list(number))``: the elements are
    converted to one type they all fit, which only the value can tell.
    """
    if isinstance(value, Marked):
        value = value.value
    if isinstance(t, Collection):
        items = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else []
        if t.element is DYNAMIC:
            return Collection(t.kind, unify(of_value(v) for v in items))
        return Collection(t.kind, unify([settled(t.element, v) for v in items] or [t.element]))
    if isinstance(t, ObjectType) and isinstance(value, dict):
        return ObjectType({n: settled(a, value.get(n)) for n, a in t.attributes.items()})
    if isinstance(t, TupleType) and isinstance(value, list) and len(value) == len(t.elements):
        return TupleType(tuple(settled(e, v) for e, v in zip(t.elements, value, strict=True)))
    return t


_PRIMITIVE_NAMES = {t.kind: t for t in (BOOL, NUMBER, STRING)}


def type_of(t: CtyType, value: Any) -> CtyType:
    """The whole type of ``value``, which the expression's inferred type ``t`` describes, for ``type()``.

    The value knows what it was made as (a list, set or map it was converted to, a typed null, a
    tuple or object literal); a value read from state or returned by a function may not, and there
    ``t`` tells, as it tells the printer (``render``) whether to write ``tolist([...])``. Where ``t``
    leaves an element type open (``list(any)``, ``dynamic``), the elements' own types settle it.
    """
    if isinstance(value, Marked):
        value = value.value
    if isinstance(t, Repeated):  # a length or key set only the value knows
        t = DYNAMIC
    if isinstance(value, Unknown):
        return _PRIMITIVE_NAMES.get(value.type_hint or "", DYNAMIC) if t is DYNAMIC else t
    if isinstance(value, Null):
        return value.type if isinstance(value.type, CtyType) and value.type is not DYNAMIC else t
    if value is None or not isinstance(value, list | dict):
        return t if value is None else of_value(value)
    if isinstance(value, ListValue | SetValue | MapValue):
        own = of_value(value)
        assert isinstance(own, Collection)
        if not isinstance(t, Collection) or t.kind != own.kind or own.element is not DYNAMIC:
            t = own
    items = list(value.values()) if isinstance(value, dict) else value
    if isinstance(t, Collection) and (t.kind == "map") == isinstance(value, dict):
        if not items:
            return t
        return Collection(t.kind, unify(type_of(t.element, x) for x in items))
    if isinstance(value, dict):
        attributes = t.attributes if isinstance(t, ObjectType) else {}
        return ObjectType({k: type_of(attributes.get(k, DYNAMIC), x) for k, x in value.items()})
    elements = t.elements if isinstance(t, TupleType) and len(t.elements) == len(value) else (DYNAMIC,) * len(value)
    return TupleType(tuple(type_of(e, x) for e, x in zip(elements, value, strict=True)))
