"""Output formats, the commands, and exit codes (through cli.main.run and the real executable)."""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cli.main import run
from policies.gate import PolicyOptions, check_plan_json
from policies.report import render
from tests.e2e.helpers import CTL, clean_env
from tests.policies.conftest import plan, rc, write

POLICY = """
    package main
    import rego.v1
    deny contains {"msg": sprintf("%s is forbidden", [rc.address]), "address": rc.address} if {
        some rc in input.resource_changes
        rc.type == "forbidden_thing"
    }
    warn contains "a warning" if true
    deny_hard contains {"msg": "hard", "level": "hard-mandatory"} if input.hard
"""


@pytest.fixture
def setup(tmp_path: Path, policy_dir: Path) -> tuple[Path, Path, Path]:
    write(policy_dir, "main.rego", POLICY)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(plan(rc("forbidden_thing", "x", {}))))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(plan(rc("fine_thing", "y", {}))))
    return policy_dir, bad, good


def outcome(setup: tuple[Path, Path, Path], override: str | None = None):
    policy_dir, bad, _ = setup
    return check_plan_json(json.loads(bad.read_text()), bad.parent,
                           PolicyOptions(policy_dirs=[policy_dir], builtin=False, override=override))


def test_junit_parses(setup: tuple[Path, Path, Path]) -> None:
    root = ET.fromstring(render(outcome(setup), "junit"))
    assert root.tag == "testsuites" and root.get("failures") == "1"
    cases = root.findall(".//testcase")
    assert any(c.find("failure") is not None and "forbidden" in c.find("failure").get("message", "") for c in cases)
    assert len(cases) == 3  # deny finding, warn finding, deny_hard passing


def test_sarif_structure(setup: tuple[Path, Path, Path]) -> None:
    doc = json.loads(render(outcome(setup), "sarif"))
    assert doc["version"] == "2.1.0" and isinstance(doc["runs"], list)
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["name"] == "ctl" and {r["id"] for r in driver["rules"]} == {"main.deny", "main.warn", "main.deny_hard"}
    results = doc["runs"][0]["results"]
    assert {r["level"] for r in results} == {"error", "note"}
    for r in results:
        assert r["ruleId"] and r["message"]["text"] and r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    denied = next(r for r in results if r["ruleId"] == "main.deny")
    assert denied["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "forbidden_thing.x"


def test_json_text_and_github(setup: tuple[Path, Path, Path]) -> None:
    doc = json.loads(render(outcome(setup, "ok"), "json"))
    assert doc["passed"] and doc["override_used"] and doc["results"][0]["status"] in ("overridden", "advisory")
    text = render(outcome(setup), "text")
    assert "FAIL - main.deny (soft-mandatory) - forbidden_thing.x is forbidden" in text and "denied" in text
    gh = render(outcome(setup), "github").splitlines()
    assert gh[0].startswith("::error file=") and "::forbidden_thing.x is forbidden" in gh[0]
    assert any(line.startswith("::notice ") for line in gh)


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "sarif", "github"])
def test_policy_check_exit_codes(setup: tuple[Path, Path, Path], fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    policy_dir, bad, good = setup
    base = ["-C", str(bad.parent), "policy", "check", "--no-builtin-policies", "--policy-dir", str(policy_dir), "--format", fmt]
    assert run([*base, "--plan-json", str(bad)]) == 3
    assert run([*base, "--plan-json", str(good)]) == 0
    assert run([*base, "--plan-json", str(bad), "--policy-override", "accepted"]) == 0
    capsys.readouterr()


def test_hard_mandatory_ignores_override(setup: tuple[Path, Path, Path], tmp_path: Path) -> None:
    policy_dir, _, _ = setup
    hard = tmp_path / "hard.json"
    hard.write_text(json.dumps({"resource_changes": [], "hard": True}))
    assert run(["-C", str(tmp_path), "policy", "check", "--no-builtin-policies", "--policy-dir", str(policy_dir),
                "--plan-json", str(hard), "--policy-override", "please"]) == 3


def test_usage_errors(setup: tuple[Path, Path, Path]) -> None:
    assert run(["policy", "check"]) == 64
    assert run(["-C", str(setup[1].parent), "policy", "check", "--plan-json", str(setup[1]), "--format", "xml"]) == 64


def test_policy_error_exits_1(tmp_path: Path, policy_dir: Path) -> None:
    (tmp_path / "p.json").write_text(json.dumps(plan()))
    assert run(["-C", str(tmp_path), "policy", "check", "--no-builtin-policies", "--policy-dir", str(policy_dir),
                "--plan-json", str(tmp_path / "p.json")]) == 1


def test_policy_test_command(tmp_path: Path, policy_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(policy_dir, "main.rego", POLICY)
    write(policy_dir, "main_test.rego", """
        package main
        import rego.v1
        test_forbidden if {
            count(deny) == 1 with input as {"resource_changes": [{"address": "f.x", "type": "forbidden_thing"}]}
        }
        test_wrong if { count(deny) == 5 with input as {"resource_changes": []} }
    """)
    assert run(["policy", "test", str(policy_dir)]) == 1
    out = capsys.readouterr().out
    assert "FAIL data.main.test_wrong" in out and "1 passed, 1 failed" in out
    assert run(["policy", "test", str(policy_dir), "--run", "forbidden"]) == 0


def test_builtin_pack_tests_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["policy", "test", "--builtin"]) == 0
    assert " 0 failed" in capsys.readouterr().out


def _config(tmp_path: Path) -> Path:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "main.tf").write_text('resource "terraform_data" "x" {\n  input = "hello"\n}\n')
    write(cfg / "policies", "main.rego", """
        package main
        import rego.v1
        deny contains msg if {
            some rc in input.resource_changes
            rc.type == "terraform_data"
            msg := sprintf("%s is not allowed", [rc.address])
        }
    """)
    return cfg


def test_plan_and_apply_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.plan.planfile import load_plan

    cfg = _config(tmp_path)
    planfile = tmp_path / "tfplan"
    assert run(["-C", str(cfg), "plan", "--out", str(planfile)]) == 3
    assert planfile.exists()  # a denied plan is saved with its verdict, for CI to publish and re-check
    capsys.readouterr()
    assert run(["-C", str(cfg), "show", str(planfile)]) == 0
    shown = capsys.readouterr().out
    assert "FAIL - main.deny (soft-mandatory) - terraform_data.x is not allowed" in shown
    assert "Policy check when planned: denied" in shown
    assert run(["-C", str(cfg), "apply", str(planfile)]) == 3  # refused, as the policies still deny it
    assert run(["-C", str(cfg), "policy", "check", str(planfile)]) == 3
    assert run(["-C", str(cfg), "plan", "--out", str(planfile), "--policy-override", "CHG-7"]) == 0
    saved = load_plan(planfile)
    assert saved.policy_override == "CHG-7" and saved.policy_results[0]["status"] == "overridden"
    assert run(["-C", str(cfg), "policy", "check", str(planfile)]) == 0  # the recorded override holds
    # policies changed since the plan: a hard-mandatory rule now refuses the saved plan
    write(cfg / "policies", "hard.rego", 'package main\nimport rego.v1\ndeny_hard contains {"msg": "no", "level": "hard-mandatory"} if true\n')
    assert run(["-C", str(cfg), "apply", str(planfile)]) == 3
    assert run(["-C", str(cfg), "apply", "--auto-approve", "--policy-override", "x"]) == 3
    (cfg / "policies" / "hard.rego").unlink()
    assert run(["-C", str(cfg), "apply", str(planfile)]) == 0
    capsys.readouterr()


def test_real_executable_exit_codes(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    env = clean_env()
    denied = subprocess.run([CTL, "-C", str(cfg), "plan"], capture_output=True, text=True, env=env,
                            stdin=subprocess.DEVNULL, timeout=120)
    assert denied.returncode == 3, denied.stderr
    assert "terraform_data.x is not allowed" in denied.stdout
    plan_json = tmp_path / "p.json"
    plan_json.write_text(json.dumps(plan(rc("aws_s3_bucket", "b", {"bucket": "b"}))))
    sarif = subprocess.run([CTL, "policy", "check", "--plan-json", str(plan_json), "--format", "sarif"],
                           capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=120,
                           cwd=tmp_path)
    # The built-in pack advises by default: a plain bucket (encrypted and private by AWS's defaults)
    # passes with notes; enforcing it gives each rule its own level.
    assert sarif.returncode == 0 and json.loads(sarif.stdout)["version"] == "2.1.0"
    assert {r["level"] for r in json.loads(sarif.stdout)["runs"][0]["results"]} == {"note"}
    enforced = subprocess.run([CTL, "policy", "check", "--plan-json", str(plan_json), "--builtin-policies", "enforce"],
                              capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=120,
                              cwd=tmp_path)
    assert enforced.returncode == 3, enforced.stdout
    ok = subprocess.run([CTL, "policy", "check", "--plan-json", str(plan_json), "--no-builtin-policies",
                         "--policy-dir", str(cfg / "policies")], capture_output=True, text=True, env=env,
                        stdin=subprocess.DEVNULL, timeout=120, cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert os.path.exists(CTL)


def test_builtin_pack_mode_from_flag_environment_and_policy_set(tmp_path: Path) -> None:
    plan_json = tmp_path / "p.json"
    plan_json.write_text(json.dumps(plan(rc("aws_s3_bucket", "b", {"bucket": "b"}))))

    def check(*args: str, env: dict[str, str] | None = None, cwd: Path = tmp_path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([CTL, "policy", "check", "--plan-json", str(plan_json), *args], capture_output=True,
                              text=True, env=clean_env(env), stdin=subprocess.DEVNULL, timeout=120, cwd=cwd)

    advised = check()
    assert advised.returncode == 0
    assert "WARN - ctl.aws.s3_encryption.deny (advisory)" in advised.stdout
    assert "Built-in policies are advisory" in advised.stdout
    assert check(env={"CTL_BUILTIN_POLICIES": "enforce"}).returncode == 3
    assert "FAIL - ctl.aws.s3_encryption.deny (soft-mandatory)" in check("--builtin-policies", "enforce").stdout
    write(tmp_path / "policies", "policy-set.yaml", "builtin: enforce\n")
    assert check().returncode == 3
    assert check("--builtin-policies", "advisory").returncode == 0  # the flag wins over the file
    write(tmp_path / "policies", "policy-set.yaml", "builtin: off\n")
    off = check()
    assert off.returncode == 0 and "s3_encryption" not in off.stdout
    bad = check(env={"CTL_BUILTIN_POLICIES": "strict"})
    assert bad.returncode == 1 and "CTL_BUILTIN_POLICIES='strict'" in bad.stderr and "Traceback" not in bad.stderr


def test_user_policies_read_the_whole_plan_while_the_pack_alone_needs_only_the_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate builds the prior state, planned values and configuration only for user policies;
    one that reads them must see them, in a plan and in a re-plan with a prior state."""
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "main.tf").write_text('variable "v" {\n  default = "a"\n}\n'
                                 'resource "terraform_data" "x" {\n  input = var.v\n}\n')
    assert run(["-C", str(cfg), "apply", "--auto-approve", "--var", "v=b"]) == 0
    write(cfg / "policies", "whole.rego", """
        package main
        import rego.v1
        deny contains msg if {
            some r in input.planned_values.root_module.resources
            some p in input.prior_state.values.root_module.resources
            some c in input.configuration.root_module.resources
            msg := sprintf("%s planned %s, was %s, configured from %s", [
                r.address, r.values.input, p.values.input, concat(",", c.expressions.input.references)])
        }
    """)
    capsys.readouterr()
    assert run(["-C", str(cfg), "plan", "--no-color"]) == 3
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("FAIL - main.deny"))
    assert "terraform_data.x planned a, was b, configured from" in line and "var.v" in line
    (cfg / "policies" / "whole.rego").unlink()
    assert run(["-C", str(cfg), "plan", "--no-color", "--detailed-exitcode"]) == 2  # the pack alone: advice only


def test_a_saved_plan_gives_user_policies_its_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A saved plan keeps its configuration as text until asked; a user policy checking it (in
    ``ctl policy check`` and again in ``ctl apply``) must still see it, not an empty object."""
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "main.tf").write_text('resource "terraform_data" "x" {\n  input = "a"\n}\n')
    write(cfg / "policies", "configured.rego", """
        package main
        import rego.v1
        deny contains "the plan shows no configured resource" if {
            not input.configuration.root_module.resources
        }
    """)
    saved = cfg / "p.bin"
    assert run(["-C", str(cfg), "plan", "--no-color", "--out", str(saved)]) == 0
    capsys.readouterr()
    assert run(["-C", str(cfg), "policy", "check", str(saved), "--no-color"]) == 0
    assert "Policy check passed" in capsys.readouterr().out
    assert run(["-C", str(cfg), "apply", str(saved), "--no-color"]) == 0
    assert "shows no configured resource" not in capsys.readouterr().out
