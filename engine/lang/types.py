"""Type constraints (``variable { type = ... }``) and Terraform's rules for converting values to them.

A constraint is parsed once from the expression tree (``engine.lang.type_constraints``) and then
applied to every value a user supplies with ``convert``. Conversion is
lenient the way Terraform is (``"5"`` becomes a number, ``true`` becomes ``"true"``, a tuple becomes
a list), fills optional attributes with their defaults, and otherwise fails with a message naming
the exact place inside the value that is wrong, so a user can find it in a large tfvars file.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.lang.operators import parse_number, scalar_to_string, to_bool
from vocab import types as cty
from vocab.errors import CtlError, SourceRange
from vocab.unify import unify
from vocab.values import (
    ListValue,
    MapValue,
    Marked,
    Null,
    SetValue,
    Unknown,
    contains_unknown,
    deep_unmark,
    mark,
    normalize_number,
    unmark,
)

_SCALARS = frozenset({str, int, float, bool})


class Type:
    """Base of every type constraint; ``str()`` prints it in Terraform syntax."""

    __slots__ = ()


@dataclass(frozen=True)
class Primitive(Type):
    name: str  # "string" | "number" | "bool"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Any_(Type):
    """The ``any`` keyword: the value's own type is kept."""

    def __str__(self) -> str:
        return "any"


@dataclass(frozen=True)
class ListType(Type):
    elem: Type

    def __str__(self) -> str:
        return f"list({self.elem})"


@dataclass(frozen=True)
class SetType(Type):
    elem: Type

    def __str__(self) -> str:
        return f"set({self.elem})"


@dataclass(frozen=True)
class MapType(Type):
    elem: Type

    def __str__(self) -> str:
        return f"map({self.elem})"


@dataclass(frozen=True)
class TupleType(Type):
    elems: tuple[Type, ...]

    def __str__(self) -> str:
        return f"tuple([{', '.join(str(e) for e in self.elems)}])"


@dataclass(frozen=True)
class ObjectType(Type):
    """``attrs`` maps every attribute to its type; ``optional`` maps the optional ones to their
    default value (already converted to the attribute's type), or None when there is none."""

    attrs: dict[str, Type]
    optional: dict[str, Any] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.attrs.items(), key=lambda kv: kv[0])))

    def __str__(self) -> str:
        parts = []
        for name in sorted(self.attrs):
            t = str(self.attrs[name])
            if name in self.optional:
                default = self.optional[name]
                t = f"optional({t})" if default is None or isinstance(default, Null) else f"optional({t}, {_literal(default)})"
            parts.append(f"{name}={t}")
        return f"object({{{', '.join(parts)}}})"


STRING = Primitive("string")
NUMBER = Primitive("number")
BOOL = Primitive("bool")
ANY = Any_()

KEYWORDS: dict[str, Type] = {"string": STRING, "number": NUMBER, "bool": BOOL, "any": ANY}
"""The types a constraint names by keyword: ``type = string``."""
COLLECTIONS: dict[str, Callable[[Type], Type]] = {"list": ListType, "set": SetType, "map": MapType}
"""The collection types a constraint builds around an element type: ``list(string)``."""

_CTY_PRIMITIVES = {"string": cty.STRING, "number": cty.NUMBER, "bool": cty.BOOL}
_FROM_CTY_PRIMITIVES = {"string": STRING, "number": NUMBER, "bool": BOOL}


def to_cty(t: Type | None) -> cty.CtyType:
    """A type constraint as the language's type (``vocab.types``); ``any`` (or none) is ``dynamic``.

    An object's optional attributes are plain attributes there, as in the type of a converted value.
    """
    if isinstance(t, Primitive):
        return _CTY_PRIMITIVES.get(t.name, cty.DYNAMIC)
    if isinstance(t, ListType):
        return cty.list_of(to_cty(t.elem))
    if isinstance(t, SetType):
        return cty.set_of(to_cty(t.elem))
    if isinstance(t, MapType):
        return cty.map_of(to_cty(t.elem))
    if isinstance(t, TupleType):
        return cty.TupleType(tuple(to_cty(e) for e in t.elems))
    if isinstance(t, ObjectType):
        return cty.ObjectType({name: to_cty(a) for name, a in t.attrs.items()})
    return cty.DYNAMIC


def from_cty(t: cty.CtyType) -> Type:
    """The constraint that converts a value to the language type ``t`` (``dynamic`` is ``any``)."""
    if isinstance(t, cty.Primitive):
        return _FROM_CTY_PRIMITIVES.get(t.kind, ANY)
    if isinstance(t, cty.Collection | cty.Repeated):
        element = from_cty(t.element)
        return ListType(element) if t.kind in ("list", "tuple") else SetType(element) if t.kind == "set" \
            else MapType(element)
    if isinstance(t, cty.TupleType):
        return TupleType(tuple(from_cty(e) for e in t.elements))
    if isinstance(t, cty.ObjectType):
        return ObjectType({name: from_cty(a) for name, a in t.fields})
    return ANY


def _literal(v: Any) -> str:
    """A default value written the way it would appear in configuration."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_literal(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_literal(x) for x in v) + "]"
    if v is None or isinstance(v, Null):  # a default's attribute left unset is a null of its type
        return "null"
    if isinstance(v, str):
        return json.dumps(v)
    text = scalar_to_string(v)  # numbers as the language prints them (-0 and big ones too)
    return text if text is not None else str(v)


class ConversionError(CtlError):
    """A value does not fit a type; ``path`` (``["a"][0]``) says where inside the value."""

    def __init__(self, message: str, path: str = "", *, range: SourceRange | None = None) -> None:
        super().__init__(f"{path}: {message}" if path else message, range=range)
        self.message = message
        self.path = path


# --- converting values ---------------------------------------------------------------------------


def convert(value: Any, t: Type, *, path: str = "") -> Any:
    """``value`` converted to type ``t`` by Terraform's rules; raises ``ConversionError``.

    null fits every type (a null that has a type becomes a null of ``t``), unknown values stay
    unknown (carrying the type as a hint), and marks are kept where they were.
    """
    if type(value) is Marked:
        return Marked(convert(value.value, t, path=path), value.marks)
    if value is None or type(value) is Null:
        return value if isinstance(t, Any_) else Null(to_cty(t))
    if isinstance(value, Unknown):
        return value if isinstance(t, Any_) else Unknown(str(t))
    return _CONVERTERS[type(t)](value, t, path)


def _key_path(path: str, key: str | int) -> str:
    return f"{path}[{json.dumps(key)}]"


def _to_primitive(v: Any, t: Primitive, path: str) -> Any:
    if t.name == "string":
        s = scalar_to_string(v)
        if s is None:
            raise ConversionError("string required", path)
        return s
    if t.name == "number":
        if isinstance(v, int | float) and not isinstance(v, bool):
            return normalize_number(v)
        if isinstance(v, str):
            n = parse_number(v)
            if n is None:
                raise ConversionError("a number is required", path)
            return n
        raise ConversionError("number required", path)
    b = to_bool(v)
    if b is None:
        raise ConversionError("a bool is required" if isinstance(v, str) else "bool required", path)
    return b


def _to_any(v: Any, t: Any_, path: str) -> Any:
    return v


def _elements(v: Any, t: ListType | SetType, path: str) -> list[Any]:
    kind = "list" if isinstance(t, ListType) else "set"
    if not isinstance(v, list):
        raise ConversionError(f"{kind} of {t.elem} required", path)
    if isinstance(t.elem, Any_):
        return _unify(v, path, kind)
    return [convert(x, t.elem, path=_key_path(path, i)) for i, x in enumerate(v)]


def _unify(items: list[Any], path: str, kind: str) -> list[Any]:
    """Elements of ``list(any)``/``map(any)`` are converted to the one type they unify to."""
    try:
        return unify_values(items, kind)
    except Ununifiable:
        raise ConversionError(f"all {kind} elements must have the same type", path) from None


class Ununifiable(ConversionError):
    """Values with no type in common: numbers beside bools, a tuple beside an object."""


def unify_values(items: list[Any], kind: str = "list") -> list[Any]:
    """``items`` converted to the one type they unify to by cty's rules (``vocab.unify``), as Terraform
    converts the elements of a ``list(any)``, ``set(any)`` or ``map(any)`` (``kind``) and of
    ``tolist``'s, ``toset``'s and ``tomap``'s argument.

    Raises ``Ununifiable`` when they have none, or ``ConversionError`` when one of them does not
    convert after all (``"a"`` beside a set of numbers). A list or set of elements whose type stays
    unknown (``[null, [1]]``) has none, unless every element is of no known type; a map's nulls
    take the other attributes' type. Values of one primitive type, the usual case, come back as they
    are without a type being built.
    """
    kinds = set()
    for x in items:
        t = type(x)
        if t in _SCALARS:
            kinds.add(float if t is int else t)
        elif x is not None and t is not Unknown:
            break
    else:
        if len(kinds) < 2:
            return items
    types = [cty.type_of_value(x) for x in items]
    target = unify(types)
    if target is None:
        raise Ununifiable("the values have no type in common")
    if target is cty.DYNAMIC:
        if kind != "map" and any(t is not cty.DYNAMIC for t in types):
            raise Ununifiable("the values have no type in common")
        return items
    if all(t == target for t in types):
        return items
    converted = [convert(x, from_cty(target)) for x in items]
    if cty.has_dynamic(target):  # what the target leaves open, the converted values must agree on
        settled = {cty.type_of_value(x) for x in converted if x is not None and not isinstance(x, Unknown)}
        if len(settled) > 1:
            raise Ununifiable("the values have no type in common")
    return converted


def _to_list(v: Any, t: ListType, path: str) -> Any:
    if isinstance(v, SetValue) and contains_unknown(v):
        return Unknown(str(t))  # a set's order is not known while an element is not
    return ListValue(_elements(v, t, path), None if isinstance(t.elem, Any_) else to_cty(t.elem))


def _set_sort_key(v: Any) -> tuple[Any, ...]:
    u, _ = deep_unmark(v)
    if u is None or type(u) is Null:
        return (4,)
    if isinstance(u, bool):
        return (2, u)
    if isinstance(u, int | float):
        return (0, u)
    if isinstance(u, str):
        return (1, u)
    return (3, json.dumps(u, sort_keys=True, default=repr))


def _to_set(v: Any, t: SetType, path: str) -> list[Any]:
    """Sets are lists in the value model: sorted and without duplicates (unknowns go last)."""
    known: dict[tuple[Any, ...], Any] = {}
    unknown = []
    for x in _elements(v, t, path):
        if contains_unknown(x):
            unknown.append(x)
            continue
        key = _set_sort_key(x)
        if key in known:
            known[key] = mark(known[key], unmark(x)[1])
        else:
            known[key] = x
    return SetValue([known[k] for k in sorted(known)] + unknown, None if isinstance(t.elem, Any_) else to_cty(t.elem))


def _to_map(v: Any, t: MapType, path: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ConversionError(f"map of {t.elem} required", path)
    if isinstance(t.elem, Any_):
        keys = list(v)
        return MapValue(zip(keys, _unify([v[k] for k in keys], path, "map"), strict=True))
    return MapValue({k: convert(x, t.elem, path=_key_path(path, k)) for k, x in v.items()}, to_cty(t.elem))


def _to_object(v: Any, t: ObjectType, path: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ConversionError("object required", path)
    out: dict[str, Any] = {}
    for name, at in t.attrs.items():
        given = v.get(name)
        if (given is None or type(given) is Null) and name in t.optional:
            default = t.optional[name]
            out[name] = copy.deepcopy(default) if default is not None else Null(to_cty(at))
        elif name in v:
            out[name] = convert(given, at, path=_key_path(path, name))
        else:
            raise ConversionError(f'attribute "{name}" is required', path)
    return out


def _to_tuple(v: Any, t: TupleType, path: str) -> list[Any]:
    if not isinstance(v, list):
        raise ConversionError("tuple required", path)
    if len(v) != len(t.elems):
        raise ConversionError(f"a tuple of {len(t.elems)} elements is required, got {len(v)}", path)
    return [convert(x, et, path=_key_path(path, i)) for i, (x, et) in enumerate(zip(v, t.elems, strict=True))]


_CONVERTERS: dict[type, Callable[[Any, Any, str], Any]] = {
    Primitive: _to_primitive,
    Any_: _to_any,
    ListType: _to_list,
    SetType: _to_set,
    MapType: _to_map,
    ObjectType: _to_object,
    TupleType: _to_tuple,
}
