"""How the configuration pipeline scales with the number of resources.

For each size N (default 1,000, 10,000 and 20,000 resource instances) a configuration is generated
in a temporary directory: HCL spread over files of ~250 instances each, using only the local
adapter types (``terraform_data``, ``random_id``, ``random_string``, ``local_file``, ``time_sleep``),
with reference chains and fan-ins, ``count``, ``for_each`` over maps, locals, variables with
defaults, outputs, and a local module called with ``for_each`` whose instances count toward N.

Each size is measured twice, each time in a fresh process (so one size's heap never inflates the
next, and the process's peak RSS is that size's alone):

* phases, in a worker process: parse (``load_config``), graph (``build_graph`` plus the
  resource-type check), evaluate+validate (the configuration walk including the JSON-schema check
  of every instance; the schema share is shown on its own);
* ``ctl -C DIR validate`` as a subprocess: wall time and peak RSS.

The last line checks the targets of the speed section of issue 2: 10,000 resources through
``ctl validate`` in under 5 s, 20,000 in under 2.2x that time, peak memory under 1 GB.

Run: ``python bench/parse_scale.py [--sizes 1000,10000] [--repeat 3] [--keep DIR] [--json]``
(exit status 0 always: this is a benchmark, not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from parse_scale_config import generate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout, not installed

DEFAULT_SIZES = (1_000, 10_000, 20_000)
TARGET_10K_S = 5.0
TARGET_RATIO = 2.2
TARGET_RSS_MB = 1024.0

# ---- measurement ---------------------------------------------------------------------------


def _phase_worker(directory: Path) -> None:
    """In a fresh process: run the pipeline's phases on ``directory``, print timings as JSON."""
    import engine.schema as schema
    from adapters.registry import Registry
    from engine.validate import load_and_evaluate

    Registry.discover()  # adapter imports are start-up cost, not the parse phase's
    spent = [0.0]
    check = schema.check

    def timed_check(*a: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        try:
            return check(*a, **kw)
        finally:
            spent[0] += time.perf_counter() - t

    if hasattr(schema, "check"):  # the schema share is reported as 0 if the hook point moves
        schema.check = timed_check
    t0 = time.perf_counter()
    loaded = load_and_evaluate(directory)
    total = time.perf_counter() - t0
    by_node = getattr(loaded.walk, "instances", None) or {}
    instances = sum(len(v) for v in by_node.values())
    errors = [str(d.summary) for d in loaded.diags.items if d.severity == "error"]
    print(
        json.dumps(
            {
                **loaded.timings,
                "schema": spent[0],
                "total": total,
                "instances": instances,
                "errors": len(errors),
                "first_error": errors[0] if errors else None,
            }
        )
    )


def _run(cmd: list[str], cwd: Path) -> tuple[float, float, float, int, str]:
    """Run ``cmd``: wall seconds, CPU seconds, its own peak RSS in MB, exit status, output."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode(errors="replace")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, proc.returncode, text  # ru_maxrss is in KiB on Linux


def _ctl_command() -> list[str]:
    ctl = Path(sys.executable).parent / "ctl"
    if ctl.exists():
        return [str(ctl)]
    return [sys.executable, "-c", "import sys; from cli.main import app; sys.exit(app())"]


def measure(directory: Path, repeat: int) -> dict[str, Any]:
    """The best of ``repeat`` runs of the phases and of ``ctl validate`` on one configuration."""
    phases: dict[str, Any] | None = None
    phase_rss = 0.0
    for _ in range(repeat):
        _, _, rss, code, text = _run([sys.executable, __file__, "--phase-worker", str(directory)], ROOT)
        phase_rss = max(phase_rss, rss)
        if code != 0:
            phases = {"failed": text.strip().splitlines()[-1:] or ["?"]}
            break
        got = json.loads(text.strip().splitlines()[-1])
        if phases is None or got["total"] < phases["total"]:
            phases = got
    cli_wall, cli_cpu, cli_rss, cli_code, cli_text = float("inf"), float("inf"), 0.0, 0, ""
    for _ in range(repeat):
        wall, cpu, rss, code, text = _run([*_ctl_command(), "-C", str(directory), "validate"], ROOT)
        cli_wall, cli_cpu, cli_rss = min(cli_wall, wall), min(cli_cpu, cpu), max(cli_rss, rss)
        cli_code, cli_text = code, text
    return {
        "phases": phases,
        "phase_rss_mb": phase_rss,
        "validate_s": cli_wall,
        "validate_cpu_s": cli_cpu,
        "validate_rss_mb": cli_rss,
        "validate_exit": cli_code,
        "validate_tail": cli_text.strip().splitlines()[-1:] if cli_code else [],
    }


# ---- report --------------------------------------------------------------------------------


def _table(rows: list[dict[str, Any]]) -> str:
    head = [
        "N",
        "files",
        "MB",
        "parse s",
        "MB/s",
        "graph s",
        "eval+val s",
        "(schema)",
        "phases s",
        "RSS MB",
        "validate s",
        "cpu s",
        "RSS MB",
        "exit",
    ]
    body = []
    for r in rows:
        p = r["phases"] or {}
        ok = "parse" in p
        body.append(
            [
                f"{r['n']:,}",
                str(r["files"]),
                f"{r['mb']:.2f}",
                f"{p['parse']:.2f}" if ok else "-",
                f"{r['mb'] / p['parse']:.2f}" if ok and p["parse"] else "-",
                f"{p['graph']:.2f}" if ok and "graph" in p else "-",
                f"{p['evaluate']:.2f}" if ok and "evaluate" in p else "-",
                f"{p['schema']:.2f}" if ok else "-",
                f"{p['total']:.2f}" if ok else "-",
                f"{r['phase_rss_mb']:.0f}",
                f"{r['validate_s']:.2f}",
                f"{r['validate_cpu_s']:.2f}",
                f"{r['validate_rss_mb']:.0f}",
                str(r["validate_exit"]),
            ]
        )
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(b, widths, strict=True)) for b in body]
    return "\n".join(lines)


def _targets(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_n = {r["n"]: r for r in rows}
    out: dict[str, Any] = {}
    if 10_000 in by_n:
        t10 = by_n[10_000]["validate_s"]
        out["validate_10k_s"] = {"value": round(t10, 3), "limit": TARGET_10K_S, "ok": t10 < TARGET_10K_S}
        if 20_000 in by_n:
            ratio = by_n[20_000]["validate_s"] / t10
            out["ratio_20k_10k"] = {
                "value": round(ratio, 3),
                "limit": TARGET_RATIO,
                "ok": ratio < TARGET_RATIO,
            }
    peak = max((max(r["validate_rss_mb"], r["phase_rss_mb"]) for r in rows), default=0.0)
    out["peak_rss_mb"] = {"value": round(peak), "limit": TARGET_RSS_MB, "ok": peak < TARGET_RSS_MB}
    return out


def _targets_line(targets: dict[str, Any]) -> str:
    parts = []
    if "validate_10k_s" in targets:
        t = targets["validate_10k_s"]
        parts.append(f"10k validate {t['value']:.2f} s < {t['limit']:g} s: {'ok' if t['ok'] else 'MISSED'}")
    else:
        parts.append("10k validate: not measured (add 10000 to --sizes)")
    if "ratio_20k_10k" in targets:
        t = targets["ratio_20k_10k"]
        parts.append(f"20k/10k {t['value']:.2f}x < {t['limit']:g}x: {'ok' if t['ok'] else 'MISSED'}")
    else:
        parts.append("20k/10k: not measured")
    t = targets["peak_rss_mb"]
    parts.append(f"peak RSS {t['value']:.0f} MB < {t['limit']:.0f} MB: {'ok' if t['ok'] else 'MISSED'}")
    return "targets: " + "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes",
        default=",".join(str(n) for n in DEFAULT_SIZES),
        help="comma-separated resource counts (default: %(default)s)",
    )
    ap.add_argument("--repeat", type=int, default=1, help="runs per size; the fastest counts")
    ap.add_argument("--keep", metavar="DIR", help="write the configurations to DIR/n<N> and keep them")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--phase-worker", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.phase_worker:
        _phase_worker(Path(args.phase_worker))
        return 0
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ctl-parse-scale-"))
    rows = []
    try:
        for n in sizes:
            directory = base / f"n{n}"
            if directory.exists():
                shutil.rmtree(directory)
            info = generate(directory, n)
            result = measure(directory, max(1, args.repeat))
            rows.append(
                {
                    "n": n,
                    "files": info["files"],
                    "mb": info["bytes"] / 1e6,
                    "lines": info["lines"],
                    "dir": str(directory) if args.keep else None,
                    **result,
                }
            )
            if not args.json:
                print(f"N={n:,}: done", file=sys.stderr)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    targets = _targets(rows)
    load = os.getloadavg()[0]
    cores = os.cpu_count() or 1
    if args.json:
        print(
            json.dumps({"results": rows, "targets": targets, "load_average": load, "cores": cores}, indent=2)
        )
        return 0
    print(_table(rows))
    for r in rows:
        p = r["phases"] or {}
        if "failed" in p:
            print(f"N={r['n']:,}: phase worker failed: {p['failed'][0]}")
        elif p.get("instances") != r["n"] or p.get("errors"):
            print(
                f"N={r['n']:,}: evaluated {p.get('instances')} instances, {p.get('errors')} errors "
                f"(first: {p.get('first_error')})"
            )
        if r["validate_exit"]:
            print(f"N={r['n']:,}: ctl validate exited {r['validate_exit']}: {r['validate_tail']}")
    print(
        "phases: parse = load_config; graph = resource-type check + build_graph; eval+val = walk "
        "incl. schema checks; RSS = peak of that process"
    )
    print(_targets_line(targets))
    if load > cores:
        print(
            f"note: load average {load:.1f} on {cores} cores: other processes share the CPU, so wall "
            "times are inflated (compare the cpu column)"
        )
    return 0


if __name__ == "__main__":
    if "--phase-worker" in sys.argv:
        sys.exit(main())
    try:
        main()
    except Exception as err:  # a benchmark reports, it does not fail the caller
        print(f"parse_scale: {type(err).__name__}: {err}", file=sys.stderr)
    sys.exit(0)
