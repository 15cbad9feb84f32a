"""A parsed file's bodies and expressions as plain JSON lists, and back: the parse cache's format.

Rebuilding the tree from lists is several times faster than converting tree-sitter's tree,
because it skips every call into
the parser's node objects and every position computation. JSON keeps a damaged or foreign cache
entry harmless: the worst it can do is fail to decode, and the caller then parses the file.

Every node is ``[kind, field, ...]``: ``kind`` indexes ``_CLASSES`` for the syntax and expression
dataclasses (their fields in declaration order) or is one of the negative markers below for a
range, a list, a tuple, a dict or a number JSON cannot carry exactly. Ranges leave out the file
name: every range of one file has the same one, given back by the caller with the file's text. A
range in the parsed file itself, nearly every one, is its start and length packed in one int as
``vocab.positions`` packs them (without the file's number) and written as that int's complement: a negative int among a node's fields is always such a range (a
negative number in the tree is written as a big one), so it comes back without a list of its own,
as the packed ``Located`` the parser itself gives a node. Ranges are half of a tree's
nodes, so this saves a list per range when reading an entry back. The cache checks each entry whole before
decoding it (``engine.config.parse_cache``), so a range is not checked again here. A node's string
fields (names) are interned as they come back, as the parser interns them, and an object's keys
are interned by the node itself (``ast.ObjectItem``); a literal's text and a block's labels are not,
as the parser leaves them: most are written once, and the interpreter's table of interned strings
would hold an entry for each (a resource's type, the label that recurs, is interned where the
configuration is decoded).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from fractions import Fraction
from operator import attrgetter
from sys import intern
from typing import Any

from engine.lang import ast
from engine.lang.numbers import BigFloat
from engine.lang.syntax import Attribute, Block, Body
from vocab.errors import SourceRange, SourceText
from vocab.positions import INDEX_LIMIT, INDEX_MASK, LENGTH_SHIFT, Located, as_range, packed_in

_RANGE, _LIST, _TUPLE, _DICT, _BIG_INT, _BIG_FLOAT, _SPAN = -1, -2, -3, -4, -5, -6, -7
_INT64 = 1 << 63

_CLASSES: list[type] = [Attribute, Block, Body] + [
    c for c in vars(ast).values()
    if isinstance(c, type) and (dataclasses.is_dataclass(c) or c is ast.ObjectItem) and c.__module__ == ast.__name__
]
_KIND = {c: i for i, c in enumerate(_CLASSES)}
# An object's item is no dataclass (it keeps a literal key as its text): it is written as its key
# node and its value node, and built back from the two (``_pair_constructor``).
_ITEM_FIELDS: list[tuple[str, str]] = [("key", "Expr"), ("value", "Expr")]


def _fields(cls: type) -> list[tuple[str, str]]:
    """A class's fields as (name, declared type), in declaration order."""
    if cls is ast.ObjectItem:
        return _ITEM_FIELDS
    return [(f.name, str(f.type)) for f in dataclasses.fields(cls)]


def _getter(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving an instance's field values as a tuple, in declaration order."""
    names = [name for name, _ in _fields(cls)]
    if len(names) == 1:
        return lambda o: (getattr(o, names[0]),)
    return attrgetter(*names)


_GETTERS = {c: _getter(c) for c in _CLASSES}
_LITERAL, _OBJECT_ITEM, _TEMPLATE = _KIND[ast.Literal], _KIND[ast.ObjectItem], _KIND[ast.Template]
_SCOPE_TRAVERSAL, _ATTR_STEP = _KIND[ast.ScopeTraversal], _KIND[ast.AttrStep]


class Uncacheable(Exception):
    """The tree holds something this format does not carry; the file is simply not cached."""


def encode_body(body: Body, filename: str) -> list[Any]:
    """``body`` as nested lists of JSON values; raises ``Uncacheable`` for what it cannot carry.

    A call per node, per collection and per range: a node's fields are written in a loop by their
    kind (range, list of ranges, anything else), a name or a literal inline. Calling a function for
    every field, as before, made more than twice as many calls. The helper that parses a large
    directory's second half encodes every file it parses, so this is on the critical path of a first
    ``validate``; so the six commonest classes (literals, objects and their items, tuples, templates,
    names and their attributes) are written field by field without that loop, which saves a good
    share of the instructions. Each must write what the loop would (``_SPECS``' field order).
    """
    text = as_range(body._rng).text
    own = text.index if text is not None and text.name == filename and text.index < INDEX_LIMIT else -1

    def located(r: Any) -> Any:
        if type(r) is int and r & INDEX_MASK == own:  # a range of this file: nearly every one
            return ~(r >> LENGTH_SHIFT)
        return _encode_range(r, filename)

    def encode(o: Any) -> Any:
        t = type(o)
        # The commonest nodes are written out by their fields, without the loop below.
        if t is ast.Literal:
            v = o.value
            return [_LITERAL, located(o._rng), v if type(v) is str or v is None else encode(v)]
        if t is ast.ObjectItem:
            return [_OBJECT_ITEM, encode(o.key), encode(o.value)]
        if t is ast.ObjectCons or t is ast.TupleCons:
            return [_KIND[t], located(o._rng), encode(o.items)]
        if t is ast.Template:
            return [_TEMPLATE, located(o._rng), encode(o.parts)]
        if t is ast.ScopeTraversal:
            return [_SCOPE_TRAVERSAL, located(o._rng), o.root, encode(o.steps)]
        if t is ast.AttrStep:
            return [_ATTR_STEP, o.name, located(o._rng)]
        spec = _SPECS.get(t)
        if spec is not None:  # most of a tree: one of the dataclasses
            if t is Body and o.duplicates:  # the decoder reports them from shared objects: parse afresh
                raise Uncacheable("duplicate attributes")
            kind, getter, treatments = spec
            out: list[Any] = [kind]
            for treatment, v in zip(treatments, getter(o), strict=True):
                if treatment is _AS_RANGE:
                    out.append(located(v))
                elif treatment is _AS_VALUE:
                    out.append(v if type(v) is str or v is None else encode(v))
                else:
                    out.append([_LIST, *[located(r) for r in v]])
            return out
        if t is str or t is bool or o is None:
            return o
        if t is tuple:
            return [_TUPLE, *[encode(x) for x in o]]
        if t is list:
            return [_LIST, *[encode(x) for x in o]]
        if t is int:  # a negative one would read as a range
            return o if 0 <= o < _INT64 else [_BIG_INT, str(o)]
        if t is dict:
            items: list[Any] = [_DICT]
            for key, value in o.items():
                if type(key) is not str:
                    raise Uncacheable("a non-string key")
                items.append(key)
                items.append(encode(value))
            return items
        if t is BigFloat:
            exact = o.exact
            return [_BIG_FLOAT, str(exact.numerator), str(exact.denominator)]
        if t is float and math.isfinite(o):  # a YAML or JSON spec's ``0.5``: JSON gives the same double back
            return o
        if t is SourceRange:
            return located(o)
        raise Uncacheable(f"a {t.__name__} value")

    encoded: list[Any] = encode(body)  # a Body is always encoded as a list
    return encoded


def _encode_range(located: Located, filename: str) -> Any:
    """A range that is not a packed one of the file: its two byte offsets when it is in the parsed
    file (one longer than a packed range holds), else its six numbers."""
    rng = as_range(located)
    if rng.filename != filename:
        raise Uncacheable("a range in another file")
    if rng.text is not None:
        return [_SPAN, *rng.byte_span()]
    return [_RANGE, *rng.numbers()]


# How each field of a class is encoded, by position. A range field (``_rng``, ``_name_rng``) holds
# a ``Located``, where a plain int is a packed range, not a number; ``_label_rngs`` a list of them.
_AS_RANGE, _AS_RANGES, _AS_VALUE = "range", "ranges", "value"
_SPECS = {
    c: (_KIND[c], _GETTERS[c], tuple(
        _AS_RANGE if name in ("_rng", "_name_rng") else _AS_RANGES if name == "_label_rngs" else _AS_VALUE
        for name, _ in _fields(c)
    ))
    for c in _CLASSES
}


def decode_body(data: Any, text: SourceText) -> Body:
    """The ``Body`` that ``encode_body`` encoded from the file ``text``; malformed input raises ``ValueError``."""
    try:
        body = _Decoder(text).decode(data)
    except (IndexError, KeyError, TypeError, ValueError, ZeroDivisionError, RecursionError) as exc:
        raise ValueError(f"not an encoded body: {exc}") from None
    if type(body) is not Body:
        raise ValueError("not an encoded body")
    return body


class _Decoder:
    """Rebuilds one file's tree; holds the file every range gets back.

    Each kind of node has its own function, made once per file from the class's fields: a range
    field is read as a range, a field declared as a name as an interned string, a field declared
    as a node or a collection of them as that node, and any other field (a literal's value, an
    optional name) by its JSON type. Unpacking the node checks its length. Deciding each field's
    treatment once per class, rather than testing the type of every field of every node, reads a
    file back faster, and every command of a large configuration reads every file back. The
    commonest shapes skip a call more per node: a range as the first field is read inline, and a
    node in a collection, an object's item or the one field after a range is built by its kind
    directly (fewer instructions, measured by ``bench/instructions.py``)."""

    def __init__(self, text: SourceText) -> None:
        self.filename = text.name
        self.text = text
        base = text.index  # a range of this file is its number plus its packed start and length
        if base >= INDEX_LIMIT:  # packed ranges cannot name it: the caller parses the file instead
            raise ValueError("too many files registered to pack this file's ranges")

        def node(x: list[Any]) -> Any:
            return kinds[x[0]](x)

        def value(y: Any) -> Any:
            return kinds[y[0]](y) if type(y) is list else base | ~y << LENGTH_SHIFT if type(y) is int and y < 0 else y

        def rng(y: Any) -> Any:
            return base | ~y << LENGTH_SHIFT if type(y) is int and y < 0 else self.marker(y)

        # A collection's items are nearly all nodes: each is built here, without ``value`` and ``node``.
        def items(x: list[Any]) -> list[Any]:
            return [kinds[y[0]](y) if type(y) is list else value(y) for y in x[1:]]

        by_declared: dict[str, Callable[[Any], Any]] = {"str": intern, "range": rng, "node": node}
        kinds: dict[int, Callable[[list[Any]], Any]] = {}
        for kind, cls in enumerate(_CLASSES):
            fields = [by_declared.get(treatment, value) for treatment in _TREATMENTS[cls]]
            if fields == [node, node]:  # an object's item: two nodes, built without ``node``
                kinds[kind] = _pair_constructor(cls, kinds)
                continue
            built = None
            if fields[0] is rng:
                built = _ranged_constructor(cls, fields[1:], base, self.marker, kinds, fields[1:] == [node])
            kinds[kind] = built or _constructor(cls, fields)
        kinds[_LIST] = items
        kinds[_TUPLE] = lambda x: tuple([kinds[y[0]](y) if type(y) is list else value(y) for y in x[1:]])
        kinds[_DICT] = lambda x: {intern(x[i]): node(v) if type(v := x[i + 1]) is list else v
                                  for i in range(1, len(x), 2)}
        for marker in (_RANGE, _SPAN, _BIG_INT, _BIG_FLOAT):
            kinds[marker] = self.marker
        self.node = node

    def decode(self, x: Any) -> Any:
        if type(x) is not list:
            return x
        return self.node(x)

    def marker(self, x: list[Any]) -> Any:
        """A value JSON does not carry as itself: a range that is not packed, or a big number."""
        kind = x[0]
        if kind == _RANGE:
            _, sl, sc, sb, el, ec, eb = x
            return SourceRange.of(self.filename, sl, sc, sb, el, ec, eb)
        if kind == _SPAN:
            _, start, end = x
            return packed_in(self.text, int(start), int(end))
        if kind == _BIG_INT:
            _, digits = x
            return int(digits)
        if kind == _BIG_FLOAT:
            _, numerator, denominator = x
            return BigFloat(Fraction(int(numerator), int(denominator)))
        raise ValueError(f"unknown kind {kind}")


def _treatment(name: str, declared: str) -> str:
    """How a field is read back, from its name and its declared type (annotations are strings here)."""
    if name in ("_rng", "_name_rng"):
        return "range"
    if declared == "str":
        return "str"
    if declared in ("Expr", "Body") or declared.startswith(("tuple[", "list[", "dict[")):
        return "node"
    return "value"  # by its JSON type: a literal's value, an optional name or node, a flag


_TREATMENTS = {c: [_treatment(name, declared) for name, declared in _fields(c)] for c in _CLASSES}


def _constructor(cls: type, fields: list[Callable[[Any], Any]]) -> Callable[[list[Any]], Any]:
    """A function building ``cls`` from an encoded node, one function per field; the common
    arities are written out, which spares a list and an argument spread per node."""
    if len(fields) == 2:
        a, b = fields

        def two(x: list[Any]) -> Any:
            _, p, q = x
            return cls(a(p), b(q))
        return two
    if len(fields) == 3:
        a, b, c = fields

        def three(x: list[Any]) -> Any:
            _, p, q, r = x
            return cls(a(p), b(q), c(r))
        return three
    if len(fields) == 4:
        a, b, c, d = fields

        def four(x: list[Any]) -> Any:
            _, p, q, r, s = x
            return cls(a(p), b(q), c(r), d(s))
        return four

    def many(x: list[Any]) -> Any:
        if len(x) != len(fields) + 1:
            raise ValueError(f"a {cls.__name__} with {len(x) - 1} fields")
        return cls(*[f(y) for f, y in zip(fields, x[1:], strict=True)])
    return many


def _pair_constructor(cls: type, kinds: dict[int, Callable[[list[Any]], Any]]) -> Callable[[list[Any]], Any]:
    """Like ``_constructor``, for a class of two nodes (an object's item): each built by its kind directly."""

    def pair(x: list[Any]) -> Any:
        _, p, q = x
        return cls(kinds[p[0]](p), kinds[q[0]](q))
    return pair


def _ranged_constructor(
    cls: type,
    rest: list[Callable[[Any], Any]],
    base: int,
    marker: Callable[[Any], Any],
    kinds: dict[int, Callable[[list[Any]], Any]],
    one_node: bool,
) -> Callable[[list[Any]], Any] | None:
    """Like ``_constructor``, for a class of a range and one more field (literals, collections,
    templates): the range is read inline, without a call, as a packed range of the file or else by
    ``marker``, and a node after it is built by its kind directly. None for other classes: written
    out for three and four fields too, these saved too little to keep."""
    if one_node:

        def ranged_node(x: list[Any]) -> Any:
            _, p, q = x
            return cls(base | ~p << LENGTH_SHIFT if type(p) is int and p < 0 else marker(p), kinds[q[0]](q))
        return ranged_node
    if len(rest) == 1:
        (b,) = rest

        def two(x: list[Any]) -> Any:
            _, p, q = x
            return cls(base | ~p << LENGTH_SHIFT if type(p) is int and p < 0 else marker(p), b(q))
        return two
    return None
