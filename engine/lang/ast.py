"""Syntax tree of the expression language, independent of the parser that produced it.

HCL source (through tree-sitter), ``*.tf.json`` and YAML strings (templates) all become these
nodes, so one evaluator serves every input syntax. Every node carries its source range, which is
what lets an error point at ``file:line:col``: kept as a ``Located`` (for a parsed file, one packed
int; see ``vocab.positions``) and given as a ``SourceRange`` by ``rng``. Template strip markers
(``~``) are applied by the parser, so the evaluator never sees them.

Nodes are never changed once built, and hash by value as frozen ones would (``unsafe_hash``), but
are not declared frozen: a frozen dataclass sets each field through ``object.__setattr__``, and a
large configuration builds millions of nodes (parsing, or rebuilding from the parse cache, is
noticeably faster without it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from sys import intern
from typing import Any

from vocab.positions import Located, SourceRange, as_range


class Ranged:
    """What has a ``_rng`` field: ``rng`` is its ``SourceRange``, built when asked for."""

    __slots__ = ()
    _rng: Located

    @property
    def rng(self) -> SourceRange:
        return as_range(self._rng)


@dataclass(slots=True, unsafe_hash=True)
class Expr(Ranged):
    _rng: Located


@dataclass(slots=True, unsafe_hash=True)
class Literal(Expr):
    """A constant: null, bool, number or string."""

    value: Any


@dataclass(slots=True, unsafe_hash=True)
class AttrStep(Ranged):
    """``.name`` in a traversal."""

    name: str
    _rng: Located


@dataclass(slots=True, unsafe_hash=True)
class IndexStep(Ranged):
    """``[key]`` in a traversal (also the legacy ``.0`` form)."""

    key: Expr
    _rng: Located


@dataclass(slots=True, unsafe_hash=True)
class SplatStep(Ranged):
    """A splat inside a splat's steps: in ``a[*].b[*].c`` the ``[*].c`` applied to each ``b``."""

    each: tuple[AttrStep | IndexStep | SplatStep, ...]
    full: bool
    _rng: Located


Step = AttrStep | IndexStep | SplatStep


@dataclass(slots=True, unsafe_hash=True)
class ScopeTraversal(Expr):
    """A name looked up in scope followed by steps: ``var.x``, ``aws_s3_bucket.a[0].arn``, ``each.key``."""

    root: str
    steps: tuple[Step, ...]


@dataclass(slots=True, unsafe_hash=True)
class RelativeTraversal(Expr):
    """Steps applied to the result of another expression: ``f(x)[0].y``, ``(var.m).k``."""

    source: Expr
    steps: tuple[Step, ...]


@dataclass(slots=True, unsafe_hash=True)
class Splat(Expr):
    """``source[*].a.b`` (full) or ``source.*.a`` (attribute-only): apply ``each`` to every element.

    A non-list, non-null source is treated as a one-element list; null gives an empty list.
    """

    source: Expr
    each: tuple[Step, ...]
    full: bool


@dataclass(slots=True, unsafe_hash=True)
class FunctionCall(Expr):
    name: str
    args: tuple[Expr, ...]
    expand_final: bool  # f(a, b...) — the last argument is a list spread into arguments


@dataclass(slots=True, unsafe_hash=True)
class Conditional(Expr):
    cond: Expr
    true: Expr
    false: Expr


@dataclass(slots=True, unsafe_hash=True)
class BinaryOp(Expr):
    """``op`` is one of ``+ - * / % == != < <= > >= && ||``."""

    op: str
    left: Expr
    right: Expr


@dataclass(slots=True, unsafe_hash=True)
class UnaryOp(Expr):
    """``op`` is ``-`` or ``!``."""

    op: str
    operand: Expr


@dataclass(slots=True, unsafe_hash=True)
class TupleCons(Expr):
    items: tuple[Expr, ...]


class ObjectItem:
    """``key = value``; a bare identifier key is already a ``Literal`` string.

    A key that is a literal string (a bare identifier or a quoted name: nearly every key) is kept
    as its text (``name``) and range, not as a ``Literal`` node of its own: a large configuration
    has hundreds of thousands of keys, and the node was a third of each one's memory. ``key``
    makes the node when asked; a reader that only wants the text reads ``name``, interned, since
    the same few names recur in every block. Built from, and equal and hashed as, the key and value
    it was given.
    """

    __slots__ = ("_key", "name", "value")

    name: str | None  # the key's text when it is a literal string, else None
    _key: Located | Expr  # that key's range, or else the key expression itself
    value: Expr

    def __init__(self, key: Expr, value: Expr) -> None:
        if type(key) is Literal and type(key.value) is str:
            self.name, self._key = intern(key.value), key._rng  # the same few names in every block
        else:
            self.name, self._key = None, key
        self.value = value

    @property
    def key(self) -> Expr:
        name, key = self.name, self._key
        if name is None:
            assert isinstance(key, Expr)
            return key
        assert not isinstance(key, Expr)
        return Literal(key, name)

    def _fields(self) -> tuple[Any, ...]:
        return (self.name, self._key, self.value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not ObjectItem:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"ObjectItem(key={self.key!r}, value={self.value!r})"


@dataclass(slots=True, unsafe_hash=True)
class ObjectCons(Expr):
    items: tuple[ObjectItem, ...]


@dataclass(slots=True, unsafe_hash=True)
class ForExpr(Expr):
    """``[for k, v in coll : value if cond]`` or ``{for k, v in coll : key => value... if cond}``.

    ``key_expr`` is None for the tuple form. ``key_var`` is None when only one variable is named
    (it then binds the value). ``group`` is the ``...`` grouping mode of the object form.
    """

    key_var: str | None
    value_var: str
    collection: Expr
    key_expr: Expr | None
    value_expr: Expr
    cond: Expr | None
    group: bool


@dataclass(slots=True, unsafe_hash=True)
class TemplateIf(Ranged):
    cond: Expr
    then: tuple[TemplatePart, ...]
    otherwise: tuple[TemplatePart, ...]
    _rng: Located


@dataclass(slots=True, unsafe_hash=True)
class TemplateFor(Ranged):
    key_var: str | None
    value_var: str
    collection: Expr
    body: tuple[TemplatePart, ...]
    _rng: Located


# A template part is literal text (str), an interpolated expression, or a directive.
TemplatePart = str | Expr | TemplateIf | TemplateFor


@dataclass(slots=True, unsafe_hash=True)
class Template(Expr):
    """A string template; the result is always a string."""

    parts: tuple[TemplatePart, ...]


@dataclass(slots=True, unsafe_hash=True)
class TemplateWrap(Expr):
    """A template that is exactly one interpolation (``"${x}"``): yields ``x`` unconverted."""

    inner: Expr


@dataclass(slots=True, unsafe_hash=True)
class Parens(Expr):
    """``(expr)``: kept so an object key in parentheses is evaluated, not taken literally."""

    inner: Expr


def walk(node: Any) -> Iterator[Expr]:
    """Yield every expression node in the tree, depth first."""
    if isinstance(node, Expr):
        yield node
    if isinstance(node, Literal):
        return
    if isinstance(node, ScopeTraversal | RelativeTraversal | Splat):
        if isinstance(node, RelativeTraversal | Splat):
            yield from walk(node.source)
        steps = node.each if isinstance(node, Splat) else node.steps
        for s in steps:
            if isinstance(s, IndexStep):
                yield from walk(s.key)
    elif isinstance(node, FunctionCall):
        for a in node.args:
            yield from walk(a)
    elif isinstance(node, Conditional):
        yield from walk(node.cond)
        yield from walk(node.true)
        yield from walk(node.false)
    elif isinstance(node, BinaryOp):
        yield from walk(node.left)
        yield from walk(node.right)
    elif isinstance(node, UnaryOp):
        yield from walk(node.operand)
    elif isinstance(node, TupleCons):
        for i in node.items:
            yield from walk(i)
    elif isinstance(node, ObjectCons):
        for it in node.items:
            yield from walk(it.key)
            yield from walk(it.value)
    elif isinstance(node, ForExpr):
        yield from walk(node.collection)
        if node.key_expr is not None:
            yield from walk(node.key_expr)
        yield from walk(node.value_expr)
        if node.cond is not None:
            yield from walk(node.cond)
    elif isinstance(node, Template):
        for p in node.parts:
            yield from _walk_part(p)
    elif isinstance(node, TemplateWrap | Parens):
        yield from walk(node.inner)


def _walk_part(p: TemplatePart) -> Iterator[Expr]:
    if isinstance(p, str):
        return
    if isinstance(p, TemplateIf):
        yield from walk(p.cond)
        for x in (*p.then, *p.otherwise):
            yield from _walk_part(x)
    elif isinstance(p, TemplateFor):
        yield from walk(p.collection)
        for x in p.body:
            yield from _walk_part(x)
    else:
        yield from walk(p)
