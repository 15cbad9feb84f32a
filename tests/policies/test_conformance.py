"""conftest-style policies evaluated by ctl, against results taken from OPA (tests/policies/conformance).

``expected.json`` holds, per policy file, what OPA's own engine returns for ``plan.json`` and what
ctl must do: return the same, or refuse with a clear error where rego-cpp cannot evaluate the
policy correctly (iteration inside a call's arguments). The OPA column is checked again against
OPA's engine itself, built from Go in the test run (tests/opa_oracle.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from policies.gate import PolicyOptions, check_plan_json
from policies.model import PolicyError
from tests import opa_oracle

HERE = Path(__file__).parent / "conformance"
EXPECTED: dict[str, Any] = json.loads((HERE / "expected.json").read_text())
PLAN = json.loads((HERE / "plan.json").read_text())


def _sorted(values: list[Any]) -> list[Any]:
    return sorted(values, key=lambda v: json.dumps(v, sort_keys=True))


def ctl_results(policy: Path, tmp_path: Path) -> dict[str, list[Any]]:
    directory = tmp_path / "policies-under-test"
    directory.mkdir()
    shutil.copy(policy, directory / policy.name)
    outcome = check_plan_json(PLAN, tmp_path, PolicyOptions(policy_dirs=[directory], builtin=False))
    got: dict[str, list[Any]] = {}
    for f in outcome.findings:
        got.setdefault(f.rule.rule, []).append({"msg": f.message, **f.metadata} if f.metadata else f.message)
    return {rule: _sorted(values) for rule, values in got.items()}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_ctl_agrees_with_opa_or_refuses(name: str, tmp_path: Path) -> None:
    case = EXPECTED[name]
    if case["ctl"] == "same as opa":
        assert ctl_results(HERE / name, tmp_path) == case["opa"]
    else:
        with pytest.raises(PolicyError) as err:
            ctl_results(HERE / name, tmp_path)
        assert case["ctl"]["error"] in str(err.value)
        assert err.value.range is not None and err.value.range.filename.endswith(name)


def test_every_policy_file_has_an_expectation() -> None:
    assert sorted(p.name for p in HERE.glob("*.rego")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_expectations_are_what_opa_returns(name: str) -> None:
    got = opa_oracle.evaluate(HERE / name, HERE / "plan.json")
    assert {rule: _sorted(values) for rule, values in got.items()} == EXPECTED[name]["opa"]
