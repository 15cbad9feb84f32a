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


def _action(before: Any, after: Any) -> str | None:
    gone_before = before is _ABSENT or before is None
    gone_after = after is _ABSENT or after is None
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
    """Renders values and value changes as Terraform's annotated, aligned lines."""

    def __init__(self, paint: Painter, replace_paths: Sequence[Sequence[str | int]] = ()) -> None:
        self.p = paint
        self.forces = {tuple(p) for p in replace_paths}

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
        act = _action(before, after)
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
            act = _action(b, a)
            if act is None:
                continue
            # Like Terraform, names align over every non-null entry, hidden ones included.
            label = _label(k, top)
            width = max(width, len(label))
            if act == " " and hide and not (top and k in _IDENTIFYING):
                hidden += 1
                continue
            shown.append((k, label, b, a))
        lines: list[str] = []
        for k, label, b, a in shown:
            lines += self.entry(indent, label.ljust(width) + " = ", b, a, (*path, k), in_deleted=in_deleted)
        if hidden:
            noun = "unchanged attribute" if top else "unchanged element"
            lines.append(" " * indent + "    " + f"# ({_plural(hidden, noun)} hidden)")
        return lines

    def _list_lines(
        self, before: list[Any], after: list[Any], indent: int, path: tuple[str | int, ...], *, hide: bool
    ) -> list[str]:
        if not before or not after:  # a list created or destroyed: every element added or removed
            return [line for i, x in enumerate(before or after)
                    for line in self.entry(indent, "", x if before else _ABSENT, x if after else _ABSENT,
                                           (*path, i), elem=True)]
        matcher = difflib.SequenceMatcher(None, [_key(x) for x in before], [_key(x) for x in after], False)
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                if hide:
                    count = _plural(i2 - i1, "unchanged element")
                    lines.append(" " * indent + "    " + f"# ({count} hidden)")
                else:
                    for j in range(j1, j2):
                        lines += self.entry(indent, "", after[j], after[j], (*path, j), elem=True)
                continue
            pairs = tag == "replace" and i2 - i1 == j2 - j1
            if pairs and all(_same_shape(before[i1 + n], after[j1 + n]) for n in range(i2 - i1)):
                for n in range(i2 - i1):
                    lines += self.entry(indent, "", before[i1 + n], after[j1 + n], (*path, j1 + n), elem=True)
                continue
            for i in range(i1, i2):
                lines += self.entry(indent, "", before[i], _ABSENT, (*path, i), elem=True)
            for j in range(j1, j2):
                lines += self.entry(indent, "", _ABSENT, after[j], (*path, j), elem=True)
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


def _label(key: str, top: bool) -> str:
    """Attribute names are bare; map keys are quoted (they may hold any characters)."""
    return key if top else _quoted(key)


def _same_shape(a: Any, b: Any) -> bool:
    """Both collections of one kind: such list elements are diffed in place, not removed and re-added."""
    a, b = _unmark(a), _unmark(b)
    return (isinstance(a, dict) and isinstance(b, dict)) or (
        isinstance(a, list | tuple) and isinstance(b, list | tuple)
    )


# -- resource blocks ------------------------------------------------------------------------------


