"""``ctl validate``: load, resolve, evaluate and schema-check a configuration, reporting everything.

Validation runs the same pipeline a plan does, without state: variables get their given values
(or stay unknown when none is given), resources are evaluated with their computed attributes
unknown, and every problem found along the way is reported at once, sorted by position.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from adapters.base import Provider, ResourceType
from adapters.registry import Registry
from engine import remote_state, schema
from engine.config.loader import ModuleLoaded, load_config
from engine.config.model import Module, ProviderConfig, Resource, Variable
from engine.config.names import check_provider_body
from engine.config.removals import check_removed_blocks
from engine.config.variables import RawValue, collect_values, resolve_root_variables
from engine.graph import Graph, build_graph
from engine.lang.evaluation import name_suggestion
from engine.lang.references import forget_remembered, references
from engine.plugins.functions import resolver as functions_resolver
from engine.state.gc_pause import gc_paused_then_frozen
from engine.walk.config import ConfigWalk, ResourceInstance, WalkHooks
from vocab.errors import CtlError, Diagnostics
from vocab.providers import ProviderSource
from vocab.values import UNKNOWN


@dataclass
class Loaded:
    """A configuration loaded, resolved and (when possible) evaluated."""

    root: Module | None
    graph: Graph | None
    walk: ConfigWalk | None
    diags: Diagnostics
    timings: dict[str, float] = field(default_factory=dict)
    modules: list[ModuleLoaded] = field(default_factory=list)  # each module's loading, for the trace

    def release(self) -> None:
        """Drop the configuration, its graph and its walk, for a caller that reads none of them again
        (and the references remembered of its expressions, which would keep them)."""
        self.root = self.graph = self.walk = None
        forget_remembered()


class ValidateHooks(WalkHooks):
    """Resources are their configuration with computed attributes unknown; schemas are checked."""

    def __init__(self, registry: Registry, diags: Diagnostics) -> None:
        self.registry = registry
        self.diags = diags

    def resource_value(self, inst: ResourceInstance) -> Any:
        res = inst.resource
        rt = self.registry.resource_type(res.type, res.mode)
        if rt is None or inst.config is None:
            return UNKNOWN
        config = schema.normalize(rt, inst.config)
        inst.checked = tuple(schema.check(rt, config, inst.address, res.body, res.type_at))
        self.diags.extend(inst.checked)
        for attr in rt.computed:
            if config.get(attr) is None:
                config[attr] = UNKNOWN
        return config


    checks_without_instances = True

    def without_instances(self, res: Resource, address: str, config: dict[str, Any]) -> None:
        """Names the type does not take, and arguments written as constants that do not fit it: what
        Terraform's check of the block finds whatever the variables (it checks them unknown)."""
        rt = self.registry.resource_type(res.type, res.mode)
        if rt is None:
            return
        # A value's problem is reported at its argument's expression: kept where that is a constant.
        constant = {str(attr.expr.rng) for attr in res.body.attributes.values() if not references(attr.expr)}
        for diag in schema.check(rt, schema.normalize(rt, config), address, res.body, res.type_at):
            names_only = diag.summary.startswith(("Unsupported argument", "Missing required argument"))
            if names_only or (diag.range is not None and str(diag.range) in constant):
                self.diags.extend([diag])


def check_resource_types(root: Module, registry: Registry, diags: Diagnostics,
                         deferred: frozenset[str] = frozenset()) -> None:
    """Every resource and data type must be provided by an installed adapter or selected plugin.

    A plugin's types are known once its schema is read, which ``ctl init`` leaves to the first
    command that needs it (as Terraform does); init passes those providers as ``deferred``. A type
    a plugin lacks is reported in Terraform's words, at the type label, as its validate and plan do.
    """
    for _, module in root.walk():
        for res in module.resources.values():
            local = res.provider[0] if res.provider else registry.provider_for_type(res.type)
            if local in deferred or registry.resource_type(res.type, res.mode) is not None:
                continue
            kind = "data source" if res.mode == "data" else "resource type"
            plugin = _plugin_source(registry, local)
            if plugin is not None:
                diags.error(
                    "Invalid data source" if res.mode == "data" else "Invalid resource type",
                    detail=f'The provider {plugin} does not support {kind} "{res.type}".'
                           f"{_type_suggestion(registry, local, res)}",
                    hint=f"Check the spelling; `ctl providers schema --json` lists the types {plugin} has.",
                    range=res.type_rng,
                )
                continue
            diags.error(
                f"Unsupported {kind} {res.type}: no adapter provides it",
                detail=f"No native adapter and no provider plugin selected by `ctl init` provides the "
                       f"{kind} \"{res.type}\".",
                hint="Check the spelling; for a Terraform provider, run `ctl init -plugin-dir DIR` (DIR "
                     "holding HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE_vVERSION).",
                range=res.type_rng,
            )


def _type_suggestion(registry: Registry, local: str, res: Resource) -> str:
    """Terraform's words after a type its provider lacks: the other mode's type of that name, else a
    name of the same mode within two edits (Terraform's didyoumean)."""
    provider = registry.provider(local)
    if provider is None:
        return ""
    same, other = ((provider.data_sources, provider.resources) if res.mode == "data"
                   else (provider.resources, provider.data_sources))
    if res.type in other:
        if res.mode == "data":
            return (f'\n\nDid you intend to use the managed resource type "{res.type}"? If so, declare this '
                    'using a "resource" block instead of a "data" block.')
        return (f'\n\nDid you intend to use the data source "{res.type}"? If so, declare this using a '
                '"data" block instead of a "resource" block.')
    near = name_suggestion(res.type, same)
    return f' Did you mean "{near}"?' if near else ""


def _plugin_source(registry: Registry, local: str) -> str | None:
    """The source address (as Terraform shows it) of the plugin serving ``local``, or None."""
    provider = registry.provider(local)
    if provider is None:
        return None
    from adapters.plugin.bridge import PluginProvider  # only when a type is missing

    return ProviderSource.parse(provider.source).for_display() if isinstance(provider, PluginProvider) else None


def check_provider_arguments(root: Module, registry: Registry, diags: Diagnostics) -> None:
    """Every provider block's arguments against its provider's schema, native or plugin, so that a
    misspelt one is refused here rather than dropped when the provider is configured."""
    for _, module in root.walk():
        for cfg in module.providers.values():
            provider = registry.provider(cfg.name)
            plugin_schema = getattr(provider, "provider_schema", None)  # a plugin's, in the provider schema form
            if plugin_schema is not None:
                block = plugin_schema.block
                names = frozenset((*(a.name for a in block.attributes), *(b.type_name for b in block.block_types)))
                check_provider_body(cfg.body, names, diags, native="")
                continue
            schema = provider.config_schema if provider is not None else {}
            if schema.get("additionalProperties", True) is False:
                check_provider_body(cfg.body, frozenset(schema.get("properties", {})), diags, native=cfg.name)


@gc_paused_then_frozen
def load_and_evaluate(
    root_dir: Path,
    *,
    var_args: list[tuple[str, str]] | None = None,
    environ: Mapping[str, str] | None = None,
    prompt: Callable[[Variable], str] | None = None,
    hooks_factory: Callable[[Registry, Diagnostics], WalkHooks] | None = None,
    registry: Registry | None = None,
    workspace: str = "default",
    require_all_variables: bool = False,
    plan_mode: bool = False,
    defaults_unknown: bool = False,
    decided: Mapping[str, Any] | None = None,
) -> Loaded:
    """The shared front half of validate and plan: everything up to an evaluated configuration.

    ``defaults_unknown`` is validate's rule, Terraform's: a root variable nobody gave a value is
    unknown (of its declared type), not its default, so a check holds for every value a plan could
    be given; a default of null would otherwise fail templates that no real plan would see.
    ``decided`` are root variable values already settled, a saved plan's: they are used instead of
    any given, so what the walk evaluates (provider blocks among it) is what the plan was made with.
    """
    # The parsed model is hundreds of thousands of small objects with almost no reference cycles:
    # the cyclic garbage collector would rescan them over and over (half the run time at 10,000
    # resources). It is paused while building, then what was built is frozen out of its view.
    return _load_and_evaluate(root_dir, var_args=var_args, environ=environ, prompt=prompt,
                              hooks_factory=hooks_factory, registry=registry, workspace=workspace,
                              require_all_variables=require_all_variables, plan_mode=plan_mode,
                              defaults_unknown=defaults_unknown, decided=decided)


def _load_and_evaluate(
    root_dir: Path,
    *,
    var_args: list[tuple[str, str]] | None,
    environ: Mapping[str, str] | None,
    prompt: Callable[[Variable], str] | None,
    hooks_factory: Callable[[Registry, Diagnostics], WalkHooks] | None,
    registry: Registry | None,
    workspace: str,
    require_all_variables: bool,
    plan_mode: bool,
    defaults_unknown: bool,
    decided: Mapping[str, Any] | None = None,
) -> Loaded:
    timings: dict[str, float] = {}
    modules: list[ModuleLoaded] = []
    t0 = time.perf_counter()
    root, diags = load_config(root_dir, loads=modules)
    timings["parse"] = time.perf_counter() - t0
    if diags.has_errors and not root.files:
        return Loaded(root, None, None, diags, timings, modules)
    from engine.plugins.registry import check_requirements, registry_for

    try:
        check_requirements(root_dir, root)
        registry = remote_state.install(registry or registry_for(root_dir))  # data.terraform_remote_state
    except CtlError as err:
        diags.add(err)
        return Loaded(root, None, None, diags, timings, modules)
    t1 = time.perf_counter()
    check_resource_types(root, registry, diags)
    check_provider_arguments(root, registry, diags)
    check_removed_blocks(root, diags)
    graph = build_graph(root, diags)
    timings["graph"] = time.perf_counter() - t1
    if graph.cycle is not None:
        return Loaded(root, graph, None, diags, timings, modules)
    t2 = time.perf_counter()
    try:
        given: dict[str, RawValue] = collect_values(root.dir, var_args or [], environ) if decided is None else \
            {name: RawValue(value=value, source="the saved plan") for name, value in decided.items()}
    except CtlError as err:
        diags.add(err)
        given = {}
    if not require_all_variables:
        for name, var in root.variables.items():
            if name not in given and (var.default is None or defaults_unknown):
                given[name] = RawValue(value=UNKNOWN, source="unknown")
    root_vars = resolve_root_variables(root.variables, given, diags, prompt=prompt)
    hooks = hooks_factory(registry, diags) if hooks_factory else ValidateHooks(registry, diags)
    walk = ConfigWalk(graph, root_vars, diags, root_dir=root.dir, workspace=workspace, hooks=hooks,
                      plan_mode=plan_mode, render_template=_template_renderer(),
                      provider_function=functions_resolver(registry))
    static_count = len(diags.items)
    walk.run()
    _drop_echoes(diags, static_count)
    timings["evaluate"] = time.perf_counter() - t2
    return Loaded(root, graph, walk, diags, timings, modules)


def _drop_echoes(diags: Diagnostics, static_count: int) -> None:
    """Evaluation errors at a place already reported (an undeclared reference) say nothing new."""
    reported = [d.range for d in diags.items[:static_count] if d.range is not None]
    if not reported:
        return

    def echoed(d: Any) -> bool:
        r = d.range
        return r is not None and any(
            s.filename == r.filename and s.start.byte <= r.start.byte <= s.end.byte
            and s.start.line == r.start.line for s in reported
        )

    diags.items[static_count:] = [d for d in diags.items[static_count:] if not echoed(d)]


def _template_renderer() -> Callable[..., Any]:
    from engine.lang.templatefile import render

    return render


def validate(root_dir: Path, **kw: Any) -> Loaded:
    """Everything ``ctl validate`` reports, as diagnostics (root variables not given are unknown):
    the configuration's own problems, then what each provider's checks find in its resources."""
    from engine.plugins.registry import registry_for

    registry = kw.pop("registry", None) or registry_for(root_dir)
    loaded = load_and_evaluate(root_dir, defaults_unknown=True, registry=registry, **kw)
    if loaded.walk is not None and loaded.root is not None:
        check_with_providers(loaded, registry)
    return loaded


def check_with_providers(loaded: Loaded, registry: Registry) -> None:
    """Terraform's validate asks each provider to check its own configuration blocks
    (ValidateProviderConfig) and every resource's and data source's arguments (ValidateResourceConfig,
    ValidateDataResourceConfig) with the values a plan could have unknown, so the provider's own
    validators refuse a bad value here rather than at plan. Instances of one block usually share
    their problems; each is reported once."""
    assert loaded.walk is not None and loaded.root is not None
    asked: dict[str, _Asked] = {}
    for path, module in loaded.root.walk():
        for config_key, cfg in module.providers.items():
            provider = registry.provider(cfg.name)
            value = loaded.walk.provider_configs.get((path, config_key))
            if provider is None or value is None:
                continue
            asked.setdefault(provider.name, _Asked(provider)).blocks.append((cfg, value))
    for instances in loaded.walk.instances.values():
        for inst in instances:
            res = inst.resource
            rt = registry.resource_type(res.type, res.mode)
            if rt is None or inst.config is None or any(d.severity == "error" for d in inst.checked or ()):
                continue
            provider = registry.provider_serving(res.type, res.mode)
            if provider is None:
                continue
            entry = asked.setdefault(provider.name, _Asked(provider))
            entry.configs.add(rt, inst)
    seen: set[tuple[str, str, str]] = set()
    for entry in asked.values():
        found, own = entry.provider.validate_arguments(loaded.root.dir, entry.configs,
                                                       [value for _, value in entry.blocks])
        for (cfg, _), problems in zip(entry.blocks, own, strict=True):
            address = entry.provider.state_name()
            loaded.diags.extend(schema.provider_diagnostics(problems, address, cfg.body, cfg.rng, prefix=False))
        for inst, problems in zip(entry.configs.instances, found, strict=True):
            res = inst.resource
            for diag in schema.provider_diagnostics(problems, inst.address, res.body, res.type_at):
                key = (diag.summary, diag.detail.replace(inst.address, ""), str(diag.range))
                if key not in seen:
                    seen.add(key)
                    loaded.diags.extend([diag])


class _Configs(Sequence[tuple[ResourceType, dict[str, Any]]]):
    """Instances' arguments as a provider's check reads them, each normalized only when read.

    A native provider has nothing to add to the schema checks already made and reads none of them;
    a plugin reads one at a time. Normalized all at once, they were a copy of every instance's
    arguments beside the walk's, the peak of a large validate.
    """

    def __init__(self) -> None:
        self._types: list[ResourceType] = []
        self.instances: list[ResourceInstance] = []  # whose arguments they are, in order

    def add(self, rt: ResourceType, inst: ResourceInstance) -> None:
        self._types.append(rt)
        self.instances.append(inst)

    def __len__(self) -> int:
        return len(self.instances)

    @overload
    def __getitem__(self, index: int) -> tuple[ResourceType, dict[str, Any]]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[ResourceType, dict[str, Any]]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        rt, config = self._types[index], self.instances[index].config
        assert config is not None  # only instances with arguments are added
        return rt, schema.normalize(rt, config)


@dataclass
class _Asked:
    """What one provider is asked to check: its configuration blocks, then its resources' arguments."""

    provider: Provider
    blocks: list[tuple[ProviderConfig, dict[str, Any]]] = field(default_factory=list)
    configs: _Configs = field(default_factory=_Configs)
