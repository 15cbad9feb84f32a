"""Values in the human plan: nested attribute diffs laid out in Terraform's columns.

``Differ`` renders one value, or the change between two, as the indented lines Terraform prints:
``+``/``-``/``~`` markers, unchanged attributes counted instead of shown, secrets as
``(sensitive value)``, unknowns as ``(known after apply)``, multi-line strings as heredocs with a
line diff. ``Painter`` adds ANSI colour only when asked.

Layout rule used throughout: an entry at indent ``I`` is ``I`` spaces, a three-column action
marker, a space and the entry; the children of a ``{``/``[``/heredoc value sit at ``I + 4`` and the
closing bracket is printed at ``I + 4`` as well — which reproduces Terraform's columns exactly.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from typing import Any

from vocab.values import SENSITIVE, Marked, Unknown

_ABSENT = object()
_IDENTIFYING = frozenset({"id", "name", "tags"})  # shown even when unchanged, as Terraform does
_ANSI = {"+": "32", "-": "31", "~": "33", "<=": "36", ".": "31", "bold": "1", "red": "31", "green": "32"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# JSON text of a scalar or a key. One encoder for all: ``json.dumps`` with an option builds one per
# call, a large part of the instructions of rendering a plan.
_json = json.JSONEncoder(ensure_ascii=False).encode
_quoted = json.encoder.encode_basestring  # what that encoder does with a string, without its checks
SENSITIVE_TEXT = "(sensitive value)"
UNKNOWN_TEXT = "(known after apply)"


class Painter:
    """ANSI styling that disappears completely when colour is off (no stray escape bytes)."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, style: str) -> str:
        if not self.color or not text:
            return text
        return f"\x1b[{_ANSI[style]}m{text}\x1b[0m"

    def marker(self, symbol: str) -> str:
        """The action symbol right-aligned in three columns (`` -/+`` is painted red then green)."""
        padded = symbol.rjust(3)
        if not self.color or symbol == " ":
            return padded
        if "/" in symbol:
            first, second = symbol.split("/")
            return self(first, first) + "/" + self(second, second)
        return " " * (3 - len(symbol)) + self(symbol, symbol)


# -- values ---------------------------------------------------------------------------------------


def _is_sensitive(v: Any) -> bool:
    return isinstance(v, Marked) and SENSITIVE in v.marks


def _unmark(v: Any) -> Any:
    return v.value if isinstance(v, Marked) and not _is_sensitive(v) else v


def _key(v: Any) -> Any:
    """A hashable, type-exact identity of a value (so ``true`` never equals ``1``); unknowns are
    never equal to anything, because what they become is not known yet."""
    if isinstance(v, Marked):
        return ("marked", _key(v.value))
    if isinstance(v, Unknown):
        return ("unknown", object())
    if isinstance(v, dict):
        return ("object", tuple(sorted((k, _key(x)) for k, x in v.items())))
    if isinstance(v, list | tuple):
        return ("list", tuple(_key(x) for x in v))
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int | float):
        return ("number", v)
    return (type(v).__name__, v)


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, str):
        return _quoted(v)
    if isinstance(v, int | float):
        return _json(v)
    return _quoted(str(v))


def _text_lines(s: str) -> list[str]:
    """Heredoc lines, with control characters escaped so a value can never drive the terminal."""
    lines = [_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", line) for line in s.split("\n")]
    return lines[:-1] if s.endswith("\n") else lines


def _action(before: Any, after: Any, nulls: bool = False) -> str | None:
    """The marker of one entry; a null is no value (a resource's unset attribute) unless ``nulls``."""
    gone_before = before is _ABSENT or (before is None and not nulls)
    gone_after = after is _ABSENT or (after is None and not nulls)
    if gone_before and gone_after:
        return None
    if gone_before:
        return "+"
    if gone_after:
        return "-"
    return " " if _key(before) == _key(after) else "~"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


# -- diffs ----------------------------------------------------------------------------------------


class Differ:
    """Renders values and value changes as Terraform's annotated, aligned lines.

    With ``values`` it renders values with no schema (outputs) as both references do: a null inside
    one is shown (``+ a = null``), not left out as a resource's unset attribute is, and a key is
    bare where it is an identifier (quoted otherwise), as OpenTofu writes an object's attributes.
    """

    def __init__(self, paint: Painter, replace_paths: Sequence[Sequence[str | int]] = (), *,
                 values: bool = False) -> None:
        self.p = paint
        self.forces = {tuple(p) for p in replace_paths}
        self.values = values

    def entry(
        self,
        indent: int,
        label: str,
        before: Any,
        after: Any,
        path: tuple[str | int, ...],
        *,
        elem: bool = False,
        in_deleted: bool = False,
    ) -> list[str]:
        """One attribute, map element or list element: its marker, label and (old ->) new value."""
        act = _action(before, after, self.values and bool(path))
        if act is None:
            return []
        tail = ""
        if act == "+":
            frags = self.render(after, "+", indent, path)
        elif act == "-":
            frags = self.render(before, "-", indent, path)
            tail = "" if elem or in_deleted else " -> null"
        elif act == " ":
            frags = self.render(after, " ", indent, path)
        else:
            frags = self._change(before, after, indent, path)
        lines = [" " * indent + self.p.marker(act) + " " + label + frags[0], *frags[1:]]
        lines[-1] += tail + ("," if elem else "")
        if path in self.forces:
            lines[0] += self.p(" # forces replacement", "red")
        return lines

    def render(self, v: Any, mode: str, indent: int, path: tuple[str | int, ...]) -> list[str]:
        """A whole value being added (``+``), removed (``-``) or shown unchanged (`` ``).

        Returns the text that follows the label, then any further complete lines.
        """
        if _is_sensitive(v):
            return [SENSITIVE_TEXT]
        v = _unmark(v)
        if isinstance(v, Unknown):
            return [UNKNOWN_TEXT]
        inner = indent + 4
        before, after = (v, v) if mode == " " else ((v, _ABSENT) if mode == "-" else (_ABSENT, v))
        if isinstance(v, dict):
            if not v:
                return ["{}"]
            empty: dict[str, Any] = {}
            body = self.dict_lines(
                empty if before is _ABSENT else v,
                empty if after is _ABSENT else v,
                inner,
                path,
                hide=False,
                in_deleted=mode == "-",
            )
            return ["{", *body, " " * inner + "}"]
        if isinstance(v, list | tuple):
            if not v:
                return ["[]"]
            b = [] if before is _ABSENT else list(v)
            a = [] if after is _ABSENT else list(v)
            return ["[", *self._list_lines(b, a, inner, path, hide=False), " " * inner + "]"]
        if isinstance(v, str) and "\n" in v:
            body = [" " * inner + "    " + line for line in _text_lines(v)]
            return ["<<-EOT", *body, " " * inner + "EOT"]
        return [_scalar(v)]

    def _change(self, before: Any, after: Any, indent: int, path: tuple[str | int, ...]) -> list[str]:
        if _is_sensitive(before) or _is_sensitive(after):
            return [SENSITIVE_TEXT]
        b, a = _unmark(before), _unmark(after)
        inner = indent + 4
        if isinstance(a, Unknown):
            old = self.render(b, "-", indent, path)
            return [*old[:-1], old[-1] + " -> " + UNKNOWN_TEXT]
        if isinstance(b, dict) and isinstance(a, dict):
            return ["{", *self.dict_lines(b, a, inner, path, hide=True), " " * inner + "}"]
        if isinstance(b, list | tuple) and isinstance(a, list | tuple):
            body = self._list_lines(list(b), list(a), inner, path, hide=True)
            return ["[", *body, " " * inner + "]"]
        if isinstance(b, str) and isinstance(a, str) and ("\n" in a or "\n" in b):
            return ["<<-EOT", *self._heredoc_diff(b, a, inner), " " * inner + "EOT"]
        if not isinstance(b, dict | list | tuple) and not isinstance(a, dict | list | tuple):
            return [f"{_scalar(b)} -> {_scalar(a)}"]
        old, new = self.render(b, "-", indent, path), self.render(a, "+", indent, path)
        return [*old[:-1], old[-1] + " -> " + new[0], *new[1:]]

    def dict_lines(
        self,
        before: dict[str, Any],
        after: dict[str, Any],
        indent: int,
        path: tuple[str | int, ...],
        *,
        hide: bool,
        in_deleted: bool = False,
        top: bool = False,
    ) -> list[str]:
        """The entries of an object, aligned; unchanged ones counted instead of shown when ``hide``.

        ``top`` is the resource body itself: names are bare and identifying attributes stay.
        """
        shown: list[tuple[str, str, Any, Any]] = []
        hidden = width = 0
        for k in sorted(set(before) | set(after)):
            b, a = before.get(k, _ABSENT), after.get(k, _ABSENT)
            act = _action(b, a, self.values)
            if act is None:
                continue
            # Like Terraform, names align over every non-null entry, hidden ones included.
            label = _attribute_label(k) if self.values else _label(k, top)
            width = max(width, len(label))
            if act == " " and hide and not (top and k in _IDENTIFYING):
                hidden += 1
                continue
            shown.append((k, label, b, a))
        lines: list[str] = []
        for k, label, b, a in shown:
            lines += self.entry(indent, label.ljust(width) + " = ", b, a, (*path, k), in_deleted=in_deleted)
        if hidden:
            noun = "unchanged attribute" if top or self.values else "unchanged element"
            lines.append(" " * indent + "    " + f"# ({_plural(hidden, noun)} hidden)")
        return lines

    def _list_lines(
        self, before: list[Any], after: list[Any], indent: int, path: tuple[str | int, ...], *, hide: bool
    ) -> list[str]:
        """A list's elements as Terraform lays out their diff: unchanged ones counted when ``hide``,
        but for one on each side of a change, shown as context."""
        if not before or not after:  # a list created or destroyed: every element added or removed
            return [line for i, x in enumerate(before or after)
                    for line in self.entry(indent, "", x if before else _ABSENT, x if after else _ABSENT,
                                           (*path, i), elem=True)]
        steps = _sequence_diff(before, after)
        lines: list[str] = []

        def show(n: int) -> None:
            b, a, at = steps[n]
            lines.extend(self.entry(indent, "", b, a, (*path, at), elem=True))

        suppressed: list[int] = []
        change_shown = False
        n = 0
        while n < len(steps):
            while hide and n < len(steps) and _unchanged(steps[n]):
                suppressed.append(n)
                n += 1
            if suppressed:
                if change_shown:
                    show(suppressed.pop(0))
                hidden = len(suppressed)
                context = None
                if hidden and n < len(steps):
                    hidden -= 1
                    context = suppressed[hidden]
                if hidden:
                    lines.append(" " * indent + "    " + f"# ({_plural(hidden, 'unchanged element')} hidden)")
                if context is not None:
                    show(context)
                suppressed = []
            if n >= len(steps):
                break
            show(n)
            change_shown = True
            n += 1
        return lines

    def _heredoc_diff(self, before: str, after: str, indent: int) -> list[str]:
        old, new = _text_lines(before), _text_lines(after)
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, False).get_opcodes():
            if tag == "equal":
                lines += [" " * indent + "    " + line for line in new[j1:j2]]
                continue
            lines += [" " * indent + self.p.marker("-") + " " + line for line in old[i1:i2]]
            lines += [" " * indent + self.p.marker("+") + " " + line for line in new[j1:j2]]
        return lines


# Beyond this many element pairs a list's diff is difflib's, not Terraform's quadratic one.
_LCS_CELLS = 1_000_000


def _unchanged(step: tuple[Any, Any, int]) -> bool:
    return step[0] is not _ABSENT and step[1] is not _ABSENT and _action(step[0], step[1], True) == " "


def _sequence_diff(before: list[Any], after: list[Any]) -> list[tuple[Any, Any, int]]:
    """(before, after, index in after) for each element, as Terraform pairs them: along a longest
    common subsequence, an object replaced by an object as one change; an absent side is ``_ABSENT``."""
    old, new = [_key(x) for x in before], [_key(x) for x in after]
    common = _common(old, new)
    out: list[tuple[Any, Any, int]] = []
    i = j = k = 0
    while i < len(old) or j < len(new) or k < len(common):
        while i < len(old) and (k >= len(common) or old[i] != common[k]):
            if (isinstance(_unmark(before[i]), dict) and j < len(new) and isinstance(_unmark(after[j]), dict)
                    and (k >= len(common) or new[j] != common[k])):  # never the next common element
                out.append((before[i], after[j], j))
                i += 1
                j += 1
                continue
            out.append((before[i], _ABSENT, max(j - 1, 0)))
            i += 1
        while j < len(new) and (k >= len(common) or new[j] != common[k]):
            out.append((_ABSENT, after[j], j))
            j += 1
        if k < len(common):
            out.append((before[i], after[j], j))
            i, j, k = i + 1, j + 1, k + 1
    return out


def _common(xs: list[Any], ys: list[Any]) -> list[Any]:
    """Terraform's longest common subsequence of two lists of keys (its ties broken its way)."""
    if not xs or not ys:
        return []
    if len(xs) * len(ys) > _LCS_CELLS:
        matcher = difflib.SequenceMatcher(None, xs, ys, False)
        return [x for block in matcher.get_matching_blocks() for x in xs[block.a:block.a + block.size]]
    w = len(xs)
    c = [0] * (len(xs) * len(ys))
    for y in range(len(ys)):
        for x in range(w):
            if xs[x] == ys[y]:
                c[w * y + x] = 1 if x == 0 or y == 0 else c[w * (y - 1) + x - 1] + 1
            else:
                left = c[w * y + x - 1] if x > 0 else 0
                up = c[w * (y - 1) + x] if y > 0 else 0
                c[w * y + x] = left if left > up else up
    seq: list[Any] = []
    x, y = len(xs) - 1, len(ys) - 1
    while x > -1 and y > -1:
        if xs[x] == ys[y]:
            seq.append(xs[x])
            x, y = x - 1, y - 1
        else:
            left = c[w * y + x - 1] if x > 0 else 0
            up = c[w * (y - 1) + x] if y > 0 else 0
            if left > up:
                x -= 1
            else:
                y -= 1
    seq.reverse()
    return seq


def _attribute_label(key: str) -> str:
    """An attribute name bare where it is an HCL identifier (letters, digits, ``_`` and ``-``, not
    starting with a digit or ``-``), quoted otherwise."""
    bare = key[:1] != "-" and key.replace("-", "_").isidentifier()
    return key if bare else _quoted(key)


def _label(key: str, top: bool) -> str:
    """Attribute names are bare; map keys are quoted (they may hold any characters)."""
    return key if top else _quoted(key)
