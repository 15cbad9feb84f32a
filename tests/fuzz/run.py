"""``make fuzz``: every fuzz target with random inputs until a time budget is spent.

    python -m tests.fuzz.run [SECONDS [TARGET...]]     (default 600, or CTL_FUZZ_SECONDS; all targets)

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
from tests.fuzz.built_seeds import provider_zips, responses
from tests.fuzz.expressions import expressions
from tests.fuzz.mutations import damaged, damaged_bytes

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
    "registry_document": (st.sampled_from(targets.REGISTRY_DOCUMENTS).flatmap(
        lambda n: st.tuples(st.just(n), damaged((n,)))), lambda named: targets.registry_document(*named)),
    "provider_zip": (st.builds(provider_zips).flatmap(damaged_bytes), targets.provider_zip),
    "provider_response": (st.sampled_from(targets.RESPONSE_KINDS).flatmap(
        lambda n: st.tuples(st.just(n), damaged_bytes(responses()[n]))), lambda named: targets.provider_response(*named)),
}
NAMED = ("configuration", "registry_document", "provider_response")  # inputs that are (kind, bytes)


def _save(name: str, value: Any) -> Path:
    REGRESSIONS.mkdir(exist_ok=True)
    n = len(list(REGRESSIONS.glob(f"{name}--*"))) + 1
    if name in NAMED:
        kind, data = value
        path = REGRESSIONS / f"{name}--{kind}--{n}"
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


def run(seconds: float, names: list[str] | None = None) -> int:
    chosen = names or list(TARGETS)
    unknown = [n for n in chosen if n not in TARGETS]
    if unknown:
        print(f"no fuzz target {', '.join(unknown)}; the targets are {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    share = seconds / len(chosen)
    failures = 0
    for name in chosen:
        strategy, target = TARGETS[name]
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
    sys.exit(run(budget, sys.argv[2:]))
