"""cty's type unification: the one type a group of values is converted to, or none.

Terraform unifies wherever several values must become one type: the two results of a conditional
(``true ? [1] : ["a"]`` is ``["1"]``), the elements of a ``list(any)`` variable, and the arguments of
``tolist``, ``toset``, ``tomap``, ``concat`` and the like. The rules are cty's (``convert.Unify``),
written once here so every one of those places agrees with Terraform and with each other:

* equal types unify to themselves; ``dynamic`` (a null, or a value not known yet) adapts to
  primitives, but beside collections of one kind it makes the result ``dynamic`` (cty cannot know
  which way those would unify once it is known);
* strings, numbers and bools unify to a string when a string is among them; numbers with bools alone
  have no common type;
* tuples of one length unify element by element, other tuples and lists to a list of the unified
  elements; objects with the same attributes attribute by attribute, other objects and maps to a map;
* lists and sets of one kind unify their element types; otherwise one of the given types is chosen
  that all the others convert to (a tuple beside a set becomes that set, a list beside a set a list);
* a tuple and an object, or a collection and a primitive, have none: ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from vocab.types import (
    DYNAMIC,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    Primitive,
    Repeated,
    TupleType,
    list_of,
    map_of,
)

_PRIMITIVE_KINDS = frozenset({"string", "number", "bool"})


def unify(types: Iterable[CtyType]) -> CtyType | None:
    """The type all of ``types`` convert to by cty's rules, ``None`` when there is none."""
    given = list(types)
    known = [t for t in given if t is not DYNAMIC]
    if not known:
        return DYNAMIC
    families = {_family(t) for t in known}
    if len(known) < len(given) and len(families) == 1 and not families <= _PRIMITIVE_KINDS:
        return DYNAMIC  # collections of one kind beside a value of no known type: cty cannot tell yet
    first = known[0]
    if all(t == first for t in known[1:]):
        return first
    if families <= _PRIMITIVE_KINDS:
        return STRING if "string" in families else None
    if families == {"tuple"}:
        return _tuples([t for t in known if isinstance(t, TupleType)])  # all of them: "tuple" is theirs
    if families <= {"list", "tuple"}:
        return _as(list_of, _as_collection(known, TupleType))
    if families == {"set"}:
        return _as(lambda e: Collection("set", e), _unify_members(known))
    if families == {"object"}:
        return _objects([t for t in known if isinstance(t, ObjectType)])  # all of them
    if families <= {"map", "object"}:
        return _as(map_of, _as_collection(known, ObjectType))
    if "tuple" in families and "object" in families:
        return None
    return _one_of(known)


def unify_or_dynamic(types: Iterable[CtyType]) -> CtyType:
    """As ``unify``, with ``dynamic`` where there is no common type (for type inference, which then
    lets the values speak for themselves)."""
    found = unify(types)
    return DYNAMIC if found is None else found


def members(t: CtyType) -> CtyType:
    """One type for every element or attribute of a collection: what ``tolist``/``tomap`` unify to
    (``dynamic`` when they have none)."""
    if isinstance(t, Collection | Repeated):
        return t.element
    if isinstance(t, TupleType):
        return unify_or_dynamic(t.elements)
    if isinstance(t, ObjectType):
        return unify_or_dynamic(t.attributes.values())
    return DYNAMIC


def _family(t: CtyType) -> str:
    """A primitive's name or a collection's kind; a repeated tuple counts as a list, a repeated
    object as a map (their lengths and keys are not known)."""
    if isinstance(t, Repeated):
        return "list" if t.kind == "tuple" else "map"
    return t.kind


def _as(make: Callable[[CtyType], CtyType], element: CtyType | None) -> CtyType | None:
    return None if element is None else make(element)


def _unify_members(types: Sequence[CtyType]) -> CtyType | None:
    """The unified type of every element (attribute) of every sequence (mapping) in ``types``."""
    out: list[CtyType] = []
    for t in types:
        if isinstance(t, TupleType):
            out.extend(t.elements)
        elif isinstance(t, ObjectType):
            out.extend(t.attributes.values())
        elif isinstance(t, Collection | Repeated):
            out.append(t.element)
    return unify(out)


def _as_collection(types: list[CtyType], structural: type[TupleType] | type[ObjectType]) -> CtyType | None:
    """The element type of lists (maps) and tuples (objects) together: the tuples' (objects') elements
    unified first, as the list (map) they convert to, then that beside the lists' (maps') elements;
    empty ones convert to any list (map) and add nothing."""
    parts = [t.element for t in types if isinstance(t, Collection | Repeated)]
    inner = [t for t in types if isinstance(t, structural)]
    if any(t.elements if isinstance(t, TupleType) else t.attributes for t in inner):
        found = _unify_members(inner)
        if found is None:
            return None
        parts.append(found)
    return unify(parts)


def _tuples(types: list[TupleType]) -> CtyType | None:
    if len({len(t.elements) for t in types}) > 1:
        return _as(list_of, _unify_members(types))
    columns = []
    for column in zip(*(t.elements for t in types), strict=True):
        found = unify(column)
        if found is None:
            return None
        columns.append(found)
    return TupleType(tuple(columns))


def _objects(types: list[ObjectType]) -> CtyType | None:
    if len({t.names for t in types}) > 1:
        return _as(map_of, _unify_members(types))
    attributes: dict[str, CtyType] = {}
    for name in types[0].names:
        found = unify(t.attributes[name] for t in types)
        if found is None:
            return None
        attributes[name] = found
    return ObjectType(attributes)


def _one_of(types: list[CtyType]) -> CtyType | None:
    """The first of ``types``, lists before sets, that every other converts to (cty's fallback)."""
    ordered = sorted(types, key=lambda t: 0 if t.kind == "list" else 1)
    for want in ordered:
        if all(converts(t, want) for t in types):
            return want
    return None


def converts(source: CtyType, target: CtyType) -> bool:
    """True when cty has a conversion from ``source`` to ``target`` (it may still fail for a
    particular value: ``"a"`` to a number)."""
    if source == target or source is DYNAMIC or target is DYNAMIC:
        return True
    if isinstance(target, Primitive):
        if not isinstance(source, Primitive):
            return False
        return target.kind == "string" or source.kind == "string"
    if isinstance(target, Collection):
        if target.kind == "map":
            if isinstance(source, ObjectType):
                return all(converts(a, target.element) for a in source.attributes.values())
            return isinstance(source, Collection | Repeated) and source.kind in ("map", "object") and \
                converts(source.element, target.element)
        if isinstance(source, TupleType):
            return all(converts(e, target.element) for e in source.elements)
        return isinstance(source, Collection | Repeated) and source.kind in ("list", "set", "tuple") and \
            converts(source.element, target.element)
    if isinstance(target, TupleType):
        return isinstance(source, TupleType) and len(source.elements) == len(target.elements) and \
            all(converts(s, t) for s, t in zip(source.elements, target.elements, strict=True))
    if isinstance(target, ObjectType):
        return isinstance(source, ObjectType) and all(
            name in source.attributes and converts(source.attributes[name], t)
            for name, t in target.attributes.items()
            if name not in target.optional
        )
    return False
