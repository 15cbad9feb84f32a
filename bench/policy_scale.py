"""Benchmark: the built-in policy pack over a 10,000-resource plan.

Writes a plan in Terraform's JSON shape (``resource_changes``, ``planned_values``, ``prior_state``,
``configuration``) with a realistic mix of S3 buckets and their companion resources, IAM policies,
queues, topics, Google and Azure buckets and instances, then times what ``ctl plan`` pays for the
policy gate: loading the pack, compiling it once, and evaluating it once for the whole plan.

Variants time the cases where the pack reports a lot: ``failing`` (buckets without their
companions, one in ten named like a state bucket: 2,100 findings at 10,000 resources), ``destroy``
(every resource destroyed, one in five protected) and ``--required-tags`` (the tags owner and team
required, which most resources miss: 6,000 findings).

Usage: python bench/policy_scale.py [--resources 10000] [--budget 2.0] [--keep FILE]
                                    [--variant plan|failing|destroy] [--required-tags]
Exits 1 when the check takes longer than the budget (seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _rc(kind: str, name: str, after: dict[str, Any], actions: tuple[str, ...] = ("create",),
        before: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "address": f"{kind}.{name}", "mode": "managed", "type": kind, "name": name,
        "provider_name": f"registry.terraform.io/hashicorp/{kind.split('_')[0]}",
        "change": {"actions": list(actions), "before": before, "after": after,
                   "after_unknown": {"arn": True, "id": True}, "before_sensitive": False,
                   "after_sensitive": {"tags": {}}},
    }


def _group(i: int) -> list[dict[str, Any]]:
    """Ten resources: a bucket with its three companions, IAM, queue, topic, GCS, Azure, instance."""
    tags = {"owner": f"team-{i % 7}", "env": "prod" if i % 2 else "dev", "cost-center": str(1000 + i % 13)}
    bucket = f"bucket-{i}" if i % 10 else f"org-tfstate-{i}"
    policy = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "Read", "Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
         "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]}]})
    return [
        _rc("aws_s3_bucket", f"b{i}", {"bucket": bucket, "force_destroy": False, "tags": tags,
                                       "tags_all": tags, "object_lock_enabled": False}),
        _rc("aws_s3_bucket_public_access_block", f"b{i}", {
            "bucket": bucket, "block_public_acls": True, "block_public_policy": True,
            "ignore_public_acls": True, "restrict_public_buckets": True}),
        _rc("aws_s3_bucket_server_side_encryption_configuration", f"b{i}", {
            "bucket": bucket, "expected_bucket_owner": None, "rule": [{
                "apply_server_side_encryption_by_default": [{"sse_algorithm": "aws:kms",
                                                             "kms_master_key_id": None}],
                "bucket_key_enabled": True}]}),
        _rc("aws_s3_bucket_versioning", f"b{i}", {
            "bucket": bucket, "versioning_configuration": [{"status": "Enabled", "mfa_delete": None}]}),
        _rc("aws_iam_policy", f"p{i}", {"name": f"read-{i}", "path": "/", "description": "read",
                                        "policy": policy, "tags": tags, "tags_all": tags}),
        _rc("aws_sqs_queue", f"q{i}", {"name": f"queue-{i}", "visibility_timeout_seconds": 30,
                                       "message_retention_seconds": 345600, "fifo_queue": False,
                                       "sqs_managed_sse_enabled": True, "tags": tags, "tags_all": tags}),
        _rc("aws_sns_topic", f"t{i}", {"name": f"topic-{i}", "fifo_topic": False, "tags": tags,
                                       "tags_all": tags}),
        _rc("google_storage_bucket", f"g{i}", {"name": f"gcs-{i}", "location": "EU",
                                               "uniform_bucket_level_access": True,
                                               "force_destroy": False, "labels": {"owner": "data"}}),
        _rc("azurerm_storage_container", f"c{i}", {"name": f"container-{i}",
                                                   "storage_account_name": "acct",
                                                   "container_access_type": "private", "metadata": {}}),
        _rc("aws_instance", f"vm{i}", {"ami": "ami-0123456789", "instance_type": "t3.micro",
                                       "monitoring": False, "ebs_optimized": True, "tags": tags,
                                       "tags_all": tags, "root_block_device": [{"volume_size": 20,
                                                                                "volume_type": "gp3"}]}),
    ]


def make_plan(resources: int) -> dict[str, Any]:
    changes: list[dict[str, Any]] = []
    i = 0
    while len(changes) < resources:
        changes.extend(_group(i))
        i += 1
    changes = changes[:resources]
    planned = [{"address": c["address"], "mode": "managed", "type": c["type"], "name": c["name"],
                "provider_name": c["provider_name"], "schema_version": 0,
                "values": c["change"]["after"], "sensitive_values": {}} for c in changes]
    config = [{"address": c["address"], "mode": "managed", "type": c["type"], "name": c["name"],
               "provider_config_key": c["type"].split("_")[0],
               "expressions": ({"bucket": {"references": [f"aws_s3_bucket.{c['name']}.id",
                                                          f"aws_s3_bucket.{c['name']}"]}}
                               if c["type"].startswith("aws_s3_bucket_") else {}),
               "schema_version": 0} for c in changes]
    return {"format_version": "1.2", "terraform_version": "1.9.0",
            "planned_values": {"root_module": {"resources": planned}},
            "resource_changes": changes, "prior_state": {"format_version": "1.0"},
            "configuration": {"root_module": {"resources": config}}}


def make_variant(doc: dict[str, Any], variant: str) -> dict[str, Any]:
    """``doc`` changed in place into one of the variants (see the module's docstring)."""
    changes = doc["resource_changes"]
    if variant == "failing":
        doc["resource_changes"] = [c for c in changes if not c["type"].startswith("aws_s3_bucket_")]
    elif variant == "destroy":
        for i, c in enumerate(changes):
            change = c["change"]
            before = dict(change["after"])
            if i % 2 and isinstance(before.get("tags"), dict):
                before["tags"] = {**before["tags"], "ctl:protect": "true"}
            change.update(actions=["delete"], before=before, after=None, after_unknown={})
    return doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--resources", type=int, default=10_000)
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--keep", type=Path, help="also write the plan JSON here")
    ap.add_argument("--variant", choices=["plan", "failing", "destroy"], default="plan")
    ap.add_argument("--required-tags", action="store_true",
                    help="require the tags owner and team (policies/policy-set.yaml)")
    args = ap.parse_args(argv)

    from policies.gate import PolicyOptions, check_plan_json

    doc = make_variant(make_plan(args.resources), args.variant)
    with tempfile.TemporaryDirectory() as tmp:
        if args.required_tags:
            (Path(tmp) / "policies").mkdir()
            (Path(tmp) / "policies" / "policy-set.yaml").write_text(
                "data: {ctl: {required_tags: [owner, team]}}\n")
        path = args.keep or Path(tmp) / "plan.json"
        path.write_text(json.dumps(doc))
        size = path.stat().st_size
        started = time.perf_counter()
        plan_doc = json.loads(path.read_text())
        loaded = time.perf_counter()
        outcome = check_plan_json(plan_doc, Path(tmp), PolicyOptions())
        done = time.perf_counter()
    total = done - started
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"plan: {args.resources} resources ({args.variant}{', required tags' if args.required_tags else ''}), "
          f"{size / 1e6:.1f} MB of plan JSON; load average {load} on {os.cpu_count()} CPUs")
    print(f"read plan JSON:         {loaded - started:6.3f} s")
    print(f"policy check:           {done - loaded:6.3f} s  ({len(outcome.rules)} rules, "
          f"{len(outcome.findings)} findings)")
    for phase, seconds in outcome.timings.items():
        print(f"  {phase:<21} {seconds:6.3f} s")
    print(f"total:                  {total:6.3f} s  (budget {args.budget:.1f} s)")
    if total > args.budget:
        print("FAIL: over budget", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
