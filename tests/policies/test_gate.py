"""The gate: conftest conventions, levels, overrides, namespaces, simple policies and the traps."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.plan.json_view import PolicyDocument, plan_to_json
from engine.plan.model import Plan, ResourceChange
from engine.state.model import new_state
from policies.gate import PolicyOptions, check_plan, check_plan_json, pack_view
from policies.levels import Level
from policies.model import PolicyError, PolicyOutcome
from tests.policies.conftest import plan, rc, write

BUCKET = rc("aws_s3_bucket", "a", {"bucket": "a", "tags": {}})
CONFTEST_STYLE = """
    package main

    import rego.v1

    deny contains msg if {
        some rc in input.resource_changes
        rc.type == "aws_s3_bucket"
        not rc.change.after.tags.owner
        msg := sprintf("%s has no owner tag", [rc.address])
    }

    warn contains msg if {
        some rc in input.resource_changes
        rc.change.actions[_] == "create"
        msg := sprintf("%s will be created", [rc.address])
    }

    violation contains {"msg": "structured", "details": {"k": 1}} if {
        count(input.resource_changes) > 0
    }
"""


def check(tmp: Path, dirs: list[Path], doc: dict, **kw: object) -> object:
    return check_plan_json(doc, tmp, PolicyOptions(policy_dirs=dirs, builtin=False, **kw))


def test_conftest_style_policy_evaluates_like_conftest(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "main.rego", CONFTEST_STYLE)
    out = check(tmp_path, [policy_dir], plan(BUCKET))
    got = sorted((f.rule.rule_id, f.message, f.level) for f in out.findings)
    assert got == [
        ("main.deny", "aws_s3_bucket.a has no owner tag", Level.SOFT_MANDATORY),
        ("main.violation", "structured", Level.SOFT_MANDATORY),
        ("main.warn", "aws_s3_bucket.a will be created", Level.ADVISORY),
    ]
    assert out.denied
    assert next(f for f in out.findings if f.rule.rule == "violation").metadata == {"details": {"k": 1}}


def test_passing_plan_passes(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "main.rego", CONFTEST_STYLE)
    out = check(tmp_path, [policy_dir], plan())
    assert not out.findings and not out.denied and len(out.rules) == 3


def test_prefixed_rules_and_namespaces(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "a.rego", """
        package terraform.s3
        import rego.v1
        deny_no_owner contains "no owner" if true
    """)
    with pytest.raises(PolicyError, match=r"no policy rule .* was evaluated") as err:
        check(tmp_path, [policy_dir], plan())
    assert "terraform.s3" in err.value.detail
    assert check(tmp_path, [policy_dir], plan(), namespaces=["terraform.s3"]).denied
    assert check(tmp_path, [policy_dir], plan(), all_namespaces=True).findings[0].rule.rule == "deny_no_owner"


def test_empty_policy_dir_is_an_error(tmp_path: Path, policy_dir: Path) -> None:
    with pytest.raises(PolicyError, match="no policies found"):
        check(tmp_path, [policy_dir], plan())


def test_dir_with_only_helpers_is_an_error(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "lib.rego", "package main\nimport rego.v1\nis_bucket(rc) if rc.type == \"aws_s3_bucket\"\n")
    with pytest.raises(PolicyError, match="was evaluated"):
        check(tmp_path, [policy_dir], plan())


def test_old_style_rule_is_rejected(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "old.rego", 'package main\n\ndeny[msg] {\n  msg := "x"\n}\n')
    with pytest.raises(PolicyError, match="old Rego syntax") as err:
        check(tmp_path, [policy_dir], plan())
    assert "Rego v1" in err.value.hint and err.value.range is not None and err.value.range.start.line == 3


def test_unsupported_builtin_is_an_error_not_a_pass(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "net.rego", """
        package main
        import rego.v1
        deny contains "unreachable" if {
            resp := http.send({"method": "GET", "url": "https://example.com"})
            resp.status_code != 200
        }
    """)
    with pytest.raises(PolicyError, match=r"http\.send"):
        check(tmp_path, [policy_dir], plan())


def test_failing_builtin_is_an_error_not_a_pass(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "num.rego", """
        package main
        import rego.v1
        deny contains "too many" if to_number(input.limit) > 5
    """)
    with pytest.raises(PolicyError, match="built-in function returned an error"):
        check(tmp_path, [policy_dir], {"resource_changes": [], "limit": "many"})


def test_compile_error_points_at_the_file(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "bad.rego", "package main\nimport rego.v1\ndeny contains msg if { input.x == ; msg := 1 }\n")
    with pytest.raises(PolicyError, match="compile error") as err:
        check(tmp_path, [policy_dir], plan())
    assert err.value.range is not None and err.value.range.filename.endswith("bad.rego")


LEVELS = """
    # METADATA
    # custom:
    #   level: hard-mandatory
    package main

    import rego.v1

    deny contains "package level" if true

    # METADATA
    # custom:
    #   level: advisory
    deny_rule contains "rule level" if true

    deny_result contains {"msg": "result level", "level": "advisory"} if true
"""


def test_levels_from_metadata_and_results(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "levels.rego", LEVELS)
    out = check(tmp_path, [policy_dir], plan())
    levels = {f.rule.rule: f.level for f in out.findings}
    assert levels == {"deny": Level.HARD_MANDATORY, "deny_rule": Level.ADVISORY, "deny_result": Level.ADVISORY}


def test_policy_set_wins(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "levels.rego", LEVELS)
    write(policy_dir, "policy-set.yaml", "levels:\n  main.deny: advisory\n  main.deny_rule: soft-mandatory\n")
    out = check(tmp_path, [policy_dir], plan())
    levels = {f.rule.rule: f.level for f in out.findings}
    assert levels["deny"] is Level.ADVISORY and levels["deny_rule"] is Level.SOFT_MANDATORY


@pytest.mark.parametrize(("level", "override", "denied"), [
    ("advisory", None, False),
    ("soft-mandatory", None, True),
    ("soft-mandatory", "approved in CHG-1", False),
    ("hard-mandatory", None, True),
    ("hard-mandatory", "approved in CHG-1", True),
])
def test_every_level_and_override_path(tmp_path: Path, policy_dir: Path, level: str, override: str | None,
                                       denied: bool) -> None:
    write(policy_dir, "p.rego", f'package main\nimport rego.v1\ndeny contains {{"msg": "m", "level": "{level}"}} if true\n')
    out = check(tmp_path, [policy_dir], plan(), override=override)
    assert out.denied is denied
    assert out.override_used is (level == "soft-mandatory" and override is not None)
    status = out.results_json()[0]["status"]
    assert status == ("advisory" if level == "advisory" else "failed" if denied else "overridden")


def test_simple_yaml_policy(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "gcs.yaml", """
        name: gcs-uniform
        resource_type: google_storage_bucket
        when: [create, update]
        level: hard-mandatory
        message: "{address} must use uniform bucket-level access"
        schema:
          required: [uniform_bucket_level_access]
          properties:
            uniform_bucket_level_access: {const: true}
    """)
    good = rc("google_storage_bucket", "ok", {"uniform_bucket_level_access": True})
    bad = rc("google_storage_bucket", "bad", {"uniform_bucket_level_access": False})
    gone = rc("google_storage_bucket", "gone", None, ("delete",), {"uniform_bucket_level_access": False})
    out = check(tmp_path, [policy_dir], plan(good, bad, gone))
    assert [f.address for f in out.findings] == ["google_storage_bucket.bad"]
    assert out.findings[0].message.startswith("google_storage_bucket.bad must use uniform")
    assert out.findings[0].level is Level.HARD_MANDATORY and out.denied


def test_simple_policy_errors(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "bad.yaml", "resource_type: x\nwhen: [explode]\n")
    with pytest.raises(PolicyError, match="unknown action"):
        check(tmp_path, [policy_dir], plan())


def test_config_dir_policies_are_read(tmp_path: Path) -> None:
    write(tmp_path / "policies", "main.rego", CONFTEST_STYLE)
    out = check_plan_json(plan(BUCKET), tmp_path, PolicyOptions(builtin=False))
    assert (out.denied and out.sources == ["policies"]) or out.sources[0].endswith("policies")


def test_config_dir_with_only_a_policy_set_is_fine(tmp_path: Path) -> None:
    write(tmp_path / "policies", "policy-set.yaml", "data:\n  ctl:\n    required_tags: [owner]\n")
    out = check_plan_json(plan(rc("aws_instance", "i", {"tags": {}})), tmp_path, PolicyOptions())
    assert [f.rule.rule_id for f in out.findings] == ["ctl.tags.required.deny"]


def test_secrets_reach_policies_but_terraform_plans_work(tmp_path: Path, policy_dir: Path) -> None:
    write(policy_dir, "s.rego", 'package main\nimport rego.v1\ndeny contains "quote" if input.resource_changes[0].change.after.v == "a\\"b\\\\c"\n')
    assert check(tmp_path, [policy_dir], plan(rc("x", "y", {"v": 'a"b\\c'}))).denied


def test_builtin_pack_over_a_terraform_plan(tmp_path: Path) -> None:
    doc = plan(BUCKET, rc("azurerm_storage_container", "c", {"container_access_type": "container"}),
               rc("aws_instance", "db", None, ("delete",), {"tags": {"ctl:protect": "true"}}))
    out = check_plan_json(doc, tmp_path, PolicyOptions())
    ids = sorted(f.rule.rule_id for f in out.findings)
    assert ids == ["ctl.aws.s3_encryption.deny", "ctl.aws.s3_public_access_block.deny",
                   "ctl.azure.container_private.deny", "ctl.lifecycle.protect.deny"]
    assert out.denied
    assert not check_plan_json(doc, tmp_path, PolicyOptions(override="migration")).denied


def test_pack_view_agrees_with_the_full_plan(tmp_path: Path) -> None:
    """The pack gives the same findings on the slim indexed view as on the plain plan."""
    from policies.evaluation import CompiledPolicy
    from policies.loader import BUILTIN_DIR, read_dir

    src = read_dir(BUILTIN_DIR, name="builtin", builtin=True)
    rules = [(m.info.package, "deny") for m in src.rego if "deny" in m.info.rule_names()]
    compiled = CompiledPolicy(src.rego, {"ctl": {"required_tags": ["owner"]}}, rules)
    doc = plan(BUCKET, rc("aws_s3_bucket_public_access_block", "a", {"bucket": "a", "block_public_acls": False}),
               rc("aws_iam_policy", "p", {"policy": '{"Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}}'}),
               rc("google_storage_bucket", "g", {"labels": {}}),
               rc("aws_s3_bucket", "st", {"bucket": "my-tfstate", "tags": {"owner": "x"}}))
    full = compiled.evaluate(doc)
    slim = compiled.evaluate(pack_view(doc))
    assert full == slim
    assert sum(len(v or []) for v in full.values()) >= 6


def _change(rtype: str, name: str, actions: tuple[str, ...], before: dict | None, after: dict | None,
            mode: str = "managed") -> ResourceChange:
    prefix = "data." if mode == "data" else ""
    return ResourceChange(address=f"{prefix}{rtype}.{name}", module_address="", mode=mode, type=rtype, name=name,
                          index=None, provider='provider["registry.terraform.io/hashicorp/aws"]', actions=actions,
                          before=before, after=after)


@pytest.mark.parametrize("required_tags", [False, True])
def test_a_plan_is_judged_as_its_whole_json_document_is(tmp_path: Path, required_tags: bool) -> None:
    """The gate builds JSON only for the changes the built-in pack may read; its findings over a
    plan are those over the plan's whole document (``show --json``), with and without required tags."""
    if required_tags:
        write(tmp_path / "policies", "policy-set.yaml", "data:\n  ctl:\n    required_tags: [owner]\n")
    changes = [
        _change("aws_s3_bucket", "new", ("create",), None, {"bucket": "new", "tags": {}}),
        _change("aws_s3_bucket", "kept", ("no-op",), {"bucket": "kept", "tags": {}}, {"bucket": "kept", "tags": {}}),
        _change("aws_s3_bucket_public_access_block", "kept", ("no-op",), {"bucket": "new"}, {"bucket": "new"}),
        _change("aws_instance", "vm", ("create",), None, {"tags": {"team": "a"}}),
        _change("aws_instance", "old", ("no-op",), {"tags": {}}, {"tags": {}}),
        _change("aws_instance", "db", ("delete",), {"tags": {"ctl:protect": "true"}}, None),
        _change("aws_iam_policy", "star", ("update",), {"policy": "{}"},
                {"policy": '{"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}'}),
        _change("aws_iam_policy", "same", ("no-op",), {"policy": "{}"}, {"policy": "{}"}),
        _change("aws_s3_bucket", "read", ("read",), None, {"bucket": "read"}, mode="data"),
    ]
    planned = Plan(changes=changes, drift=[], outputs={}, prior_state=new_state(), lineage="l", serial=1,
                   config_hash="h")

    def findings(out: PolicyOutcome) -> list[tuple[str, str | None]]:
        return sorted((f.rule.rule_id, f.address) for f in out.findings)

    from_plan = findings(check_plan(PolicyDocument(planned), tmp_path, PolicyOptions()))
    assert from_plan == findings(check_plan_json(plan_to_json(planned, show_sensitive=True), tmp_path, PolicyOptions()))
    assert ("ctl.aws.iam_no_wildcard.deny", "aws_iam_policy.star") in from_plan
    assert ("ctl.lifecycle.protect.deny", "aws_instance.db") in from_plan
    assert (("ctl.tags.required.deny", "aws_instance.vm") in from_plan) == required_tags
