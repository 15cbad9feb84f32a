"""Plan and apply N resources served by a real provider plugin, against the same N served natively.

The plugin side is ``fwtest_thing`` from the Go-built test provider (``make providers``), which
writes one small JSON file per object; the native side is ``local_file``, which does the same. Both
reach out, so both journal their intents durably, and both run through ctl's real command line with
the walker's default parallelism. The plan is saved (``plan -out``) and then applied, so each phase
is timed on its own, as a CI pipeline runs them.

Each command runs in a fresh interpreter that reports its own CPU time and, separately, the
provider process's (ctl reaps it, so it is the interpreter's child CPU). Per resource, plugin minus
native:

- wall: what a user waits for; it includes the provider's own work;
- ctl CPU: the protocol's cost on ctl's side (encode, gRPC, the mutual-TLS bridge, decode), the
  figure the 2 ms target is about;
- provider CPU: the provider's own work for the same RPCs, which Terraform pays too.

With Terraform 1.0.3 installed (the test extra), the same configuration and provider run through
it as well, for reference.

    python bench/plugin_scale.py            # N = 1000
    python bench/plugin_scale.py --n 200 --no-terraform
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PLUGIN = """
terraform {{
  required_providers {{
    fwtest = {{ source = "ctltest/fwtest", version = "~> 1.0" }}
  }}
}}

provider "fwtest" {{
  root = "objs"
}}

resource "fwtest_thing" "t" {{
  count    = {n}
  name     = "thing-${{count.index}}"
  size     = count.index
  settings = {{ level = 1 }}
}}
"""

NATIVE = """
resource "local_file" "t" {{
  count    = {n}
  filename = "objs/thing-${{count.index}}.json"
  content  = jsonencode({{ name = "thing-${{count.index}}", size = count.index, settings = {{ level = 1 }} }})
}}
"""

# Runs one ctl command in this interpreter and writes its CPU split to the file named in argv[1].
_MEASURED_CTL = """
import json, resource, sys
sys.path.insert(0, sys.argv[2])
from cli.main import run
code = run(sys.argv[3:])
own, child = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "ctl": own.ru_utime + own.ru_stime, "provider": child.ru_utime + child.ru_stime}, out)
sys.exit(code)
"""


@dataclass
class Phase:
    """One command's wall time and the CPU seconds of ctl and of the provider."""

    wall: float
    ctl: float
    provider: float


def _measured(args: list[str], cwd: Path) -> Phase:
    report = cwd / ".cpu.json"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", _MEASURED_CTL, str(report), str(REPO), *args], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, env={**os.environ, "CI": "true"})
    wall = time.perf_counter() - started
    cpu = json.loads(report.read_text())
    return Phase(wall, cpu["ctl"], cpu["provider"])


def _run_ctl(template: str, n: int, plugin_dir: Path | None) -> tuple[Phase, Phase]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "objs").mkdir()
        (work / "main.tf").write_text(template.format(n=n))
        _measured(["init", *(["-plugin-dir", str(plugin_dir)] if plugin_dir else [])], work)
        plan = _measured(["plan", "--no-builtin-policies", "-out", "bench.plan"], work)
        apply = _measured(["apply", "--auto-approve", "--no-builtin-policies", "bench.plan"], work)
        if len(list((work / "objs").iterdir())) != n:
            raise SystemExit(f"the apply did not make {n} objects")
        return plan, apply


def _run_terraform(n: int, plugin_dir: Path) -> tuple[float, float] | None:
    """Terraform 1.0.3's wall times for the same configuration and provider, or None without it."""
    binary = Path(sys.executable).parent / "terraform"
    if not binary.exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "objs").mkdir()
        (work / "main.tf").write_text(PLUGIN.format(n=n))
        env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
        env.update(HOME=str(work), TF_DATA_DIR=str(work / ".terraform"), CHECKPOINT_DISABLE="1", TF_IN_AUTOMATION="1")

        def timed(*args: str) -> float:
            started = time.perf_counter()
            subprocess.run([str(binary), *args], cwd=work, env=env, check=True, stdout=subprocess.DEVNULL)
            return time.perf_counter() - started

        timed("init", "-plugin-dir", str(plugin_dir))
        return timed("plan", "-out", "tf.plan"), timed("apply", "tf.plan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--no-terraform", action="store_true", help="skip the Terraform 1.0.3 reference run")
    options = parser.parse_args()
    n = options.n
    from tests.plugin_providers import provider_dir

    plugin_dir = provider_dir()
    native = _run_ctl(NATIVE, n, None)
    plugin = _run_ctl(PLUGIN, n, plugin_dir)
    terraform = None if options.no_terraform else _run_terraform(n, plugin_dir)
    print(f"{n} resources, wall seconds        plan     apply")
    print(f"ctl, native local_file         {native[0].wall:7.2f}   {native[1].wall:7.2f}")
    print(f"ctl, provider plugin           {plugin[0].wall:7.2f}   {plugin[1].wall:7.2f}")
    if terraform is not None:
        print(f"Terraform 1.0.3, same plugin   {terraform[0]:7.2f}   {terraform[1]:7.2f}")
    print("per resource, plugin minus native (ms)")

    def row(label: str, pick) -> None:
        plan, apply = ((pick(p) - pick(q)) / n * 1000 for p, q in zip(plugin, native, strict=True))
        print(f"  {label:<28} {plan:7.2f}   {apply:7.2f}")

    row("wall", lambda p: p.wall)
    row("ctl CPU (the protocol's cost)", lambda p: p.ctl)
    row("provider CPU (its own work)", lambda p: p.provider)
    return 0


if __name__ == "__main__":
    sys.exit(main())
