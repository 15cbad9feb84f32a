"""Plan and apply N resources served by a real provider plugin, against the same N served natively.

The plugin side is ``fwtest_thing`` from the Go-built test provider (``make providers``); the native
side is ``terraform_data``, whose adapter does no I/O either. Both run through the real ``ctl``
executable with the walker's default parallelism, so the difference per resource is what the plugin
protocol costs (encode, gRPC round trips, decode, the provider's own work): the target is under 2 ms.

    python bench/plugin_scale.py            # N = 1000
    python bench/plugin_scale.py --n 200
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
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
resource "terraform_data" "t" {{
  count = {n}
  input = {{ name = "thing-${{count.index}}", size = count.index }}
}}
"""


def _ctl() -> str:
    beside = Path(sys.executable).parent / "ctl"
    return str(beside) if beside.exists() else "ctl"


def _timed(args: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([_ctl(), *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "CI": "true"})
    return time.perf_counter() - started


def _run(template: str, n: int, plugin_dir: Path | None) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "objs").mkdir()
        (work / "main.tf").write_text(template.format(n=n))
        _timed(["init", *(["-plugin-dir", str(plugin_dir)] if plugin_dir else [])], work)
        plan = _timed(["plan", "--no-builtin-policies"], work)
        apply = _timed(["apply", "--auto-approve", "--no-builtin-policies"], work)
        return plan, apply


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    n = parser.parse_args().n
    from tests.plugin_providers import provider_dir

    plugin_dir = provider_dir()
    native_plan, native_apply = _run(NATIVE, n, None)
    plugin_plan, plugin_apply = _run(PLUGIN, n, plugin_dir)
    print(f"{n} resources        plan      apply")
    print(f"native adapter   {native_plan:7.2f} s  {native_apply:7.2f} s")
    print(f"provider plugin  {plugin_plan:7.2f} s  {plugin_apply:7.2f} s")
    print(f"per resource     {(plugin_plan - native_plan) / n * 1000:7.2f} ms {(plugin_apply - native_apply) / n * 1000:7.2f} ms"
          "  (plugin minus native: the protocol's cost, provider work included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
