"""The runtime value model of the expression language.

Values are plain Python data so that evaluating tens of thousands of resources stays cheap:
``None`` (null), ``bool``, ``int``/``float`` (number), ``str``, ``list`` (tuple/list/set) and ``dict``
(object/map). Two wrappers add what plain data cannot say:

* ``Unknown`` — a value that is only known after apply (a computed attribute, ``timestamp()``
  during plan). Any operation with an unknown operand yields an unknown result; collections may hold
  unknown elements while their shape is known.
* ``Marked`` — a value carrying marks, today only ``"sensitive"``. The mark survives every
  operation: an operator or function with a marked operand returns a marked result, so secrets are
  masked in every output that shows them.
* ``Null`` — a null that knows its type (``tostring(null)`` is a null string, a ``string`` variable
  left null is one too). ``None`` is the null of no type. Only what speaks of types tells them apart
  (``type()``, conversions and unification, ``output -json``); everything that looks at a value
  first ``unmark``s it, which gives ``None`` for either, and values leave the language (for
  providers, state and plan files) with ``plain_data`` (``vocab.types``).

``bool`` is checked before numbers everywhere, because in Python ``True`` is an ``int``.
"""

from __future__ import annotations

from typing import Any

SENSITIVE = "sensitive"
_NO_MARKS: frozenset[str] = frozenset()


class Unknown:
    """A value not known until apply. ``type_hint`` is a type name when one is known, else None."""

    __slots__ = ("type_hint",)

    def __init__(self, type_hint: str | None = None) -> None:
        self.type_hint = type_hint

    def __repr__(self) -> str:
        return "(known after apply)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unknown)

    def __hash__(self) -> int:
        return hash("ctl-unknown")


UNKNOWN = Unknown()


class Null:
    """A null of a known type; ``type`` is a ``vocab.types`` type (kept untyped here: that module
    builds on this one).

    Nulls are equal whatever their types, as in cty, and false as ``None`` is, so the few places
    that compare or test a value without unmarking it first still read it as null.
    """

    __slots__ = ("type",)

    def __init__(self, type_: Any) -> None:
        self.type = type_

    def __repr__(self) -> str:
        return f"Null({self.type!r})"

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, Null)

    def __hash__(self) -> int:
        return hash(None)

    def __bool__(self) -> bool:
        return False


class SetValue(list[Any]):
    """A set: sorted, without duplicates, and known to be a set.

    Sets are lists in the value model, but ``for_each`` accepts a set of strings and refuses a
    tuple (Terraform's rule: a list's order and duplicates would not give stable instance keys), so
    ``toset()`` and set-typed conversions return this subclass and the walk can tell them apart.
    ``element`` is the element type a type constraint gave (a ``vocab.types`` type), the only
    way an empty collection can still say what it holds.
    """

    __slots__ = ("element",)

    def __init__(self, items: Any = (), element: Any = None) -> None:
        super().__init__(items)
        self.element = element


class ListValue(list[Any]):
    """A list, known to be one: what a ``list(...)`` type constraint or ``tolist()`` gives.

    A bracketed literal is a tuple, and Terraform tells the two apart where a user sees types:
    ``type()``, an output's type in state and ``output -json``. Every other operation reads it as
    the list it is. ``element`` as for ``SetValue``.
    """

    __slots__ = ("element",)

    def __init__(self, items: Any = (), element: Any = None) -> None:
        super().__init__(items)
        self.element = element


class MapValue(dict[str, Any]):
    """A map, known to be one (``map(...)`` constraints, ``tomap()``); a literal ``{}`` is an object.
    ``element`` as for ``SetValue``."""

    __slots__ = ("element",)

    def __init__(self, items: Any = (), element: Any = None) -> None:
        super().__init__(items)
        self.element = element


class Marked:
    """A value with marks (``{"sensitive"}``); never nested directly inside another Marked."""

    __slots__ = ("marks", "value")
    value: Any
    marks: frozenset[str]

    def __init__(self, value: Any, marks: frozenset[str] = frozenset({SENSITIVE})) -> None:
        if isinstance(value, Marked):
            marks = marks | value.marks
            value = value.value
        self.value = value
        self.marks = marks

    def __repr__(self) -> str:
        return "(sensitive value)" if SENSITIVE in self.marks else f"Marked({self.value!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Marked) and other.value == self.value and other.marks == self.marks

    def __hash__(self) -> int:
        return hash(("ctl-marked", repr(self.value)))


def is_unknown(v: Any) -> bool:
    """True when ``v`` itself (not something inside it) is unknown; looks through marks."""
    if isinstance(v, Marked):
        v = v.value
    return isinstance(v, Unknown)


def contains_unknown(v: Any) -> bool:
    """True when ``v`` or anything inside it is unknown."""
    if isinstance(v, Unknown):
        return True
    if isinstance(v, Marked):
        return contains_unknown(v.value)
    if isinstance(v, list):
        return any(contains_unknown(x) for x in v)
    if isinstance(v, dict):
        return any(contains_unknown(x) for x in v.values())
    return False


def mark(v: Any, marks: frozenset[str] = frozenset({SENSITIVE})) -> Any:
    """Add marks to ``v`` (no-op for empty marks)."""
    if not marks:
        return v
    return Marked(v, marks)


def unmark(v: Any) -> tuple[Any, frozenset[str]]:
    """Strip the marks on ``v`` itself (not inside it); returns (value, marks).

    A typed null comes back as ``None``: whoever unmarks a value is about to look at it, and a null
    is a null to everything but the few rules about types (which take the value as it is).
    """
    t = type(v)
    if t is Marked:
        inner = v.value
        return (None if type(inner) is Null else inner), v.marks
    if t is Null:
        return None, _NO_MARKS
    return v, _NO_MARKS


_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def is_marked(v: Any) -> bool:
    """True when ``v`` or anything inside it carries a mark."""
    t = type(v)
    if t in _PLAIN_SCALARS:
        return False
    if t is Marked:
        return True
    if t is list:
        return any(is_marked(x) for x in v)
    if t is dict:
        return any(is_marked(x) for x in v.values())
    return isinstance(v, Marked) or (isinstance(v, list) and any(map(is_marked, v))) or \
        (isinstance(v, dict) and any(map(is_marked, v.values())))


def deep_unmark(v: Any) -> tuple[Any, frozenset[str]]:
    """Remove every mark inside ``v``; returns (plain value, union of all marks found).

    One pass: a collection with nothing marked inside is returned as it is (no copy), so values
    without secrets, nearly all of them, cost one visit per node.
    """
    t = type(v)
    if t in _PLAIN_SCALARS:
        return v, _NO_MARKS
    if isinstance(v, Marked):
        inner, marks = deep_unmark(v.value)
        return inner, marks | v.marks
    if isinstance(v, list):
        out_l: list[Any] | None = None
        acc = _NO_MARKS
        for i, x in enumerate(v):
            if type(x) in _PLAIN_SCALARS:  # most leaves: no call
                if out_l is not None:
                    out_l.append(x)
                continue
            ux, m = deep_unmark(x)
            if m:
                acc |= m
            if out_l is None and ux is not x:
                out_l = list(v[:i])
            if out_l is not None:
                out_l.append(ux)
        if out_l is not None and t is not list:
            out_l = t(out_l)  # a set, list or tuple stays what it was
        return (v if out_l is None else out_l), acc
    if isinstance(v, dict):
        out_d: dict[Any, Any] | None = None
        acc = _NO_MARKS
        for k, x in v.items():
            if type(x) in _PLAIN_SCALARS:
                if out_d is not None:
                    out_d[k] = x
                continue
            ux, m = deep_unmark(x)
            if m:
                acc |= m
            if out_d is None and ux is not x:
                out_d = entries_before(v, k)
            if out_d is not None:
                out_d[k] = ux
        if out_d is not None and t is not dict:
            out_d = t(out_d)
        return (v if out_d is None else out_d), acc
    return v, _NO_MARKS


def entries_before(d: dict[Any, Any], key: Any) -> dict[Any, Any]:
    """The entries of ``d`` before ``key``, in order: where a copy starts that differs from ``key`` on.

    The value walks copy a collection only once something inside it changes; this is that copy's
    unchanged beginning.
    """
    out: dict[Any, Any] = {}
    for k, x in d.items():
        if k == key:
            break
        out[k] = x
    return out


Path = tuple[str | int, ...]


def unmark_paths(v: Any, prefix: Path = ()) -> tuple[Any, list[Path]]:
    """Remove marks and report the path of every sensitive value (for state/plan ``*_sensitive``).

    As ``deep_unmark``: a collection with nothing marked inside comes back as it is, not copied.
    """
    t = type(v)
    if t in _PLAIN_SCALARS:
        return v, []
    if isinstance(v, Marked):
        inner, _ = deep_unmark(v.value)
        return inner, [prefix] if SENSITIVE in v.marks else []
    if isinstance(v, list):
        out_l: list[Any] | None = None
        paths: list[Path] = []
        for i, x in enumerate(v):
            if type(x) in _PLAIN_SCALARS:
                if out_l is not None:
                    out_l.append(x)
                continue
            ux, p = unmark_paths(x, (*prefix, i))
            if p:
                paths.extend(p)
            if out_l is None and ux is not x:
                out_l = list(v[:i])
            if out_l is not None:
                out_l.append(ux)
        return (v if out_l is None else out_l), paths
    if isinstance(v, dict):
        out_d: dict[Any, Any] | None = None
        paths = []
        for k, x in v.items():
            if type(x) in _PLAIN_SCALARS:
                if out_d is not None:
                    out_d[k] = x
                continue
            ux, p = unmark_paths(x, (*prefix, k))
            if p:
                paths.extend(p)
            if out_d is None and ux is not x:
                out_d = entries_before(v, k)
            if out_d is not None:
                out_d[k] = ux
        return (v if out_d is None else out_d), paths
    return v, []


def apply_paths(v: Any, paths: list[Path], marks: frozenset[str] = frozenset({SENSITIVE})) -> Any:
    """Re-mark the values at ``paths`` (the inverse of ``unmark_paths``, used when reading state)."""
    for path in paths:
        v = _mark_at(v, list(path), marks)
    return v


def _mark_at(v: Any, path: list[str | int], marks: frozenset[str]) -> Any:
    if not path:
        return Marked(v, marks)
    head, rest = path[0], path[1:]
    if isinstance(v, dict) and head in v:
        out = dict(v)
        out[head] = _mark_at(v[head], rest, marks)
        return out
    if isinstance(v, list) and isinstance(head, int) and 0 <= head < len(v):
        out_l = list(v)
        out_l[head] = _mark_at(v[head], rest, marks)
        return out_l
    return v


def normalize_number(n: int | float) -> int | float:
    """Integral floats become ints so ``10/2`` prints as ``5`` like Terraform, not ``5.0``.

    A ``numbers.BigFloat`` is judged by its exact value: its double may be whole when it is not.
    A negative zero stays the float ``-0.0``: Terraform's numbers keep the sign of zero
    (``tostring(-0)`` is ``"-0"``), and an int has none.
    """
    if isinstance(n, float) and n.is_integer() and abs(n) < 2**63:
        if n == 0 and str(n)[0] == "-":
            return n
        exact = getattr(n, "exact", None)
        if exact is not None:
            return int(exact) if exact.denominator == 1 else n
        return int(n)
    return n


def type_name(v: Any) -> str:
    """The Terraform-style type name of a value, for error messages and ``type()``."""
    if isinstance(v, Marked):
        return type_name(v.value)
    if v is None or isinstance(v, Null):
        return "null"
    if isinstance(v, Unknown):
        return v.type_hint or "dynamic"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "tuple"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def to_display(v: Any) -> Any:
    """A JSON-safe copy with secrets masked and unknowns spelled out (for logs and messages)."""
    if isinstance(v, Marked):
        return "(sensitive value)" if SENSITIVE in v.marks else to_display(v.value)
    if isinstance(v, Unknown):
        return "(known after apply)"
    if isinstance(v, Null):
        return None
    if isinstance(v, list):
        return [to_display(x) for x in v]
    if isinstance(v, dict):
        return {k: to_display(x) for k, x in v.items()}
    return v
