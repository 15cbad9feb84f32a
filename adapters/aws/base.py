"""What every aws resource type shares: completing attributes, tags, and reaching the clients.

Refresh must give back exactly what create returned when nothing changed, or every re-plan would
show a diff. So each type shapes its attributes in one place: ``complete`` gives every declared
attribute (nested blocks too) a value, with the schema's defaults for unset arguments, and both
``plan`` and ``read`` start from it. Tags follow Terraform: ``tags`` are the resource's own,
``tags_all`` adds the provider's ``default_tags`` (the resource's win), and a refresh splits what
AWS holds back into the two the same way.

Every type writes the state HashiCorp's provider writes, so a stack moves between the two with no
planned change: where the provider records an unset string as ``""`` (its SDK's zero value) rather
than null, the type names it in ``blank_strings`` and every create, update and read spells it so.
"""

from __future__ import annotations

from typing import Any, ClassVar

from adapters._recovery import known_strings
from adapters.aws.session import AwsClients
from adapters.base import AdapterContext, AdapterError, ResourceType
from adapters.equivalence import keep_prior, keep_recorded
from vocab.values import UNKNOWN, Unknown


class AwsResource(ResourceType):
    """Base of the aws resource types and data sources."""

    service: ClassVar[str] = ""  # the boto3 service most operations use
    taggable: ClassVar[bool] = False
    # Attributes the provider records as "" when unset (``block.member`` for a nested block's member).
    blank_strings: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every type's own ``read`` keeps the prior's spelling of values it reads back the same
        (``keep_recorded``): a state the provider wrote refreshes without spurious changes. And its
        own ``create``, ``update`` and ``read`` spell the ``blank_strings`` as the provider does."""
        super().__init_subclass__(**kwargs)
        own_read = cls.__dict__.get("read")
        if own_read is not None:
            def read(self: AwsResource, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
                prior = dict(attrs)
                fresh = own_read(self, ctx, attrs)
                return keep_recorded(self.schema, prior, None if fresh is None else self.spelled(fresh))

            read.__doc__ = own_read.__doc__
            setattr(cls, "read", read)  # noqa: B010 (a method replaced on the class being made)
        own_create = cls.__dict__.get("create")
        if own_create is not None:
            def create(self: AwsResource, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
                return self.spelled(own_create(self, ctx, planned))

            create.__doc__ = own_create.__doc__
            setattr(cls, "create", create)  # noqa: B010
        own_update = cls.__dict__.get("update")
        if own_update is not None:
            def update(self: AwsResource, ctx: AdapterContext, prior: dict[str, Any],
                       planned: dict[str, Any]) -> dict[str, Any]:
                return self.spelled(own_update(self, ctx, prior, planned))

            update.__doc__ = own_update.__doc__
            setattr(cls, "update", update)  # noqa: B010

    def spelled(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """``attrs`` with every unset ``blank_strings`` attribute ``""``, as the provider records it."""
        for path in self.blank_strings:
            _blank_to_empty(attrs, path.split("."))
        return attrs

    # ---- clients ---------------------------------------------------------------------------

    def clients(self, ctx: AdapterContext) -> AwsClients:
        if not isinstance(ctx.client, AwsClients):
            raise AdapterError('provider "aws" is not configured for this resource', address=ctx.address or None)
        return ctx.client

    def api(self, ctx: AdapterContext, service: str | None = None) -> Any:
        """The shared boto3 client of ``service`` (default: the type's own service)."""
        return self.clients(ctx).client(service or self.service)

    # ---- attribute shapes ------------------------------------------------------------------

    def complete(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Every declared attribute present; unset arguments get their schema default."""
        completed: dict[str, Any] = _complete_object(self.schema, attrs)  # a dict stays a dict
        return completed

    def prepared(self, planned: dict[str, Any]) -> dict[str, Any]:
        """What create and update work from: values still unknown count as unset (as in apply)."""
        return self.complete({k: (None if isinstance(v, Unknown) else v) for k, v in planned.items()})

    def plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        out = self.complete(planned)
        if self.taggable:
            out["tags_all"] = merged_tags(self.clients(ctx).default_tags, out.get("tags"))
        out = self.refine_plan(ctx, prior, out)
        return keep_prior(self.schema, prior, super().plan(ctx, prior, out))

    def refine_plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, out: dict[str, Any]) -> dict[str, Any]:
        """Type-specific planning: computed values an update changes, equivalent JSON kept …"""
        return out

    # ---- tags ------------------------------------------------------------------------------

    def split_tags(self, ctx: AdapterContext, actual: dict[str, str], prior_tags: Any) -> dict[str, Any]:
        """``tags`` and ``tags_all`` from the tags AWS holds (see ``read_tags``)."""
        return read_tags(self.clients(ctx).default_tags, actual, prior_tags)

    def tag_changes(self, prior: dict[str, Any] | None, planned: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
        """(tags to set, tag keys to remove) to go from the prior ``tags_all`` to the planned one."""
        old = dict((prior or {}).get("tags_all") or {})
        new = dict(planned.get("tags_all") or {})
        return ({k: v for k, v in new.items() if old.get(k) != v}, sorted(set(old) - set(new)))


def merged_tags(default_tags: dict[str, str], tags: Any) -> Any:
    """``tags_all``: the provider's default tags under the resource's own."""
    if isinstance(tags, Unknown):
        return UNKNOWN
    return {**default_tags, **(tags or {})}


def read_tags(default_tags: dict[str, str], actual: dict[str, str], prior_tags: Any) -> dict[str, Any]:
    """Split the tags AWS holds into ``tags`` (the resource's) and ``tags_all`` (all of them).

    A tag equal to a default tag belongs to the provider, unless the resource itself declared it.
    ``tags`` stays null when it was null and nothing of the resource's own is there.
    """
    declared = prior_tags if isinstance(prior_tags, dict) else {}
    own = {k: v for k, v in actual.items() if k in declared or default_tags.get(k) != v}
    if not own and prior_tags is None:
        return {"tags": None, "tags_all": dict(actual)}
    return {"tags": own, "tags_all": dict(actual)}


def unique_name(prefix: str, suffix: str = "", limit: int = 255) -> str:
    """``name_prefix`` + a unique part (Terraform appends a 26-character timestamp-based id)."""
    import uuid  # not at module level: discovery (Tab completion) must stay cheap

    unique = uuid.uuid4().hex[:26]
    room = max(0, limit - len(suffix) - len(unique))
    return f"{prefix[:room]}{unique}{suffix}"


def keep_unset(prior: Any, actual: Any, default: Any) -> Any:
    """An optional argument AWS reports as its default: null stays null (no spurious diff)."""
    if prior is None and actual == default:
        return None
    return actual


def _complete_object(schema: dict[str, Any], value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    props: dict[str, Any] = schema.get("properties", {})
    out = dict(value)
    for name, prop in props.items():
        current = out.get(name)
        if current is None and "default" in prop:
            out[name] = prop["default"]
        elif isinstance(current, list) and isinstance(prop.get("items"), dict):
            out[name] = [_complete_object(prop["items"], item) for item in current]
        else:
            out[name] = current
    return out


def _blank_to_empty(value: Any, path: list[str]) -> None:
    """Set the string at ``path`` (through nested blocks, each a list of objects) to ``""`` where null."""
    if isinstance(value, list):
        for item in value:
            _blank_to_empty(item, path)
        return
    if not isinstance(value, dict):
        return
    if len(path) == 1:
        if value.get(path[0]) is None:
            value[path[0]] = ""
        return
    _blank_to_empty(value.get(path[0]), path[1:])


def exclusive(ctx: AdapterContext, attrs: dict[str, Any], first: str, second: str) -> None:
    """Refuse a configuration that sets two arguments that exclude each other (name and name_prefix)."""
    if attrs.get(first) is not None and attrs.get(second) is not None:
        raise AdapterError(f'"{first}" and "{second}" cannot both be set', address=ctx.address or None,
                           hint=f"Keep one: {second} generates a unique {first}.")


class FoundByName(AwsResource):
    """A type whose import ID the service assigns (an ARN, a queue URL): after a crash the object is
    looked up by its planned ``name`` (``id_for_name``), then imported and refreshed."""

    def id_for_name(self, ctx: AdapterContext, name: str) -> str | None:
        """The import ID of the object called ``name``; None when there is none."""
        raise NotImplementedError

    def findable(self, ctx: AdapterContext, identity: dict[str, Any]) -> bool:
        return known_strings(identity, "name") is not None

    def find(self, ctx: AdapterContext, identity: dict[str, Any]) -> dict[str, Any] | None:
        names = known_strings(identity, "name")
        resource_id = self.id_for_name(ctx, names[0]) if names is not None else None
        return None if resource_id is None else self.read(ctx, self.import_(ctx, resource_id))
