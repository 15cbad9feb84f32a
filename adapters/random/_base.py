"""What every ``random_*`` type shares: the value lives only in state.

Nothing outside ctl holds a random value, so refresh returns the state unchanged, delete has
nothing to remove, and (since every argument, keepers included, forces replacement) an update can
only carry state-only changes.
"""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete, string_map
from adapters.base import AdapterContext, AdapterError, ResourceType


class RandomResource(ResourceType):
    """Base of the random types: full attribute sets in plan and state, keepers as strings."""

    state_only = True  # nothing outside state: an interrupted create left nothing to find

    def plan(
        self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]
    ) -> dict[str, Any]:
        return super().plan(ctx, prior, self._normalized(planned))

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        out = self._normalized(planned)
        out.update({name: prior.get(name) for name in self.computed})
        return out

    def _normalized(self, attrs: dict[str, Any]) -> dict[str, Any]:
        out = complete(self.schema, attrs)
        out["keepers"] = string_map(out.get("keepers"))
        return out


def whole_number(ctx: AdapterContext, name: str, value: Any) -> int:
    """An integer argument as ``int``; the expression language may hand over ``5.0``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise AdapterError(f"{name} must be a whole number; got {value!r}", address=ctx.address)
    return int(value)
