"""What ``bench/scale.py`` prints: its tables, each goal of the issue with its verdict, and the
growth between sizes. Kept apart from the script that runs the commands, so the goals and how they
are judged read in one place.
"""

from __future__ import annotations

import itertools
import os
import resource
from typing import Any

COMMANDS = ("validate", "revalidate", "plan", "apply", "replan")
LABELS = {"validate": "validate", "revalidate": "validate again", "plan": "plan", "apply": "apply", "replan": "re-plan"}
GOAL_N = 50_000
GOALS_S = {"validate": 6.0, "revalidate": 6.0, "plan": 15.0, "replan": 12.0, "apply": 40.0}
GOAL_PEAK_MB = 500.0
GROWTH_N = 100_000
GROWTH_LIMIT = 2.2


def _fmt(r: dict[str, Any] | None, key: str = "s", spec: str = ".2f") -> str:
    if r is None:
        return "-"
    text = format(r[key], spec)
    return text if r.get("ok", r["exit"] == 0) else f"{text}!"


def _render(head: list[str], body: list[list[str]]) -> str:
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(b, widths, strict=True)) for b in body]
    return "\n".join(lines)


def tables(rows: list[dict[str, Any]]) -> str:
    """The main table (the issue's columns), then CPU and RSS per command."""
    main = _render(
        ["resources", "validate s", "again s", "plan s", "apply s", "re-plan s", "peak MB", "state MB"],
        [
            [
                f"{r['n']:,}",
                *(_fmt(r.get(c)) for c in COMMANDS),
                f"{r['peak_mb']:.0f}" if r["peak_mb"] is not None else "-",
                f"{r['state_mb']:.1f}" if r["state_mb"] is not None else "-",
            ]
            for r in rows
        ],
    )
    detail = _render(
        [
            "resources",
            "config MB",
            *(f"{LABELS[c]} cpu s" for c in COMMANDS),
            *(f"{LABELS[c]} MB" for c in COMMANDS),
            "plan.bin MB",
        ],
        [
            [
                f"{r['n']:,}",
                f"{r['config_mb']:.1f}",
                *(_fmt(r.get(c), "cpu_s") for c in COMMANDS),
                *(_fmt(r.get(c), "rss_mb", ".0f") for c in COMMANDS),
                f"{r['plan_file_mb']:.1f}" if r["plan_file_mb"] is not None else "-",
            ]
            for r in rows
        ],
    )
    return f"{main}\n\n{detail}"


def _goal(goal: str, value: float | None, unit: str, limit: float, why: str = "") -> dict[str, Any]:
    met = None if value is None else value <= limit
    return {"goal": goal, "value": value, "unit": unit, "limit": limit, "met": met, "why": why}


def _seconds(row: dict[str, Any], c: str) -> tuple[float | None, str]:
    step = row.get(c)
    if step is None:
        return None, "not run"
    return (step["s"], "") if step["ok"] else (None, f"exited {step['exit']}")


def goals(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each goal of the issue that the measured sizes can judge, with its value and verdict.

    A command that failed or did not run leaves its goal unjudged (``met`` is None), never met.
    """
    by_n = {r["n"]: r for r in rows}
    out: list[dict[str, Any]] = []
    base, big = by_n.get(GOAL_N), by_n.get(GROWTH_N)
    if base is not None:
        for c, limit in GOALS_S.items():
            v, why = _seconds(base, c)
            out.append(_goal(f"50k {LABELS[c]} <= {limit:g} s", v, "s", limit, why))
        out.append(_goal(f"50k peak <= {GOAL_PEAK_MB:g} MB", base["peak_mb"], "MB", GOAL_PEAK_MB))
    if base is not None and big is not None:
        for c in COMMANDS:
            (v0, why0), (v1, why1) = _seconds(base, c), _seconds(big, c)
            ratio = v1 / v0 if v0 and v1 is not None else None
            why = f"50k {why0}" if why0 else f"100k {why1}" if why1 else ""
            out.append(_goal(f"100k/50k {LABELS[c]} <= {GROWTH_LIMIT:g}x", ratio, "x", GROWTH_LIMIT, why))
    return out


def growth(rows: list[dict[str, Any]]) -> list[str]:
    """Time ratio over size ratio between consecutive sizes: 1.0 is linear, above it superlinear."""
    lines = []
    ordered = sorted(rows, key=lambda r: r["n"])
    for a, b in itertools.pairwise(ordered):
        parts = []
        for c in COMMANDS:
            if a.get(c) and b.get(c) and a[c]["ok"] and b[c]["ok"] and a[c]["s"] > 0:
                parts.append(f"{LABELS[c]} {b[c]['s'] / a[c]['s'] / (b['n'] / a['n']):.2f}")
        if parts:
            lines.append(f"growth {a['n']:,} -> {b['n']:,} (time ratio / size ratio): " + ", ".join(parts))
    return lines


def layout_table(rows: list[dict[str, Any]], baseline_mb: float) -> str:
    """The layout table: per layout and size, each step's wall and CPU seconds and peak RSS, and
    the bytes of peak RSS over ``baseline_mb`` per byte of input of the first validate (parsing and
    the model) and of the plan."""
    body = []
    for r in rows:
        steps = [r.get(name) for name in ("validate", "revalidate", "plan")]
        per_byte = [f"{(s['rss_mb'] - baseline_mb) / r['config_mb']:.0f}" if s and s.get("ok") else "-"
                    for s in (steps[0], steps[2])]
        cells = []
        for s in steps:
            if not s:
                cells += ["-"]
            elif not s.get("ok"):
                cells += [f"exit {s['exit']}"]
            else:
                cells += [f"{s['s']:.1f} s ({s['cpu_s']:.1f} cpu) {s['rss_mb']:.0f} MB"]
        n = f"{r['n']:,}" if r["n"] else "-"
        body.append([r["layout"], n, str(r["files"]), f"{r['config_mb']:.1f}", *cells, *per_byte])
    head = ["layout", "resources", "files", "MB in", "validate", "validate (cached)", "plan", "validate B/B", "plan B/B"]
    return f"baseline (validate of one output): {baseline_mb:.0f} MB\n" + _render(head, body)


def own_peak_mb() -> float:
    """This process's peak RSS: a floor under every child's ``ru_maxrss`` (see ``scale.count_instances``)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def report(rows: list[dict[str, Any]], lang: dict[str, Any] | None, references: list[float]) -> None:
    print(tables(rows))
    runs = max((len(s["runs_s"]) for r in rows for c in COMMANDS if (s := r.get(c))), default=1)
    print(
        "times in seconds of wall clock"
        + (f" (the median of {runs} runs)" if runs > 1 else "")
        + "; ! = unexpected exit status; peak MB = largest RSS of the five commands; "
        f"no RSS can read below this script's own peak, {own_peak_mb():.0f} MB"
    )
    if references:
        print(
            f"reference work (fixed, pure Python, before each round): {min(references):.2f} to "
            f"{max(references):.2f} s, median {sorted(references)[len(references) // 2]:.2f} s: "
            "the same work on the same machine, so a slower figure means a slower machine"
        )
    for r in rows:
        for c in COMMANDS:
            step = r.get(c)
            if step and not step["ok"]:
                print(f"N={r['n']:,}: {LABELS[c]} exited {step['exit']}: {' | '.join(step['tail'])}")
        if r.get("apply") and r["apply"]["ok"] and r["state_instances"] != r["n"]:
            print(f"N={r['n']:,}: state holds {r['state_instances']} instances, expected {r['n']:,}")
    for line in growth(rows):
        print(line)
    judged = goals(rows)
    print(
        f"goals: 50k: validate <= {GOALS_S['validate']:g} s, plan <= {GOALS_S['plan']:g} s, re-plan <= "
        f"{GOALS_S['replan']:g} s, apply <= {GOALS_S['apply']:g} s, peak <= {GOAL_PEAK_MB:g} MB; "
        f"100k within {GROWTH_LIMIT:g}x of 50k"
    )
    for g in judged:
        if g["met"] is None:
            print(f"  {g['goal']}: not judged ({g['why']})")
            continue
        value = (
            f"{g['value']:.0f} MB"
            if g["unit"] == "MB"
            else f"{g['value']:.2f}{'x' if g['unit'] == 'x' else ' s'}"
        )
        print(f"  {g['goal']}: {value}: {'met' if g['met'] else 'NOT MET'}")
    sizes = {r["n"] for r in rows}
    if GOAL_N not in sizes:
        print("  50k goals: not measured (add 50000 to --sizes)")
    if GROWTH_N not in sizes or GOAL_N not in sizes:
        print("  100k/50k: not measured (needs 50000 and 100000 in --sizes)")
    if lang is not None:
        print()
        if "skipped" in lang:
            print(f"language vs Terraform 1.0.3: skipped: {lang['skipped']}")
        else:
            tf, ct, init = lang.get("terraform_plan"), lang["ctl_plan"], lang["terraform_init"]
            print(
                f"language only ({lang['locals']:,} locals, {lang['module_instances']} module instances, "
                f"{lang['files']} files, {lang['bytes'] / 1e6:.1f} MB, no resources):"
            )
            print(
                _render(
                    ["command", "wall s", "cpu s", "RSS MB", "exit"],
                    [
                        [
                            name,
                            _fmt(step),
                            _fmt(step, "cpu_s"),
                            _fmt(step, "rss_mb", ".0f"),
                            str(step["exit"]) if step else "-",
                        ]
                        for name, step in (("terraform init", init), ("terraform plan", tf), ("ctl plan", ct))
                    ],
                )
            )
            for name, step in (("terraform init", init), ("terraform plan", tf), ("ctl plan", ct)):
                if step and step["exit"]:
                    print(f"{name} exited {step['exit']}: {' | '.join(step['tail'])}")
            if "ratio" in lang:
                cpu = f", cpu {lang['cpu_ratio']:.2f}x" if lang.get("cpu_ratio") else ""
                print(f"ctl plan / terraform plan: wall {lang['ratio']:.2f}x{cpu}")
    loads = [s["load"] for r in rows for c in COMMANDS if (s := r.get(c))]
    if lang and "ctl_plan" in lang:
        loads.append(lang["ctl_plan"]["load"])
    cores = os.cpu_count() or 1
    if loads and max(loads) > cores:
        print(
            f"note: load average up to {max(loads):.1f} on {cores} cores while measuring: other processes "
            "shared the CPUs, so wall times are inflated (compare the cpu columns)"
        )
