"""The names a console expression sees: the configuration evaluated against the state, read-only.

``terraform console`` evaluates expressions in the root module with resources and data sources as
the state recorded them. Here the configuration goes through the same loading and evaluation every
command uses (``load_and_evaluate``: variables from ``--var``, ``--var-file``, ``*.tfvars`` and the
environment, then locals, modules and outputs in dependency order); only what a resource *is* to
the expressions that refer to it differs: its object in state, or unknown when the state has none.

The state is read the way ``ctl output`` reads it: no lock is taken, nothing is ever written, and no
provider is asked anything. Root variables nobody gave a value are unknown, as in Terraform's
console (which never prompts for them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.registry import Registry
from engine import remote_state
from engine.console.infer import Typer
from engine.graph import ModPath, build_graph
from engine.lang.eval import EvalContext
from engine.lang.templatefile import render
from engine.plan.diff import mark_sensitive
from engine.plugins.functions import resolver as functions_resolver
from engine.plugins.registry import registry_for
from engine.session import selected_workspace
from engine.state.model import State
from engine.state_tools.access import read_state
from engine.validate import Loaded, load_and_evaluate
from engine.walk.config import ConfigWalk, ResourceInstance, WalkHooks
from vocab.errors import Diagnostic, Diagnostics, DiagnosticsError
from vocab.values import UNKNOWN


class StateValues(WalkHooks):
    """Each resource instance is its object in state (sensitive where the state or the schema says
    so, as a plan reads it); one the state lacks is not known yet."""

    def __init__(self, state: State, registry: Registry) -> None:
        self.state = state
        self.registry = registry

    def resource_value(self, inst: ResourceInstance) -> Any:
        found = self.state.instance(inst.address)
        if found is None:
            return UNKNOWN
        rt = self.registry.resource_type(inst.resource.type, inst.resource.mode)
        attributes = found.marked_attributes()
        return mark_sensitive(attributes, rt) if rt is not None and isinstance(attributes, dict) else attributes


@dataclass
class ConsoleScope:
    """Everything one console session evaluates against."""

    ctx: EvalContext  # the root module's scope: var, local, module, data, resources, path, terraform
    typer: Typer  # tells lists from tuples and maps from objects, for printing
    state_resources: tuple[str, ...] = ()  # root module resources in state (``data.x.y``), for completion
    warnings: list[Diagnostic] = field(default_factory=list)


def open_scope(root_dir: Path, *, var_args: list[tuple[str, str]] | None = None,
               environ: Mapping[str, str] | None = None) -> ConsoleScope:
    """Load, evaluate and read the state once; configuration errors raise with every diagnostic.

    A directory without configuration is fine, as for Terraform: functions, ``path`` and
    ``terraform.workspace`` still work.
    """
    state = read_state(root_dir)
    workspace = selected_workspace(root_dir)
    registry = remote_state.install(registry_for(root_dir))
    loaded = load_and_evaluate(root_dir, var_args=var_args, environ=environ, registry=registry,
                               workspace=workspace, hooks_factory=lambda _r, _d: StateValues(state, registry))
    if loaded.root is not None and not loaded.root.files:
        loaded = _without_configuration(loaded, root_dir, workspace, registry)
    if loaded.diags.has_errors or loaded.walk is None:
        raise DiagnosticsError(loaded.diags.errors() or loaded.diags.items)
    walk = loaded.walk

    def scope_ctx(path: ModPath) -> EvalContext | None:
        scopes = walk.scopes_at(path)
        return scopes[0].ctx if scopes else None

    root_ctx = scope_ctx(())
    assert root_ctx is not None
    resources = tuple(sorted({addr.resource_str for addr, _ in state.instances() if not addr.module}))
    return ConsoleScope(root_ctx, Typer(loaded.graph, registry, scope_ctx), resources,
                        loaded.diags.warnings())


def _without_configuration(loaded: Loaded, root_dir: Path, workspace: str, registry: Registry) -> Loaded:
    """An empty root module, evaluated: the scope of a directory that has no ``*.tf`` files."""
    assert loaded.root is not None
    diags = Diagnostics()
    graph = build_graph(loaded.root, diags)
    walk = ConfigWalk(graph, {}, diags, root_dir=root_dir, workspace=workspace, render_template=render,
                      provider_function=functions_resolver(registry))
    walk.run()
    return Loaded(loaded.root, graph, walk, diags)


__all__ = ["ConsoleScope", "StateValues", "open_scope"]
