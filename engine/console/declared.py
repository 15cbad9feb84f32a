"""What the names of a configuration are declared as: the types behind ``var.``, ``local.``,
``module.``, ``data.`` and resource references.

A variable has the type its ``type =`` declares (an untyped child-module variable, the type of what
the call passes); a resource the object type its schema gives, a tuple of them with ``count`` and an
object of them with ``for_each``; a local or module output the type of its own expression, worked
out once per session by the expression typer (``engine.console.infer``) this module is given.
"""

from __future__ import annotations

from collections.abc import Callable

from adapters.registry import Registry
from engine.config.model import Module
from engine.console.types import (
    DYNAMIC,
    CtyType,
    ObjectType,
    Repeated,
    from_constraint,
    from_schema,
    settled,
)
from engine.graph import Graph, ModPath
from engine.lang import ast
from engine.lang.eval import EvalContext

# The expression typer: the type of an expression written in a module, with that module's scope.
Infer = Callable[[ast.Expr, ModPath, EvalContext | None], CtyType]
Steps = tuple[ast.Step, ...]


class DeclaredNames:
    """Types of the names a module's expressions refer to; each local and module is typed once."""

    def __init__(self, graph: Graph | None, registry: Registry | None,
                 scope_ctx: Callable[[ModPath], EvalContext | None], infer: Infer) -> None:
        self._graph = graph
        self._registry = registry
        self._scope_ctx = scope_ctx
        self._infer = infer
        self._memo: dict[tuple[ModPath, str, str], CtyType] = {}

    def reference(self, root: str, steps: Steps, path: ModPath) -> tuple[CtyType, Steps]:
        """The type of the object ``root.steps…`` starts with in module ``path``, and the steps left."""
        module = self._graph.modules.get(path) if self._graph is not None else None
        if module is None or not steps or not isinstance(steps[0], ast.AttrStep):
            return DYNAMIC, steps
        name = steps[0].name
        if root == "var":
            return self._variable(path, module, name), steps[1:]
        if root == "local":
            return self._local(path, module, name), steps[1:]
        if root == "module":
            return self._module(path, module, name), steps[1:]
        if root == "data":
            if len(steps) < 2 or not isinstance(steps[1], ast.AttrStep):
                return DYNAMIC, steps
            return self._resource(module, f"data.{name}.{steps[1].name}"), steps[2:]
        return self._resource(module, f"{root}.{name}"), steps[1:]

    def _remember(self, key: tuple[ModPath, str, str], compute: Callable[[], CtyType]) -> CtyType:
        if key not in self._memo:
            self._memo[key] = DYNAMIC  # a reference cycle (refused by the walk anyway) ends here
            self._memo[key] = compute()
        return self._memo[key]

    def _variable(self, path: ModPath, module: Module, name: str) -> CtyType:
        var = module.variables.get(name)
        if var is None:
            return DYNAMIC
        declared = from_constraint(var.type)
        if declared is not DYNAMIC:
            ctx = self._scope_ctx(path)
            values = ctx.variables.get("var") if ctx is not None else None
            return settled(declared, values.get(name) if isinstance(values, dict) else None)
        if not path:
            return declared

        def given() -> CtyType:  # an untyped module variable has the type of what the call passes
            parent = self._graph.modules.get(path[:-1]) if self._graph is not None else None
            call = parent.module_calls.get(path[-1]) if parent is not None else None
            attr = call.inputs.get(name) if call is not None else None
            if attr is not None:
                return self._infer(attr.expr, path[:-1], self._scope_ctx(path[:-1]))
            return self._infer(var.default, path, None) if var.default is not None else DYNAMIC

        return self._remember((path, "var", name), given)

    def _local(self, path: ModPath, module: Module, name: str) -> CtyType:
        local = module.locals.get(name)
        if local is None:
            return DYNAMIC
        return self._remember((path, "local", name),
                              lambda: self._infer(local.expr, path, self._scope_ctx(path)))

    def _module(self, path: ModPath, module: Module, name: str) -> CtyType:
        call = module.module_calls.get(name)
        child_path = (*path, name)
        child = self._graph.modules.get(child_path) if self._graph is not None else None
        if call is None or child is None:
            return DYNAMIC

        def outputs() -> CtyType:
            ctx = self._scope_ctx(child_path)
            return ObjectType({n: self._infer(o.expr, child_path, ctx) for n, o in child.outputs.items()})

        return _expanded(self._remember((path, "module", name), outputs), call.count, call.for_each)

    def _resource(self, module: Module, address: str) -> CtyType:
        res = module.resources.get(address)
        if res is None:
            return DYNAMIC
        rt = self._registry.resource_type(res.type, res.mode) if self._registry is not None else None
        return _expanded(from_schema(rt) if rt is not None else DYNAMIC, res.count, res.for_each)


def _expanded(t: CtyType, count: object, for_each: object) -> CtyType:
    """A resource or module call with ``count`` is a tuple of instances, with ``for_each`` an object."""
    if count is not None:
        return Repeated("tuple", t)
    if for_each is not None:
        return Repeated("object", t)
    return t


__all__ = ["DeclaredNames"]
