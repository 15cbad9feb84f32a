"""How plan and apply scale with the number of resources, and what an apply writes to state storage.

For each size N (default 1,000 and 10,000 resource instances) a configuration of ``terraform_data``
resources is generated in a temporary directory, in groups of 10 instances: a root, a chain of 5
steps each referencing the previous one, a fan-out of 3 (``count``) referencing the root, and a
fan-in referencing the chain's end and the whole fan-out. Every 10th group's root also references
the previous such group's fan-in, so groups are linked in a sparse chain too. Files hold 100 groups.

Everything runs through the real ``ctl`` executable, each command in a fresh process:

* ``ctl plan`` on the empty state: wall time, peak RSS;
* ``ctl apply --auto-approve``: wall time (plan included: it is what a user waits for), peak RSS;
  "apply phase" is that minus the plan time above;
* ``ctl plan --detailed-exitcode`` again (no-op re-plan: refresh of N objects + diff): wall time,
  and a check that it reports no changes (exit 0);
* the same apply once more, on a fresh copy of the configuration, under
  ``strace -f -y --seccomp-bpf -e trace=write,pwrite64,writev``: every write syscall with the path
  of its file descriptor, summed per file: the state file (its temporary files, renamed into
  place), the backup, the history directory (earlier documents the local backend keeps, with their
  sidecars), the journal, the lock file. Snapshotting file sizes afterwards would miss
  every compaction and the journal (removed at the end), so the syscalls are counted instead.
  strace slows the process down, so that run is not timed. Without strace the bytes are not
  measured.

Peak RSS is ``ru_maxrss`` of the child process from ``wait4``.

The last line checks linearity: with the journal, state bytes written per operation should be
roughly constant from the smallest to the largest size (ratio under ``LINEAR_LIMIT``); a rewrite
of the whole state every K operations makes it grow with N.

Run: ``python bench/apply_scale.py [--sizes 1000,10000] [--keep DIR] [--json]``
(exit status 0 always: this is a benchmark, not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_SIZES = (1_000, 10_000)
GROUP = 10  # instances per group: root, 5 chain steps, 3 fan-out (count), 1 fan-in
CHAIN = 5
FAN_OUT = 3
GROUPS_PER_FILE = 100
LINK_EVERY = 10  # every 10th group's root references the previous linked group's fan-in
LINEAR_LIMIT = 1.5  # bytes/op at the largest size over bytes/op at the smallest
TIMEOUT_S = 3600

# ---- configuration generator ---------------------------------------------------------------


def _group(g: int) -> str:
    p = f"g{g:05}"
    if g % LINK_EVERY == 0 and g >= LINK_EVERY:
        root_input = f"{{ group = {g}, after = terraform_data.g{g - LINK_EVERY:05}_in.id }}"
    else:
        root_input = f'{{ group = {g}, name = "root" }}'
    out = [f'resource "terraform_data" "{p}_root" {{\n  input = {root_input}\n}}\n']
    prev = f"{p}_root"
    for step in range(1, CHAIN + 1):
        name = f"{p}_c{step}"
        out.append(
            f'resource "terraform_data" "{name}" {{\n'
            f'  input = "${{terraform_data.{prev}.output.group}}-{step}"\n}}\n'
            if step == 1
            else f'resource "terraform_data" "{name}" {{\n'
            f'  input = "${{terraform_data.{prev}.output}}-{step}"\n}}\n'
        )
        prev = name
    out.append(
        f'resource "terraform_data" "{p}_fan" {{\n  count = {FAN_OUT}\n'
        f'  input = "${{terraform_data.{p}_root.id}}/${{count.index}}"\n}}\n'
    )
    out.append(
        f'resource "terraform_data" "{p}_in" {{\n'
        f"  input = {{\n    last = terraform_data.{prev}.output\n"
        f"    fan  = terraform_data.{p}_fan[*].output\n  }}\n}}\n"
    )
    return "\n".join(out)


def generate(directory: Path, n: int) -> dict[str, Any]:
    """Write a configuration of exactly ``n`` instances (``n`` a multiple of 10) to ``directory``."""
    if n % GROUP:
        raise ValueError(f"size {n} is not a multiple of {GROUP}")
    directory.mkdir(parents=True)
    groups = n // GROUP
    files = 0
    for start in range(0, groups, GROUPS_PER_FILE):
        text = "\n".join(_group(g) for g in range(start, min(groups, start + GROUPS_PER_FILE)))
        (directory / f"groups_{files:03}.tf").write_text(text)
        files += 1
    (directory / "outputs.tf").write_text(
        f'output "last_fan_in" {{\n  value = terraform_data.g{groups - 1:05}_in.output.last\n}}\n'
    )
    return {"files": files + 1, "resource_blocks": groups * (CHAIN + 3)}


# ---- measuring -----------------------------------------------------------------------------


def _ctl_command() -> list[str]:
    ctl = Path(sys.executable).parent / "ctl"
    if ctl.exists():
        return [str(ctl)]
    found = shutil.which("ctl")
    return [found] if found else [sys.executable, "-m", "cli.main"]


def _run(cmd: list[str], cwd: Path) -> tuple[float, float, int, str]:
    """Run ``cmd``; wall seconds, the child's peak RSS in MB, exit status, last lines of output."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0, os.SEEK_END)
        out.seek(max(0, out.tell() - 4000))
        tail = out.read().decode(errors="replace")
    return wall, usage.ru_maxrss / 1024, proc.returncode, tail  # ru_maxrss is in KiB on Linux


_WRITE = re.compile(r"^(\d+)\s+(?:write|pwrite64|writev)\((\d+)<([^>]*)>.*\)\s+=\s+(-?\d+)")
_UNFINISHED = re.compile(r"^(\d+)\s+(?:write|pwrite64|writev)\((\d+)<([^>]*)>.*<unfinished \.\.\.>")
_RESUMED = re.compile(r"^(\d+)\s+<\.\.\. (?:write|pwrite64|writev) resumed>.*\)\s+=\s+(-?\d+)")


def _category(path: str, state: Path) -> str:
    name = os.path.basename(path)
    if os.path.basename(os.path.dirname(path)) == state.name + ".history":
        return "history"  # earlier documents kept by the local backend, and their sidecars
    if name == state.name + ".journal":
        return "journal"
    if name.startswith(f".{state.name}.backup.") or name == state.name + ".backup":
        return "backup"
    if (name.startswith(f".{state.name}.") and name.endswith(".tmp")) or name == state.name:
        return "state"
    if name == state.name + ".tflock":
        return "lock"
    return "other"


def parse_strace(text: str, state: Path) -> dict[str, int]:
    """Bytes written per category, and the number of write calls to the journal."""
    sums = {
        "state": 0,
        "backup": 0,
        "history": 0,
        "journal": 0,
        "lock": 0,
        "other": 0,
        "journal_writes": 0,
        "state_writes": 0,
    }
    pending: dict[str, str] = {}
    for line in text.splitlines():
        m = _WRITE.match(line)
        if m:
            path, n = m.group(3), int(m.group(4))
        else:
            u = _UNFINISHED.match(line)
            if u:
                pending[u.group(1)] = u.group(3)
                continue
            r = _RESUMED.match(line)
            if not r or r.group(1) not in pending:
                continue
            path, n = pending.pop(r.group(1)), int(r.group(2))
        if n <= 0:
            continue
        cat = _category(path, state)
        sums[cat] += n
        if cat in ("journal", "state"):
            sums[cat + "_writes"] += 1
    return sums


def measure_bytes(config: Path, work: Path) -> dict[str, Any] | None:
    """Apply a fresh copy of ``config`` under strace; bytes written per file category."""
    strace = shutil.which("strace")
    if strace is None:
        return None
    directory = work / "strace-run"
    if directory.exists():
        shutil.rmtree(directory)
    shutil.copytree(config, directory, ignore=shutil.ignore_patterns("*.tfstate*", ".*"))  # no state
    trace = work / "apply.strace"
    cmd = [
        strace,
        "-f",
        "-y",
        "-qq",
        "--seccomp-bpf",
        "-e",
        "trace=write,pwrite64,writev",
        "-e",
        "signal=none",
        "-o",
        str(trace),
        *_ctl_command(),
        "-C",
        str(directory),
        "apply",
        "--auto-approve",
    ]
    wall, _, code, tail = _run(cmd, ROOT)
    text = trace.read_text(errors="replace")
    shutil.rmtree(directory, ignore_errors=True)
    trace.unlink()
    sums = parse_strace(text, directory / "ctl.tfstate")
    sums["storage"] = sums["state"] + sums["backup"] + sums["history"] + sums["journal"] + sums["lock"]
    return {
        "exit": code,
        "traced_wall_s": wall,
        **sums,
        "error": tail.strip().splitlines()[-1:] if code else [],
    }


def measure(directory: Path, work: Path, n: int) -> dict[str, Any]:
    ctl = [*_ctl_command(), "-C", str(directory)]
    out: dict[str, Any] = {"n": n}
    wall, rss, code, tail = _run([*ctl, "plan"], ROOT)
    out.update(plan_s=wall, plan_rss_mb=rss, plan_exit=code)
    wall, rss, code, tail = _run([*ctl, "apply", "--auto-approve"], ROOT)
    out.update(
        apply_s=wall,
        apply_rss_mb=rss,
        apply_exit=code,
        apply_error=tail.strip().splitlines()[-1:] if code else [],
    )
    try:
        doc = json.loads((directory / "ctl.tfstate").read_bytes())
        out["state_instances"] = sum(len(r.get("instances", [])) for r in doc.get("resources", []))
        out["state_mb"] = (directory / "ctl.tfstate").stat().st_size / 1e6
    except (OSError, ValueError):
        out["state_instances"], out["state_mb"] = 0, 0.0
    wall, rss, code, tail = _run([*ctl, "plan", "--detailed-exitcode"], ROOT)
    out.update(replan_s=wall, replan_rss_mb=rss, replan_exit=code)
    out["bytes"] = measure_bytes(directory, work)
    return out


# ---- report --------------------------------------------------------------------------------


def _per_op(r: dict[str, Any]) -> float | None:
    b = r.get("bytes")
    return b["storage"] / r["n"] if b and b["exit"] == 0 else None


def _table(rows: list[dict[str, Any]]) -> str:
    head = [
        "N",
        "plan s",
        "apply s",
        "(phase)",
        "ops/s",
        "re-plan s",
        "RSS MB",
        "state MB",
        "snapshots MB",
        "journal MB",
        "B/op",
        "exits",
    ]
    body = []
    for r in rows:
        b = r.get("bytes")
        phase = r["apply_s"] - r["plan_s"]
        per_op = _per_op(r)
        body.append(
            [
                f"{r['n']:,}",
                f"{r['plan_s']:.2f}",
                f"{r['apply_s']:.2f}",
                f"{phase:.2f}",
                f"{r['n'] / phase:,.0f}" if phase > 0 else "-",
                f"{r['replan_s']:.2f}",
                f"{r['apply_rss_mb']:.0f}",
                f"{r['state_mb']:.2f}",
                f"{(b['state'] + b['backup'] + b['history']) / 1e6:.1f}" if b else "n/a",
                f"{b['journal'] / 1e6:.1f}" if b else "n/a",
                f"{per_op:,.0f}" if per_op is not None else "n/a",
                f"{r['plan_exit']}/{r['apply_exit']}/{r['replan_exit']}",
            ]
        )
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(b, widths, strict=True)) for b in body]
    return "\n".join(lines)


def linearity(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    measured: list[tuple[int, float]] = []
    for r in rows:
        per_op = _per_op(r)
        if per_op is not None:
            measured.append((r["n"], per_op))
    if len(measured) < 2:
        return None
    (n0, b0), (n1, b1) = min(measured), max(measured)
    ratio = b1 / b0 if b0 else float("inf")
    return {
        "from": n0,
        "to": n1,
        "bytes_per_op_from": round(b0),
        "bytes_per_op_to": round(b1),
        "ratio": round(ratio, 2),
        "limit": LINEAR_LIMIT,
        "ok": ratio <= LINEAR_LIMIT,
    }


def load_note() -> str | None:
    """A warning when other processes compete for the CPUs: wall times are then inflated."""
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    if load <= cores:
        return None
    return f"note: load average {load:.1f} on {cores} cores while measuring: wall times are inflated"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes",
        default=",".join(str(n) for n in DEFAULT_SIZES),
        help="comma-separated instance counts, multiples of 10 (default: %(default)s)",
    )
    ap.add_argument("--keep", metavar="DIR", help="write the configurations to DIR/n<N> and keep them")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ctl-apply-scale-"))
    rows = []
    try:
        for n in sizes:
            directory = base / f"n{n}"
            if directory.exists():
                shutil.rmtree(directory)
            info = generate(directory, n)
            row = measure(directory, base, n)
            row.update(info)
            if args.keep:
                row["dir"] = str(directory)
            rows.append(row)
            if not args.json:
                print(f"N={n:,}: done", file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    lin = linearity(rows)
    if args.json:
        print(
            json.dumps(
                {
                    "results": rows,
                    "linearity": lin,
                    "bytes_method": "strace -f -y write/pwrite64/writev per file",
                    "load_average": os.getloadavg()[0],
                },
                indent=2,
            )
        )
        return 0
    print(_table(rows))
    for r in rows:
        if r["state_instances"] != r["n"]:
            print(f"N={r['n']:,}: state holds {r['state_instances']} instances, expected {r['n']}")
        if r["apply_exit"]:
            print(f"N={r['n']:,}: apply exited {r['apply_exit']}: {r['apply_error']}")
        if r["replan_exit"] != 0:
            print(f"N={r['n']:,}: re-plan exited {r['replan_exit']} (2 = changes after apply)")
        b = r.get("bytes")
        if b and b["exit"]:
            print(f"N={r['n']:,}: the traced apply exited {b['exit']}: {b['error']}")
        elif b:
            print(
                f"N={r['n']:,}: state storage {b['storage'] / 1e6:.1f} MB written: state "
                f"{b['state'] / 1e6:.1f} MB in {b['state_writes']} write calls, backup "
                f"{b['backup'] / 1e6:.1f} MB, history {b['history'] / 1e6:.1f} MB, journal {b['journal'] / 1e6:.1f} MB in "
                f"{b['journal_writes']} appends; other {b['other'] / 1e6:.1f} MB (terminal output)"
            )
    print(
        "apply s includes its plan; (phase) = apply s - plan s; RSS = peak of the apply process; "
        "bytes counted from write syscalls (strace), B/op = state storage bytes / N"
    )
    note = load_note()
    if note:
        print(note)
    if lin is None:
        print("linearity: not measured (needs two sizes and strace)")
    else:
        print(
            f"linearity: {lin['bytes_per_op_from']:,} B/op at N={lin['from']:,} -> "
            f"{lin['bytes_per_op_to']:,} B/op at N={lin['to']:,}: {lin['ratio']:.2f}x "
            f"(limit {LINEAR_LIMIT}x): {'ok' if lin['ok'] else 'NOT LINEAR'}"
        )
    return 0


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # a benchmark reports, it does not fail the caller
        print(f"apply_scale: {type(err).__name__}: {err}", file=sys.stderr)
    sys.exit(0)
