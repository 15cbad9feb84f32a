"""``google_storage_bucket``: a Cloud Storage bucket, with Terraform's attribute names.

``name`` and ``location`` force replacement; ``storage_class``, ``labels``, ``versioning`` and
``uniform_bucket_level_access`` are patched in place; ``force_destroy`` lives only in state and
decides whether destroying a bucket that still holds objects deletes them (every version) or is
refused. ``versioning`` and ``uniform_bucket_level_access`` are optional *and* computed: left out of
the configuration, they take (and keep) the bucket's current setting, so an omitted block never
shows as a change; ``public_access_prevention`` behaves the same. ``project`` defaults to the
provider's and forces replacement; the API does not report a bucket's project ID, so state keeps
the one the bucket was created (or imported) in. The import ID is the bucket name (``gs://NAME``
and ``PROJECT/NAME`` are accepted too).

``lifecycle_rule`` blocks are Terraform's: an ``action`` (``type``, ``storage_class``) and a
``condition``, whose ``with_state`` is the API's ``isLive`` (``"ANY"`` when the API has none). As in
Terraform, a numeric condition of 0 is sent only with its ``send_*_if_zero`` flag (a 0 otherwise
means "no such condition"), and the flags live only in state. Plan and refresh both shape rules the
same way (``_plan_rules`` / ``_rules_from_api``: unset values null, flags false, no rules ``[]``),
so a re-plan of what the server holds is a no-op; rules are replaced as a whole in one patch.
"""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete, known, stored_map
from adapters._recovery import known_strings
from adapters.base import AdapterContext, AdapterError, ResourceType
from adapters.google.client import GoogleClient, client_of, sdk_errors
from adapters.google.schemas import BUCKET_SCHEMA


class StorageBucket(ResourceType):
    """A bucket; its name is also its ID."""

    name = "google_storage_bucket"
    schema = BUCKET_SCHEMA
    computed = frozenset({"id", "self_link", "url", "versioning", "uniform_bucket_level_access", "project",
                          "public_access_prevention"})
    replace_on = frozenset({"name", "location", "project"})

    def plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        out = _normalized(planned)
        if prior is None and out["project"] is None and isinstance(ctx.client, GoogleClient):
            out["project"] = ctx.client.project  # known now: the plan need not say "known after apply"
        return super().plan(ctx, prior, out)

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        client = client_of(ctx)
        name = attrs["name"]
        with sdk_errors(ctx, f'reading bucket "{name}"'):
            bucket = client.storage.lookup_bucket(name, retry=client.retry)
        if bucket is None:
            return None
        return _attributes({**attrs, "project": attrs.get("project") or client.project}, bucket)

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        client = client_of(ctx)
        attrs = _normalized(known(planned))
        name = attrs["name"]
        bucket = client.storage.bucket(name)
        bucket.storage_class = attrs["storage_class"]
        if attrs["labels"]:
            bucket.labels = attrs["labels"]
        if attrs["versioning"]:
            bucket.versioning_enabled = attrs["versioning"][0]["enabled"]
        if attrs["uniform_bucket_level_access"] is not None:
            bucket.iam_configuration.uniform_bucket_level_access_enabled = attrs["uniform_bucket_level_access"]
        if attrs["public_access_prevention"] is not None:
            bucket.iam_configuration.public_access_prevention = attrs["public_access_prevention"]
        if attrs["lifecycle_rule"]:
            bucket.lifecycle_rules = _rules_to_api(attrs["lifecycle_rule"])
        attrs["project"] = attrs["project"] or client.project
        from google.api_core.exceptions import Conflict

        with sdk_errors(ctx, f'creating bucket "{name}"'):
            try:
                bucket = client.storage.create_bucket(
                    bucket, project=attrs["project"], location=attrs["location"], retry=client.retry
                )
            except Conflict:
                raise AdapterError(
                    f'bucket "{name}" already exists (bucket names are global)',
                    hint=f"If it is yours, adopt it: ctl import {ctx.address} {name}; else choose another name.",
                    address=ctx.address,
                ) from None
        return _attributes(attrs, bucket)

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        client = client_of(ctx)
        attrs = _normalized(known(planned))
        name = attrs["name"]
        with sdk_errors(ctx, f'updating bucket "{name}"'):
            bucket = client.storage.get_bucket(name, retry=client.retry)
            changed = False
            if attrs["storage_class"] != prior.get("storage_class"):
                bucket.storage_class = attrs["storage_class"]
                changed = True
            if attrs["labels"] != stored_map(prior.get("labels")):
                bucket.labels = attrs["labels"] or {}  # the SDK sends removed keys as null
                changed = True
            if attrs["versioning"] is not None and attrs["versioning"] != prior.get("versioning"):
                bucket.versioning_enabled = attrs["versioning"][0]["enabled"]
                changed = True
            uba = attrs["uniform_bucket_level_access"]
            if uba is not None and uba != prior.get("uniform_bucket_level_access"):
                bucket.iam_configuration.uniform_bucket_level_access_enabled = uba
                changed = True
            pap = attrs["public_access_prevention"]
            if pap is not None and pap != prior.get("public_access_prevention"):
                bucket.iam_configuration.public_access_prevention = pap
                changed = True
            if attrs["lifecycle_rule"] != prior.get("lifecycle_rule"):
                bucket.lifecycle_rules = _rules_to_api(attrs["lifecycle_rule"])  # [] removes them all
                changed = True
            if changed:  # a force_destroy change alone is state-only
                bucket.patch(retry=client.retry)
        return _attributes(attrs, bucket)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        from google.api_core.exceptions import Conflict, NotFound, PreconditionFailed

        client = client_of(ctx)
        name = prior["name"]
        with sdk_errors(ctx, f'deleting bucket "{name}"'):
            bucket = client.storage.lookup_bucket(name, retry=client.retry)
            if bucket is None:
                return
            if prior.get("force_destroy"):
                _empty(client, bucket)
            try:
                bucket.delete(retry=client.retry)
            except NotFound:
                return
            except (Conflict, PreconditionFailed):  # GCS answers 409, fake-gcs-server 412
                raise AdapterError(
                    f'bucket "{name}" is not empty, and force_destroy is not set',
                    hint="Set force_destroy = true and apply before destroying, or empty the bucket.",
                    address=ctx.address,
                ) from None

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: ``NAME`` (also ``gs://NAME``, or ``PROJECT/NAME`` to record the project)."""
        path = resource_id.strip().removeprefix("gs://").rstrip("/")
        project, _, name = path.rpartition("/")
        if not name:
            raise AdapterError(f"import ID {resource_id!r} names no bucket", address=ctx.address,
                               hint="Use the bucket name, e.g. my-bucket.")
        return complete(self.schema, {"name": name, "project": project or None})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The bucket name; ``PROJECT/NAME`` when the planned project is not the provider's.

        The API does not report a bucket's project, so the ID must carry one the provider would not assume.
        """
        names = known_strings(identity, "name")
        if names is None:
            return None
        project = known_strings(identity, "project")
        default = ctx.client.project if isinstance(ctx.client, GoogleClient) else None
        return f"{project[0]}/{names[0]}" if project and project[0] != default else names[0]


def _normalized(attrs: dict[str, Any]) -> dict[str, Any]:
    """Defaults applied and values in the form the API reports them, so a re-plan is a no-op."""
    out = complete(BUCKET_SCHEMA, attrs)
    if isinstance(out["location"], str):
        out["location"] = out["location"].upper()
    if isinstance(out["storage_class"], str):
        out["storage_class"] = out["storage_class"].upper()
    if isinstance(out["labels"], dict):
        out["labels"] = stored_map(out["labels"])
    if isinstance(out["versioning"], list):
        out["versioning"] = [{"enabled": bool(v.get("enabled"))} for v in out["versioning"] if isinstance(v, dict)]
        out["versioning"] = out["versioning"] or None
    out["lifecycle_rule"] = _plan_rules(out["lifecycle_rule"])
    return out


def _attributes(base: dict[str, Any], bucket: Any) -> dict[str, Any]:
    """The state of a bucket: what the server reports, state-only arguments from ``base``."""
    out = complete(BUCKET_SCHEMA, base)
    props = bucket._properties  # what the server reported, to tell "absent" from "false"
    name = bucket.name
    out.update(
        name=name,
        location=(bucket.location or out["location"] or "").upper() or None,
        storage_class=bucket.storage_class or out["storage_class"],
        labels=stored_map(bucket.labels),
        versioning=[{"enabled": bool(bucket.versioning_enabled)}],
        lifecycle_rule=_rules_from_api(props.get("lifecycle"), out["lifecycle_rule"]),
        force_destroy=bool(out["force_destroy"]),
        id=name,
        self_link=bucket.self_link,
        url=f"gs://{name}",
    )
    if "iamConfiguration" in props:
        out["uniform_bucket_level_access"] = bool(bucket.iam_configuration.uniform_bucket_level_access_enabled)
    else:  # not reported (emulators): keep what was configured or recorded
        out["uniform_bucket_level_access"] = bool(out["uniform_bucket_level_access"])
    pap = (props.get("iamConfiguration") or {}).get("publicAccessPrevention")
    if pap in ("inherited", "enforced"):
        out["public_access_prevention"] = pap
    elif pap == "unspecified":  # the API's former name of "inherited"
        out["public_access_prevention"] = "inherited"
    else:  # not reported (emulators): keep what was configured or recorded, else the API's default
        out["public_access_prevention"] = out["public_access_prevention"] or "inherited"
    return out


# ---- lifecycle rules ---------------------------------------------------------------------------------
# A rule in state: {"action": [{type, storage_class}], "condition": [{...every _CONDITION key...}]}.

_ZERO_FLAGS = {  # numeric condition -> the flag that makes a 0 count (Terraform's send_*_if_zero)
    "age": "send_age_if_zero",
    "num_newer_versions": "send_num_newer_versions_if_zero",
    "days_since_custom_time": "send_days_since_custom_time_if_zero",
    "days_since_noncurrent_time": "send_days_since_noncurrent_time_if_zero",
}
_API_NAMES = {  # condition argument -> JSON API field (with_state is isLive, handled apart)
    "age": "age",
    "created_before": "createdBefore",
    "matches_storage_class": "matchesStorageClass",
    "matches_prefix": "matchesPrefix",
    "matches_suffix": "matchesSuffix",
    "num_newer_versions": "numNewerVersions",
    "custom_time_before": "customTimeBefore",
    "days_since_custom_time": "daysSinceCustomTime",
    "days_since_noncurrent_time": "daysSinceNoncurrentTime",
    "noncurrent_time_before": "noncurrentTimeBefore",
}
_IS_LIVE = {"LIVE": True, "ARCHIVED": False}
_CONDITION_KEYS = (*_API_NAMES, "with_state", *_ZERO_FLAGS.values())


def _plan_rules(rules: Any) -> Any:
    """Configured rules in the shape refresh gives them; values not known yet are left as they are.

    No rules is an empty list, never null: as in Terraform, whose configurations count them with
    ``length(bucket.lifecycle_rule)``.
    """
    if rules is None:
        return []
    if not isinstance(rules, list):
        return rules
    return [_plan_rule(rule) if isinstance(rule, dict) else rule for rule in rules]


def _plan_rule(rule: dict[str, Any]) -> dict[str, Any]:
    out = dict(rule)
    actions, conditions = rule.get("action"), rule.get("condition")
    if isinstance(actions, list) and len(actions) == 1 and isinstance(actions[0], dict):
        action = actions[0]
        out["action"] = [{"type": action.get("type"), "storage_class": action.get("storage_class") or None}]
    if isinstance(conditions, list) and len(conditions) == 1 and isinstance(conditions[0], dict):
        out["condition"] = [_plan_condition(conditions[0])]
    return out


def _plan_condition(condition: dict[str, Any]) -> dict[str, Any]:
    from vocab.values import Unknown

    out: dict[str, Any] = {name: condition.get(name) for name in _CONDITION_KEYS}
    for flag in _ZERO_FLAGS.values():
        if not isinstance(out[flag], Unknown):
            out[flag] = bool(out[flag])
    for name, flag in _ZERO_FLAGS.items():
        value, send_zero = out[name], out[flag]
        if isinstance(value, Unknown) or isinstance(send_zero, Unknown):
            continue
        if value is None and send_zero:
            out[name] = 0  # the flag alone sends a 0
        elif value is not None and int(value) == 0 and not send_zero:
            out[name] = None  # a 0 without its flag is not sent: no such condition
        elif value is not None:
            out[name] = int(value)
    for name in ("created_before", "custom_time_before", "noncurrent_time_before"):
        if out[name] == "":
            out[name] = None
    for name in ("matches_storage_class", "matches_prefix", "matches_suffix"):
        if out[name] == []:
            out[name] = None
    if out["with_state"] in (None, ""):
        out["with_state"] = "ANY"  # what the API means when isLive is absent
    return out


def _rules_to_api(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rules (as planned) in the JSON API's ``lifecycle.rule`` shape."""
    out: list[dict[str, Any]] = []
    for rule in rules:
        action_in, condition_in = rule["action"][0], rule["condition"][0]
        action: dict[str, Any] = {"type": action_in["type"]}
        if action_in.get("storage_class"):
            action["storageClass"] = action_in["storage_class"]
        condition: dict[str, Any] = {api: condition_in[name] for name, api in _API_NAMES.items()
                                     if condition_in.get(name) is not None}
        if condition_in.get("with_state") in _IS_LIVE:
            condition["isLive"] = _IS_LIVE[condition_in["with_state"]]
        out.append({"action": action, "condition": condition})
    return out


def _rules_from_api(lifecycle: Any, prior_rules: Any) -> list[dict[str, Any]]:
    """The server's ``lifecycle`` as state; the ``send_*_if_zero`` flags come from the prior rule
    at the same position (they are not an API field), false when there is none."""
    rules = (lifecycle.get("rule") or []) if isinstance(lifecycle, dict) else []
    before = prior_rules if isinstance(prior_rules, list) else []
    out: list[dict[str, Any]] = []
    for index, rule in enumerate(rules):
        action, condition = rule.get("action") or {}, rule.get("condition") or {}
        state: dict[str, Any] = {name: condition.get(api) for name, api in _API_NAMES.items()}
        for name in _ZERO_FLAGS:
            if state[name] is not None:
                state[name] = int(state[name])
        for name in ("matches_storage_class", "matches_prefix", "matches_suffix"):
            state[name] = list(state[name]) if state[name] else None
        live = condition.get("isLive")
        state["with_state"] = "ANY" if live is None else ("LIVE" if live else "ARCHIVED")
        old = _prior_condition(before, index)
        for flag in _ZERO_FLAGS.values():
            state[flag] = bool(old.get(flag))
        out.append({
            "action": [{"type": action.get("type"), "storage_class": action.get("storageClass") or None}],
            "condition": [state],
        })
    return out


def _prior_condition(rules: list[Any], index: int) -> dict[str, Any]:
    if index < len(rules) and isinstance(rules[index], dict):
        conditions = rules[index].get("condition")
        if isinstance(conditions, list) and conditions and isinstance(conditions[0], dict):
            return conditions[0]
    return {}


def _empty(client: Any, bucket: Any) -> None:
    """Delete every object of a bucket, every generation (for ``force_destroy``)."""
    from google.api_core.exceptions import NotFound

    for blob in client.storage.list_blobs(bucket, versions=True, retry=client.retry):
        try:
            bucket.delete_blob(blob.name, generation=blob.generation, retry=client.retry)
        except NotFound:
            continue
