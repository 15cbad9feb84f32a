"""``aws_iam_role`` and ``aws_iam_role_policy`` (an inline policy of a role).

Policy documents are compared by meaning (``policy.equivalent``): IAM hands them back URL-encoded
and re-serialised, and a user may reformat theirs; the state keeps the user's text whenever it is
equivalent to what IAM holds, so neither shows up as a change. IAM is a global service: the
client uses the provider's region only to pick the endpoint.

The state is the one HashiCorp's provider writes: ``""`` for an unset description, name prefix or
permissions boundary; a role's ``inline_policy`` and ``managed_policy_arns`` as IAM holds them (set
with ``aws_iam_role_policy`` and attachments; ctl does not take them as arguments); an inline
policy's document as the provider spells it (``policy.normalized``, ``Version`` first).
"""

from __future__ import annotations

from typing import Any

from adapters._recovery import joined, known_strings
from adapters.aws import policy as policy_json
from adapters.aws import schema as s
from adapters.aws.base import AwsResource, exclusive, unique_name
from adapters.aws.errors import call, pages
from adapters.base import AdapterContext, AdapterError

GONE = frozenset({"NoSuchEntity"})


def _role(name: Any) -> str:
    return f'IAM role "{name}"'


class IamRole(AwsResource):
    """An IAM role with its trust (assume-role) policy, description, session length, permissions
    boundary and tags."""

    name = "aws_iam_role"
    service = "iam"
    taggable = True
    schema = s.resource_schema({
        "name": s.string("Role name; generated when unset.", maxLength=64),
        "name_prefix": s.string("Prefix of a generated role name.", maxLength=38),
        "path": s.string("Path of the role.", default="/"),
        "assume_role_policy": s.required_string("Trust policy (JSON): who may assume the role."),
        "description": s.string("Description of the role."),
        "max_session_duration": s.integer("Longest session in seconds.", 3600, minimum=3600, maximum=43200),
        "force_detach_policies": s.boolean("Detach managed and delete inline policies before destroying.", False),
        "permissions_boundary": s.string("ARN of the managed policy that bounds the role's permissions."),
        **s.tags_properties(),
        "id": s.computed("The role name."),
        "arn": s.computed("ARN of the role."),
        "unique_id": s.computed("The stable unique ID IAM gives the role."),
        "create_date": s.computed("When the role was created (RFC 3339)."),
        "inline_policy": s.computed("The role's inline policies: name and policy of each.", "array"),
        "managed_policy_arns": s.computed("ARNs of the managed policies attached to the role.", "array"),
    }, required=("assume_role_policy",))
    computed = frozenset({"id", "name", "arn", "unique_id", "create_date", "tags_all", "inline_policy",
                          "managed_policy_arns"})
    replace_on = frozenset({"name", "name_prefix", "path"})
    blank_strings = frozenset({"description", "name_prefix", "permissions_boundary"})

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        exclusive(ctx, out, "name", "name_prefix")
        if prior is not None:
            out["assume_role_policy"] = policy_json.plan_text(prior.get("assume_role_policy"),
                                                              out.get("assume_role_policy"))
        return out

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        name = out.get("name") or unique_name(out.get("name_prefix") or "ctl-", limit=64)
        kwargs: dict[str, Any] = {
            "RoleName": name, "Path": out["path"], "AssumeRolePolicyDocument": out["assume_role_policy"],
            "MaxSessionDuration": int(out["max_session_duration"]),
        }
        if out.get("description"):
            kwargs["Description"] = out["description"]
        if out.get("permissions_boundary"):
            kwargs["PermissionsBoundary"] = out["permissions_boundary"]
        if out.get("tags_all"):
            kwargs["Tags"] = [{"Key": k, "Value": v} for k, v in sorted(out["tags_all"].items())]
        call(ctx, _role(name), self.api(ctx).create_role, **kwargs)
        out.update({"name": name, "inline_policy": [], "managed_policy_arns": []})  # a new role has none
        return self._refresh(ctx, out, policies=False) or out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return self._refresh(ctx, self.complete(attrs))

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        iam, name = self.api(ctx), out["name"]
        if not policy_json.equivalent(out["assume_role_policy"], prior.get("assume_role_policy")):
            call(ctx, _role(name), iam.update_assume_role_policy, RoleName=name,
                 PolicyDocument=out["assume_role_policy"])
        if (out.get("description") or "") != (prior.get("description") or "") or \
                out.get("max_session_duration") != prior.get("max_session_duration"):
            call(ctx, _role(name), iam.update_role, RoleName=name, Description=out.get("description") or "",
                 MaxSessionDuration=int(out["max_session_duration"]))
        boundary = out.get("permissions_boundary") or None
        if boundary != (prior.get("permissions_boundary") or None):
            if boundary:
                call(ctx, _role(name), iam.put_role_permissions_boundary, RoleName=name, PermissionsBoundary=boundary)
            else:
                call(ctx, _role(name), iam.delete_role_permissions_boundary, RoleName=name)
        to_set, to_remove = self.tag_changes(prior, out)
        if to_remove:
            call(ctx, _role(name), iam.untag_role, RoleName=name, TagKeys=to_remove)
        if to_set:
            call(ctx, _role(name), iam.tag_role, RoleName=name,
                 Tags=[{"Key": k, "Value": v} for k, v in sorted(to_set.items())])
        return self._refresh(ctx, out) or out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        name = prior.get("name") or prior.get("id")
        if not name:
            return
        iam = self.api(ctx)
        if prior.get("force_detach_policies"):
            for page in pages(ctx, _role(name), iam, "list_attached_role_policies", missing=GONE, RoleName=name):
                for attached in page.get("AttachedPolicies", []):
                    call(ctx, _role(name), iam.detach_role_policy, missing=GONE, RoleName=name,
                         PolicyArn=attached["PolicyArn"])
            for page in pages(ctx, _role(name), iam, "list_role_policies", missing=GONE, RoleName=name):
                for policy_name in page.get("PolicyNames", []):
                    call(ctx, _role(name), iam.delete_role_policy, missing=GONE, RoleName=name,
                         PolicyName=policy_name)
        call(ctx, _role(name), iam.delete_role, missing=GONE, RoleName=name)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: the role name."""
        return self.complete({"id": resource_id, "name": resource_id})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The role name; a name still to be generated from ``name_prefix`` names nothing."""
        names = known_strings(identity, "name")
        return names[0] if names else None

    def _refresh(self, ctx: AdapterContext, out: dict[str, Any], *, policies: bool = True) -> dict[str, Any] | None:
        name = out.get("name") or out.get("id")
        found = call(ctx, _role(name), self.api(ctx).get_role, missing=GONE, RoleName=name)
        if found is None:
            return None
        role = found["Role"]
        created = role.get("CreateDate")
        out.update({
            "id": role["RoleName"], "name": role["RoleName"], "arn": role["Arn"], "unique_id": role["RoleId"],
            "path": role.get("Path") or "/",
            "create_date": created.strftime("%Y-%m-%dT%H:%M:%SZ") if hasattr(created, "strftime") else created,
            "assume_role_policy": policy_json.keep_text(out.get("assume_role_policy"),
                                                        role.get("AssumeRolePolicyDocument")),
            "description": role.get("Description") or (None if out.get("description") is None else ""),
            "max_session_duration": int(role.get("MaxSessionDuration") or 3600),
            "permissions_boundary": (role.get("PermissionsBoundary") or {}).get("PermissionsBoundaryArn")
            or (None if out.get("permissions_boundary") is None else ""),
        })
        actual = {t["Key"]: t["Value"] for t in role.get("Tags", [])}
        out.update(self.split_tags(ctx, actual, out.get("tags")))
        if policies:
            out.update(self._policies(ctx, role["RoleName"]))
        return out

    def _policies(self, ctx: AdapterContext, name: str) -> dict[str, Any]:
        """``inline_policy`` and ``managed_policy_arns`` as IAM holds them."""
        iam = self.api(ctx)
        inline = []
        for page in pages(ctx, _role(name), iam, "list_role_policies", missing=GONE, RoleName=name):
            for policy_name in page.get("PolicyNames", []):
                got = call(ctx, _role(name), iam.get_role_policy, missing=GONE, RoleName=name,
                           PolicyName=policy_name) or {}
                inline.append({"name": policy_name,
                               "policy": policy_json.normalized(got.get("PolicyDocument"), version_first=True) or ""})
        managed = [attached["PolicyArn"]
                   for page in pages(ctx, _role(name), iam, "list_attached_role_policies", missing=GONE, RoleName=name)
                   for attached in page.get("AttachedPolicies", [])]
        return {"inline_policy": sorted(inline, key=lambda p: p["name"]), "managed_policy_arns": sorted(managed)}


class IamRolePolicy(AwsResource):
    """An inline policy of a role; ``id`` (and the import ID) is ``ROLE:POLICY``."""

    name = "aws_iam_role_policy"
    service = "iam"
    schema = s.resource_schema({
        "name": s.string("Policy name; generated when unset.", maxLength=128),
        "name_prefix": s.string("Prefix of a generated policy name."),
        "role": s.required_string("Name of the role."),
        "policy": s.required_string("The policy document (JSON)."),
        "id": s.computed("ROLE:POLICY."),
    }, required=("role", "policy"))
    computed = frozenset({"id", "name"})
    replace_on = frozenset({"name", "name_prefix", "role"})
    blank_strings = frozenset({"name_prefix"})

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        exclusive(ctx, out, "name", "name_prefix")
        if prior is not None:
            out["policy"] = policy_json.plan_text(prior.get("policy"), out.get("policy"))
        return out

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        out["name"] = out.get("name") or unique_name(out.get("name_prefix") or "ctl-", limit=128)
        self._put(ctx, out)
        out["id"] = f"{out['role']}:{out['name']}"
        return self._refresh(ctx, out) or out

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self.prepared(planned)
        if not policy_json.equivalent(out["policy"], prior.get("policy")):
            self._put(ctx, out)
        return self._refresh(ctx, out) or out

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return self._refresh(ctx, self.complete(attrs))

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        role, name = self._names(prior)
        call(ctx, self._what(role, name), self.api(ctx).delete_role_policy, missing=GONE, RoleName=role,
             PolicyName=name)

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ID: ``ROLE:POLICY``."""
        role, sep, name = resource_id.partition(":")
        if not sep or not role or not name:
            raise AdapterError(f'import ID "{resource_id}" is not ROLE:POLICY', address=ctx.address or None)
        return self.complete({"id": resource_id, "role": role, "name": name})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """``ROLE:POLICY``; a policy name still to be generated from ``name_prefix`` names nothing."""
        return joined(identity, ":", "role", "name")

    def _put(self, ctx: AdapterContext, out: dict[str, Any]) -> None:
        call(ctx, self._what(out["role"], out["name"]), self.api(ctx).put_role_policy, RoleName=out["role"],
             PolicyName=out["name"], PolicyDocument=out["policy"])

    def _names(self, attrs: dict[str, Any]) -> tuple[str, str]:
        if attrs.get("role") and attrs.get("name"):
            return str(attrs["role"]), str(attrs["name"])
        role, _, name = str(attrs.get("id") or "").partition(":")
        return role, name

    @staticmethod
    def _what(role: str, name: str) -> str:
        return f'inline policy "{name}" of IAM role "{role}"'

    def _refresh(self, ctx: AdapterContext, out: dict[str, Any]) -> dict[str, Any] | None:
        role, name = self._names(out)
        found = call(ctx, self._what(role, name), self.api(ctx).get_role_policy, missing=GONE, RoleName=role,
                     PolicyName=name)
        if found is None:
            return None
        # The provider records the document as it spells it (Version first), whatever the configuration's text.
        out.update({"id": f"{role}:{name}", "role": role, "name": name,
                    "policy": policy_json.normalized(found.get("PolicyDocument"), version_first=True)})
        return out
