"""A policy that crashes the Rego engine is an error naming the file; ctl itself keeps running."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from policies.gate import PolicyOptions, check_plan_json
from policies.model import PolicyError
from tests.e2e.helpers import CTL, clean_env
from tests.policies.conftest import plan, rc, write

BUCKET = rc("aws_s3_bucket", "a", {"bucket": "a"})
# rego-cpp 1.5 aborts on `with input as …` in a rule whose dependencies call a function.
CRASHES_THE_ENGINE = """
    package crash

    import rego.v1

    is_aws(t) if startswith(t, "aws_")

    aws contains t if {
        some rc in input.resource_changes
        is_aws(rc.type)
        t := rc.type
    }

    deny contains msg if {
        count(aws) > 0 with input as {"resource_changes": [{"type": "aws_x"}]}
        msg := "replaced input"
    }
"""
FINE = """
    package main

    import rego.v1

    deny contains msg if {
        some rc in input.resource_changes
        rc.type == "aws_s3_bucket"
        msg := "buckets need review"
    }
"""
ITERATES_IN_CALL = """
    package main

    import rego.v1

    deny contains "no aws" if startswith(input.resource_changes[_].type, "aws_")
"""  # a one-line rule: not rewritten (see policies/rego_hoist.py), so refused before the engine sees it


def test_a_crash_names_the_file_and_the_check_stops(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "fine.rego", FINE)
    write(policy_dir, "replaced_input.rego", CRASHES_THE_ENGINE)
    with pytest.raises(PolicyError) as err:
        check_plan_json(plan(BUCKET), tmp_path, PolicyOptions(policy_dirs=[policy_dir], builtin=False,
                                                              all_namespaces=True))
    message = str(err.value)
    assert "the Rego engine crashed while evaluating" in message
    assert "replaced_input.rego" in message and "fine.rego" not in message
    assert "SIGABRT" in err.value.detail or "SIGSEGV" in err.value.detail


def test_print_output_of_user_policies_reaches_stderr(tmp_path: Path, policy_dir: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    write(policy_dir, "p.rego", 'package main\nimport rego.v1\ndeny contains "x" if {\n  print("looking")\n}\n')
    out = check_plan_json(plan(BUCKET), tmp_path, PolicyOptions(policy_dirs=[policy_dir], builtin=False))
    assert [f.message for f in out.findings] == ["x"]
    assert "looking" in capsys.readouterr().err


@pytest.mark.parametrize("policy", [ITERATES_IN_CALL, CRASHES_THE_ENGINE], ids=["iteration", "with-input"])
def test_ctl_plan_reports_the_policy_instead_of_dying(tmp_path: Path, policy: str) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "main.tf").write_text('resource "terraform_data" "x" {\n  input = "hello"\n}\n')
    write(cfg / "policies", "bad.rego", policy.replace("package crash", "package main"))
    done = subprocess.run([CTL, "-C", str(cfg), "plan"], capture_output=True, text=True, env=clean_env(),
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "bad.rego" in done.stderr
    assert "Error" in done.stderr or "error" in done.stderr


def test_a_crash_while_running_policy_tests_is_an_error(tmp_path: Path) -> None:
    from policies import isolation
    from policies.rego_module import RegoModule

    path = write(tmp_path, "replaced_input.rego", CRASHES_THE_ENGINE)
    crash = RegoModule.read(str(path), "replaced_input.rego", path.read_text())
    worker = isolation.start()
    try:
        with pytest.raises(PolicyError) as err:
            worker.evaluate_each([crash], [("crash", "deny")], {"resource_changes": []})
    finally:
        worker.close()
    assert "the Rego engine crashed while evaluating replaced_input.rego" in str(err.value)
