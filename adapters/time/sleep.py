"""``time_sleep``: wait on create and/or destroy, typically to let an eventually consistent API settle.

As in Terraform's time provider: changing a duration is an in-place update that does not wait
(the new ``destroy_duration`` only matters once it is in state), ``triggers`` force replacement
(and so a new wait), and the object lives only in state. Both waits end early, with an error,
when the run is interrupted, so Ctrl-C during a 30-minute sleep takes effect at once.
"""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete, string_map
from adapters.base import AdapterContext, AdapterError, ResourceType
from adapters.time import duration
from adapters.time.schemas import SLEEP_SCHEMA
from vocab.values import deep_unmark


class TimeSleep(ResourceType):
    """A pause in the apply; ``id`` is the creation time (RFC 3339, UTC)."""

    state_only = True  # nothing outside state: an interrupted create left nothing to find

    name = "time_sleep"
    schema = SLEEP_SCHEMA
    computed = frozenset({"id"})
    replace_on = frozenset({"triggers"})

    def plan(
        self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]
    ) -> dict[str, Any]:
        return super().plan(ctx, prior, self._normalized(planned))

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self._normalized(planned)
        self._wait(ctx, out, "create_duration")
        out["id"] = _now_rfc3339()
        return out

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self._normalized(planned)
        out["id"] = prior.get("id")
        return out

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        self._wait(ctx, prior, "destroy_duration")

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ``CREATE,DESTROY[,KEY=VALUE...]``, at least one duration non-empty (e.g. ``30s,``)."""
        parts = resource_id.split(",")
        if len(parts) < 2 or not (parts[0] or parts[1]):
            raise AdapterError(
                f"cannot import time_sleep {resource_id!r}",
                hint='use CREATE_DURATION,DESTROY_DURATION[,KEY=VALUE...], e.g. "30s," or ",1m"',
                address=ctx.address,
            )
        triggers: dict[str, str] = {}
        for item in parts[2:]:
            key, eq, value = item.partition("=")
            if not eq:
                raise AdapterError(
                    f"time_sleep import trigger {item!r} is not KEY=VALUE", address=ctx.address
                )
            triggers[key] = value
        out = complete(
            self.schema,
            {
                "create_duration": parts[0] or None,
                "destroy_duration": parts[1] or None,
                "triggers": triggers or None,
                "id": _now_rfc3339(),
            },
        )
        for name in ("create_duration", "destroy_duration"):
            if out[name] is not None:
                _seconds(ctx, name, out[name])
        return out

    def _normalized(self, attrs: dict[str, Any]) -> dict[str, Any]:
        out = complete(self.schema, attrs)
        out["triggers"] = string_map(out.get("triggers"))
        return out

    def _wait(self, ctx: AdapterContext, attrs: dict[str, Any], name: str) -> None:
        plain, _ = deep_unmark(attrs.get(name))
        if not plain:
            return
        if not duration.sleep(_seconds(ctx, name, plain), ctx.cancelled):
            raise AdapterError(
                "interrupted",
                detail=f"the {name} of {plain} was cut short because the run was interrupted",
                address=ctx.address,
            )


def _seconds(ctx: AdapterContext, name: str, text: Any) -> float:
    try:
        return duration.parse_duration(str(text))
    except ValueError as exc:
        raise AdapterError(f"{name}: {exc}", address=ctx.address) from exc


def _now_rfc3339() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
