"""The type algebra behind the console's output: Terraform prints ``tolist([...])`` for a list and
``[...]`` for a tuple, ``tomap({...})`` for a map and ``{...}`` for an object.

ctl's value model keeps a list and a tuple (a map and an object) as the same Python list (dict):
nothing a plan does needs to tell them apart. The console does, because Terraform's console names
the type of every collection it prints. ``engine.console.infer`` works the type out from the
expression, the declared variable types and the resource schemas, with the cty type model the
plugin bridge already has; this module adds what the console needs on top of it.

``DYNAMIC`` means "whatever the value is": a Python list is then a tuple, a dict an object, a
``SetValue`` a set, as they would be had they been written as literals.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adapters.plugin.cty_types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    TupleType,
    list_of,
    map_of,
    parse_type,
    set_of,
)
from adapters.plugin.value_errors import TypeSpecError
from engine.lang import types as constraints
from vocab.values import Marked, SetValue, Unknown

__all__ = [
    "BOOL", "DYNAMIC", "NUMBER", "STRING", "Collection", "CtyType", "ObjectType", "Repeated", "TupleType",
    "attribute", "element", "from_constraint", "from_schema", "list_of", "map_of", "members", "of_value",
    "set_of", "settled", "unify",
]


class Repeated(CtyType):
    """A tuple (``kind="tuple"``) or object whose length or keys only the value knows, every element
    of one type: what ``[for …]``, ``count`` and ``for_each`` produce."""

    __slots__ = ("element", "kind")

    def __init__(self, kind: str, element: CtyType) -> None:
        self.kind = kind
        self.element = element
        self._json = None
        self._name = kind
        self._hash: int | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Repeated) and other.kind == self.kind and other.element == self.element

    def __hash__(self) -> int:
        return hash(("repeated", self.kind, self.element))

    def __repr__(self) -> str:
        return f"Repeated({self.kind}, {self.element!r})"


_PRIMITIVES = {"string": STRING, "number": NUMBER, "bool": BOOL}


def from_constraint(t: constraints.Type | None) -> CtyType:
    """A variable's declared type (``list(string)``); ``any`` or no type is the value's own."""
    if isinstance(t, constraints.Primitive):
        return _PRIMITIVES.get(t.name, DYNAMIC)
    if isinstance(t, constraints.ListType):
        return list_of(from_constraint(t.elem))
    if isinstance(t, constraints.SetType):
        return set_of(from_constraint(t.elem))
    if isinstance(t, constraints.MapType):
        return map_of(from_constraint(t.elem))
    if isinstance(t, constraints.TupleType):
        return TupleType(tuple(from_constraint(e) for e in t.elems))
    if isinstance(t, constraints.ObjectType):
        return ObjectType({name: from_constraint(a) for name, a in t.attrs.items()})
    return DYNAMIC


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


def members(t: CtyType) -> CtyType:
    """One type for every element or attribute of a collection: what ``tolist``/``tomap`` unify to."""
    if isinstance(t, Collection | Repeated):
        return t.element
    if isinstance(t, TupleType):
        return unify(t.elements)
    if isinstance(t, ObjectType):
        return unify(t.attributes.values())
    return DYNAMIC


def of_value(v: Any) -> CtyType:
    """The type a value has on its own, as a literal: tuples, objects, and sets kept as sets."""
    if isinstance(v, Marked):
        v = v.value
    if v is None or isinstance(v, Unknown):
        return DYNAMIC
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, int | float):
        return NUMBER
    if isinstance(v, str):
        return STRING
    if isinstance(v, SetValue):
        return set_of(unify(of_value(x) for x in v))
    if isinstance(v, list):
        return TupleType(tuple(of_value(x) for x in v))
    if isinstance(v, dict):
        return ObjectType({k: of_value(x) for k, x in v.items()})
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


def unify(types: Iterable[CtyType]) -> CtyType:
    """The one type cty converts all of ``types`` to (a conditional's result, ``tolist``'s
    elements); ``DYNAMIC`` when there is none. A ``DYNAMIC`` among them (``null``) adapts to the rest.
    """
    known = [t for t in types if t is not DYNAMIC]
    if not known:
        return DYNAMIC
    first = known[0]
    if all(t == first for t in known[1:]):
        return first
    kinds = {_family(t) for t in known}
    if kinds <= {"string", "number", "bool"}:
        return STRING if "string" in kinds or len(kinds) == 1 else DYNAMIC
    if kinds <= {"list", "tuple"}:
        tuples = [t for t in known if isinstance(t, TupleType)]
        if len(tuples) == len(known) and len({len(t.elements) for t in tuples}) == 1:
            columns = zip(*(t.elements for t in tuples), strict=True)
            return TupleType(tuple(unify(column) for column in columns))
        return list_of(unify(_sequence_members(known)))
    if kinds == {"set"}:
        return set_of(unify(members(t) for t in known))
    if kinds <= {"map", "object"}:
        objects = [t for t in known if isinstance(t, ObjectType)]
        if len(objects) == len(known) and len({o.names for o in objects}) == 1:
            return ObjectType({n: unify(o.attributes[n] for o in objects) for n in objects[0].names})
        return map_of(unify(_mapping_members(known)))
    return DYNAMIC


def _family(t: CtyType) -> str:
    """``string``/``number``/``bool``, or a collection's kind; a repeated tuple counts as a list."""
    if isinstance(t, Repeated):
        return "list" if t.kind == "tuple" else "map"
    return t.kind


def _sequence_members(types: list[CtyType]) -> list[CtyType]:
    out: list[CtyType] = []
    for t in types:
        out.extend(t.elements if isinstance(t, TupleType) else [members(t)])
    return out


def _mapping_members(types: list[CtyType]) -> list[CtyType]:
    out: list[CtyType] = []
    for t in types:
        out.extend(t.attributes.values() if isinstance(t, ObjectType) else [members(t)])
    return out
