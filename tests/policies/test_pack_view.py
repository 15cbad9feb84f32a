"""The built-in pack reads ctl's indexed view of a plan exactly as it reads the plain plan.

ctl evaluates the pack on ``pack_view(plan)`` (resources slimmed, per-type and per-bucket indexes
joined in Python, policy documents parsed) and queries each module's ``findings`` array; a plain
plan (``terraform show -json``, ``ctl policy test``) is scanned by the same rules and their
``deny`` sets are read. These tests hold the two paths to the same findings on plans that exercise
every rule and the corners of each index.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from policies.evaluation import CompiledPolicy
from policies.gate import PolicyOptions, check_plan_json
from policies.loader import BUILTIN_DIR, read_dir
from policies.model import PolicyError
from policies.pack_view import may_keep, pack_view
from tests.policies.conftest import plan, rc, write

STAR = json.dumps({"Statement": [{"Effect": "Allow", "Action": "*", "Resource": ["*"]}]})
STAR_TWICE = json.dumps({"Statement": [{"Effect": "Allow", "Action": ["*:*"], "Resource": "*"},
                                       {"Effect": "Allow", "Action": "*", "Resource": "*"}]})
NARROW = json.dumps({"Statement": {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}})
DENY_STAR = json.dumps({"Statement": [{"Effect": "Deny", "Action": "*", "Resource": "*"}]})
ESCAPED_STAR = '{"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*", "Sid": "a\\"b"}]}'
PUBLIC = json.dumps({"Statement": {"Effect": "Allow", "Principal": "*", "Action": "sqs:SendMessage"}})
PUBLIC_AWS = json.dumps({"Statement": [{"Effect": "Allow", "Principal": {"AWS": ["x", "*"]},
                                        "Action": "sns:Publish"}]})
CONDITIONAL = json.dumps({"Statement": {"Effect": "Allow", "Principal": {"AWS": "*"},
                                        "Action": "sns:Publish", "Condition": {"Bool": {"x": "true"}}}})


def _module(resource: dict[str, Any], module: str) -> dict[str, Any]:
    resource = {**resource, "module_address": module, "address": f"{module}.{resource['address']}"}
    return resource


def corner_cases() -> list[dict[str, Any]]:
    """One resource or small group per rule path and per corner of the indexes."""
    b = "aws_s3_bucket"
    full_block = {"block_public_acls": True, "block_public_policy": True, "ignore_public_acls": True,
                  "restrict_public_buckets": True}
    return [
        # buckets matched by bucket name, by resource name, or not at all
        rc(b, "named", {"bucket": "named-bucket", "tags": {"owner": "a"}}),
        rc(f"{b}_public_access_block", "other", {"bucket": "named-bucket", **full_block}),
        rc(f"{b}_server_side_encryption_configuration", "other", {"bucket": "named-bucket"}),
        rc(b, "logs", {"tags": {}}),  # bucket name known only after apply
        rc(f"{b}_public_access_block", "logs", {**full_block, "block_public_policy": False}),
        rc(f"{b}_versioning", "logs", {"versioning_configuration": [{"status": "Enabled"}]}),
        rc(b, "bare", {"bucket": "bare"}),
        # a companion that is being destroyed, or that is unchanged, or read as data
        rc(b, "gone", {"bucket": "gone-bucket"}),
        rc(f"{b}_public_access_block", "gone", None, ("delete",), {"bucket": "gone-bucket"}),
        rc(b, "kept", {"bucket": "kept-bucket"}, ("update",), {"bucket": "kept-bucket"}),
        rc(f"{b}_server_side_encryption_configuration", "kept", {"bucket": "kept-bucket"}, ("no-op",),
           {"bucket": "kept-bucket"}),
        {**rc(f"{b}_public_access_block", "kept", {"bucket": "kept-bucket", **full_block}), "mode": "data"},
        # a companion in a module, matched by resource name across modules
        _module(rc(f"{b}_server_side_encryption_configuration", "logs", {}), "module.m"),
        _module(rc(b, "inner", {"bucket": "inner"}), "module.m"),
        # state buckets: by name, by tag, by tags_all, with versioning inline or as a resource
        rc(b, "state1", {"bucket": "Org-TFState-1"}),
        rc(b, "state2", {"bucket": "x2", "tags": {"ctl:state": "true"}}),
        rc(b, "state3", {"bucket": "x3", "tags_all": {"purpose": "terraform-state"}, "tags": None}),
        rc(b, "state4", {"bucket": "ctl-state-4", "versioning": [{"enabled": True}]}),
        rc(b, "state5", {"bucket": "my-tf-state", "versioning": [{"enabled": False}]}),
        rc(b, "state6", {"bucket": "terraform-state-6"}),
        rc(f"{b}_versioning", "state6", {"bucket": "terraform-state-6",
                                          "versioning_configuration": [{"status": "Suspended"}]}),
        rc(b, "state7", {"bucket": "tfstate-7", "server_side_encryption_configuration": [{"rule": []}]}),
        rc(f"{b}_versioning", "v7", {"bucket": "tfstate-7", "versioning_configuration": [{"status": "Enabled"}]}),
        rc(b, "replaced", {"bucket": "tfstate-r"}, ("delete", "create"), {"bucket": "tfstate-r"}),
        rc(b, "unchanged", {"bucket": "tfstate-u"}, ("no-op",), {"bucket": "tfstate-u"}),
        rc(b, "read", {"bucket": "tfstate-d"}, ("read",)),
        {**rc(b, "data", {"bucket": "tfstate-data"}), "mode": "data"},
        {k: v for k, v in rc(b, "nameless", {"bucket": "nameless"}).items() if k != "name"},
        # IAM: every document shape, parsed by ctl or left to json.unmarshal
        rc("aws_iam_policy", "star", {"policy": STAR, "tags": {"owner": "x", "env": ""}}),
        rc("aws_iam_role_policy", "twice", {"policy": STAR_TWICE}),
        rc("aws_iam_user_policy", "narrow", {"policy": NARROW}),
        rc("aws_iam_group_policy", "deny", {"policy": DENY_STAR}),
        rc("aws_iam_policy", "escaped", {"policy": ESCAPED_STAR}),
        rc("aws_iam_policy", "not-text", {"policy": {"Statement": [{"Effect": "Allow", "Action": "*",
                                                                     "Resource": "*"}]}}),
        rc("aws_iam_policy", "unknown", {}),
        rc("aws_iam_role", "r", {"inline_policy": [{"name": "a", "policy": NARROW}, {"name": "b", "policy": STAR}],
                                 "tags": {"owner": "o", "env": "e"}}),
        rc("aws_iam_role", "r2", {"inline_policy": {"x": {"policy": STAR}}}),
        rc("aws_iam_policy", "deleted", None, ("delete",), {"policy": STAR}),
        # queues and topics
        rc("aws_sqs_queue", "q", {"policy": PUBLIC}),
        rc("aws_sqs_queue_policy", "qp", {"policy": NARROW}),
        rc("aws_sns_topic", "t", {"policy": CONDITIONAL}),
        rc("aws_sns_topic_policy", "tp", {"policy": PUBLIC_AWS}),
        rc("aws_sqs_queue", "plain", {"name": "plain"}),
        # Azure and Google
        rc("azurerm_storage_container", "blob", {"container_access_type": "blob"}),
        rc("azurerm_storage_container", "private", {"container_access_type": "private"}),
        rc("azurerm_storage_container", "default", {}),
        rc("azurerm_storage_container", "null", {"container_access_type": None}),
        rc("google_storage_bucket", "off", {"uniform_bucket_level_access": False, "labels": {"owner": "g"}}),
        rc("google_storage_bucket", "on", {"uniform_bucket_level_access": True, "labels": None}),
        rc("google_storage_bucket", "missing", {}),
        # destroying protected resources
        rc("aws_db_instance", "db", None, ("delete",), {"tags": {"ctl:protect": "true"}}),
        rc("aws_db_instance", "db2", {"tags": {}}, ("create", "delete"), {"tags_all": {"ctl:protect": "true"}}),
        rc("google_sql_database_instance", "g", None, ("delete",), {"labels": {"ctl-protect": "true"}}),
        rc("aws_instance", "free", None, ("delete",), {"tags": {"ctl:protect": "false"}}),
        # required tags and untagged or odd resources
        rc("aws_instance", "vm", {"tags": {"owner": "me", "env": None}}),
        rc("aws_instance", "vm2", {"tags_all": {"owner": "me", "env": "prod"}, "tags": {}}),
        rc("aws_instance", "vm3", {"ami": "x"}),
        rc("aws_instance", "updated", {"tags": {}}, ("update",), {"tags": {}}),
        {"address": "weird.actions", "type": "aws_instance", "name": "weird",
         "change": {"actions": {"a": "create"}, "after": {"tags": {}}}},
        {"address": "no.change", "type": "aws_instance", "name": "nochange"},
    ]


def random_resources(seed: int, count: int) -> list[dict[str, Any]]:
    """A reproducible mix of the resource kinds above, with buckets and companions crossing."""
    rnd = random.Random(seed)
    out: list[dict[str, Any]] = []
    tag_sets = [{}, {"owner": "o"}, {"owner": "o", "env": "e"}, {"ctl:state": "true"}, None]
    for i in range(count):
        kind = rnd.randrange(8)
        name = f"r{rnd.randrange(count // 3 + 1)}"
        bucket = rnd.choice([f"bucket-{name}", f"tfstate-{name}", None])
        actions = rnd.choice([("create",), ("create",), ("update",), ("no-op",), ("delete",),
                              ("delete", "create")])
        tags = rnd.choice(tag_sets)
        after: dict[str, Any] = {"bucket": bucket} if bucket is not None else {}
        if tags is not None:
            after["tags"] = tags
        if kind == 0:
            rtype = "aws_s3_bucket"
        elif kind == 1:
            rtype = "aws_s3_bucket_public_access_block"
            after.update({s: rnd.random() < 0.8 for s in ("block_public_acls", "block_public_policy",
                                                           "ignore_public_acls", "restrict_public_buckets")})
        elif kind == 2:
            rtype = "aws_s3_bucket_server_side_encryption_configuration"
        elif kind == 3:
            rtype = "aws_s3_bucket_versioning"
            after["versioning_configuration"] = [{"status": rnd.choice(["Enabled", "Suspended"])}]
        elif kind == 4:
            rtype = rnd.choice(["aws_iam_policy", "aws_sqs_queue", "aws_sns_topic_policy"])
            after = {"policy": rnd.choice([STAR, NARROW, PUBLIC, PUBLIC_AWS, CONDITIONAL, ESCAPED_STAR]),
                     "tags": tags}
        elif kind == 5:
            rtype = "azurerm_storage_container"
            after = {"container_access_type": rnd.choice(["private", "blob", "container"])}
        elif kind == 6:
            rtype = "google_storage_bucket"
            after = {"uniform_bucket_level_access": rnd.random() < 0.5, "labels": tags}
        else:
            rtype = "aws_instance"
            after = {"tags": tags}
        before = {"tags": rnd.choice([{"ctl:protect": "true"}, {}])} if "delete" in actions else None
        out.append(rc(rtype, f"{name}_{i}" if rnd.random() < 0.5 else name, None if actions == ("delete",) else after,
                      actions, before))
    return out


def _plain_findings(doc: dict[str, Any], required_tags: list[str]) -> list[tuple[str, str, str | None]]:
    """The pack's deny sets on the plain plan: no index, every rule scans."""
    src = read_dir(BUILTIN_DIR, name="builtin", builtin=True)
    rules = [(m.info.package, "deny") for m in src.rego if "deny" in m.info.rule_names()]
    data = {"ctl": {"required_tags": required_tags}} if required_tags else None
    values = CompiledPolicy(src.rego, data, rules).evaluate(doc)
    assert "ctl_indexed" not in doc
    return sorted((f"{pkg}.{rule}", item["msg"], item.get("address"))
                  for (pkg, rule), items in values.items() for item in items or [])


def _gate_findings(doc: dict[str, Any], root: Path, required_tags: list[str]) -> list[tuple[str, str, str | None]]:
    """What ctl reports: the pack on the indexed view, through the gate."""
    if required_tags:
        write(root, "policies/policy-set.yaml", f"data: {{ctl: {{required_tags: {json.dumps(required_tags)}}}}}\n")
    out = check_plan_json(doc, root, PolicyOptions())
    return sorted((f.rule.rule_id, f.message, f.address) for f in out.findings)


@pytest.mark.parametrize("required_tags", [[], ["owner", "env"]])
def test_indexed_view_gives_the_same_findings_as_the_plain_plan(tmp_path: Path, required_tags: list[str]) -> None:
    doc = plan(*corner_cases(), *random_resources(seed=6, count=240))
    plain = _plain_findings(doc, required_tags)
    assert _gate_findings(doc, tmp_path, required_tags) == plain
    rules = {rule for rule, _, _ in plain}
    expected = {"ctl.aws.s3_public_access_block.deny", "ctl.aws.s3_encryption.deny",
                "ctl.aws.s3_state_versioning.deny", "ctl.aws.iam_no_wildcard.deny",
                "ctl.aws.queue_topic_not_public.deny", "ctl.azure.container_private.deny",
                "ctl.gcp.uniform_bucket_access.deny", "ctl.lifecycle.protect.deny"}
    assert expected | ({"ctl.tags.required.deny"} if required_tags else set()) == rules
    assert len(plain) > 100


def test_corner_cases_give_the_expected_findings(tmp_path: Path) -> None:
    """The corner cases themselves: each index decides what it should."""
    found = _gate_findings(plan(*corner_cases()), tmp_path, [])
    by_address: dict[str | None, set[str]] = {}
    for rule, _, address in found:
        by_address.setdefault(address, set()).add(rule.split(".")[-2])
    assert "aws_s3_bucket.named" not in by_address  # block and encryption matched by bucket name
    assert "aws_s3_bucket.logs" not in by_address  # module.m's encryption resource matches by name
    assert by_address["aws_s3_bucket_public_access_block.logs"] == {"s3_public_access_block"}
    assert by_address["aws_s3_bucket.gone"] == {"s3_public_access_block", "s3_encryption"}
    assert by_address["aws_s3_bucket.kept"] == {"s3_public_access_block"}  # a data source is no block
    assert "s3_state_versioning" in by_address["aws_s3_bucket.state6"]  # suspended
    assert "s3_state_versioning" not in by_address["aws_s3_bucket.state7"]
    assert "s3_state_versioning" not in by_address.get("aws_s3_bucket.unchanged", set())
    assert {"aws_iam_policy.star", "aws_iam_role_policy.twice", "aws_iam_policy.escaped", "aws_iam_role.r",
            "aws_iam_role.r2"} == {a for a, rules in by_address.items() if "iam_no_wildcard" in rules}
    assert [m for r, m, a in found if a == "aws_iam_role_policy.twice"] == [
        'aws_iam_role_policy.twice: the policy allows every action ("*") on every resource ("*")']
    assert {"aws_sqs_queue.q", "aws_sns_topic_policy.tp"} == {
        a for a, rules in by_address.items() if "queue_topic_not_public" in rules}
    assert {"aws_db_instance.db", "aws_db_instance.db2", "google_sql_database_instance.g"} == {
        a for a, rules in by_address.items() if "protect" in rules}


def test_view_is_slim_and_indexed() -> None:
    view = pack_view(plan(*corner_cases()), with_tags=False)
    assert view["ctl_indexed"] is True
    by_address = {r["address"]: r for r in view["resource_changes"]}
    assert "aws_instance.vm3" not in by_address  # nothing in the pack reads it
    named = by_address["aws_s3_bucket.named"]
    positions = named["ctl_companions"]
    assert [view["resource_changes"][j]["address"] for j in positions["aws_s3_bucket_public_access_block"]] == [
        "aws_s3_bucket_public_access_block.other"]
    assert by_address["aws_s3_bucket.gone"]["ctl_companions"] == {}
    assert by_address["aws_iam_policy.star"]["change"]["after"]["policy"] == {"ctl_parsed": json.loads(STAR)}
    assert by_address["aws_iam_policy.escaped"]["change"]["after"]["policy"] == ESCAPED_STAR  # left to Rego
    assert by_address["aws_iam_policy.not-text"]["change"]["after"]["policy"] is None
    changing = view["ctl_index"]["changing"]
    assert [view["resource_changes"][i]["address"] for i in changing["google_storage_bucket"]] == [
        "google_storage_bucket.off", "google_storage_bucket.on", "google_storage_bucket.missing"]


def _well_formed(r: Any) -> bool:
    """A change as the plan's own have it (the corner cases include malformed JSON documents)."""
    change = r.get("change") if isinstance(r, dict) else None
    return (isinstance(change, dict) and isinstance(change.get("actions"), list)
            and isinstance(r.get("mode"), str) and isinstance(r.get("type"), str))


@pytest.mark.parametrize("with_tags", [False, True])
def test_the_changes_left_out_before_the_view_are_ones_it_leaves_out(with_tags: bool) -> None:
    """The gate builds JSON only for the changes ``may_keep`` accepts (a re-plan's no-ops are most
    of a large plan); the view of what remains is the view of the whole plan, indexes and all."""
    doc = plan(*corner_cases(), *random_resources(seed=9, count=400))
    kept = [r for r in doc["resource_changes"] if not _well_formed(r)
            or may_keep(r["mode"], r["type"], tuple(r["change"]["actions"]), with_tags=with_tags)]
    assert len(kept) < len(doc["resource_changes"])  # some were left out: the check below means something
    assert pack_view(plan(*kept), with_tags=with_tags) == pack_view(doc, with_tags=with_tags)


@pytest.mark.parametrize("policy", ["{nope", '{"Statement": {"Effect": "Allow", "Action": "\\u002a"}}', "[1]"])
def test_policy_text_the_engine_rejects_is_an_error_both_ways(tmp_path: Path, policy: str) -> None:
    """Text ctl does not parse is left to json.unmarshal, which fails the rule as it did before: an
    error of an enforced check, a warning naming the rule and the resource of an advisory one."""
    doc = plan(rc("aws_iam_policy", "p", {"policy": policy}))
    with pytest.raises(PolicyError):
        _plain_findings(doc, [])
    with pytest.raises(PolicyError):
        check_plan_json(doc, tmp_path, PolicyOptions(builtin_mode="enforce"))
    advised = check_plan_json(doc, tmp_path, PolicyOptions())
    assert [(f.rule.rule_id, f.address, f.level.value) for f in advised.findings] == [
        ("ctl.aws.iam_no_wildcard.deny", "aws_iam_policy.p", "advisory")]
    assert not advised.denied


def test_many_findings_stay_fast(tmp_path: Path) -> None:
    """Thousands of findings: the pack's findings arrays avoid rego-cpp's quadratic sets."""
    import time

    doc = plan(*[rc("aws_s3_bucket", f"b{i}", {"bucket": f"tfstate-{i}"}) for i in range(1500)])
    started = time.perf_counter()
    out = check_plan_json(doc, tmp_path, PolicyOptions())
    assert len(out.findings) == 4500
    assert time.perf_counter() - started < 20  # a set of 1,500 objects alone took rego-cpp ~6 s
