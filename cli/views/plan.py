"""The human plan, in Terraform's form: what reviewers already know how to read.

People approve changes by reading this text, often in a CI log or a pull-request comment, so it
follows Terraform's layout line for line: a legend of the symbols used, one commented block per
resource instance with aligned attributes, unchanged attributes counted rather than shown, then
the summary line. Every secret is printed as ``(sensitive value)`` — there is no option to show
it here. Functions return strings (ANSI colour only when asked) so the CLI decides where they go.

The attribute diffs themselves are laid out by ``cli.views.diff``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cli.views.diff import Differ, Painter
from cli.views.plan_summary import counted
from engine.plan.model import (
    ACTIONS_CREATE,
    ACTIONS_DELETE,
    ACTIONS_FORGET,
    ACTIONS_NOOP,
    ACTIONS_READ,
    ACTIONS_REPLACE,
    ACTIONS_REPLACE_CBD,
    ACTIONS_UPDATE,
    Plan,
    ResourceChange,
)
from engine.state.address import AddressError, InstanceAddress, format_key
from vocab.values import Marked

_SYMBOLS: dict[tuple[str, ...], str] = {
    ACTIONS_CREATE: "+",
    ACTIONS_UPDATE: "~",
    ACTIONS_DELETE: "-",
    ACTIONS_REPLACE: "-/+",
    ACTIONS_REPLACE_CBD: "+/-",
    ACTIONS_READ: "<=",
    ACTIONS_NOOP: " ",
    ACTIONS_FORGET: ".",
}
_VERBS = {  # for the changes a terminal counts instead of showing
    "+": "to create",
    "~": "to update in place",
    "-": "to destroy",
    "-/+": "to replace",
    "+/-": "to replace, creating first",
    "<=": "to read",
    " ": "to move or import",
    ".": "to forget",
}
_HEADLINES: dict[tuple[str, ...], str] = {
    ACTIONS_CREATE: "will be created",
    ACTIONS_UPDATE: "will be updated in-place",
    ACTIONS_DELETE: "will be destroyed",
    ACTIONS_READ: "will be read during apply",
    ACTIONS_FORGET: "will no longer be managed by ctl, but will not be destroyed",
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
    if c.importing_id and c.is_noop and not drift:
        return "will be imported"
    if drift:
        return "has been deleted" if c.actions == ACTIONS_DELETE else "has changed"
    if c.is_replace:
        return _REPLACE_HEADLINES.get(c.action_reason or "", "must be replaced")
    return _HEADLINES.get(c.actions, f"has moved to {c.address}")


def _block(c: ResourceChange, p: Painter, *, drift: bool = False) -> list[str]:
    """``# header`` comments, then ``± resource "type" "name" { … }``."""
    subject = c.previous_address if c.is_noop and c.previous_address else c.address
    if c.deposed:
        subject += f" (deposed object {c.deposed})"
    lines = ["  " + p(f"# {subject}", "bold") + " " + _headline(c, drift=drift)]
    if c.deposed and not drift:
        lines.append("  # (left over from a partially-failed replacement of this instance)")
    if c.previous_address and not c.is_noop:
        lines.append(f"  # (moved from {c.previous_address})")
    if c.importing_id and not c.is_noop:
        lines.append(f'  # (imported from "{c.importing_id}")')
    if c.actions == ACTIONS_FORGET:
        lines.append("  # (destroy = false is set in the configuration)")
    reason = None if drift else _reason(c)
    if reason:
        lines.append(f"  # {reason}")
    before = c.before if isinstance(c.before, dict) else {}
    after = c.after if isinstance(c.after, dict) else {}
    if c.actions == ACTIONS_FORGET:
        after = before  # the object stays as it is: show what identifies it, not a destroy
    body = Differ(p, c.replace_paths).dict_lines(before, after, 4, (), hide=True, top=True)
    kind = "data" if c.mode == "data" else "resource"
    head = p.marker(_SYMBOLS.get(c.actions, "~")) + f' {kind} "{c.type}" "{c.name}" '
    if not body:
        return [*lines, head + "{}"]
    return [*lines, head + "{", *body, "    }"]


def _shown(changes: list[ResourceChange]) -> list[ResourceChange]:
    """Changes worth a block: real actions, and no-ops that only record a move or an import."""
    return [c for c in changes if not c.is_noop or c.previous_address or c.importing_id]


# -- public API -----------------------------------------------------------------------------------


def summary_line(plan: Plan) -> str:
    """Terraform's one-line verdict; a replace counts once to add and once to destroy."""
    if not _shown(plan.changes) and not plan.has_changes:
        return "No changes. Your infrastructure matches the configuration."
    add, change, destroy = plan.counts()
    imports = sum(1 for c in plan.changes if c.importing_id)
    prefix = f"{imports} to import, " if imports else ""
    return f"Plan: {prefix}{add} to add, {change} to change, {destroy} to destroy."


def render_drift(changes: list[ResourceChange], *, color: bool) -> str:
    """The "objects have changed outside of ctl" section, printed just before ``render_plan``."""
    p = Painter(color)
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


def render_plan(plan: Plan, *, color: bool, limit: int | None = None) -> str:
    """The plan after the drift section: the legend, every change, the summary, then outputs.

    Drift is rendered separately by ``render_drift`` (printed first) because apply shows it before
    asking for approval too; a refresh-only plan, whose whole content is drift, gets Terraform's
    note on what applying it does. With a ``limit`` (a terminal's), changes past it are counted
    rather than shown (``cli.views.plan_summary``).
    """
    return "\n".join(plan_lines(plan, color=color, limit=limit)) + "\n"


def plan_lines(plan: Plan, *, color: bool, limit: int | None = None) -> Iterator[str]:
    """``render_plan``'s lines, a change's block at a time: a large plan piped to a log is written
    as it is rendered, never held whole (850,000 lines at 50,000 resources)."""
    p = Painter(color)
    changes = _shown(plan.changes)
    outputs = [o for _, o in sorted(plan.outputs.items()) if o.actions != ACTIONS_NOOP]
    if plan.mode == "refresh-only" and plan.drift:
        yield _REFRESH_ONLY
        if changes or outputs:
            yield ""
    elif not changes and not outputs:
        yield from _no_changes(plan, p)
    if not changes and not outputs:
        return
    if changes:
        used = {_SYMBOLS.get(c.actions) for c in changes}
        yield from [_INTRO, *(p.marker(s) + " " + text for s, text in _LEGEND if s in used), ""]
        yield from ["ctl will perform the following actions:", ""]
        for c in changes[:limit]:
            yield from _block(c, p)
            yield ""
        if limit is not None and len(changes) > limit:
            yield from counted(changes[limit:], p, _SYMBOLS, _VERBS)
            yield ""
        yield _bold_summary(summary_line(plan), p)
    if outputs:
        if changes:
            yield ""
        yield "Changes to Outputs:"
        yield from _output_lines(outputs, p)
        if not changes:
            yield ""
            yield ("You can apply this plan to save these new output values to the ctl state, "
                   "without changing any real infrastructure.")


def _bold_summary(line: str, p: Painter) -> str:
    head, sep, rest = line.partition(" ")
    return p(head, "bold") + sep + rest


def _no_changes(plan: Plan, p: Painter) -> list[str]:
    headline, detail = _NO_CHANGES.get(plan.mode, _NO_CHANGES["normal"])
    return [p("No changes.", "green") + " " + headline, "", detail]


def _output_lines(outputs: list[Any], p: Painter) -> list[str]:
    def masked(v: Any, sensitive: bool) -> Any:
        return Marked(v) if sensitive and v is not None and not isinstance(v, Marked) else v

    width = max(len(o.name) for o in outputs)
    differ = Differ(p, values=True)
    lines: list[str] = []
    for o in outputs:
        before, after = masked(o.before, o.sensitive), masked(o.after, o.sensitive)
        lines += differ.entry(0, o.name.ljust(width) + " = ", before, after, ())
    return lines


def render_instance(address: str, attrs: dict[str, Any], *, color: bool) -> str:
    """One object as ``ctl state show`` prints it: an HCL-like block, secrets masked.

    The ``# address:`` line above it is the caller's, as listing commands print it their own way.
    """
    try:
        addr = InstanceAddress.parse(address)
        kind, rtype, name = ("data" if addr.mode == "data" else "resource"), addr.type, addr.name
    except AddressError:
        kind, rtype, name = "resource", address, ""
    body = Differ(Painter(color)).dict_lines(attrs, attrs, 0, (), hide=False, top=True)
    title = f'{kind} "{rtype}" "{name}"' if name else f'{kind} "{rtype}"'
    lines = [title + (" {" if body else " {}"), *body]
    if body:
        lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["render_drift", "render_instance", "render_plan", "summary_line"]
