"""The tail of a very large plan on a terminal: the changes past the first few hundred, counted.

Fifty thousand change blocks are half a million lines: nobody reads them in a terminal, and printing
them takes longer than planning did. On a terminal, ``render_plan`` shows the first
``TERMINAL_LIMIT`` changes in full and hands the rest to ``counted``: one line per action and
resource type, largest first. Piped output (a CI log, ``| less``), ``--full-plan``, ``ctl show`` and
``--json`` stay complete, so nothing is ever hidden from a reviewer who asks for it.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importable by the CLI's option declarations without the plan model
    from cli.views.diff import Painter
    from engine.plan.model import ResourceChange

TERMINAL_LIMIT = 200  # changes shown in full on a terminal before the rest are counted
_GROUPS_SHOWN = 20  # action and type lines; the rest are added up in one line


def counted(rest: list[ResourceChange], p: Painter, symbols: dict[tuple[str, ...], str],
            verbs: dict[str, str]) -> list[str]:
    """Lines for the changes not shown in full: per action and type, then how to see them all."""
    groups = Counter((c.actions, c.type if c.mode == "managed" else f"data.{c.type}") for c in rest)
    ordered = sorted(groups.items(), key=lambda g: (-g[1], symbols.get(g[0][0], ""), g[0][1]))
    width = len(f"{ordered[0][1]:,}")
    lines = [p(f"... and {len(rest):,} more changes, not shown in full:", "bold")]
    for (actions, type_name), n in ordered[:_GROUPS_SHOWN]:
        symbol = symbols.get(actions, "?")
        lines.append(f"{p.marker(symbol)} {n:>{width},} {type_name} {verbs.get(symbol, 'to change')}")
    hidden = ordered[_GROUPS_SHOWN:]
    if hidden:
        lines.append(f"    {sum(n for _, n in hidden):,} more of {len(hidden)} other actions and types")
    lines += [
        "",
        f"A terminal shows the first {TERMINAL_LIMIT} changes of a plan in full; --full-plan shows "
        "them all, as do piped output, --json and ctl show on a saved plan.",
    ]
    return lines
