"""The language's types (cty's): the one type model the evaluator, the console and the plugin codecs share.

Terraform describes every attribute type in cty's JSON type encoding: ``"string"``, ``"number"``,
``"bool"``, ``"dynamic"``, ``["list",T]``, ``["set",T]``, ``["map",T]``, ``["tuple",[T...]]`` and
``["object",{name:T}]`` with an optional third element listing optional attribute names. The
codecs walk these types once per value, so they are small immutable objects with a ``kind`` string
to dispatch on; equal types compare and hash equal so they can key caches. ``type_json`` writes the
exact bytes Go's cty writes (compact, keys sorted, Go's HTML-safe string escaping), because the
msgpack encoding of a dynamic value embeds them.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from vocab.errors import CtlError
from vocab.values import ListValue, MapValue, Marked, Null, SetValue, Unknown


class TypeSpecError(CtlError):
    """A type description in cty's JSON type encoding that is not valid."""


class CtyType:
    """Base of every cty type; ``kind`` is the JSON name of the type's constructor."""

    __slots__ = ("_hash", "_json", "_name")
    kind: str = ""
    _json: bytes | None  # the JSON encoding, once asked for
    _name: str | None  # the friendly name, once asked for

    def __repr__(self) -> str:
        return f"CtyType({type_json(self).decode()})"

    @property
    def friendly_name(self) -> str:
        """The name Terraform uses in messages: ``list of string``, ``object``, ``dynamic``."""
        name = self._name
        if name is None:
            name = self._name = _friendly(self)
        return name


class Primitive(CtyType):
    """``string``, ``number``, ``bool`` or the ``dynamic`` pseudo-type (one instance of each)."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._json = None
        self._name = None
        self._hash: int | None = None


class Collection(CtyType):
    """``list``, ``set`` or ``map`` of one element type."""

    __slots__ = ("element", "kind")

    def __init__(self, kind: str, element: CtyType) -> None:
        self.kind = kind
        self.element = element
        self._json = None
        self._name = None
        self._hash: int | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Collection) and other.kind == self.kind and other.element == self.element

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash((self.kind, self.element))
        return h


class TupleType(CtyType):
    """A fixed-length sequence with one type per position."""

    __slots__ = ("elements",)
    kind = "tuple"

    def __init__(self, elements: tuple[CtyType, ...]) -> None:
        self.elements = tuple(elements)
        self._json = None
        self._name = None
        self._hash: int | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TupleType) and other.elements == self.elements

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash(("tuple", self.elements))
        return h


class ObjectType(CtyType):
    """Named attributes, each with a type; ``optional`` names may be absent in a conversion."""

    __slots__ = ("attributes", "fields", "names", "optional")
    kind = "object"

    def __init__(self, attributes: dict[str, CtyType], optional: frozenset[str] = frozenset()) -> None:
        self.attributes = dict(attributes)
        # Sorted once: every encoding writes attributes in this order.
        self.names = tuple(sorted(self.attributes))
        self.fields = tuple((n, self.attributes[n]) for n in self.names)
        self.optional = frozenset(optional)
        self._json = None
        self._name = None
        self._hash: int | None = None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ObjectType)
            and other.attributes == self.attributes
            and other.optional == self.optional
        )

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash(("object", self.names))
        return h


STRING = Primitive("string")
NUMBER = Primitive("number")
BOOL = Primitive("bool")
DYNAMIC = Primitive("dynamic")
_PRIMITIVES = {"string": STRING, "number": NUMBER, "bool": BOOL, "dynamic": DYNAMIC}


def list_of(element: CtyType) -> Collection:
    return Collection("list", element)


def set_of(element: CtyType) -> Collection:
    return Collection("set", element)


def map_of(element: CtyType) -> Collection:
    return Collection("map", element)


def parse_type(spec: bytes | str | Any) -> CtyType:
    """A type from its JSON encoding: raw bytes/text as a schema carries it, or already parsed."""
    if isinstance(spec, bytes | bytearray):
        spec = spec.decode("utf-8", errors="replace")
    if isinstance(spec, str) and spec not in _PRIMITIVES:
        try:
            spec = json.loads(spec)
        except json.JSONDecodeError as e:
            raise TypeSpecError(f"invalid type description {spec!r}: {e.msg}") from None
    return _from_json(spec)


def _from_json(spec: Any) -> CtyType:
    if isinstance(spec, str):
        if spec in _PRIMITIVES:
            return _PRIMITIVES[spec]
        raise TypeSpecError(f"invalid primitive type name {spec!r}")
    if not isinstance(spec, list) or not spec or not isinstance(spec[0], str):
        raise TypeSpecError(f"invalid type description {json.dumps(spec)}")
    kind, args = spec[0], spec[1:]
    if kind in ("list", "set", "map") and len(args) == 1:
        return Collection(kind, _from_json(args[0]))
    if kind == "tuple" and len(args) == 1 and isinstance(args[0], list):
        return TupleType(tuple(_from_json(t) for t in args[0]))
    if kind == "object" and len(args) in (1, 2) and isinstance(args[0], dict):
        attrs = {name: _from_json(t) for name, t in args[0].items()}
        optional = args[1] if len(args) == 2 else []
        if not isinstance(optional, list) or not all(isinstance(n, str) for n in optional):
            raise TypeSpecError(f"invalid optional attribute list {json.dumps(optional)}")
        unknown = sorted(set(optional) - set(attrs))
        if unknown:
            raise TypeSpecError(f"optional attribute {unknown[0]!r} is not an attribute of the object")
        return ObjectType(attrs, frozenset(optional))
    raise TypeSpecError(f"invalid type description {json.dumps(spec)}")


_JSON_BY_TYPE: dict[CtyType, bytes] = {}


def type_json(ty: CtyType) -> bytes:
    """The type's JSON encoding, byte for byte as cty writes it."""
    cached = ty._json
    if cached is None:
        # Dynamic values build a fresh type per value; equal types share one encoding.
        cached = _JSON_BY_TYPE.get(ty)
        if cached is None:
            cached = _to_json_text(ty).encode()
            if len(_JSON_BY_TYPE) < 4096:
                _JSON_BY_TYPE[ty] = cached
        ty._json = cached
    return cached


def type_to_json_value(ty: CtyType) -> Any:
    """The type's JSON encoding as plain data (for embedding in a JSON document)."""
    return json.loads(type_json(ty))


def _to_json_text(ty: CtyType) -> str:
    if isinstance(ty, Primitive):
        return f'"{ty.kind}"'
    if isinstance(ty, Collection):
        return f'["{ty.kind}",{_to_json_text(ty.element)}]'
    if isinstance(ty, TupleType):
        return '["tuple",[' + ",".join(_to_json_text(t) for t in ty.elements) + "]]"
    assert isinstance(ty, ObjectType)
    attrs = ",".join(f"{go_json_string(n)}:{_to_json_text(ty.attributes[n])}" for n in ty.names)
    if ty.optional:
        optional = ",".join(go_json_string(n) for n in sorted(ty.optional))
        return f'["object",{{{attrs}}},[{optional}]]'
    return f'["object",{{{attrs}}}]'


_GO_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def go_json_string(s: str) -> str:
    """A JSON string literal as Go's encoding/json writes it: UTF-8 kept, ``<>&`` and U+2028/9 escaped."""
    out = ['"']
    for ch in s:
        if ch in _GO_SHORT_ESCAPES:
            out.append(_GO_SHORT_ESCAPES[ch])
        elif ch < " " or ch in "<>&\u2028\u2029":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _friendly(ty: CtyType) -> str:
    if isinstance(ty, Collection):
        return f"{ty.kind} of {ty.element.friendly_name}"
    return ty.kind


def has_dynamic(ty: CtyType) -> bool:
    """True when ``dynamic`` appears anywhere in the type (Terraform then cannot use a list)."""
    if ty is DYNAMIC:
        return True
    if isinstance(ty, Collection):
        return has_dynamic(ty.element)
    if isinstance(ty, TupleType):
        return any(has_dynamic(t) for t in ty.elements)
    if isinstance(ty, ObjectType):
        return any(has_dynamic(t) for t in ty.attributes.values())
    return False


def without_optional_attributes(ty: CtyType) -> CtyType:
    """The same type with every object's optional-attribute list dropped, at every depth."""
    if isinstance(ty, Collection):
        return Collection(ty.kind, without_optional_attributes(ty.element))
    if isinstance(ty, TupleType):
        return TupleType(tuple(without_optional_attributes(t) for t in ty.elements))
    if isinstance(ty, ObjectType):
        return ObjectType({n: without_optional_attributes(t) for n, t in ty.attributes.items()})
    return ty


def type_of_value(value: Any) -> CtyType:
    """The type a ctl value has: a literal's tuple or object, or the list, set or map it was made.

    A bracketed literal is a tuple and braces an object, as in configuration; a ``ListValue``,
    ``SetValue`` or ``MapValue`` (what type constraints, ``tolist``/``toset``/``tomap`` and
    providers make) is that collection, of the element type it was given, else of the type of its
    first known element (a collection's elements share one type). A typed null is of its type; the
    null of no type and unknown are ``dynamic``.
    """
    if isinstance(value, Marked):
        value = value.value
    if value is None or isinstance(value, Unknown):
        return DYNAMIC
    if isinstance(value, Null):
        return value.type if isinstance(value.type, CtyType) else DYNAMIC
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int | float | Decimal):
        return NUMBER
    if isinstance(value, str):
        return STRING
    if isinstance(value, SetValue | ListValue):
        return Collection("set" if isinstance(value, SetValue) else "list", _element_type(value.element, value))
    if isinstance(value, list):
        return TupleType(tuple(type_of_value(v) for v in value))
    if isinstance(value, MapValue):
        return map_of(_element_type(value.element, value.values()))
    if isinstance(value, dict):
        return ObjectType({k: type_of_value(v) for k, v in value.items()})
    raise TypeSpecError(f"a {type(value).__name__} value has no cty type")


def plain_data(value: Any) -> Any:
    """``value`` as it leaves the language for providers, state, plan files and JSON: every typed
    null made ``None`` and every negative zero ``0``, since those know a null, not its type, and a
    zero, not its sign (Terraform writes ``-0`` as ``0`` in state and ``output -json``).

    A value with neither inside, nearly every one, comes back as it is after one visit per node (no
    copy); a list, set or map keeps its kind and its element type, which an element's type settles
    when none was declared (``tolist([tostring(null)])`` stays a list of strings).
    """
    return _plain(value, True) if _needs_change(value, True) else value


def untyped_nulls(value: Any) -> Any:
    """``value`` with every typed null made ``None`` and nothing else changed (as ``plain_data``):
    for the functions that read a null as ``None``."""
    return _plain(value, False) if _needs_change(value, False) else value


def _needs_change(value: Any, zeros: bool) -> bool:
    t = type(value)
    if t is float:
        return zeros and value == 0 and math.copysign(1.0, value) < 0
    if t in _PLAIN_EXACT:
        return False
    if t is Null:
        return True
    if t is Marked:
        return _needs_change(value.value, zeros)
    if isinstance(value, list):
        return any(type(x) not in _PLAIN_EXACT and _needs_change(x, zeros) for x in value)
    if isinstance(value, dict):
        return any(type(x) not in _PLAIN_EXACT and _needs_change(x, zeros) for x in value.values())
    return False


def _plain(value: Any, zeros: bool) -> Any:
    if not _needs_change(value, zeros):
        return value
    t = type(value)
    if t is Null:
        return None
    if t is float:
        return 0
    if t is Marked:
        return Marked(_plain(value.value, zeros), value.marks)
    if isinstance(value, list):
        items = [_plain(x, zeros) for x in value]
        if isinstance(value, SetValue | ListValue):
            element = value.element if value.element is not None else _element_type(None, value)
            return type(value)(items, None if element is DYNAMIC else element)
        return items if t is list else t(items)
    if isinstance(value, dict):
        entries = {k: _plain(x, zeros) for k, x in value.items()}
        if isinstance(value, MapValue):
            element = value.element if value.element is not None else _element_type(None, value.values())
            return MapValue(entries, None if element is DYNAMIC else element)
        return entries if t is dict else t(entries)
    return value


_PLAIN_EXACT = frozenset({str, int, bool, type(None)})  # leaves that never need a change (not float)


def _element_type(declared: Any, elements: Any) -> CtyType:
    if isinstance(declared, CtyType):
        return declared
    for element in elements:
        element_type = type_of_value(element)
        if element_type is not DYNAMIC:
            return element_type
    return DYNAMIC


def type_string(ty: CtyType) -> str:
    """The type on one line in the language's own syntax: ``list(string)``, ``tuple([string, number])``,
    ``object({a: number})`` (what ``type()`` prints)."""
    if isinstance(ty, Collection | Repeated):
        return f"{ty.kind}({type_string(ty.element)})"
    if isinstance(ty, TupleType):
        return "tuple([" + ", ".join(type_string(t) for t in ty.elements) + "])"
    if isinstance(ty, ObjectType):
        return "object({" + ", ".join(f"{n}: {type_string(t)}" for n, t in ty.fields) + "})"
    return ty.kind


class Repeated(CtyType):
    """A tuple (``kind="tuple"``) or object whose length or keys only the value knows, every element
    of one type: what ``[for …]``, ``count`` and ``for_each`` produce, before the value is known."""

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
