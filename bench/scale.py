"""The whole lifecycle at 10,000 to 100,000 resources, and the language alone against Terraform 1.0.3.

For each size N (default 10,000, 25,000, 50,000 and 100,000) a configuration of N ``terraform_data``
resources is generated (``scale_config.generate_resources``: ~250 per file, small nested inputs, one
in ten chained to the previous chained one, a few variables, locals and outputs). ``terraform_data``
is served natively, so no provider process starts and nothing touches the network: what is measured
is ctl itself. Each command runs through the real ``ctl`` executable in a fresh process, so one
command's heap never inflates the next and each peak RSS is that command's own:

* ``ctl validate``, on a fresh directory, so every file is parsed (and put in the parse cache);
* ``ctl validate`` again, unchanged: every file comes from the parse cache, as for the commands after;
* ``ctl plan --out plan.bin``: create all N;
* ``ctl apply plan.bin``: apply the saved plan (no second planning pass, no prompt);
* ``ctl plan --detailed-exitcode``: the no-change re-plan (refresh N objects, diff); must exit 0.

Each step runs on every size before the next step starts, so the sizes a growth ratio compares are
measured close together in time. Wall time, CPU time (user + system of the child) and peak RSS
(``ru_maxrss`` from ``wait4``) of each, and the state file's size. ctl's modules are compiled to
bytecode first (``compile_sources``), as an installed ctl's are, so no command pays for compiling
them. The goals of the issue are judged (``scale_report``) on the sizes measured: at 50,000
validate <= 6 s, plan <= 15 s, re-plan <= 12 s, apply <= 40 s, peak RSS <= 500 MB; at 100,000 each
time within 2.2x of its 50,000 value.

Then the language alone (``scale_config.generate_language``: ``--lang-size`` locals and a twentieth as
many module instances, no resources), planned by Terraform 1.0.3 (``.venv/bin/terraform`` from the
test extra, after ``terraform init`` with an empty CLI configuration and no checkpoint calls) and by
ctl on copies of the same files: both times and their ratio. Terraform cannot run ``terraform_data``
(it arrived in 1.4) and any other resource would need a provider download, so this is the fair
comparison available offline.

Then the layouts code generators write (``--layouts``, default ``split,single,json,yaml``): the same
N resources as one ``main.tf``, one ``main.tf.json`` and one ``main.tf.yaml`` beside the split files,
each validated on a fresh directory, validated again (parse cache) and planned; and a file that is
one huge literal (``--literal-mb``, default 50: a heredoc, a quoted string with an escape on every
line, and that string in a ``main.tf.json``). For
each, peak RSS and the bytes of peak over the baseline (``ctl validate`` of a one-line
configuration) per byte of input.

This machine's speed moves by up to a half from one minute to the next, so ``--repeat N`` runs each
step N times on each size and counts its median run, and before each round a fixed
piece of pure-Python work is timed (``reference_s``): it shows which phase the machine was in.

Run: ``python bench/scale.py [--sizes 10000,25000] [--skip-apply] [--lang-size N] [--no-terraform]
[--repeat N] [--keep DIR] [--json] [--layouts split,single,json,yaml] [--layout-sizes 10000,50000]
[--literal-mb 50] [--literal-kinds heredoc,string,json] [--no-lifecycle]`` (exit status 0 always: this is a benchmark, not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from scale_config import generate_language, generate_literal, generate_resources
from scale_report import COMMANDS, LABELS, goals, layout_table, own_peak_mb, report

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_SIZES = (10_000, 25_000, 50_000, 100_000)
DEFAULT_LANG_SIZE = 10_000
TIMEOUT_S = 3600.0

# ---- running -------------------------------------------------------------------------------


def _ctl() -> list[str]:
    ctl = Path(sys.executable).parent / "ctl"
    if ctl.exists():
        return [str(ctl)]
    found = shutil.which("ctl")
    if found:
        return [found]
    # Commands run in the configuration's directory, so the checkout must be put on the path.
    return [
        sys.executable,
        "-c",
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from cli.main import app; app()",
    ]


PACKAGES = ("adapters", "backends", "cli", "engine", "policies")


def compile_sources(root: Path = ROOT) -> None:
    """Compile the modules of ctl's checkout at ``root`` to bytecode before measuring, as installing
    a package does.

    Run from a checkout with ``PYTHONDONTWRITEBYTECODE`` set (CI images often set it), every
    command would otherwise compile each module it imports from source, in every run: about a
    third of a second per command here, a cost no installed ctl pays. Python still checks each
    compiled file against its source, so an edit is never measured stale.
    """
    import compileall

    for package in PACKAGES:
        compileall.compile_dir(root / package, quiet=2)


def _terraform() -> str | None:
    found = Path(sys.executable).parent / "terraform"
    return str(found) if found.exists() else None


def run(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = TIMEOUT_S
) -> dict[str, Any]:
    """Run ``cmd`` once: wall and CPU seconds, its own peak RSS, exit status, the output's tail.

    ``os.wait4`` on the child's pid gives that child's rusage alone, not the sum over all children
    ``RUSAGE_CHILDREN`` would give. The load average is sampled at the start, so an inflated wall
    time can be told from a slow command.
    """
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
        )
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0, os.SEEK_END)
        out.seek(max(0, out.tell() - 4000))
        tail = out.read().decode(errors="replace").strip().splitlines()
    return {
        "s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,  # KiB on Linux
        "exit": proc.returncode,
        "load": load,
        "tail": tail[-3:] if proc.returncode else [],
    }


_COUNT = (
    "import json, sys; doc = json.load(open(sys.argv[1], 'rb')); "
    "print(sum(len(r.get('instances', [])) for r in doc.get('resources', [])))"
)


def count_instances(state: Path) -> int | None:
    """The instances in a state file, counted in a separate process.

    Parsing a 100 MB document here would raise this process's peak RSS, and every child started
    afterwards (``subprocess`` uses ``vfork``) reports at least that peak as its own ``ru_maxrss``.
    """
    done = subprocess.run(
        [sys.executable, "-c", _COUNT, str(state)], capture_output=True, text=True, check=False
    )
    try:
        return int(done.stdout.strip())
    except ValueError:
        return None


# A fixed piece of pure-Python work, timed in its own process before each step: it does not change
# with ctl, so when it runs slow the machine is in a slow phase, and the step's times are too.
_REFERENCE = "n = 0\nfor i in range(3_000_000):\n    n += i\n"


def reference_s() -> float:
    """Seconds the fixed reference work takes right now, interpreter start-up included."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", _REFERENCE], check=False)
    return time.perf_counter() - t0


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One figure for a step run several times: the run with the median wall time (the upper
    middle one of an even count), its RSS raised to the largest of all, and every wall time kept.
    The median rather than the best: one lucky run on a quiet minute is not the step's speed."""
    ordered = sorted(runs, key=lambda r: r["s"])
    out = dict(ordered[len(ordered) // 2])
    out["rss_mb"] = max(r["rss_mb"] for r in runs)
    out["runs_s"] = [r["s"] for r in runs]
    out["ok"] = all(r["ok"] for r in runs)
    if not out["ok"]:
        out.update(next(r for r in runs if not r["ok"]), runs_s=out["runs_s"], rss_mb=out["rss_mb"], ok=False)
    return out


STEPS: list[tuple[str, list[str], tuple[str, ...]]] = [  # name, arguments, steps it needs
    ("validate", ["validate"], ()),
    ("revalidate", ["validate"], ("validate",)),  # every file now in the parse cache
    ("plan", ["plan", "--out", "plan.bin"], ()),
    ("apply", ["apply", "plan.bin"], ("plan",)),
    ("replan", ["plan", "--detailed-exitcode"], ("plan", "apply")),
]


def _undo_apply(directory: Path, before: set[str]) -> None:
    """Remove what an apply added to ``directory`` (the state, its history, the lock), so the same
    saved plan applies again as it did the first time: it was made against no state."""
    for name in set(os.listdir(directory)) - before:
        path = directory / name
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def measure(directories: list[tuple[Path, int]], skip_apply: bool, timeout: float,
            progress: bool = False, repeat: int = 1) -> tuple[list[dict[str, Any]], list[float]]:
    """The lifecycle on each generated configuration, one row per size, and the reference work's
    times (``reference_s``), one before each round of a step; a failed step skips the steps that
    need it.

    Each step runs on every size before the next step starts, so two sizes compared in a growth
    ratio are measured a minute or two apart, not a whole lifecycle apart: this machine's speed
    drifts by a third over minutes, and the 100,000 runs used to come last, in whatever phase the
    machine had reached by then. With ``repeat`` above 1 every step runs that many rounds over
    the sizes, and counts its median run; each first ``validate`` starts from an empty parse cache,
    and each apply but the first from no state (``_undo_apply``)."""
    rows: list[dict[str, Any]] = [{"n": n} for _, n in directories]
    references: list[float] = []
    for name, args, needs in STEPS:
        runs: list[list[dict[str, Any]]] = [[] for _ in rows]
        before_apply = {d: set(os.listdir(d)) for d, _ in directories} if name == "apply" else {}
        for _ in range(repeat):
            references.append(reference_s())
            for (directory, _), out, done in zip(directories, rows, runs, strict=True):
                if (skip_apply and name in ("apply", "replan")) or any(not (out[p] and out[p]["ok"]) for p in needs):
                    continue
                if name == "validate":
                    shutil.rmtree(directory / ".ctl" / "cache" / "parse", ignore_errors=True)
                if name == "apply" and done:
                    _undo_apply(directory, before_apply[directory])
                result = run([*_ctl(), "-C", str(directory), *args], directory, timeout=timeout)
                result["ok"] = result["exit"] == 0  # the re-plan's 2 (changes) is a failure too
                done.append(result)
        for out, done in zip(rows, runs, strict=True):
            out[name] = median_run(done) if done else None
        if progress:
            print(f"{LABELS[name]}: done", file=sys.stderr, flush=True)
    for (directory, _), out in zip(directories, rows, strict=True):
        state = directory / "ctl.tfstate"
        out["state_mb"] = state.stat().st_size / 1e6 if state.exists() else None
        out["state_instances"] = count_instances(state) if state.exists() else None
        plan = directory / "plan.bin"
        out["plan_file_mb"] = plan.stat().st_size / 1e6 if plan.exists() else None
        done = [out[c] for c in COMMANDS if out.get(c)]
        out["peak_mb"] = max(r["rss_mb"] for r in done) if done else None
    return rows, references


LITERAL_KINDS = ("heredoc", "string", "json")

LAYOUT_STEPS: list[tuple[str, list[str]]] = [
    ("validate", ["validate"]),  # from an empty parse cache
    ("revalidate", ["validate"]),
    ("plan", ["plan", "--out", "plan.bin"]),
]


def baseline_mb(base: Path, timeout: float) -> float:
    """Peak RSS of ``ctl validate`` on a one-line configuration: what every command costs anyway."""
    directory = base / "baseline"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "main.tf").write_text('output "o" {\n  value = 1\n}\n')
    return float(run([*_ctl(), "-C", str(directory), "validate"], directory, timeout=timeout)["rss_mb"])


def layouts(base: Path, sizes: list[int], names: list[str], literal_mb: int, timeout: float,
            repeat: int = 1, literal_kinds: tuple[str, ...] = LITERAL_KINDS) -> list[dict[str, Any]]:
    """The same resources in each layout, and the huge-literal files: one row each, with the steps
    of ``LAYOUT_STEPS`` (median of ``repeat`` runs) and the input's size."""
    rows: list[dict[str, Any]] = []
    todo: list[tuple[dict[str, Any], Path, list[tuple[str, list[str]]]]] = []
    for n in sizes:
        for name in names:
            directory = base / f"{name}{n}"
            if directory.exists():
                shutil.rmtree(directory)
            info = generate_resources(directory, n, name)
            row = {"layout": name, "n": n, "files": info["files"], "config_mb": info["bytes"] / 1e6}
            rows.append(row)
            todo.append((row, directory, LAYOUT_STEPS))
    if literal_mb:
        for kind in literal_kinds:
            directory = base / f"literal-{kind}"
            if directory.exists():
                shutil.rmtree(directory)
            size = generate_literal(directory, literal_mb * 1024 * 1024, kind)
            row = {"layout": f"{literal_mb} MB {kind}", "n": 0, "files": 1, "config_mb": size / 1e6}
            rows.append(row)
            todo.append((row, directory, LAYOUT_STEPS[:2]))
    for row, directory, steps in todo:
        for name, args in steps:
            done = []
            for _ in range(repeat):
                if name == "validate":
                    shutil.rmtree(directory / ".ctl" / "cache" / "parse", ignore_errors=True)
                result = run([*_ctl(), "-C", str(directory), *args], directory, timeout=timeout)
                result["ok"] = result["exit"] == 0
                done.append(result)
            row[name] = median_run(done)
    return rows


def language(base: Path, size: int, timeout: float) -> dict[str, Any]:
    """Terraform 1.0.3 and ctl planning the same resource-free configuration."""
    terraform = _terraform()
    if terraform is None:
        return {"skipped": f"no terraform next to {sys.executable} (install the test extra)"}
    src = base / "lang" / "src"
    if src.parent.exists():
        shutil.rmtree(src.parent)
    info = generate_language(src, size)
    tf_dir, ctl_dir, home = base / "lang" / "terraform", base / "lang" / "ctl", base / "lang" / "home"
    shutil.copytree(src, tf_dir)
    shutil.copytree(src, ctl_dir)
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "TF_CLI_CONFIG_FILE": str(home / "none.tfrc"),  # no user CLI configuration, no plugin cache
        "CHECKPOINT_DISABLE": "1",  # no version check over the network
        "TF_IN_AUTOMATION": "1",
    }
    out: dict[str, Any] = {**info}
    out["terraform_init"] = run([terraform, "init", "-input=false", "-no-color"], tf_dir, env, timeout)
    if out["terraform_init"]["exit"] == 0:
        out["terraform_plan"] = run([terraform, "plan", "-input=false", "-no-color"], tf_dir, env, timeout)
    out["ctl_plan"] = run([*_ctl(), "-C", str(ctl_dir), "plan"], ctl_dir, timeout=timeout)
    tf, ct = out.get("terraform_plan"), out["ctl_plan"]
    if tf and tf["exit"] == 0 and ct["exit"] == 0:
        out["ratio"] = ct["s"] / tf["s"]
        out["cpu_ratio"] = ct["cpu_s"] / tf["cpu_s"] if tf["cpu_s"] else None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes",
        default=",".join(str(n) for n in DEFAULT_SIZES),
        help="comma-separated resource counts (default: %(default)s)",
    )
    ap.add_argument(
        "--keep", metavar="DIR", help="write the configurations to DIR/n<N> and DIR/lang and keep them"
    )
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--skip-apply", action="store_true", help="only validate and plan")
    ap.add_argument(
        "--lang-size",
        type=int,
        default=DEFAULT_LANG_SIZE,
        help="locals in the language-only comparison (default: %(default)s)",
    )
    ap.add_argument("--no-terraform", action="store_true", help="leave out the comparison with Terraform")
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs of each step on each size; the median counts (default: %(default)s)",
    )
    ap.add_argument("--layouts", default="split,single,json,yaml",
                    help="layouts of the layout table: split, single (.tf), json (.tf.json), yaml (.tf.yaml); "
                         "empty for none")
    ap.add_argument("--layout-sizes", default="10000,50000", help="resource counts of the layout table")
    ap.add_argument("--literal-mb", type=int, default=50, help="size of the huge-literal files (0: none)")
    ap.add_argument("--literal-kinds", default=",".join(LITERAL_KINDS),
                    help="huge-literal files: heredoc, string (.tf), json (.tf.json) (default: %(default)s)")
    ap.add_argument("--no-lifecycle", action="store_true", help="only the layout table")
    ap.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT_S,
        help="seconds before a command is killed (default: %(default)g)",
    )
    args = ap.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ctl-scale-"))
    base.mkdir(parents=True, exist_ok=True)
    compile_sources()
    rows: list[dict[str, Any]] = []
    references: list[float] = []
    lang: dict[str, Any] | None = None
    layout_rows: list[dict[str, Any]] = []
    baseline = 0.0
    try:
        directories, infos = [], []
        for n in [] if args.no_lifecycle else sizes:
            directory = base / f"n{n}"
            if directory.exists():
                shutil.rmtree(directory)
            infos.append(generate_resources(directory, n))
            directories.append((directory, n))
        if directories:
            rows, references = measure(
                directories, args.skip_apply, args.timeout, progress=not args.json, repeat=max(1, args.repeat)
            )
        for row, info, (directory, _) in zip(rows, infos, directories, strict=True):
            row.update(files=info["files"], config_mb=info["bytes"] / 1e6)
            if args.keep:
                row["dir"] = str(directory)
        if not args.no_terraform and not args.no_lifecycle:
            lang = language(base, max(1, args.lang_size), args.timeout)
        names = [x for x in args.layouts.split(",") if x.strip()]
        layout_sizes = [int(x.replace("_", "")) for x in args.layout_sizes.split(",") if x.strip()]
        if names or args.literal_mb:
            baseline = baseline_mb(base, args.timeout)
            kinds = tuple(k for k in args.literal_kinds.split(",") if k.strip())
            layout_rows = layouts(base, layout_sizes if names else [], names, args.literal_mb, args.timeout,
                                  repeat=max(1, args.repeat), literal_kinds=kinds)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    if args.json:
        doc = {
            "results": rows,
            "goals": goals(rows),
            "language": lang,
            "cores": os.cpu_count(),
            "own_peak_mb": own_peak_mb(),
            "reference_s": references,
            "layouts": layout_rows,
            "baseline_mb": baseline,
        }
        print(json.dumps(doc, indent=2))
        return 0
    if rows:
        report(rows, lang, references)
    if layout_rows:
        print(layout_table(layout_rows, baseline))
    return 0


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # a benchmark reports, it does not fail the caller
        print(f"scale: {type(err).__name__}: {err}", file=sys.stderr)
    sys.exit(0)
