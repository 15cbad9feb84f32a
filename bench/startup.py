"""How long ``ctl`` takes to start, which is what every Tab press in a shell costs.

Shell completion runs ``ctl`` once per Tab, so start-up time is felt directly. Measured, each in a
fresh process, over several runs (minimum and median wall seconds):

* ``ctl --version``   target 0.25 s
* ``ctl --help``      target 0.25 s (the same imports; a slow one means a command module grew heavy)
* a completion answer, ``ctl state show <TAB>`` against a state of ``--instances`` objects,
  target 0.3 s
* ``ctl plan`` of a small configuration (three resources, one in a module; no state yet), with
  tracing and the timing report off: no target, it is compared before and after a change (the
  OpenTelemetry SDK and the timing recorder must cost an untraced run nothing)

It also checks, with ``PYTHONPROFILEIMPORTTIME``, that neither ``--help`` nor ``--version`` imports
a cloud SDK (boto3, botocore, google.cloud, azure) or the policy engine (regopy): those belong to
the commands that use them, imported lazily.

Run: ``python bench/startup.py [--runs 15] [--instances 1000] [--ctl PATH] [--check]``. Plain text on
stdout; exit status 0 unless ``--check`` is given and a target is missed or a forbidden import seen.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

FORBIDDEN = ("boto3", "botocore", "google.cloud", "azure", "regopy")
VERSION_TARGET_S = 0.25
COMPLETION_TARGET_S = 0.3


@dataclass(frozen=True)
class _Case:
    name: str
    args: list[str]
    env: dict[str, str]
    target: float | None  # None: measured, not judged
    folder: str = ""  # under the temporary directory; "" is the directory itself


SMALL_CONFIG = """
resource "terraform_data" "a" {
  input = "a"
}
resource "terraform_data" "b" {
  input = terraform_data.a.output
}
module "m" {
  source = "./mod"
}
"""
SMALL_MODULE = 'resource "terraform_data" "inner" {\n  input = "m"\n}\n'
# Measuring switched off, whatever the caller's environment says.
UNTRACED = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER", "CTL_TIMINGS")


def _write_small_config(folder: Path) -> None:
    """The small configuration ``ctl plan`` is timed on."""
    (folder / "mod").mkdir(parents=True)
    (folder / "main.tf").write_text(SMALL_CONFIG)
    (folder / "mod" / "main.tf").write_text(SMALL_MODULE)


def _default_ctl() -> Path:
    """The ``ctl`` installed next to this interpreter (the project's virtual environment)."""
    return Path(sys.executable).parent / "ctl"


def _write_state(folder: Path, instances: int) -> None:
    """A state file of ``instances`` objects: count-indexed resources and for_each module instances."""
    resources = []
    per_resource = 10
    for r in range(max(1, instances // per_resource)):
        module = f'module.svc["s{r % 7}"]' if r % 3 == 0 else None
        res: dict[str, object] = {
            "mode": "managed", "type": "terraform_data", "name": f"r{r}",
            "provider": 'provider["registry.terraform.io/hashicorp/terraform"]',
            "instances": [{"index_key": i, "schema_version": 0, "attributes": {"id": f"{r}-{i}", "input": "x" * 64},
                           "sensitive_attributes": [], "dependencies": []} for i in range(per_resource)],
        }
        if module:
            res["module"] = module
        resources.append(res)
    doc = {"version": 4, "terraform_version": "1.9.0", "serial": 1, "lineage": "bench-startup",
           "outputs": {}, "resources": resources}
    (folder / "ctl.tfstate").write_text(json.dumps(doc))


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time_once(ctl: Path, case: _Case, cwd: Path) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one run of ``ctl`` in a fresh process."""
    env = {**{k: v for k, v in os.environ.items() if k not in UNTRACED}, **case.env}
    cpu_before, started = _cpu_of_children(), time.perf_counter()
    proc = subprocess.run([str(ctl), *case.args], cwd=cwd, env=env, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - started, _cpu_of_children() - cpu_before
    if proc.returncode != 0:
        raise SystemExit(f"{case.name}: ctl exited {proc.returncode}: {proc.stderr.strip()}")
    return elapsed, cpu, proc.stdout


def _forbidden_imports(ctl: Path, args: list[str], cwd: Path) -> list[str]:
    """Modules from FORBIDDEN that running ``ctl ARGS`` imports."""
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    proc = subprocess.run([str(ctl), *args], cwd=cwd, env=env, capture_output=True, text=True)
    seen = set()
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        module = line.rsplit("|", 1)[-1].strip()
        if any(module == f or module.startswith(f + ".") for f in FORBIDDEN):
            seen.add(module)
    return sorted(seen)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per command (after one warm-up)")
    parser.add_argument("--instances", type=int, default=1000, help="objects in the state completed from")
    parser.add_argument("--ctl", type=Path, default=_default_ctl(), help="the ctl executable to measure")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    opts = parser.parse_args()
    if not opts.ctl.exists():
        print(f"no ctl executable at {opts.ctl}; install the project (make venv) or pass --ctl")
        return 1

    cases = [
        _Case("ctl --version", ["--version"], {}, VERSION_TARGET_S),
        _Case("ctl --help", ["--help"], {}, VERSION_TARGET_S),
        _Case("completion: ctl state show <TAB>", [],
              {"_CTL_COMPLETE": "bash_complete", "COMP_WORDS": "ctl state show ", "COMP_CWORD": "3"},
              COMPLETION_TARGET_S),
        _Case("ctl plan (3 resources, untraced)", ["plan", "--no-input"], {}, None, "small"),
    ]
    failures = []
    with tempfile.TemporaryDirectory(prefix="ctl-startup-") as tmp:
        cwd = Path(tmp)
        _write_state(cwd, opts.instances)
        _write_small_config(cwd / "small")
        print(f"ctl: {opts.ctl}   runs: {opts.runs} (after a warm-up)   state: {opts.instances} instances")
        load = os.getloadavg()[0]
        busy = load > (os.cpu_count() or 1)
        if busy:
            print(f"note: load average {load:.1f} exceeds the {os.cpu_count()} cores: wall times are inflated,"
                  " so the targets are judged on the median CPU time")
        print()
        print(f"{'command':<36} {'min s':>7} {'median s':>9} {'cpu s':>7} {'target s':>9}  result")
        for case in cases:
            where = cwd / case.folder
            out = _time_once(opts.ctl, case, where)[2]  # warm-up: file-system and bytecode caches
            runs = [_time_once(opts.ctl, case, where) for _ in range(opts.runs)]
            times = [wall for wall, _, _ in runs]
            median, cpu = statistics.median(times), statistics.median(c for _, c, _ in runs)
            ok = case.target is None or (cpu if busy else median) < case.target
            if case.env and out.count("\n") < opts.instances:
                ok = False
                print(f"  (the completion answered {out.count(chr(10))} lines for {opts.instances} instances)")
            if not ok:
                failures.append(case.name)
            target = "-" if case.target is None else f"{case.target:.2f}"
            print(f"{case.name:<36} {min(times):>7.3f} {median:>9.3f} {cpu:>7.3f} {target:>9}  "
                  f"{'ok' if ok else 'SLOW'}")
        print()
        for args in (["--help"], ["--version"]):
            bad = _forbidden_imports(opts.ctl, args, cwd)
            where = " ".join(["ctl", *args])
            if bad:
                failures.append(f"{where} imports {', '.join(bad)}")
                print(f"{where:<16} imports {', '.join(bad)}  FORBIDDEN")
            else:
                print(f"{where:<16} imports none of {', '.join(FORBIDDEN)}  ok")
    print()
    print("all targets met" if not failures else "missed: " + "; ".join(failures))
    return 1 if failures and opts.check else 0


if __name__ == "__main__":
    sys.exit(main())
