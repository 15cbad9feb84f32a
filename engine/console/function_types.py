"""What type each built-in function returns, given the types of its arguments.

Only the functions that return lists, sets or maps need a rule: a string, number or bool prints the
same whatever the type says, and a tuple or object is what ``DYNAMIC`` already prints. The rules
follow Terraform's function signatures: ``split`` returns ``list(string)``, ``keys`` a list for a
map but a tuple for an object, ``concat`` a list only when every argument is a list, and so on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeGuard

from engine.console.types import (
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    Repeated,
    TupleType,
    list_of,
    map_of,
    members,
    set_of,
    unify,
)

Rule = Callable[[list[CtyType]], CtyType]


def _first(args: list[CtyType]) -> CtyType:
    return args[0] if args else DYNAMIC


def _is(t: CtyType, *kinds: str) -> TypeGuard[Collection]:
    return isinstance(t, Collection) and t.kind in kinds


def _keys(args: list[CtyType]) -> CtyType:
    t = _first(args)
    if _is(t, "map"):
        return list_of(STRING)
    if isinstance(t, ObjectType | Repeated):
        return Repeated("tuple", STRING)
    return DYNAMIC


def _values(args: list[CtyType]) -> CtyType:
    t = _first(args)
    if isinstance(t, Collection) and t.kind == "map":
        return list_of(t.element)
    if isinstance(t, ObjectType):
        return TupleType(tuple(t.attributes[n] for n in t.names))
    if isinstance(t, Repeated):
        return Repeated("tuple", t.element)
    return DYNAMIC


def _concat(args: list[CtyType]) -> CtyType:
    if args and all(_is(t, "list") for t in args):
        return list_of(unify(members(t) for t in args))
    if args and all(isinstance(t, TupleType) for t in args):
        return TupleType(tuple(e for t in args if isinstance(t, TupleType) for e in t.elements))
    return DYNAMIC


def _merge(args: list[CtyType]) -> CtyType:
    """Maps of one type merge into a map of it; any other mix into an object (as cty's merge)."""
    if args and all(_is(t, "map") and t == args[0] for t in args):
        return args[0]
    if args and all(isinstance(t, ObjectType) for t in args):
        merged: dict[str, CtyType] = {}
        for t in args:
            if isinstance(t, ObjectType):
                merged.update(t.attributes)
        return ObjectType(merged)
    return DYNAMIC


def _same_sequence(args: list[CtyType]) -> CtyType:
    """``reverse``/``slice``: a list stays a list, a tuple stays what its value is."""
    t = _first(args)
    return list_of(t.element) if _is(t, "list", "set") else DYNAMIC


def _element(args: list[CtyType]) -> CtyType:
    t = _first(args)
    if isinstance(t, Collection | Repeated):
        return t.element
    if isinstance(t, TupleType) and t.elements and all(e == t.elements[0] for e in t.elements):
        return t.elements[0]
    return DYNAMIC


def _setproduct(args: list[CtyType]) -> CtyType:
    product = TupleType(tuple(members(t) for t in args))
    return set_of(product) if any(_is(t, "set") for t in args) else list_of(product)


def _zipmap(args: list[CtyType]) -> CtyType:
    values = args[1] if len(args) > 1 else DYNAMIC
    if _is(values, "list"):
        return map_of(values.element)
    if isinstance(values, Repeated):
        return Repeated("object", values.element)
    return DYNAMIC


def _list_of_members(args: list[CtyType]) -> CtyType:
    return list_of(members(_first(args)))


def _set_of_all_members(args: list[CtyType]) -> CtyType:
    return set_of(unify(members(t) for t in args))


RULES: dict[str, Rule] = {
    "tolist": _list_of_members,
    "toset": lambda a: set_of(members(_first(a))),
    "tomap": lambda a: map_of(members(_first(a))),
    "split": lambda a: list_of(STRING),
    "formatlist": lambda a: list_of(STRING),
    "compact": lambda a: list_of(STRING),
    "sort": lambda a: list_of(STRING),
    "cidrsubnets": lambda a: list_of(STRING),
    "range": lambda a: list_of(NUMBER),
    "fileset": lambda a: set_of(STRING),
    "transpose": lambda a: map_of(list_of(STRING)),
    "csvdecode": lambda a: list_of(DYNAMIC),
    "regexall": lambda a: list_of(DYNAMIC),
    "keys": _keys,
    "values": _values,
    "concat": _concat,
    "merge": _merge,
    "distinct": _list_of_members,
    "matchkeys": _list_of_members,
    "chunklist": lambda a: list_of(list_of(members(_first(a)))),
    "reverse": _same_sequence,
    "slice": _same_sequence,
    "element": _element,
    "lookup": _element,
    "one": _element,
    "coalesce": unify,
    "setproduct": _setproduct,
    "setunion": _set_of_all_members,
    "setintersection": _set_of_all_members,
    "setsubtract": _set_of_all_members,
    "zipmap": _zipmap,
    "sensitive": _first,
    "nonsensitive": _first,
}


def return_type(name: str, args: list[CtyType]) -> CtyType:
    """The type ``name(args…)`` returns; ``DYNAMIC`` (the value's own) for every other function."""
    rule = RULES.get(name)
    return rule(args) if rule is not None else DYNAMIC


__all__ = ["RULES", "return_type"]
