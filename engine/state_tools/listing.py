"""``ctl state list`` and ``ctl state show``: which instances the state holds, and one of them in full."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.state.address import InstanceAddress, parse_any
from engine.state.model import InstanceState, State
from engine.state_tools.addresses import LIST_HINT, StateAddressNotFound


def list_addresses(state: State, patterns: list[str], resource_id: str | None = None) -> list[str]:
    """Instance addresses under any of ``patterns`` (all without), root module first, then by depth."""
    from engine.plan.targets import matches

    for p in patterns:
        parse_any(p)  # a malformed filter is an error, not an empty result
    out = []
    for addr, inst in state.instances():
        text = str(addr)
        if patterns and not any(matches(text, p) for p in patterns):
            continue
        if resource_id is not None and str(inst.attributes.get("id")) != resource_id:
            continue
        out.append((len(addr.module), text))
    return [text for _, text in sorted(out, key=lambda x: x[0])]


@dataclass(frozen=True)
class ShownInstance:
    address: str
    provider: str
    instance: InstanceState


def find_instance(state: State, address: str) -> ShownInstance:
    """The one instance ``address`` names; a resource address is accepted when it has one instance."""
    addr = InstanceAddress.parse(address)
    res = state.resource(addr)
    inst = res.get(addr.key) if res is not None else None
    if res is not None and inst is None and addr.key is None:
        current = [i for i in res.instances if i.deposed is None]
        if len(current) == 1:
            inst = current[0]
            addr = InstanceAddress(addr.module, addr.mode, addr.type, addr.name, inst.index_key)
        elif current:
            names = ", ".join(str(a) for a, _ in state.instances() if a.resource_key == addr.resource_key)
            raise StateAddressNotFound(
                f"{address} has {len(current)} instances; name one of them",
                detail=f"Instances: {names}", hint=f"For example: ctl state show '{names.split(', ')[0]}'",
            )
    if res is None or inst is None:
        raise StateAddressNotFound(f'No instance found for the given address "{address}"', hint=LIST_HINT)
    return ShownInstance(str(addr), res.provider, inst)


def instance_json(shown: ShownInstance, *, show_sensitive: bool) -> dict[str, Any]:
    """One instance in the resource shape of ``ctl show --json`` (Terraform's state representation)."""
    from engine.plan.json_view import provider_name, value_shapes

    addr = InstanceAddress.parse(shown.address)
    values, _, sensitive = value_shapes(shown.instance.marked_attributes(), show_sensitive=show_sensitive)
    doc: dict[str, Any] = {"address": shown.address, "mode": addr.mode, "type": addr.type, "name": addr.name}
    if addr.key is not None:
        doc["index"] = addr.key
    doc.update(provider_name=provider_name(shown.provider), schema_version=shown.instance.schema_version,
               values=values, sensitive_values=sensitive)
    if shown.instance.dependencies:
        doc["depends_on"] = list(shown.instance.dependencies)
    if shown.instance.status == "tainted":
        doc["tainted"] = True
    return doc


__all__ = ["ShownInstance", "find_instance", "instance_json", "list_addresses"]
