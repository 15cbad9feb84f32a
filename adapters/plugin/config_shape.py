"""The proposed new state a plan request carries (Terraform's ``objchange.ProposedNew``).

The configuration is first given its block's full shape by ``vocab.schema.decode.normalize_config``,
the decoder every resource's arguments are checked with; ``proposed_new`` then merges the prior state
in for computed attributes the configuration leaves unset.
"""

from __future__ import annotations

from typing import Any

from vocab.schema.form import GROUP, LIST, MAP, SET, SINGLE, Block, NestedBlock
from vocab.values import Marked, SetValue, Unknown


def proposed_new(block: Block, prior: Any, config: dict[str, Any]) -> dict[str, Any]:
    """The proposed new state: the normalised ``config`` with computed attributes it leaves null
    taken from ``prior`` (Terraform's ``objchange.ProposedNew``), block by block."""
    prior_obj = prior if isinstance(prior, dict) else {}
    out: dict[str, Any] = {}
    for a in block.attributes:
        configured = config.get(a.name)
        if a.computed and configured is None:
            out[a.name] = prior_obj.get(a.name)
        else:
            out[a.name] = configured
    for b in block.block_types:
        out[b.type_name] = _proposed_block(b, prior_obj.get(b.type_name), config.get(b.type_name))
    return out


def _proposed_block(b: NestedBlock, prior: Any, config: Any) -> Any:
    if config is None or isinstance(config, Unknown | Marked):
        return config
    if b.nesting in (SINGLE, GROUP):
        return proposed_new(b.block, prior, config)
    if b.nesting == MAP:
        prior_map = prior if isinstance(prior, dict) else {}
        return {k: proposed_new(b.block, prior_map.get(k), v) for k, v in config.items()}
    prior_items = prior if isinstance(prior, list) else []
    if b.nesting == LIST:
        return [
            proposed_new(b.block, prior_items[i] if i < len(prior_items) else None, v)
            for i, v in enumerate(config)
        ]
    assert b.nesting == SET
    unused = list(prior_items)
    out = []
    for v in config:
        match = next((p for p in unused if _same_configured(b.block, p, v)), None)
        if match is not None:
            unused.remove(match)
        out.append(proposed_new(b.block, match, v))
    return SetValue(out)


def _same_configured(block: Block, prior: Any, config: dict[str, Any]) -> bool:
    """A prior set element corresponds to a configured one when every non-computed attribute
    agrees (computed ones may differ: the provider filled them in)."""
    if not isinstance(prior, dict):
        return False
    return all(prior.get(a.name) == config.get(a.name) for a in block.attributes if not a.computed)
