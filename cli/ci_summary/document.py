"""A markdown summary as a title, fixed lines and tables, rendered to fit a size budget.

GitHub refuses a step summary over 1 MiB and a comment over 65,536 characters, so ``render`` cuts
table rows (the only part that grows with the plan) to fit, and says how many it left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
