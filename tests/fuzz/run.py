"""``make fuzz``: every fuzz target with random inputs until a time budget is spent.

    python -m tests.fuzz.run [SECONDS]     (default 600, or CTL_FUZZ_SECONDS)

The budget is shared evenly by the targets. A failing input is printed by hypothesis and saved
in ``tests/fuzz/regressions/TARGET--N``, so ``make test`` replays it from then on; the exit code is
1 when anything failed.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import targets
from tests.fuzz.expressions import expressions
from tests.fuzz.mutations import damaged

REGRESSIONS = Path(__file__).resolve().parent / "regressions"
CONFIG_FILES = ("main.tf", "main.tf.json", "main.tf.yaml")

TARGETS: dict[str, tuple[st.SearchStrategy[Any], Callable[[Any], None]]] = {
    "hcl_file": (damaged(("main.tf",)), targets.hcl_file),
    "configuration": (st.sampled_from(CONFIG_FILES).flatmap(lambda n: st.tuples(st.just(n), damaged((n,)))),
                      lambda named: targets.configuration(*named)),
    "expression": (expressions, targets.expression),
    "state_file": (damaged(("state.tfstate",)), targets.state_file),
    "journal": (damaged(("journal.jsonl",)), targets.journal),
    "lock_file": (damaged(("lock.json",)), targets.lock_file),
}


def _save(name: str, value: Any) -> Path:
    REGRESSIONS.mkdir(exist_ok=True)
    n = len(list(REGRESSIONS.glob(f"{name}--*"))) + 1
    if name == "configuration":
        filename, data = value
        path = REGRESSIONS / f"configuration--{filename}--{n}"
    else:
        path, data = REGRESSIONS / f"{name}--{n}", value
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _keeping(target: Callable[[Any], None], found: list[Any]) -> Callable[[Any], None]:
    """``target``, noting the (last, so shrunk) input it failed on."""
    def prop(value: Any) -> None:
        try:
            target(value)
        except BaseException:
            found[:] = [value]
            raise
    return prop


def run(seconds: float) -> int:
    share = seconds / len(TARGETS)
    failures = 0
    for name, (strategy, target) in TARGETS.items():
        deadline = time.monotonic() + share
        runs = 0
        while time.monotonic() < deadline:
            found: list[Any] = []
            test = settings(max_examples=200, deadline=None, database=None,
                            suppress_health_check=list(HealthCheck))(given(strategy)(_keeping(target, found)))
            try:
                test()
            except BaseException:
                failures += 1
                traceback.print_exc()
                if found:
                    print(f"saved {_save(name, found[0])}", file=sys.stderr)
                break
            runs += 200
        print(f"{name}: {runs} inputs", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else float(os.environ.get("CTL_FUZZ_SECONDS", "600"))
    sys.exit(run(budget))
