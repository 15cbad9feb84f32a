"""``import`` blocks: objects adopted while planning, so the plan shows what adopting them means.

Each block's object is read through its adapter (``import_``, then a read that must find it) and put
into the plan's prior state, as if it had always been managed; the walk then plans it against its
configuration like any other object (no change, or an update), and the change carries the ID it
was imported from. An address the state already holds is left alone: the import happened before.
Apply records the adopted objects with the rest. As in Terraform, only the root module's blocks count.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from adapters.base import ResourceType
from adapters.registry import Registry
from engine.config.model import ImportBlock, Module, Resource
from engine.lang import ast
from engine.lang.eval import EvalContext, evaluate
from engine.lang.evaluation import iteration
from engine.limiter import Limiter
from engine.plan.diff import mark_sensitive, stored_marks
from engine.providers import Providers
from engine.state.address import InstanceAddress
from engine.state.model import InstanceState, State, encode_private
from vocab.errors import CtlError, Diagnostics
from vocab.values import contains_unknown, deep_unmark


@dataclass(frozen=True)
class Target:
    """One import block, its address parsed and its ID evaluated."""

    address: InstanceAddress
    id: str
    block: ImportBlock
    resource: Resource | None  # None: the configuration has no block for it (yet)


def import_targets(root: Module, ctx: EvalContext, diags: Diagnostics) -> list[Target]:
    """The root module's import blocks; child modules' blocks are errors, as in Terraform."""
    for path, module in root.walk():
        if path:
            for block in module.imports:
                diags.error("Import blocks are only allowed in the root module", range=block.rng,
                            hint="Move the block to the root module and address the instance through the module.")
    out = []
    seen: dict[str, ImportBlock] = {}
    for block, to, scope in _expanded(root.imports, ctx, diags):
        try:
            addr = InstanceAddress.parse(to)
        except (CtlError, ValueError):
            diags.error(f'"{to}" is not a resource instance address', range=block.rng)
            continue
        if addr.mode != "managed":
            diags.error("Only managed resources can be imported", range=block.rng,
                        hint="Data sources are read on every plan; they need no import.")
            continue
        if str(addr) in seen:
            diags.error(f"Two import blocks name {addr}", range=block.rng)
            continue
        seen[str(addr)] = block
        value = deep_unmark(evaluate(block.id, scope))[0]
        if not isinstance(value, str) or contains_unknown(value) or not value:
            diags.error(f"The import ID of {addr} must be a known, non-empty string", range=block.id.rng,
                        hint="Use a literal, a variable or a local value; not a resource attribute.")
            continue
        out.append(Target(addr, value, block, _resource(root, addr)))
    return out


def _expanded(blocks: list[ImportBlock], ctx: EvalContext,
              diags: Diagnostics) -> Iterator[tuple[ImportBlock, str, EvalContext]]:
    """Each block's address and the scope its ID is read in: a block with ``for_each`` once per
    element, with ``each`` bound (a map by its keys, a set by its values, a list by its indexes,
    as OpenTofu and Terraform take them), its address's keys evaluated there."""
    for block in blocks:
        if block.for_each is None or block.to_expr is None:
            yield block, block.to, ctx
            continue
        try:
            collection = deep_unmark(evaluate(block.for_each, ctx))[0]
            if contains_unknown(collection):
                diags.error("Invalid for_each argument", range=block.for_each.rng,
                            detail="The for_each value of an import block must be known while planning.")
                continue
            for key, value in iteration(collection, block.for_each, "'for_each' argument"):
                scope = ctx.child({"each": {"key": key, "value": value}})
                to = _address_text(block.to_expr, scope)
                if to is None:
                    diags.error("Invalid import address", range=block.to_expr.rng,
                                detail="The import block's to argument must be a resource instance address whose "
                                       "keys are strings or whole numbers.")
                    break
                yield block, to, scope
        except CtlError as err:
            diags.add(err)


def _address_text(expr: ast.Expr, scope: EvalContext) -> str | None:
    """The instance address ``expr`` names (``random_id.x[each.key]``), its keys evaluated in ``scope``."""
    if not isinstance(expr, ast.ScopeTraversal):
        return None
    text = expr.root
    for step in expr.steps:
        if isinstance(step, ast.AttrStep):
            text += "." + step.name
            continue
        if not isinstance(step, ast.IndexStep):
            return None
        key = deep_unmark(evaluate(step.key, scope))[0]
        if isinstance(key, str):
            text += f"[{json.dumps(key, ensure_ascii=False)}]"
        elif isinstance(key, int | float) and not isinstance(key, bool) and float(key).is_integer():
            text += f"[{int(key)}]"
        else:
            return None
    return text


def _resource(root: Module, addr: InstanceAddress) -> Resource | None:
    path = tuple(name for name, _ in addr.module)
    return next((m.resources.get(f"{addr.type}.{addr.name}") for p, m in root.walk() if p == path), None)


def read_target(target: Target, registry: Registry, providers: Providers) -> tuple[ResourceType, dict[str, Any], Any]:
    """The object the ID names, sensitive values marked, with the provider's private data."""
    addr = target.address
    rt = registry.resource_type(addr.type, "managed")
    if rt is None:
        raise CtlError(f"Cannot import {addr}: no adapter provides {addr.type}", range=target.block.rng)
    ctx = providers.context(rt, str(addr), tuple(n for n, _ in addr.module), target.resource)
    try:
        found = rt.read(ctx, rt.import_(ctx, target.id))
    except CtlError as err:
        err.range = err.range or target.block.rng
        raise
    except Exception as exc:  # an SDK failure: reported against the block
        raise CtlError(f"Importing {addr} failed: {exc}", range=target.block.rng,
                       hint="Check the ID and the adapter's import format.") from None
    if found is None:
        raise CtlError(f'Cannot import non-existent remote object: {addr.type} "{target.id}"',
                       range=target.block.rng, hint="Check that the object exists and that the ID is right.")
    return rt, mark_sensitive(found, rt), ctx.new_private


def adopt(targets: list[Target], prior: State, registry: Registry, providers: Providers,
          diags: Diagnostics, limiter: Limiter) -> dict[str, str]:
    """Read every target the state lacks into ``prior``; returns ``{address: id}`` of those adopted.
    Each read holds a slot of the run's ``limiter``, as every provider operation of a run does."""
    adopted: dict[str, str] = {}
    for target in targets:
        addr = target.address
        if prior.instance(addr) is not None:
            continue
        if target.resource is None:
            diags.error(f"Configuration for import target does not exist: {addr.resource_str}",
                        range=target.block.rng,
                        hint="Write its resource block, or run `ctl plan --generate-config-out=FILE` to have "
                             "one written from the imported object.")
            continue
        try:
            with limiter:
                rt, attrs, private = read_target(target, registry, providers)
        except CtlError as err:
            diags.add(err)
            continue
        prior.set_instance(addr, InstanceState.from_marked(stored_marks(attrs, rt), schema_version=rt.schema_version,
                                                           private=encode_private(private)),
                           provider=providers.state_provider(rt, target.resource))
        adopted[str(addr)] = target.id
    return adopted
