"""``ctl import``: adopting an existing object at an address the configuration declares."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.locking.hold import locked
from engine.locking.options import LockOptions
from engine.plugins.registry import registry_for
from engine.session import manager_for, open_store, selected_workspace
from engine.state.address import InstanceAddress
from engine.state.model import InstanceState, encode_private
from engine.state_tools.access import load_for_change
from vocab.errors import CtlError


class ImportRefused(CtlError):
    """``ctl import`` cannot adopt the object at that address."""


@dataclass(frozen=True)
class Imported:
    address: str
    type: str
    attributes: dict[str, Any]  # sensitive values marked


def import_resource(root_dir: Path, address: str, resource_id: str, lock_opts: LockOptions, *,
                    var_args: list[tuple[str, str]] | None = None, prompt: Any = None,
                    allow_missing_config: bool = False) -> Imported:
    """``ctl import``: adopt an existing object at an address the configuration declares.

    The object is read through its adapter (``import_``, then a refresh that must find it) and
    stored with the provider and schema version a create would have recorded. With
    ``allow_missing_config`` (Terraform's ``-allow-missing-config``) an address without a resource
    block is imported with its type's default provider configuration; the next plan destroys it
    unless a block is written.
    """
    from engine.plan.diff import mark_sensitive, stored_marks
    from engine.providers import Providers
    from engine.validate import load_and_evaluate
    from vocab.errors import DiagnosticsError

    addr = InstanceAddress.parse(address)
    if addr.mode != "managed":
        raise ImportRefused(f"Cannot import {address}: only managed resources can be imported",
                            hint="Data sources are read on every plan; they need no import.")
    registry = registry_for(root_dir)
    workspace = selected_workspace(root_dir)
    loaded = load_and_evaluate(root_dir, var_args=var_args, prompt=prompt, registry=registry,
                               workspace=workspace, require_all_variables=True)
    if loaded.diags.has_errors or loaded.root is None or loaded.walk is None:
        raise DiagnosticsError(loaded.diags.items)
    path = tuple(name for name, _ in addr.module)
    resource = next((m.resources.get(f"{addr.type}.{addr.name}") for p, m in loaded.root.walk() if p == path),
                    None)
    if resource is None and not allow_missing_config:
        raise ImportRefused(
            f'Resource address "{addr.resource_str}" does not exist in the configuration',
            detail=f'Before importing it, write its block in the configuration, for example:\n\n'
                   f'resource "{addr.type}" "{addr.name}" {{\n  # (resource arguments)\n}}',
            hint="Import adopts an object for a resource the configuration already declares.")
    declared = [i for insts in loaded.walk.instances.values() for i in insts if i.resource is resource]
    if resource is not None and not any(_declares(i.scope.key, i.key, addr) for i in declared):
        names = ", ".join(i.address for i in declared) or "no instances"
        raise ImportRefused(f"{address} is not an instance the configuration declares",
                            detail=f"The configuration declares: {names}.",
                            hint="Import to one of those addresses, or change count/for_each first.")
    rt = registry.resource_type(addr.type, "managed")
    if rt is None:  # load_and_evaluate reports the types of the blocks; this one has none
        raise ImportRefused(f'Cannot import {address}: no adapter or provider serves the type "{addr.type}"',
                            hint="Check the type's spelling, and that its provider is required and initialized.")
    providers = Providers(registry, loaded.walk.provider_configs, loaded.root.dir)
    store = open_store(root_dir, loaded.root)
    manager = manager_for(store, workspace, root_dir)
    with locked(store, workspace, "OperationTypeImport", lock_opts):
        state = load_for_change(manager, lock_opts.enabled)
        if state.instance(addr) is not None:
            raise ImportRefused(f"Resource already managed by ctl: {addr}",
                                detail="The state already holds an object at this address.",
                                hint=f"To import to this address, first remove it with `ctl state rm '{addr}'`.")
        ctx = providers.context(rt, str(addr), path, resource)
        try:
            attrs = rt.import_(ctx, resource_id)
            found = rt.read(ctx, attrs)
        except CtlError:
            raise
        except Exception as exc:  # an SDK failure: reported against the address
            raise ImportRefused(f"Importing {addr} failed: {exc}", address=str(addr),
                                hint="Check the ID and the adapter's import format.") from None
        if found is None:
            raise ImportRefused(f'Cannot import non-existent remote object: {addr.type} "{resource_id}"',
                                hint="Check that the object exists and that the ID is right.")
        marked = stored_marks(mark_sensitive(found, rt), rt)
        state.set_instance(addr, InstanceState.from_marked(marked, schema_version=rt.schema_version,
                                                           private=encode_private(ctx.new_private)),
                           provider=providers.state_provider(rt, resource))
        manager.persist(state)
    return Imported(str(addr), addr.type, marked)


def _declares(module_key: tuple[tuple[str, Any], ...], key: Any, addr: InstanceAddress) -> bool:
    """Does a configured instance (keys possibly not known yet) stand for ``addr``?"""
    from engine.walk.addresses import UnknownKey

    def same(declared: Any, given: Any) -> bool:
        return isinstance(declared, UnknownKey) or (declared == given and type(declared) is type(given))

    if len(module_key) != len(addr.module):
        return False
    steps = zip(module_key, addr.module, strict=True)
    return all(a == b and same(k, g) for (a, k), (b, g) in steps) and same(key, addr.key)


__all__ = ["ImportRefused", "Imported", "import_resource"]
