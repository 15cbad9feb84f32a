"""Evaluating a configuration: expanding modules and resources into instances, in dependency order.

The walk is a set of small per-node steps (a variable, a local, a resource's instances …) over the
static graph of ``engine.graph``. ``validate`` and ``plan`` drive the steps in topological order on
one thread; ``apply`` drives the same steps from the concurrent walker, so a resource's arguments
are evaluated only after everything they refer to has its final value.

What a resource "is" to the expressions that refer to it is up to the caller (``WalkHooks``): its
configuration with computed attributes unknown (validate), its planned value (plan), or the value
the adapter returned (apply).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.config.language import MODULE_META
from engine.config.model import Check, Local, Module, ModuleCall, Output, ProviderConfig, Resource, Variable
from engine.config.shape import brace_after
from engine.config.variables import check_validations, finalize
from engine.graph import RESOURCE, Graph, ModPath, Node
from engine.lang import ast
from engine.lang.conditions import failed_condition
from engine.lang.eval import EvalContext, evaluate
from engine.lang.evaluation import name_suggestion
from engine.lang.functions import FunctionContext
from engine.lang.syntax import Body
from engine.walk.addresses import (
    UNKNOWN_KEY,
    format_key,
    instance_address,
    module_address,
)
from engine.walk.expansion import expand
from engine.walk.scopes import (  # noqa: F401  (ResourceInstance, WalkHooks: re-exported)
    ModeWatch,
    ModuleScope,
    ResourceInstance,
    WalkHooks,
    _module_value,
    _with_unknown_computed,
)
from vocab.errors import CtlError, Diagnostics
from vocab.types import plain_data
from vocab.values import (
    SENSITIVE,
    UNKNOWN,
    Unknown,
    is_marked,
    mark,
    unmark,
)


class ConfigWalk:
    """Evaluates the nodes of a configuration graph, instance by instance."""

    def __init__(
        self,
        graph: Graph,
        root_vars: dict[str, Any],
        diags: Diagnostics,
        *,
        root_dir: Path,
        workspace: str = "default",
        hooks: WalkHooks | None = None,
        plan_mode: bool = False,
        plan_timestamp: str = "",
        render_template: Callable[..., Any] | None = None,
        provider_function: Callable[[str], Any] | None = None,
        earlier: ConfigWalk | None = None,
    ) -> None:
        self.graph = graph
        # A finished walk of the same graph with the same root variables (the plan's validate walk):
        # the resources whose arguments cannot come out differently here (``stable_resources``)
        # take over its evaluated arguments and schema findings instead of repeating that work.
        self.earlier = earlier
        self.reusable = earlier.stable_resources() if earlier is not None else frozenset()
        self._stable: frozenset[Node] | None = None
        self.order: list[Node] = []  # the order ``run`` walked the graph in
        self.mode_dependent: set[Node] = set()  # nodes whose values read plan_mode/plan_timestamp
        self._mode_reads = [0]
        self._plan_mode, self._plan_timestamp = plan_mode, plan_timestamp
        self.diags = diags
        self.hooks = hooks or WalkHooks()
        self.root_vars = root_vars
        self.root_dir = root_dir
        self.func_ctx: FunctionContext = ModeWatch(
            base_dir=root_dir, module_dir=root_dir, plan_mode=plan_mode,
            plan_timestamp=plan_timestamp, provider_function=provider_function)
        self.func_ctx.mode_reads = self._mode_reads
        self._render = render_template
        self._attach_renderer(self.func_ctx)
        # Like Terraform with -chdir: paths are relative to the configuration directory.
        self.fixed = {
            "path": {"module": ".", "root": ".", "cwd": str(root_dir)},
            "terraform": {"workspace": workspace},
        }
        root_scope = ModuleScope((), graph.modules[()], ())
        root_scope.bind(self.fixed, self.func_ctx)
        self.scopes: dict[ModPath, list[ModuleScope]] = {(): [root_scope]}
        # Each resource's instances, a tuple: most resources have one, and a list of one took twice
        # the memory (its object and its array of slots).
        self.instances: dict[Node, tuple[ResourceInstance, ...]] = {}
        self.root_outputs: dict[str, tuple[Any, bool]] = {}
        self.provider_configs: dict[tuple[ModPath, str], dict[str, Any]] = {}
        self.failed: set[Node] = set()

    # ---- driving ---------------------------------------------------------------------------

    def run(self) -> None:
        """Evaluate every node in dependency order (validate and plan)."""
        earlier = self.earlier
        self.order = earlier.order if earlier is not None and earlier.order else self.graph.order()
        reads = self._mode_reads
        for node in self.order:
            before = reads[0]
            self.step(node)
            if reads[0] != before:
                self.mode_dependent.add(node)

    def forget_resources(self) -> None:
        """Let go of every resource's arguments and value, keeping providers, variables, locals and
        outputs: for a walk whose resources nothing reads again (an apply walks them afresh)."""
        self.instances = {}
        for scope in (s for scopes in self.scopes.values() for s in scopes):
            scope.forget_resources()

    def stable_resources(self) -> frozenset[Node]:
        """The resources of this finished walk that another walk of the same graph, with the same
        root variables, evaluates to the same arguments whatever the resources' values are.

        A resource qualifies when nothing it depends on, itself included, is a resource or data
        source (their values differ between validate, plan and apply) or read the walk's mode
        (``timestamp()``, ``uuid()`` and ``plantimestamp()`` answer differently when planning).
        Everything else an expression can read (variables, locals, module inputs and outputs, the
        functions' arguments) is then the same in both walks. Worked out once: a plan asks twice.
        """
        if self._stable is not None:
            return self._stable
        dirty: set[Node] = set()
        stable: set[Node] = set()
        deps = self.graph.deps
        for node in self.order:
            if node in self.mode_dependent or any(
                e.target.kind == RESOURCE or e.target in dirty for e in deps.get(node, ())
            ):
                dirty.add(node)
            elif node.kind == RESOURCE:
                stable.add(node)
        self._stable = frozenset(stable)
        return self._stable

    def step(self, node: Node) -> None:
        kind = node.kind
        if kind == RESOURCE:
            instances = self.expand_resource(node)
            for inst, value in zip(instances, self.hooks.resource_values(instances), strict=True):
                inst.scope.set_resource(inst.resource, inst.key, value, inst.expansion)
        else:
            getattr(self, f"_step_{kind}")(node)

    def scopes_at(self, path: ModPath) -> list[ModuleScope]:
        return self.scopes.get(path, [])

    # ---- per-kind steps --------------------------------------------------------------------

    def _step_var(self, node: Node) -> None:
        var = self.graph.declared(node, Variable)
        for scope in self.scopes_at(node.path):
            if not node.path:
                value = self.root_vars.get(node.name)
            else:
                value = self._module_input(scope, node.name, var)
            scope.vars[node.name] = value
            if var.validations:
                if not node.path and isinstance(value, Unknown) and var.default is not None:
                    # validate leaves root variables unknown; a default that breaks its own rule is
                    # still an error every plan without a value would hit
                    value = finalize(var, None)
                check_validations(var, value, scope.vars, self.diags, scope.ctx.child)

    def _module_input(self, scope: ModuleScope, name: str, var: Variable) -> Any:
        """A child module's variable: its argument in the call, evaluated where the call is written."""
        assert scope.call is not None and scope.call_ctx is not None
        attr = scope.call.inputs.get(name)
        given = self._eval(attr.expr, scope.call_ctx) if attr is not None else None
        try:
            return finalize(var, None, given, given=attr is not None)
        except CtlError as err:
            self.diags.add(err)
            return UNKNOWN

    def _step_local(self, node: Node) -> None:
        local = self.graph.declared(node, Local)
        for scope in self.scopes_at(node.path):
            scope.locals[node.name] = self._eval(local.expr, scope.ctx)

    def _step_output(self, node: Node) -> None:
        out = self.graph.declared(node, Output)
        for scope in self.scopes_at(node.path):
            value = self._eval(out.expr, scope.ctx)
            if not node.path and is_marked(value) and not out.sensitive:
                self.diags.error(
                    "Output refers to sensitive values",
                    detail="Add sensitive = true to the output block to confirm it may show a secret "
                           "(it is then masked in plans and output).",
                    range=out.rng,
                )
            if out.sensitive:
                value = mark(value)
            scope.outputs[node.name] = value
            if not node.path:
                self.root_outputs[node.name] = (value, bool(out.sensitive))

    def _step_check(self, node: Node) -> None:
        """A ``check`` block's assertions: a failure is a warning, never a stop, as in Terraform."""
        check = self.graph.declared(node, Check)
        for scope in self.scopes_at(node.path):
            for rule in check.asserts:
                try:
                    failure = failed_condition(rule, scope.ctx)
                except CtlError as err:
                    failure = f"The condition could not be evaluated: {err.summary}"
                if failure is not None:
                    address = module_address(scope.key)
                    self.diags.warning(
                        "Check block assertion failed",
                        detail=f"{failure}\n\nThis was checked by check \"{node.name}\""
                               + (f" in {address}" if address else "") + ".",
                        range=rule.condition.rng,
                        address=f"{address + '.' if address else ''}check.{node.name}",
                    )

    def _step_provider(self, node: Node) -> None:
        prov = self.graph.declared(node, ProviderConfig)
        scopes = self.scopes_at(node.path)
        if scopes:
            cfg = self.eval_body(prov.body, scopes[0].ctx, skip={"alias"})
            self.provider_configs[(node.path, node.name)] = cfg

    def _step_modcall(self, node: Node) -> None:
        call = self.graph.declared(node, ModuleCall)
        child_path = (*node.path, node.name)
        child_module = self.graph.modules.get(child_path)
        if child_module is None:
            # not loaded (a source ctl cannot fetch, reported where it is written): its outputs are
            # unknown rather than missing, so each reference does not add an error of its own
            for scope in self.scopes_at(node.path):
                scope.modules[call.name] = UNKNOWN
            return
        self._check_inputs(call, child_module)
        children: list[ModuleScope] = []
        for scope in self.scopes_at(node.path):
            expansion, keys = expand(call.count, call.for_each, scope.ctx, f"module.{call.name}", self.diags,
                                     plan_mode=self.hooks.plan_mode)
            mine = []
            for key, bindings in keys:
                child = ModuleScope((*scope.key, (call.name, key)), child_module, child_path, call=call,
                                    call_ctx=scope.ctx.child(bindings) if bindings else scope.ctx,
                                    expansion=expansion)
                child.bind(self.fixed, self._module_func_ctx(child_module))
                mine.append(child)
            # ``module.NAME.OUT`` reads the instances' own output tables, which fill in as each output
            # is evaluated: a reference waits only for the output it names (see engine.graph).
            scope.modules[call.name] = _module_value(mine, expansion, live=True)
            children += mine
        self.scopes[child_path] = children

    def _step_modout(self, node: Node) -> None:
        child_path = (*node.path, node.name)
        if child_path not in self.graph.modules:
            return  # not loaded: left unknown by _step_modcall
        for scope in self.scopes_at(node.path):
            mine = [c for c in self.scopes_at(child_path) if c.key[:-1] == scope.key]
            expansion = mine[0].expansion if mine else "single"
            scope.modules[node.name] = _module_value(mine, expansion, live=False)

    def _check_inputs(self, call: ModuleCall, child: Module) -> None:
        for name, attr in call.inputs.items():
            if name not in child.variables:
                near = name_suggestion(name, [*child.variables, *MODULE_META])
                suggestion = f' Did you mean "{near}"?' if near else ""
                self.diags.error("Unsupported argument", range=attr.name_rng,
                                 detail=f'An argument named "{name}" is not expected here.{suggestion}',
                                 hint=f'Module "{call.name}" declares no variable named "{name}".')
        for name, var in child.variables.items():
            if var.default is None and name not in call.inputs:
                self.diags.error("Missing required argument", range=brace_after(call.rng),
                                 detail=f'The argument "{name}" is required, but no definition was found.')

    def _module_func_ctx(self, module: Module) -> FunctionContext:
        fc = ModeWatch(base_dir=self.func_ctx.base_dir, module_dir=module.dir,
                       file_root=self.func_ctx.file_root, plan_mode=self._plan_mode,
                       plan_timestamp=self._plan_timestamp, provider_function=self.func_ctx.provider_function)
        fc.mode_reads = self._mode_reads
        self._attach_renderer(fc)
        return fc

    def _attach_renderer(self, fc: FunctionContext) -> None:
        """Give ``templatefile()`` the template engine, bound to this function context."""
        render = self._render
        if render is not None:
            fc.render_template = lambda text, filename, variables: render(
                text, filename, variables, fc
            )

    # ---- resources -------------------------------------------------------------------------

    def expand_resource(self, node: Node) -> list[ResourceInstance]:
        """Every instance of a resource across its module instances, arguments evaluated."""
        res = self.graph.declared(node, Resource)
        out: list[ResourceInstance] = []
        earlier = self._earlier_instances(node, res)
        for scope in self.scopes_at(node.path):
            expansion, keys = expand(res.count, res.for_each, scope.ctx, res.address, self.diags,
                                     plan_mode=self.hooks.plan_mode)
            scope.init_resource(res, expansion)
            if not keys and expansion != "single" and self.hooks.checks_without_instances:
                self._check_without_instances(res, scope, expansion)
            for key, bindings in keys:
                addr = instance_address(scope.key, res, key)
                prev = earlier.get(addr) if earlier else None
                if prev is not None and prev.config is not None and prev.expansion == expansion:
                    out.append(ResourceInstance(addr, res, scope, key, expansion, prev.config, bindings,
                                                prev.checked))
                    continue
                ctx = scope.ctx.child(bindings) if bindings else scope.ctx
                config = self.eval_resource_body(res, ctx)
                out.append(ResourceInstance(addr, res, scope, key, expansion, config, bindings))
        self.instances[node] = tuple(out)
        return out

    def _check_without_instances(self, res: Resource, scope: ModuleScope, expansion: str) -> None:
        """Terraform checks every resource block against its schema, whatever its instances: a
        misspelt argument of a resource that is off today (``count = 0``) is found now, not on the
        day it is turned on. Its arguments are evaluated once with ``count.index`` or ``each``
        unknown; what that evaluation cannot work out is not this check's to report."""
        unknown: dict[str, Any] = (
            {"count": {"index": UNKNOWN}} if expansion == "count" else {"each": {"key": UNKNOWN, "value": UNKNOWN}})
        diags, self.diags = self.diags, Diagnostics()
        try:
            config = self.eval_resource_body(res, scope.ctx.child(unknown))
        finally:
            self.diags = diags
        if config is not None:
            self.hooks.without_instances(res, f"{res.address} (no instances)", config)

    def _earlier_instances(self, node: Node, res: Resource) -> dict[str, ResourceInstance] | None:
        """The earlier walk's instances of ``node`` by address, when this walk may take them over.
        The earlier walk lets go of them either way: a finished walk's resources are read no more
        once a later walk has evaluated them, which can then use their memory."""
        if self.earlier is None:
            return None
        taken = self.earlier.instances.pop(node, ())
        for scope in self.earlier.scopes.get(node.path, ()):
            scope.forget_resource(res)
        if node not in self.reusable:
            return None
        return {inst.address: inst for inst in taken}

    def eval_resource_body(self, res: Resource, ctx: EvalContext) -> dict[str, Any] | None:
        before = len(self.diags.items)
        config = self.eval_body(res.body, ctx)
        if any(d.severity == "error" for d in self.diags.items[before:]):
            return None
        return config

    def eval_body(self, body: Body, ctx: EvalContext, skip: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
        """Arguments as a value: attributes, and nested blocks as lists of objects (as in state)."""
        out: dict[str, Any] = {}
        for name, attr in body.attributes.items():
            if name not in skip:
                out[name] = plain_data(self._eval(attr.expr, ctx))  # providers know a null, not its type
        for block in body.blocks:
            if block.type == "dynamic":
                self._dynamic(block, ctx, out)
            else:
                out.setdefault(block.type, []).append(self.eval_body(block.body, ctx))
        return out

    def _dynamic(self, block: Any, ctx: EvalContext, out: dict[str, Any]) -> None:
        label = block.labels[0] if block.labels else "dynamic"
        body = block.body
        for_each = body.attr("for_each")
        contents = body.blocks_of("content")
        if for_each is None or not contents:
            self.diags.error(f'A dynamic "{label}" block needs "for_each" and a "content" block', range=block.rng)
            return
        iterator = label
        it_attr = body.attr("iterator")
        if it_attr is not None and isinstance(it_attr.expr, ast.ScopeTraversal):
            iterator = it_attr.expr.root
        coll = self._eval(for_each.expr, ctx)
        coll, marks = unmark(coll)
        target = out.setdefault(label, [])
        if isinstance(coll, Unknown):
            target.append(UNKNOWN)
            return
        if coll is None:
            return
        if isinstance(coll, dict):
            items = sorted(coll.items())
        elif isinstance(coll, list):
            items = list(enumerate(coll))
        else:
            self.diags.error("Invalid dynamic for_each value: a map, set or list is required", range=for_each.expr.rng)
            return
        for k, v in items:
            child = ctx.child({iterator: {"key": k, "value": v}})
            value = self.eval_body(contents[0].body, child)
            target.append(mark(value, marks) if marks else value)

    def _eval(self, expr: ast.Expr, ctx: EvalContext) -> Any:
        try:
            return evaluate(expr, ctx)
        except CtlError as err:
            self.diags.add(err)
            return UNKNOWN


__all__ = ["SENSITIVE", "UNKNOWN_KEY", "ConfigWalk", "ModuleScope", "ResourceInstance", "WalkHooks",
           "format_key", "instance_address", "module_address"]
