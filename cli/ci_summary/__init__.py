"""Markdown summaries of a plan or an apply: GitHub's job summary and pull-request comments.

When ``GITHUB_STEP_SUMMARY`` is set (GitHub Actions sets it for every step), ``plan`` and ``apply``
append a summary to that file — the counts, a table of the changes, the policy results — so a
reviewer sees what a run would do (or did) on the run's page without reading the log. ``ctl plan
--summary-md FILE`` writes the same markdown to a file, for a bot to post as a pull-request comment.

Both places have hard size limits: GitHub rejects a step summary over 1 MiB (and shows nothing), and
a comment must stay under 65,536 characters. A plan of thousands of resources would exceed either,
so tables are cut to fit a budget well inside the limit, with a note saying how many rows were left
out and where to see everything. Values never appear, so no secret can leak into a summary.

This module decides where a summary goes; what it says is built by ``plan`` and ``apply`` from the
tables of ``tables``, in a ``document.Document``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cli.ci_summary.apply import apply_document
from cli.ci_summary.document import Document
from cli.ci_summary.plan import plan_document

STEP_SUMMARY_LIMIT = 1024 * 1024  # GitHub's limit for one step's summary, in bytes
STEP_SUMMARY_BUDGET = 512 * 1024  # what one ctl run may add: well under the limit
COMMENT_BUDGET = 60_000  # characters (UTF-8 bytes, which is stricter): comments must be < 65,536
_MARGIN = 8 * 1024  # left free for whatever else the step writes to its summary


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
    from vocab.errors import CtlError

    try:
        path.write_text(doc.render(COMMENT_BUDGET) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CtlError(f"Could not write the summary to {path}: {exc.strerror or exc}") from None


def after_plan(plan: Any, summary_md: Path | None = None, timings: Any = None) -> None:
    """What ``ctl plan`` writes: the job summary on GitHub Actions, and ``--summary-md`` if given;
    ``timings`` (a ``TimingReport``, with ``--timings``) adds its table."""
    if summary_md is None and not os.environ.get("GITHUB_STEP_SUMMARY"):
        return
    doc = plan_document(plan)
    _add_timings(doc, timings)
    if summary_md is not None:
        write_summary_file(doc, summary_md)
    append_step_summary(doc)


def after_apply(plan: Any, result: Any, mode: str, timings: Any = None) -> None:
    """What ``ctl apply``/``destroy`` write: the job summary on GitHub Actions (and the timings table)."""
    if os.environ.get("GITHUB_STEP_SUMMARY") and plan is not None:
        doc = apply_document(plan, result, mode)
        _add_timings(doc, timings)
        append_step_summary(doc)


def _add_timings(doc: Document, timings: Any) -> None:
    """The ``--timings`` table, last: it is cut first when the summary must shrink."""
    if timings is not None:
        from cli.ci_summary.tables import summary_table

        doc.tables.append(summary_table(timings))
