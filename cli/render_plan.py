"""The human plan, in Terraform's form: what reviewers already know how to read.

People approve changes by reading this text, often in a CI log or a pull-request comment, so it
follows Terraform's layout line for line: a legend of the symbols used, one commented block per
resource instance with aligned attributes, unchanged attributes counted rather than shown, then
the summary line. Every secret is printed as ``(sensitive value)`` — there is no option to show
it here. Functions return strings (ANSI colour only when asked) so the CLI decides where they go.

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

from engine.lang.values import SENSITIVE, Marked, Unknown
from engine.plan.model import (
    ACTIONS_CREATE,
    ACTIONS_DELETE,
    ACTIONS_NOOP,
    ACTIONS_READ,
    ACTIONS_REPLACE,
    ACTIONS_REPLACE_CBD,
    ACTIONS_UPDATE,
    Plan,
    ResourceChange,
)
from engine.state.address import AddressError, InstanceAddress, format_key

_ABSENT = object()
_IDENTIFYING = frozenset({"id", "name", "tags"})  # shown even when unchanged, as Terraform does
_SYMBOLS: dict[tuple[str, ...], str] = {
    ACTIONS_CREATE: "+",
    ACTIONS_UPDATE: "~",
    ACTIONS_DELETE: "-",
    ACTIONS_REPLACE: "-/+",
    ACTIONS_REPLACE_CBD: "+/-",
    ACTIONS_READ: "<=",
    ACTIONS_NOOP: " ",
}
_HEADLINES: dict[tuple[str, ...], str] = {
    ACTIONS_CREATE: "will be created",
    ACTIONS_UPDATE: "will be updated in-place",
    ACTIONS_DELETE: "will be destroyed",
    ACTIONS_READ: "will be read during apply",
}
_REPLACE_HEADLINES = {
    "replace_because_tainted": "is tainted, so must be replaced",
    "replace_by_request": "will be replaced, as requested",
    "replace_by_triggers": "will be replaced due to changes in replace_triggered_by",
}
_READ_REASONS = {
    "read_because_config_unknown": "(config refers to values not yet known)",
    "read_because_dependency_pending": "(depends on a resource or a module with changes pending)",
}
_LEGEND = (
    ("+", "create"),
    ("~", "update in place"),
    ("-", "destroy"),
    ("-/+", "destroy and then create replacement"),
    ("+/-", "create replacement and then destroy"),
    ("<=", "read (data resources)"),
)
_ANSI = {"+": "32", "-": "31", "~": "33", "<=": "36", "bold": "1", "red": "31", "green": "32"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SENSITIVE_TEXT = "(sensitive value)"
_UNKNOWN_TEXT = "(known after apply)"
_INTRO = (
    "ctl used the selected adapters to generate the following execution plan. Resource actions are\n"
    "indicated with the following symbols:"
)
_REFRESH_ONLY = (
    "This is a refresh-only plan, so ctl will not take any actions to undo these. If you were "
    "expecting these changes then you can apply this plan to record the updated values in the "
    "ctl state without changing any remote objects."
)
_NO_CHANGES = {
    "normal": (
        "Your infrastructure matches the configuration.",
        "ctl has compared your real infrastructure against your configuration and found no "
        "differences, so no changes are needed.",
    ),
    "refresh-only": (
        "Your infrastructure still matches the configuration.",
        "ctl has checked that the real remote objects still match the result of your most recent "
        "changes, and found no differences.",
    ),
    "destroy": (
        "No objects need to be destroyed.",
        "Either you have not created any objects yet or the existing objects were already deleted "
        "outside of ctl.",
    ),
}
_UNLESS = (
    "Unless you have made equivalent changes to your configuration, or ignored the relevant "
    "attributes using ignore_changes, the following plan may include actions to undo or respond "
    "to these changes."
)


class _Painter:
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
    if isinstance(v, int | float | str):
        return json.dumps(v, ensure_ascii=False)
    return json.dumps(str(v), ensure_ascii=False)


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


class _Differ:
    """Renders values and value changes as Terraform's annotated, aligned lines."""

    def __init__(self, paint: _Painter, replace_paths: Sequence[Sequence[str | int]] = ()) -> None:
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
            return [_SENSITIVE_TEXT]
        v = _unmark(v)
        if isinstance(v, Unknown):
            return [_UNKNOWN_TEXT]
        inner = indent + 4
        before, after = (v, v) if mode == " " else ((v, _ABSENT) if mode == "-" else (_ABSENT, v))
        if isinstance(v, dict):
            if not v:
                return ["{}"]
            empty: dict = {}
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
            return [_SENSITIVE_TEXT]
        b, a = _unmark(before), _unmark(after)
        inner = indent + 4
        if isinstance(a, Unknown):
            old = self.render(b, "-", indent, path)
            return [*old[:-1], old[-1] + " -> " + _UNKNOWN_TEXT]
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
        before: dict,
        after: dict,
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
        shown: list[tuple[str, Any, Any]] = []
        hidden = width = 0
        for k in sorted(set(before) | set(after)):
            b, a = before.get(k, _ABSENT), after.get(k, _ABSENT)
            act = _action(b, a)
            if act is None:
                continue
            # Like Terraform, names align over every non-null entry, hidden ones included.
            width = max(width, len(_label(k, top)))
            if act == " " and hide and not (top and k in _IDENTIFYING):
                hidden += 1
                continue
            shown.append((k, b, a))
        lines: list[str] = []
        for k, b, a in shown:
            label = _label(k, top).ljust(width) + " = "
            lines += self.entry(indent, label, b, a, (*path, k), in_deleted=in_deleted)
        if hidden:
            noun = "unchanged attribute" if top else "unchanged element"
            lines.append(" " * indent + "    " + f"# ({_plural(hidden, noun)} hidden)")
        return lines

    def _list_lines(
        self, before: list, after: list, indent: int, path: tuple[str | int, ...], *, hide: bool
    ) -> list[str]:
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
    return key if top else json.dumps(key, ensure_ascii=False)


def _same_shape(a: Any, b: Any) -> bool:
    """Both collections of one kind: such list elements are diffed in place, not removed and re-added."""
    a, b = _unmark(a), _unmark(b)
    return (isinstance(a, dict) and isinstance(b, dict)) or (
        isinstance(a, list | tuple) and isinstance(b, list | tuple)
    )


# -- resource blocks ------------------------------------------------------------------------------


def _resource_address(c: ResourceChange) -> str:
    try:
        return InstanceAddress.parse(c.address).resource_str
    except AddressError:
        return c.address


def _reason(c: ResourceChange) -> str | None:
    """The second comment line explaining why, in Terraform's words."""
    reason = c.action_reason or ""
    key = "" if c.index is None else format_key(c.index)
    if reason == "delete_because_no_resource_config":
        return f"(because {_resource_address(c)} is not in configuration)"
    if reason == "delete_because_no_module":
        return f"(because {c.module_address or 'its module'} is not in configuration)"
    if reason == "delete_because_each_key" and key:
        return f"(because key {key} is not in for_each map)"
    if reason == "delete_because_count_index" and key:
        return f"(because index {key} is out of range for count)"
    if reason == "delete_because_wrong_repetition":
        if c.index is None:
            return "(because resource uses count or for_each)"
        return f"(because resource does not use {'count' if isinstance(c.index, int) else 'for_each'})"
    return _READ_REASONS.get(reason)


def _headline(c: ResourceChange, *, drift: bool) -> str:
    if drift:
        return "has been deleted" if c.actions == ACTIONS_DELETE else "has changed"
    if c.is_replace:
        return _REPLACE_HEADLINES.get(c.action_reason or "", "must be replaced")
    return _HEADLINES.get(c.actions, f"has moved to {c.address}")


def _block(c: ResourceChange, p: _Painter, *, drift: bool = False) -> list[str]:
    """``# header`` comments, then ``± resource "type" "name" { … }``."""
    subject = c.previous_address if c.is_noop and c.previous_address else c.address
    if c.deposed:
        subject += f" (deposed object {c.deposed})"
    lines = ["  " + p(f"# {subject}", "bold") + " " + _headline(c, drift=drift)]
    if c.deposed and not drift:
        lines.append("  # (left over from a partially-failed replacement of this instance)")
    if c.previous_address and not c.is_noop:
        lines.append(f"  # (moved from {c.previous_address})")
    reason = None if drift else _reason(c)
    if reason:
        lines.append(f"  # {reason}")
    before = c.before if isinstance(c.before, dict) else {}
    after = c.after if isinstance(c.after, dict) else {}
    body = _Differ(p, c.replace_paths).dict_lines(before, after, 4, (), hide=True, top=True)
    kind = "data" if c.mode == "data" else "resource"
    head = p.marker(_SYMBOLS.get(c.actions, "~")) + f' {kind} "{c.type}" "{c.name}" '
    if not body:
        return [*lines, head + "{}"]
    return [*lines, head + "{", *body, "    }"]


def _shown(changes: list[ResourceChange]) -> list[ResourceChange]:
    """Changes worth a block: real actions, and no-ops that only record a move."""
    return [c for c in changes if not c.is_noop or c.previous_address]


# -- public API -----------------------------------------------------------------------------------


def summary_line(plan: Plan) -> str:
    """Terraform's one-line verdict; a replace counts once to add and once to destroy."""
    if not _shown(plan.changes) and not plan.has_changes:
        return "No changes. Your infrastructure matches the configuration."
    add, change, destroy = plan.counts()
    return f"Plan: {add} to add, {change} to change, {destroy} to destroy."


def render_drift(changes: list[ResourceChange], *, color: bool) -> str:
    """The "objects have changed outside of ctl" section, printed just before ``render_plan``."""
    p = _Painter(color)
    lines = [
        p("Note: Objects have changed outside of ctl", "bold"),
        "",
        'ctl detected the following changes made outside of ctl since the last "ctl apply" '
        "which may have affected this plan:",
        "",
    ]
    for c in changes:
        lines += [*_block(c, p, drift=True), ""]
    return "\n".join([*lines, _UNLESS]) + "\n"


def render_plan(plan: Plan, *, color: bool) -> str:
    """The plan after the drift section: the legend, every change, the summary, then outputs.

    Drift is rendered separately by ``render_drift`` (printed first) because apply shows it before
    asking for approval too; a refresh-only plan, whose whole content is drift, gets Terraform's
    note on what applying it does.
    """
    p = _Painter(color)
    out: list[str] = []
    changes = _shown(plan.changes)
    outputs = [o for _, o in sorted(plan.outputs.items()) if o.actions != ACTIONS_NOOP]
    if plan.mode == "refresh-only" and plan.drift:
        out.append(_REFRESH_ONLY)
        if changes or outputs:
            out.append("")
    elif not changes and not outputs:
        out += _no_changes(plan, p)
    if not changes and not outputs:
        return "\n".join(out) + "\n"
    if changes:
        used = {_SYMBOLS.get(c.actions) for c in changes}
        out += [_INTRO, *(p.marker(s) + " " + text for s, text in _LEGEND if s in used), ""]
        out += ["ctl will perform the following actions:", ""]
        for c in changes:
            out += [*_block(c, p), ""]
        out.append(_bold_summary(summary_line(plan), p))
    if outputs:
        if changes:
            out.append("")
        out += ["Changes to Outputs:", *_output_lines(outputs, p)]
        if not changes:
            out += [
                "",
                "You can apply this plan to save these new output values to the ctl state, "
                "without changing any real infrastructure.",
            ]
    return "\n".join(out) + "\n"


def _bold_summary(line: str, p: _Painter) -> str:
    head, sep, rest = line.partition(" ")
    return p(head, "bold") + sep + rest


def _no_changes(plan: Plan, p: _Painter) -> list[str]:
    headline, detail = _NO_CHANGES.get(plan.mode, _NO_CHANGES["normal"])
    return [p("No changes.", "green") + " " + headline, "", detail]


def _output_lines(outputs: list[Any], p: _Painter) -> list[str]:
    def masked(v: Any, sensitive: bool) -> Any:
        return Marked(v) if sensitive and v is not None and not isinstance(v, Marked) else v

    width = max(len(o.name) for o in outputs)
    differ = _Differ(p)
    lines: list[str] = []
    for o in outputs:
        before, after = masked(o.before, o.sensitive), masked(o.after, o.sensitive)
        lines += differ.entry(0, o.name.ljust(width) + " = ", before, after, ())
    return lines


def render_instance(address: str, attrs: dict, *, color: bool) -> str:
    """One object as ``ctl state show`` prints it: an HCL-like block, secrets masked.

    The ``# address:`` line above it is the caller's, as listing commands print it their own way.
    """
    try:
        addr = InstanceAddress.parse(address)
        kind, rtype, name = ("data" if addr.mode == "data" else "resource"), addr.type, addr.name
    except AddressError:
        kind, rtype, name = "resource", address, ""
    body = _Differ(_Painter(color)).dict_lines(attrs, attrs, 0, (), hide=False, top=True)
    title = f'{kind} "{rtype}" "{name}"' if name else f'{kind} "{rtype}"'
    lines = [title + (" {" if body else " {}"), *body]
    if body:
        lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["render_drift", "render_instance", "render_plan", "summary_line"]
