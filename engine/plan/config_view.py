"""The ``configuration`` section of Terraform's plan JSON: what the configuration says, unevaluated.

Policy tools read it to see *how* a value is written — a constant or a reference to what — rather
than what it evaluates to. Each argument becomes ``{"constant_value": v}`` when it refers to
nothing, else ``{"references": [...]}`` listing what it reads (``var.x``, ``aws_s3_bucket.a.arn``
and the resource ``aws_s3_bucket.a`` itself), as Terraform prints them. It is built when the plan
is made and saved with it, so ``ctl show --json PLANFILE`` describes the configuration the plan
came from. A sensitive variable's default stays marked, so it is masked like every other secret.
"""

from __future__ import annotations

from typing import Any

from adapters.registry import Registry
from engine.config.model import Module, ModuleCall, Resource
from engine.lang import ast
from engine.lang.eval import CallsUnknown, EvalContext, evaluate
from engine.lang.references import references
from engine.lang.syntax import Attribute, Body
from vocab.errors import CtlError
from vocab.types import plain_data
from vocab.values import SENSITIVE, contains_unknown, mark

# Names whose reference is just their subject (``var.x``, ``each.value``), never a resource.
_SUBJECT_ONLY = frozenset({"var", "local", "count", "each", "path", "terraform", "self"})


def configuration(root: Module, registry: Registry) -> dict[str, Any]:
    """Terraform's ``configuration`` object for the module tree under ``root``."""
    return {
        "provider_config": _provider_config(root, registry),
        "root_module": _module(root, registry, (), _configured(root)),
    }


Configured = dict[tuple[str, ...], set[str]]  # module path -> provider keys configured there


def _configured(root: Module) -> Configured:
    return {path: set(module.providers) for path, module in root.walk()}


def _module_address(path: tuple[str, ...]) -> str:
    return ".".join(f"module.{p}" for p in path)


def provider_config_key(key: str, path: tuple[str, ...], configured: Configured) -> str:
    """Terraform's key for the provider configuration a resource in module ``path`` uses.

    The nearest module (itself, then each ancestor) whose provider block it inherits; without any,
    the module's own implied configuration, ``module.m:NAME`` (a plain ``NAME`` in the root).
    """
    for depth in range(len(path), -1, -1):
        if key in configured.get(path[:depth], set()):
            return f"{_module_address(path[:depth])}:{key}" if depth else key
    return f"{_module_address(path)}:{key}" if path else key


def expression(expr: ast.Expr) -> dict[str, Any]:
    """``{"constant_value": v}`` or ``{"references": [...]}`` (``{}`` when neither can be told).

    As Terraform and OpenTofu tell it: read with no variables and no functions, so a function call
    is no constant (``tostring(null)``, ``"${upper("a")}"`` give ``{}``) unless the branch it is in
    is not taken (``true ? "a" : upper("b")`` is ``"a"``)."""
    refs = references(expr)
    if refs:
        out: list[str] = []
        for ref in refs:
            for text in _reference_strings(ref.root, ref.parts):
                if text not in out:
                    out.append(text)
        return {"references": out}
    try:
        value = evaluate(expr, EvalContext(variables={}, functions=CallsUnknown()))
    except CtlError:
        return {}
    if contains_unknown(value):
        return {}
    return {"constant_value": plain_data(value)}  # JSON knows a null, not its type


def _reference_strings(root: str, parts: tuple[str | int, ...]) -> list[str]:
    """The traversal as written, then the object it belongs to (``a.b[0].id``, ``a.b[0]``, ``a.b``)."""
    if root in _SUBJECT_ONLY:
        return [_traversal(root, parts[:1])]
    named = parts[:2] if root == "data" else parts[:1]  # data.TYPE.NAME, TYPE.NAME, module.NAME
    rest = parts[len(named):]
    out = [_traversal(root, parts)]
    if rest and isinstance(rest[0], int):
        out.append(_traversal(root, (*named, rest[0])))
    out.append(_traversal(root, named))
    return list(dict.fromkeys(out))


def _traversal(root: str, parts: tuple[str | int, ...]) -> str:
    text = root
    for p in parts:
        text += f"[{p}]" if isinstance(p, int) else f".{p}"
    return text


def _body(body: Body) -> dict[str, Any]:
    out: dict[str, Any] = {name: expression(attr.expr) for name, attr in body.attributes.items()}
    for block in body.blocks:
        if block.type == "dynamic":
            label = block.labels[0] if block.labels else "dynamic"
            for content in block.body.blocks_of("content"):
                out.setdefault(label, []).append(_body(content.body))
        else:
            out.setdefault(block.type, []).append(_body(block.body))
    return out


def _resource(res: Resource, registry: Registry, path: tuple[str, ...], configured: Configured) -> dict[str, Any]:
    provider = res.provider_name
    if res.provider is not None and res.provider[1]:
        provider = f"{provider}.{res.provider[1]}"
    provider = provider_config_key(provider, path, configured)
    rt = registry.resource_type(res.type, res.mode)
    out: dict[str, Any] = {
        "address": res.address,
        "mode": res.mode,
        "type": res.type,
        "name": res.name,
        "provider_config_key": provider,
        "expressions": _body(res.body),
        "schema_version": rt.schema_version if rt is not None else 0,
    }
    out.update(_repetition(res.count, res.for_each))
    deps = [_depends_on(e) for e in res.depends_on]
    if deps:
        out["depends_on"] = deps
    return out


def _repetition(count: Attribute | None, for_each: Attribute | None) -> dict[str, Any]:
    """``count_expression`` and ``for_each_expression``, each left out when it says nothing (a
    function call), as both references leave them out."""
    out: dict[str, Any] = {}
    for key, attr in (("count_expression", count), ("for_each_expression", for_each)):
        told = expression(attr.expr) if attr is not None else {}
        if told:
            out[key] = told
    return out


def _depends_on(expr: ast.Expr) -> str:
    refs = references(expr)
    return _traversal(refs[0].root, refs[0].parts) if refs else ""


def _module_call(call: ModuleCall, child: Module | None, registry: Registry, path: tuple[str, ...],
                 configured: Configured) -> dict[str, Any]:
    out: dict[str, Any] = {
        "source": call.source,
        "expressions": {name: expression(attr.expr) for name, attr in call.inputs.items()},
    }
    out.update(_repetition(call.count, call.for_each))
    if child is not None:
        out["module"] = _module(child, registry, path, configured)
    deps = [_depends_on(e) for e in call.depends_on]
    if deps:
        out["depends_on"] = deps
    return out


def _module(module: Module, registry: Registry, path: tuple[str, ...], configured: Configured) -> dict[str, Any]:
    out: dict[str, Any] = {}
    outputs: dict[str, Any] = {}
    for name, o in module.outputs.items():
        entry: dict[str, Any] = {"expression": expression(o.expr)}
        if o.sensitive:
            entry["sensitive"] = True
        if o.description:
            entry["description"] = o.description
        outputs[name] = entry
    if outputs:
        out["outputs"] = outputs
    resources = [_resource(r, registry, path, configured) for r in module.resources.values()]
    if resources:
        out["resources"] = resources
    calls = {name: _module_call(c, module.children.get(name), registry, (*path, name), configured)
             for name, c in module.module_calls.items()}
    if calls:
        out["module_calls"] = calls
    variables: dict[str, Any] = {}
    for name, v in module.variables.items():
        entry = {}
        if v.default is not None:
            default = expression(v.default).get("constant_value")
            entry["default"] = mark(default, frozenset({SENSITIVE})) if v.sensitive else default
        if v.description:
            entry["description"] = v.description
        if v.sensitive:
            entry["sensitive"] = True
        variables[name] = entry
    if variables:
        out["variables"] = variables
    return out


def _provider_config(root: Module, registry: Registry) -> dict[str, Any]:
    """Every provider configuration block, plus the providers resources use without one."""
    out: dict[str, Any] = {}
    configured = _configured(root)
    for path, module in root.walk():
        prefix = f"{_module_address(path)}:" if path else ""
        for key, cfg in module.providers.items():
            entry: dict[str, Any] = {"name": cfg.name, "full_name": _full_name(cfg.name, registry)}
            if cfg.alias:
                entry["alias"] = cfg.alias
            if path:
                entry["module_address"] = _module_address(path)
            if cfg.name in module.required_providers and module.required_providers[cfg.name].version:
                entry["version_constraint"] = module.required_providers[cfg.name].version
            entry["expressions"] = _body(cfg.body)
            out[prefix + key] = entry
        for name, required in module.required_providers.items():  # each module's requirements
            entry = out.setdefault(prefix + name, {"name": name, "full_name": _full_name(name, registry)})
            if required.version:
                entry.setdefault("version_constraint", required.version)
            if path:
                entry.setdefault("module_address", _module_address(path))
        for res in module.resources.values():
            name = res.provider_name
            key = provider_config_key(name, path, configured)
            if key not in out:
                out[key] = {"name": name, "full_name": _full_name(name, registry)}
                if path:
                    out[key]["module_address"] = _module_address(path)
    return out


def _full_name(name: str, registry: Registry) -> str:
    provider = registry.provider(name)
    return provider.source if provider is not None else f"registry.terraform.io/hashicorp/{name}"


__all__ = ["configuration", "expression"]
