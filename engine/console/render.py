"""Values as Terraform's console prints them, character for character (Terraform 1.0.3).

Terraform's console output is meant to be read back as configuration: strings are Go-quoted
(``"a\\"b"``) or, when they span lines, heredocs; collections name their type (``tolist([...])``,
``toset``, ``tomap``), one element per line, two spaces per level; a typed null says its type
(``tostring(null)``). People paste it into configurations and compare it with Terraform's in
scripts, so the text follows Terraform exactly, including its quirks.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from engine.console.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    Repeated,
    TupleType,
    of_value,
    unify,
)
from engine.lang.operators import format_number
from vocab.values import SENSITIVE, Marked, Null, SetValue, Unknown

UNKNOWN_TEXT = "(known after apply)"
SENSITIVE_TEXT = "(sensitive)"
_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               '"': '\\"', "\\": "\\\\"}
_TYPED_NULLS = {STRING: "tostring(null)", NUMBER: "tonumber(null)", BOOL: "tobool(null)"}


def render(value: Any, ty: CtyType = DYNAMIC, indent: int = 0) -> str:
    """``value`` as Terraform's console shows it; ``ty`` tells lists from tuples and maps from objects."""
    plain = value.value if isinstance(value, Marked) else value
    if isinstance(plain, Unknown):
        return UNKNOWN_TEXT
    if isinstance(value, Marked):
        if SENSITIVE in value.marks:
            return SENSITIVE_TEXT
        value = plain
    if value is None:
        return _null(ty)
    if isinstance(value, Null):  # a null that knows its type says it: ``tostring(null)``
        return _null(value.type)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return format_number(value)
    if isinstance(value, str):
        return _string(value, indent)
    if isinstance(value, list):
        return _sequence(value, ty, indent)
    if isinstance(value, dict):
        return _mapping(value, ty, indent)
    return str(value)


def _null(ty: CtyType) -> str:
    if ty in _TYPED_NULLS:
        return _TYPED_NULLS[ty]
    if isinstance(ty, Collection):
        return f"to{ty.kind}(null) /* of {ty.element.friendly_name} */"
    if isinstance(ty, TupleType | ObjectType):
        return f"null /* {ty.kind} */"
    return "null"


def _string(s: str, indent: int) -> str:
    lines = s.split("\n")
    if len(lines) < 2:
        return go_quote(s)
    delimiter = "EOT"
    while any(_go_trim_space(line) == delimiter for line in lines):
        delimiter += "_"
    pad = " " * indent
    body = "".join(f"\n{pad}{line}" for line in lines)
    return f"{'<<-' if indent > 0 else '<<'}{delimiter}{body}\n{pad}{delimiter}"


def go_quote(s: str) -> str:
    """``s`` as Go's ``strconv.Quote`` writes it: printable characters kept, the rest escaped."""
    out = ['"']
    for ch in s:
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch == " " or unicodedata.category(ch)[0] in "LMNPS":
            out.append(ch)
        elif ch < " ":  # DEL falls through to \u007f, as Terraform 1.0.3 writes it
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def _go_trim_space(s: str) -> str:
    """Go's ``strings.TrimSpace``: its notion of white space, which is not quite Python's."""
    def space(ch: str) -> bool:
        return ch in "\t\n\v\f\r \x85\xa0" or (ord(ch) > 0xFF and ch.isspace())

    start, end = 0, len(s)
    while start < end and space(s[start]):
        start += 1
    while end > start and space(s[end - 1]):
        end -= 1
    return s[start:end]


def _sequence(items: list[Any], ty: CtyType, indent: int) -> str:
    if isinstance(ty, Collection) and ty.kind in ("list", "set"):
        kinds = [_member_type(ty.element, items)] * len(items)
        return f"to{ty.kind}({_items(items, kinds, indent)})"
    if isinstance(ty, TupleType) and len(ty.elements) == len(items):
        return _items(items, list(ty.elements), indent)
    if isinstance(ty, Repeated) and ty.kind == "tuple":
        return _items(items, [ty.element] * len(items), indent)
    if isinstance(items, SetValue):
        return render(items, of_value(items), indent)
    return _items(items, [DYNAMIC] * len(items), indent)


def _mapping(value: dict[str, Any], ty: CtyType, indent: int) -> str:
    keys = sorted(value)
    if isinstance(ty, Collection) and ty.kind == "map":
        element = _member_type(ty.element, list(value.values()))
        return f"tomap({_pairs(value, keys, [element] * len(keys), indent)})"
    if isinstance(ty, ObjectType):
        return _pairs(value, keys, [ty.attributes.get(k, DYNAMIC) for k in keys], indent)
    if isinstance(ty, Repeated) and ty.kind == "object":
        return _pairs(value, keys, [ty.element] * len(keys), indent)
    return _pairs(value, keys, [DYNAMIC] * len(keys), indent)


def _member_type(declared: CtyType, values: list[Any]) -> CtyType:
    """A collection's element type; ``list(any)`` holds whatever its elements unify to, as in cty."""
    return declared if declared is not DYNAMIC else unify(of_value(v) for v in values)


def _items(items: list[Any], types: list[CtyType], indent: int) -> str:
    if not items:
        return "[]"
    pad = " " * (indent + 2)
    body = "".join(f"\n{pad}{render(v, t, indent + 2)}," for v, t in zip(items, types, strict=True))
    return f"[{body}\n{' ' * indent}]"


def _pairs(value: dict[str, Any], keys: list[str], types: list[CtyType], indent: int) -> str:
    if not keys:
        return "{}"
    pad = " " * (indent + 2)
    body = "".join(f"\n{pad}{_string(k, indent + 2)} = {render(value[k], t, indent + 2)}"
                   for k, t in zip(keys, types, strict=True))
    return f"{{{body}\n{' ' * indent}}}"


def render_type(ty: CtyType) -> str:
    """A type as ``type()`` prints it in OpenTofu's console: bare, not a quoted string, with a tuple's
    elements and an object's attributes one per line, four spaces deeper, each followed by a comma;
    a list, set or map wraps its element type (``list(string)``, ``map(list(number))``) and puts a
    tuple or object element on lines of its own (``list(\n    object({…}),\n)``)."""
    if isinstance(ty, Collection | Repeated):
        inner = render_type(ty.element)
        if isinstance(ty.element, TupleType | ObjectType):
            return f"{ty.kind}(\n{_indented(inner)},\n)"
        return f"{ty.kind}({inner})"
    if isinstance(ty, TupleType):
        if not ty.elements:
            return "tuple([])"
        return "tuple([\n" + "".join(f"{_indented(render_type(t))},\n" for t in ty.elements) + "])"
    if isinstance(ty, ObjectType):
        if not ty.fields:
            return "object({})"
        return "object({\n" + "".join(f"{_indented(f'{n}: {render_type(t)}')},\n" for n, t in ty.fields) + "})"
    return ty.kind


def _indented(text: str) -> str:
    return "\n".join("    " + line for line in text.split("\n"))


__all__ = ["SENSITIVE_TEXT", "UNKNOWN_TEXT", "go_quote", "render", "render_type"]
