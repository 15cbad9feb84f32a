"""``ctl state replace-provider FROM TO``: point the state's resources at another provider source.

The state names each resource's provider by source address (``provider["registry.terraform.io/
hashicorp/aws"]``, with an alias or a module path around it). When a provider moves (a fork, a
private registry, a namespace rename) the configuration's ``required_providers`` changes and the
state must follow; Terraform's command of the same name does this, and so does this one: every
resource whose provider is FROM gets TO, alias and module kept, under the workspace's lock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from engine.locking.options import LockOptions
from engine.state.model import ResourceState, State
from engine.state_tools.access import edit_state
from vocab.errors import CtlError
from vocab.providers import ProviderSource

# module.x.provider["SOURCE"].alias: the part between the quotes is replaced.
_PROVIDER = re.compile(r'^(?P<before>(?:.*\.)?provider\[")(?P<source>[^"]+)(?P<after>"\].*)$')


class ReplaceCancelled(CtlError):
    """The user did not confirm the replacement."""


def replace_provider(root_dir: Path, from_source: str, to_source: str, lock: LockOptions, *,
                     confirm: Callable[[ProviderSource, ProviderSource, list[str]], bool]) -> list[str]:
    """Replace provider ``from_source`` by ``to_source``; the addresses of the resources changed.

    ``confirm`` is asked (with the resources that would change) while the lock is held, so what
    was confirmed is what is written; nothing is written when there is nothing to change or the
    answer is no (``ReplaceCancelled``).
    """
    old, new = ProviderSource.parse(from_source), ProviderSource.parse(to_source)

    def change(state: State) -> list[str]:
        matching = [r for r in state.resources if _source_of(r) == old]
        addresses = [_address(r) for r in matching]
        if not matching:
            return []
        if not confirm(old, new, addresses):
            raise ReplaceCancelled("Cancelled: the state was not changed")
        for res in matching:
            found = _PROVIDER.match(res.provider)
            assert found is not None  # _source_of matched it
            res.provider = f"{found['before']}{new}{found['after']}"
        return addresses

    return edit_state(root_dir, "OperationTypeReplaceProvider", lock, change)


def _source_of(res: ResourceState) -> ProviderSource | None:
    found = _PROVIDER.match(res.provider)
    if found is None:
        return None
    try:
        return ProviderSource.parse(found["source"])
    except CtlError:  # terraform.io/builtin/terraform and other sources no registry serves
        return None


def _address(res: ResourceState) -> str:
    base = f"{'data.' if res.mode == 'data' else ''}{res.type}.{res.name}"
    return f"{res.module}.{base}" if res.module else base


__all__ = ["ReplaceCancelled", "replace_provider"]
