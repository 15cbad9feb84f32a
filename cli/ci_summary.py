"""Markdown summaries of a plan or an apply: GitHub's job summary and pull-request comments.

When ``GITHUB_STEP_SUMMARY`` is set (GitHub Actions sets it for every step), ``plan`` and ``apply``
append a summary to that file — the counts, a table of the changes, the policy results — so a
reviewer sees what a run would do (or did) on the run's page without reading the log. ``ctl plan
--summary-md FILE`` writes the same markdown to a file, for a bot to post as a pull-request comment.

Both places have hard size limits: GitHub rejects a step summary over 1 MiB (and shows nothing), and
a comment must stay under 65,536 characters. A plan of thousands of resources would exceed either,
so tables are cut to fit a budget well inside the limit, with a note saying how many rows were left
out and where to see everything. Values never appear, so no secret can leak into a summary.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STEP_SUMMARY_LIMIT = 1024 * 1024  # GitHub's limit for one step's summary, in bytes
STEP_SUMMARY_BUDGET = 512 * 1024  # what one ctl run may add: well under the limit
COMMENT_BUDGET = 60_000  # characters (UTF-8 bytes, which is stricter): comments must be < 65,536
_MARGIN = 8 * 1024  # left free for whatever else the step writes to its summary

_ACTION_LABELS = {  # Terraform's plan symbols, which reviewers already read at a glance
    "create": "`+` create",
    "update": "`~` update",
    "delete": "`-` destroy",
    "replace": "`-/+` replace",
    "read": "`<=` read",
    "move": "`->` move",
}
_STATUS_LABELS = {"failed": "❌ failed", "overridden": "⚠️ overridden", "advisory": "💬 advisory"}


# -- markdown building blocks -------------------------------------------------------------------


def cell(text: object) -> str:
    """Text safe inside a table cell: no pipes, no line breaks, no HTML."""
    s = str(text if text is not None else "")
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return s.replace("|", "\\|").replace("\r", "").replace("\n", "<br>")


def code(text: str) -> str:
    """A code span for an address (``aws_s3_bucket.b["x"]``), safe inside a table."""
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


@dataclass
class Table:
    heading: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    intro: str = ""


@dataclass
class Document:
    """A title, some fixed lines and tables whose rows are the only part cut to fit."""

    title: str
    lines: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    footer: list[str] = field(default_factory=list)

    def render(self, budget: int) -> str:
        """The markdown, at most ``budget`` UTF-8 bytes, dropping table rows (noted) when needed."""
        full = self._render(None)
        if _size(full) <= budget:
            return full
        # Everything but the rows, plus room for the notes, is fixed; rows fill what is left in order.
        fixed = _size(self._render([0] * len(self.tables))) + 600
        left = max(budget - fixed, 0)
        keep = []
        for table in self.tables:
            n = 0
            for row in table.rows:
                size = _size(_row(row)) + 1
                if size > left:
                    break
                left -= size
                n += 1
            keep.append(n)
            if n < len(table.rows):
                left = 0  # keep tables in order: nothing from later tables once one is cut
        text = self._render(keep)
        while _size(text) > budget and any(keep):  # the estimate was off: drop more, to be sure
            i = max(i for i, k in enumerate(keep) if k)
            keep[i] = max(keep[i] - max(keep[i] // 10, 1), 0)
            text = self._render(keep)
        return text

    def _render(self, keep: list[int] | None) -> str:
        out = [f"## {self.title}", ""]
        if self.lines:
            out += [*self.lines, ""]
        omitted_total = 0
        for i, table in enumerate(self.tables):
            rows = table.rows if keep is None else table.rows[: keep[i]]
            omitted = len(table.rows) - len(rows)
            omitted_total += omitted
            out += [f"### {table.heading}", ""]
            if table.intro:
                out += [table.intro, ""]
            if rows or omitted:
                out.append(_row(table.columns))
                out.append(_row(["---"] * len(table.columns)))
                out += [_row(r) for r in rows]
                if omitted:
                    out.append(_row([f"_… {omitted} more not shown_"] + [""] * (len(table.columns) - 1)))
            out.append("")
        if omitted_total:
            out += [f"> **Note:** this summary was truncated to stay within GitHub's size limits: "
                    f"{omitted_total} rows are not shown. Run `ctl show` on the saved plan (or read the "
                    f"job log) for everything.", ""]
        if self.footer:
            out += [*self.footer, ""]
        return "\n".join(out)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


# -- plan and apply summaries -------------------------------------------------------------------


def _action(change: Any) -> str | None:
    from cli.json_ui import change_action

    return change_action(tuple(change.actions), change.previous_address)


def _change_rows(changes: list[Any]) -> list[list[str]]:
    rows = []
    for c in changes:
        action = _action(c)
        if action is None:
            continue
        note = f"moved from {code(c.previous_address)}" if c.previous_address else cell(_reason(c))
        rows.append([_ACTION_LABELS.get(action, action), code(c.address), note])
    return rows


def _reason(c: Any) -> str:
    from cli.json_ui import CHANGE_REASONS

    reason = c.action_reason or ""
    return CHANGE_REASONS.get(reason, reason).replace("_", " ")


def _drift_table(plan: Any) -> Table | None:
    if not plan.drift:
        return None
    rows = [[_ACTION_LABELS.get(_action(c) or "update", "update"), code(c.address)] for c in plan.drift]
    return Table("Changed outside ctl", ["Change", "Resource"], rows)


def _policy_table(plan: Any) -> Table | None:
    results = list(getattr(plan, "policy_results", None) or [])
    if not results:
        return None
    counts: dict[str, int] = {}
    for r in results:
        status = str(r.get("status", "advisory"))
        counts[status] = counts.get(status, 0) + 1
    intro = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    if getattr(plan, "policy_override", None):
        intro += f" (override: {cell(plan.policy_override)})"
    rows = []
    for r in results:
        status = str(r.get("status", ""))
        where = code(str(r["address"])) if r.get("address") else ""
        rule = r.get("rule") or r.get("policy") or ""
        rows.append([_STATUS_LABELS.get(status, cell(status)), cell(r.get("level", "")), code(str(rule)) if rule else "",
                     where, cell(r.get("message", ""))])
    return Table("Policy results", ["Status", "Level", "Rule", "Resource", "Message"], rows, intro=intro)


def plan_document(plan: Any) -> Document:
    """The summary of a plan: counts, the changes, drift, changed outputs, policy results."""
    add, change, destroy = plan.counts()
    workspace = getattr(plan, "workspace", "default")
    mode = getattr(plan, "mode", "normal")
    if not plan.has_changes:
        title = "ctl plan: no changes"
    else:
        title = f"ctl plan: {add} to add, {change} to change, {destroy} to destroy"
    lines = [f"Workspace {code(workspace)}" + ("" if mode == "normal" else f" · {mode} plan")]
    if not plan.has_changes:
        lines.append("Your infrastructure matches the configuration.")
    doc = Document(title, lines)
    rows = _change_rows(plan.changes)
    if rows:
        doc.tables.append(Table("Changes", ["Action", "Resource", "Note"], rows))
    drift = _drift_table(plan)
    if drift is not None:
        doc.tables.append(drift)
    outs = [[_ACTION_LABELS.get(a, a), code(name)] for name, oc in sorted(plan.outputs.items())
            if (a := _output_action(oc)) is not None]
    if outs:
        doc.tables.append(Table("Outputs", ["Action", "Output"], outs))
    policy = _policy_table(plan)
    if policy is not None:
        doc.tables.append(policy)
    return doc


def _output_action(oc: Any) -> str | None:
    from cli.json_ui import change_action

    return change_action(tuple(oc.actions))


def apply_document(plan: Any, result: Any, mode: str) -> Document:
    """The summary of an apply: the outcome, counts, and what happened to each planned change."""
    verb = "destroy" if mode == "destroy" else "apply"
    if result is None:
        return Document(f"ctl {verb}: no changes", ["Nothing to do: the infrastructure matches the configuration."])
    c = result.counts
    counts = f"{c['add']} added, {c['change']} changed, {c['destroy']} destroyed"
    if result.interrupted:
        outcome = "⚠️ interrupted"
    elif result.ok:
        outcome = "✅ complete"
    else:
        outcome = "❌ failed"
    title = f"ctl {verb} {outcome}: {counts}"
    lines = [f"Workspace {code(getattr(plan, 'workspace', 'default'))}"]
    if result.failed or result.skipped:
        lines.append(f"{len(result.failed)} failed, {len(result.skipped)} not attempted.")
    doc = Document(title, lines)
    applied = set(result.applied)
    cancelled = set(getattr(result, "cancelled", []) or [])
    rows = []
    for ch in plan.changes:
        action = _action(ch)
        if action is None:
            continue
        if ch.address in result.failed:
            status, note = "❌ failed", cell(_first_line(result.failed[ch.address]))
        elif ch.address in result.skipped:
            blocker = result.skipped[ch.address]
            status, note = "⏭️ not attempted", f"{code(str(blocker))} failed"
        elif ch.address in cancelled:
            status, note = "⏹️ cancelled", ""
        elif ch.address in applied or action == "move":
            status, note = "✅ done", ""
        else:
            status, note = "⏹️ not run", ""
        rows.append([status, _ACTION_LABELS.get(action, action), code(ch.address), note])
    if rows:
        doc.tables.append(Table("Changes", ["Result", "Action", "Resource", "Note"], rows))
    policy = _policy_table(plan)
    if policy is not None:
        doc.tables.append(policy)
    return doc


def _first_line(exc: object) -> str:
    text = str(getattr(exc, "summary", None) or exc)
    return text.splitlines()[0] if text else ""


# -- where summaries go -------------------------------------------------------------------------


def step_summary_budget(path: Path) -> int:
    """How much one run may append: our own budget, less whatever the step already wrote."""
    try:
        used = path.stat().st_size
    except OSError:
        used = 0
    return max(min(STEP_SUMMARY_BUDGET, STEP_SUMMARY_LIMIT - _MARGIN - used), 0)


def append_step_summary(doc: Document) -> None:
    """Append to ``$GITHUB_STEP_SUMMARY`` when GitHub Actions set it; a failure to write only warns."""
    from cli import output

    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    path = Path(target)
    budget = step_summary_budget(path)
    if budget < 1024:
        output.warn("The job summary is nearly full: not adding ctl's summary to it.")
        return
    try:
        with path.open("a", encoding="utf-8") as fh:
            fh.write(doc.render(budget) + "\n")
    except OSError as exc:
        output.warn(f"Could not write the job summary to {target}: {exc.strerror or exc}")


def write_summary_file(doc: Document, path: Path) -> None:
    """``--summary-md FILE``: the markdown for a pull-request comment (under 65,536 characters)."""
    from engine.errors import CtlError

    try:
        path.write_text(doc.render(COMMENT_BUDGET) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CtlError(f"Could not write the summary to {path}: {exc.strerror or exc}") from None


def after_plan(plan: Any, summary_md: Path | None = None) -> None:
    """What ``ctl plan`` writes: the job summary on GitHub Actions, and ``--summary-md`` if given."""
    if summary_md is None and not os.environ.get("GITHUB_STEP_SUMMARY"):
        return
    doc = plan_document(plan)
    if summary_md is not None:
        write_summary_file(doc, summary_md)
    append_step_summary(doc)


def after_apply(plan: Any, result: Any, mode: str) -> None:
    """What ``ctl apply``/``destroy`` write: the job summary on GitHub Actions."""
    if os.environ.get("GITHUB_STEP_SUMMARY") and plan is not None:
        append_step_summary(apply_document(plan, result, mode))


__all__ = ["COMMENT_BUDGET", "STEP_SUMMARY_BUDGET", "Document", "Table", "after_apply", "after_plan",
           "append_step_summary", "apply_document", "plan_document", "write_summary_file"]
