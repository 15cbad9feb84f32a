"""OPA's own engine as the oracle for ctl's Rego evaluation, built from Go under tests/opa/.

``opaeval POLICY.rego INPUT.json`` (tests/opa/main.go, on OPA's Go library) prints the values of the
policy's ``deny``, ``warn`` and ``violation`` rules. It is built when a Go source is newer than the
binary, like the test providers (tests/plugin_providers.py): without Go the tests that need it are
skipped, except under CI, where that is a failure. ``make providers`` builds it ahead of pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.plugin_providers import ProviderBuildError, _build_lock, _running_in_ci, _unavailable, find_go

SOURCE = Path(__file__).resolve().parent / "opa"
BINARY = SOURCE / ".build" / "opaeval"


def _stale() -> bool:
    if not BINARY.exists():
        return True
    built = BINARY.stat().st_mtime
    return any(p.stat().st_mtime >= built for p in SOURCE.iterdir() if p.suffix == ".go" or p.name.startswith("go."))


def opaeval() -> Path:
    """The oracle's executable, built first when its sources changed."""
    go = find_go()
    if go is None:
        _unavailable("Go is not installed, so OPA (tests/opa) cannot be built")
    assert go is not None
    with _build_lock():
        if _stale():
            BINARY.parent.mkdir(parents=True, exist_ok=True)
            partial = BINARY.with_name("opaeval.partial")
            result = subprocess.run([go, "build", "-trimpath", "-o", str(partial), "."], cwd=SOURCE,
                                    capture_output=True, text=True)
            if result.returncode != 0:
                raise ProviderBuildError(f"go build (tests/opa) failed:\n{result.stdout}{result.stderr}")
            partial.replace(BINARY)
    return BINARY


def evaluate(policy: Path, document: Path) -> dict[str, Any]:
    """What OPA returns for the policy's deny/warn/violation rules, given ``document`` as input."""
    done = subprocess.run([str(opaeval()), str(policy), str(document)], capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0:
        raise AssertionError(f"opaeval {policy.name} failed: {done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> int:
    """`make providers`: build the oracle; without Go only a notice (unless under CI)."""
    if find_go() is None:
        print("Go is not installed: the OPA conformance checks will be skipped.", file=sys.stderr)
        return 1 if _running_in_ci() else 0
    try:
        print(opaeval())
    except ProviderBuildError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
