"""The order cty gives a set's elements, so an encoded set is byte for byte what Terraform sends.

cty sorts set elements before writing them: known before unknown before null; strings by their
UTF-8 bytes, numbers by value, ``false`` before ``true``; anything else by a textual "hash string"
of the element (``<"a";1;>`` for an object: attribute values in name order; numbers printed with
ten significant digits, strings Go-quoted). Equal elements collapse, as in any set. The functions
work on values already prepared for the wire (objects complete, numbers in wire form), which is
what the msgpack encoder holds when it meets a set.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from vocab.conversion.numbers import go_g10
from vocab.types import Collection, CtyType, ObjectType, TupleType, parse_type

_KNOWN, _UNKNOWN, _NULL = 0, 1, 2


def sort_set(elements: list[Any], element_type: CtyType, unknown: Any) -> list[Any]:
    """``elements`` (wire form) in cty's order without duplicates; ``unknown`` is the wire unknown."""
    if len(elements) < 2:
        return elements
    return [elements[i] for i in set_order(elements, element_type, unknown)]


def set_order(elements: list[Any], element_type: CtyType, unknown: Any) -> list[int]:
    """The positions of the set's members in cty's order, each duplicate dropped."""
    kind = element_type.kind
    if kind == "string":
        key = _string_key
    elif kind == "number":
        key = _number_key
    elif kind == "bool":
        key = _bool_key
    else:

        def key(v: Any) -> tuple[int, Any]:
            rank = _rank(v, unknown)
            return (rank, hash_string(v, element_type, unknown).encode() if rank == _KNOWN else b"")

    keyed = sorted(((key(v) if v is not unknown else (_UNKNOWN, 0)), i) for i, v in enumerate(elements))
    out: list[int] = []
    last_key: Any = None
    run: list[Any] = []  # the members kept so far whose key equals last_key
    for k, i in keyed:
        # Equal elements are one member (all nulls are one null); anything holding an unknown
        # value is never equal to anything, so it always stays. Equal hash text alone is not
        # equality (it rounds numbers to ten digits): such elements keep their given order.
        v = elements[i]
        if k != last_key:
            last_key, run = k, []
        elif k[0] == _NULL or (k[0] == _KNOWN and _wholly_known(v, unknown) and v in run):
            continue
        out.append(i)
        run.append(v)
    return out


def _wholly_known(v: Any, unknown: Any) -> bool:
    if v is unknown:
        return False
    if isinstance(v, list):
        return all(_wholly_known(x, unknown) for x in v)
    if isinstance(v, dict):
        return all(_wholly_known(x, unknown) for x in v.values())
    return True


def _rank(v: Any, unknown: Any) -> int:
    if v is None:
        return _NULL
    return _UNKNOWN if v is unknown else _KNOWN


def _string_key(v: Any) -> tuple[int, Any]:
    return (_NULL, "") if v is None else (_KNOWN, v)


def _number_key(v: Any) -> tuple[int, Any]:
    if v is None:
        return (_NULL, 0)
    return (_KNOWN, Decimal(v) if isinstance(v, str) else v)


def _bool_key(v: Any) -> tuple[int, Any]:
    return (_NULL, False) if v is None else (_KNOWN, v)


def hash_string(v: Any, ty: CtyType, unknown: Any) -> str:
    """cty's set-hash text of a wire value of type ``ty``."""
    if v is unknown:
        return "?"
    if v is None:
        return "~"
    kind = ty.kind
    if kind == "string":
        return go_quote(v)
    if kind == "number":
        return go_g10(v)
    if kind == "bool":
        return "T" if v else "F"
    if kind == "dynamic":
        return hash_string(v[1], parse_type(v[0]), unknown)
    if isinstance(ty, Collection) and kind in ("list", "set"):
        element = ty.element
        return "[" + "".join(hash_string(x, element, unknown) + ";" for x in v) + "]"
    if isinstance(ty, Collection) and kind == "map":
        element = ty.element
        return "{" + "".join(f"{go_quote(k)}:{hash_string(v[k], element, unknown)};" for k in v) + "}"
    if isinstance(ty, ObjectType):
        return "<" + "".join(hash_string(v[n], ty.attributes[n], unknown) + ";" for n in ty.names) + ">"
    assert isinstance(ty, TupleType)
    return "<" + "".join(hash_string(x, t, unknown) + ";" for x, t in zip(v, ty.elements, strict=True)) + ">"


_GO_ESCAPES = {
    "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
    '"': '\\"', "\\": "\\\\",
}  # fmt: skip


def go_quote(s: str) -> str:
    """``s`` as Go's ``%q`` writes it: printable characters kept, the rest escaped."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'
    out = ['"']
    for ch in s:
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)
