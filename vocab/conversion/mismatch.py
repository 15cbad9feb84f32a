"""Whether one cty type can convert to another, and cty's words for why not.

Terraform first asks whether a value's type can convert to the wanted type at all; only then does
it convert the value, which can still fail on the value itself ("a number is required" for
``"abc"``). When the types cannot convert, cty describes the difference (``MismatchMessage``):
both types when that cannot mislead ("string required, but have tuple"), the missing attributes
of an object, the first element or attribute at fault ("element 0: …", ``attribute "a": …``), or
only the wanted type. ctl's conversion follows the same two steps so its refusals read the same.
"""

from __future__ import annotations

from vocab.types import DYNAMIC, Collection, CtyType, ObjectType, TupleType

_PRIMITIVE_KINDS = frozenset({"string", "number", "bool"})


def convertible(got: CtyType, want: CtyType) -> bool:
    """True when some value of type ``got`` may convert to ``want`` (string to number included)."""
    if want is DYNAMIC or got is DYNAMIC or got == want:
        return True
    gk, wk = got.kind, want.kind
    if gk in _PRIMITIVE_KINDS and wk in _PRIMITIVE_KINDS:
        return {gk, wk} != {"bool", "number"}  # there is no conversion between bool and number
    if isinstance(want, Collection):
        if wk in ("list", "set"):
            if isinstance(got, TupleType):
                return all(convertible(t, want.element) for t in got.elements)
            if isinstance(got, Collection) and gk in ("list", "set"):
                return convertible(got.element, want.element)
            return False
        if isinstance(got, ObjectType):
            return all(convertible(t, want.element) for t in got.attributes.values())
        return isinstance(got, Collection) and gk == "map" and convertible(got.element, want.element)
    if isinstance(want, ObjectType):
        if not isinstance(got, ObjectType):
            return False
        for name, wanted in want.fields:
            have = got.attributes.get(name)
            if have is None:
                if name not in want.optional:
                    return False
            elif not convertible(have, wanted):
                return False
        return True
    if isinstance(want, TupleType):
        return (
            isinstance(got, TupleType)
            and len(got.elements) == len(want.elements)
            and all(convertible(g, w) for g, w in zip(got.elements, want.elements, strict=True))
        )
    return False


def mismatch_message(got: CtyType, want: CtyType) -> str:
    """Why ``got`` cannot convert to ``want`` (call only when ``convertible`` said no)."""
    if isinstance(got, ObjectType) and isinstance(want, ObjectType):
        return _objects(got, want)
    if got.kind in ("tuple", "object") and isinstance(want, Collection):
        return _from_structural(got, want)
    if isinstance(got, Collection) and isinstance(want, Collection):
        return _from_collection(got, want)
    if not _likely_to_confuse(got, want):
        return f"{want.friendly_name} required, but have {got.friendly_name}"
    return f"{constraint_name(want)} required"


def _objects(got: ObjectType, want: ObjectType) -> str:
    missing = [n for n in want.names if n not in got.attributes and n not in want.optional]
    if len(missing) == 1:
        return f'attribute "{missing[0]}" is required'
    if len(missing) == 2:
        return f'attributes "{missing[0]}" and "{missing[1]}" are required'
    if missing:
        return "attributes " + "".join(f'"{n}", ' for n in missing[:-1]) + f'and "{missing[-1]}" are required'
    for name, wanted in want.fields:  # cty reports one attribute; which one is not specified
        have = got.attributes.get(name)
        if have is not None and not convertible(have, wanted):
            return f'attribute "{name}": {mismatch_message(have, wanted)}'
    return "incorrect object attributes"


def _from_structural(got: CtyType, want: Collection) -> str:
    if (want.kind in ("list", "set") and not isinstance(got, TupleType)) or (
        want.kind == "map" and not isinstance(got, ObjectType)
    ):
        return f"{constraint_name(want)} required"
    if isinstance(got, TupleType):
        for i, t in enumerate(got.elements):
            if not convertible(t, want.element):
                return f"element {i}: {mismatch_message(t, want.element)}"
    elif isinstance(got, ObjectType):
        for name, t in got.fields:
            if not convertible(t, want.element):
                return f'element "{name}": {mismatch_message(t, want.element)}'
    return f"all elements must be {constraint_name(want.element)}"


def _from_collection(got: Collection, want: Collection) -> str:
    same_family = (want.kind in ("list", "set") and got.kind in ("list", "set")) or (
        want.kind == "map" and got.kind == "map"
    )
    if not same_family:
        return f"{constraint_name(want)} required"
    return f"incorrect {want.kind} element type: {mismatch_message(got.element, want.element)}"


def _likely_to_confuse(got: CtyType, want: CtyType) -> bool:
    if (got.kind in _PRIMITIVE_KINDS) != (want.kind in _PRIMITIVE_KINDS):
        return False
    if want.kind == "string" or {got.kind, want.kind} == {"bool", "number"}:
        return False
    return not (got.kind == "tuple" and want.kind == "object")


def constraint_name(ty: CtyType) -> str:
    """The type's name as a constraint: ``dynamic`` reads "any type" (``FriendlyNameForConstraint``)."""
    if ty.kind == "dynamic":
        return "any type"
    if isinstance(ty, Collection):
        element = ty.element
        inner = "any single type" if element.kind == "dynamic" else constraint_name(element)
        return f"{ty.kind} of {inner}"
    return ty.friendly_name
