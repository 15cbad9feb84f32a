"""The view of a plan the built-in pack is evaluated on: the plan, slimmed, with indexes.

rego-cpp (the engine behind regopy) is slow at three things a plan-wide policy pack does a lot:
taking in a large document (one to two microseconds per value), building sets and objects (the
cost grows with the square of their size) and looking up fields (a few microseconds each). A pack
written the obvious way — scan every resource for each rule, collect every bucket's companions
into a set — took about ten seconds over a 10,000-resource plan. The pack therefore reads a view
that ctl prepares in Python, in one linear pass:

* ``resource_changes`` keeps only the resources and attributes the pack reads (``PACK_READS``),
  in Terraform's shape, so a rule reads ``input.resource_changes[i].change.after`` as usual.
* ``ctl_index.changing[TYPE]`` lists the positions of the resources of a type that the plan
  creates or updates, ``ctl_index.destroyed`` those it destroys: a rule visits only its own
  resources, without testing each one in Rego.
* Each S3 bucket the plan creates or updates carries ``ctl_companions``: for each resource type
  that configures buckets (``COMPANION_TYPES``), the positions of the resources of that type which
  exist after the apply and name the bucket — the join the S3 rules would otherwise build as sets.
* Policy documents (JSON text in ``policy`` attributes) are handed over parsed where that gives
  exactly what the pack's ``json.unmarshal`` would (``_parsed_policy``).
* ``ctl_indexed`` is ``true``: the rules test this flag (a scalar) to pick the indexed path.

Each module of the pack also collects its findings in an array rule (``FINDINGS_RULE``), which
the gate queries instead of the ``deny`` set.

Every index is a pure function of the plan that the pack's helpers (``builtin/lib.rego``) compute
in Rego when ``ctl_indexed`` is absent, which is how the pack reads a plain plan (``ctl policy
test``, or the pack run elsewhere). The Python definitions below mirror those helpers one for one;
a test evaluates the pack both ways on a varied plan and requires the same findings.
"""

from __future__ import annotations

import json
from typing import Any

# What the built-in pack reads of ``change.after`` for each resource type (besides tags).
PACK_READS: dict[str, tuple[str, ...]] = {
    "aws_s3_bucket": ("bucket", "versioning", "server_side_encryption_configuration"),
    "aws_s3_bucket_public_access_block": ("bucket", "block_public_acls", "block_public_policy",
                                          "ignore_public_acls", "restrict_public_buckets"),
    "aws_s3_bucket_server_side_encryption_configuration": ("bucket",),
    "aws_s3_bucket_versioning": ("bucket", "versioning_configuration"),
    "aws_iam_policy": ("policy",),
    "aws_iam_role_policy": ("policy",),
    "aws_iam_user_policy": ("policy",),
    "aws_iam_group_policy": ("policy",),
    "aws_iam_role": ("inline_policy",),
    "aws_sqs_queue": ("policy",),
    "aws_sqs_queue_policy": ("policy",),
    "aws_sns_topic": ("policy",),
    "aws_sns_topic_policy": ("policy",),
    "azurerm_storage_container": ("container_access_type",),
    "google_storage_bucket": ("uniform_bucket_level_access",),
}

# A module of the pack gives its deny findings as this array rule as well (deny is the same
# findings as a set): building a set of thousands of objects takes rego-cpp minutes, an array
# milliseconds, so ctl queries the array and removes duplicates itself (``distinct``).
FINDINGS_RULE = "findings"

BUCKET_TYPE = "aws_s3_bucket"
# Where ctl_index.changing lists resources without a type (a colon is never part of a type name):
# only lib.all_changing reads them.
UNTYPED = "ctl:untyped"
# Resources that configure an S3 bucket and are matched to it (lib.companions).
COMPANION_TYPES = ("aws_s3_bucket_public_access_block",
                   "aws_s3_bucket_server_side_encryption_configuration",
                   "aws_s3_bucket_versioning")

_TAG_KEYS = ("tags", "tags_all", "labels")
_STATE_TAGS = ("ctl:state", "purpose")  # what the state-bucket rule reads when no tags are required


# -- the helpers of lib.rego, in Python ----------------------------------------------------------


def _actions(change: dict[str, Any]) -> list[Any]:
    """What ``some action in rc.change.actions`` iterates: an array's items, an object's values."""
    actions = change.get("actions")
    if isinstance(actions, list):
        return actions
    if isinstance(actions, dict):
        return list(actions.values())
    return []


def _is_changing(change: dict[str, Any]) -> bool:
    """lib.is_changing for a managed resource: ``after`` is an object, created or updated."""
    return isinstance(change.get("after"), dict) and any(
        isinstance(a, str) and a in ("create", "update") for a in _actions(change))


def _is_destroyed(change: dict[str, Any]) -> bool:
    """lib.is_destroyed for a managed resource: ``"delete"`` is one of the actions."""
    return any(a == "delete" for a in _actions(change))


def _bucket_keys(rc: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """lib.bucket_keys: the bucket's name when known, and its resource name (without which the
    Rego function is undefined, so the bucket matches nothing)."""
    if not isinstance(rc.get("name"), str):
        return []
    keys = ["name:" + rc["name"]]
    if isinstance(after.get("bucket"), str):
        keys.append("bucket:" + after["bucket"])
    return keys


def _companion_key(rc: dict[str, Any], after: dict[str, Any]) -> str | None:
    """lib.companion_key: the bucket name it configures, else its own resource name."""
    bucket, name = after.get("bucket"), rc.get("name")
    if isinstance(bucket, str):
        return "bucket:" + bucket
    if isinstance(name, str):
        return "name:" + name
    return None


def distinct(findings: Any) -> Any:
    """An array rule's value as the set it stands for: each finding once, in a stable order."""
    if not isinstance(findings, list):
        return findings
    seen: dict[str, Any] = {}
    for item in findings:
        seen.setdefault(json.dumps(item, sort_keys=True), item)
    return [seen[k] for k in sorted(seen)]


# -- policy documents ----------------------------------------------------------------------------

# Attributes that hold an IAM-style policy document as JSON text (lib.policy_statements).
POLICY_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    t: ("policy",) for t in ("aws_iam_policy", "aws_iam_role_policy", "aws_iam_user_policy",
                             "aws_iam_group_policy", "aws_sqs_queue", "aws_sqs_queue_policy",
                             "aws_sns_topic", "aws_sns_topic_policy")
}
INLINE_POLICY_ATTRIBUTES: dict[str, tuple[str, ...]] = {"aws_iam_role": ("inline_policy",)}


class _Declined(ValueError):
    """The text is left for the pack's own json.unmarshal (see _parsed_policy)."""


def _reject_constant(name: str) -> Any:
    raise _Declined(name)


def _int64(text: str) -> int:
    value = int(text)
    if not -2**63 <= value < 2**63:
        raise _Declined(text)
    return value


def _parsed_policy(value: Any) -> Any:
    """A policy attribute as the view hands it over: parsed when ctl can parse it exactly.

    json.unmarshal takes rego-cpp about 200 microseconds per policy document, several times what
    handing over the parsed document costs, so ctl parses the text and passes
    ``{"ctl_parsed": document}`` (lib.policy_statements reads it). Only text that rego-cpp would
    parse to the same object is parsed here: a JSON object, without backslashes (rego-cpp rejects
    ``\\u`` escapes), ``NaN``/``Infinity``, control characters or integers beyond 64 bits. Any other
    string is handed over as text, so the pack's own json.unmarshal reads it — and fails on it —
    as before. A value that is not a string is handed over as null: lib.policy_statements reads
    only strings.
    """
    if not isinstance(value, str):
        return None
    if "\\" in value:
        return value
    try:
        doc = json.loads(value, parse_constant=_reject_constant, parse_int=_int64)
    except ValueError:  # also _Declined and json.JSONDecodeError
        return value
    return {"ctl_parsed": doc} if isinstance(doc, dict) else value


def _with_parsed_policies(after: dict[str, Any], rtype: str) -> None:
    """Replace, in the view's copy of ``after``, each policy text by its parsed document."""
    for attr in POLICY_ATTRIBUTES.get(rtype, ()):
        if attr in after:
            after[attr] = _parsed_policy(after[attr])
    for attr in INLINE_POLICY_ATTRIBUTES.get(rtype, ()):
        items = after.get(attr)
        # lib iterates an array's items or an object's values (some inline in …)
        if isinstance(items, list):
            after[attr] = [_inline(x) for x in items]
        elif isinstance(items, dict):
            after[attr] = {k: _inline(x) for k, x in items.items()}


def _inline(item: Any) -> Any:
    if isinstance(item, dict) and "policy" in item:
        return {**item, "policy": _parsed_policy(item["policy"])}
    return item


# -- the view ------------------------------------------------------------------------------------


def _state_tags(tags: Any) -> Any:
    return {k: tags[k] for k in _STATE_TAGS if k in tags} if isinstance(tags, dict) else tags


def may_keep(mode: str, rtype: str, actions: tuple[str, ...], *, with_tags: bool = True) -> bool:
    """Whether ``pack_view(..., with_tags=with_tags)`` may keep a resource change with these; the
    gate builds no JSON for one it would leave out: a data source; a change that neither creates,
    updates nor destroys (a no-op: nearly every resource of a re-plan) unless its type is a
    bucket's companion; and, when no tags are required, a create or update of a type the pack does
    not read (nearly every resource of most plans)."""
    if mode == "data":
        return False
    if rtype in COMPANION_TYPES or "delete" in actions:
        return True
    if "create" in actions or "update" in actions:
        return with_tags or rtype in PACK_READS
    return False


def pack_view(doc: dict[str, Any], *, with_tags: bool = True) -> dict[str, Any]:
    """The part of a plan the built-in pack reads, in the same shape, with its indexes.

    Handing a document to rego-cpp costs one to two microseconds per value, and a Terraform plan
    repeats every resource in several places, so the view's ``resource_changes`` holds only the
    resources the indexes point at — those the plan creates or updates (of the types in
    ``PACK_READS``, or any type with tags or labels when required tags are configured), those it
    destroys, and the companions of S3 buckets that exist after the apply — each with its
    ``address``, the attributes of ``change.after`` in ``PACK_READS`` (plus tags and labels, or
    for buckets only the tags that mark state buckets when no tags are required) and, for
    resources the plan destroys, ``change.actions`` and the tags of ``change.before``. The pack
    reads nothing else on this path. See the module's docstring for the indexes.
    """
    changes: list[dict[str, Any]] = []
    changing: dict[str, list[int]] = {}
    destroyed: list[int] = []
    buckets: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = []
    by_key: dict[str, dict[str, list[int]]] = {}
    for rc in doc.get("resource_changes") or []:
        if not isinstance(rc, dict) or rc.get("mode") == "data":
            continue
        change = rc.get("change")
        change = change if isinstance(change, dict) else {}
        rtype = rc.get("type")
        rtype = rtype if isinstance(rtype, str) else None
        planned = isinstance(change.get("after"), dict)  # exists after the apply (lib.is_planned)
        after: dict[str, Any] = change["after"] if planned else {}
        reads = PACK_READS.get(rtype) if rtype is not None else None
        deleting = _is_destroyed(change)
        is_changing = _is_changing(change) and (
            reads is not None or (with_tags and any(k in after for k in _TAG_KEYS)))
        companion = planned and rtype in COMPANION_TYPES
        if not (is_changing or deleting or companion):
            continue
        slim_change: dict[str, Any] = {}
        if planned:
            slim_after = {k: after[k] for k in (reads or ()) if k in after}
            if rtype is not None:
                _with_parsed_policies(slim_after, rtype)
            for k in _TAG_KEYS:
                if k in after and (with_tags or rtype == BUCKET_TYPE):
                    slim_after[k] = after[k] if with_tags else _state_tags(after[k])
            slim_change["after"] = slim_after
        if deleting:
            slim_change["actions"] = change["actions"]
            before = change.get("before")
            if isinstance(before, dict):
                slim_change["before"] = {k: before[k] for k in _TAG_KEYS if k in before}
        slim = {"address": rc["address"]} if "address" in rc else {}
        slim["change"] = slim_change
        position = len(changes)
        changes.append(slim)
        if is_changing:
            changing.setdefault(UNTYPED if rtype is None else rtype, []).append(position)
            if rtype == BUCKET_TYPE:
                buckets.append((slim, rc, after))
        if deleting:
            destroyed.append(position)
        if companion and rtype is not None:
            key = _companion_key(rc, after)
            if key is not None:
                by_key.setdefault(key, {}).setdefault(rtype, []).append(position)
    for slim, rc, after in buckets:
        companions: dict[str, list[int]] = {}
        for key in _bucket_keys(rc, after):
            for rtype, positions in by_key.get(key, {}).items():
                companions.setdefault(rtype, []).extend(positions)
        slim["ctl_companions"] = companions
    return {"resource_changes": changes, "ctl_indexed": True,
            "ctl_index": {"changing": changing, "destroyed": destroyed}}


__all__ = ["BUCKET_TYPE", "COMPANION_TYPES", "FINDINGS_RULE", "PACK_READS", "distinct", "may_keep", "pack_view"]
