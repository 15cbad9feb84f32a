"""The ``configuration`` section of Terraform's plan JSON: what the configuration says, unevaluated.

Policy tools read it to see *how* a value is written — a constant or a reference to what — rather
than what it evaluates to. Each argument becomes ``{"constant_value": v}`` when it refers to
nothing, else ``{"references": [...]}`` listing what it reads (``var.x``, ``aws_s3_bucket.a.arn``
and the resource ``aws_s3_bucket.a`` itself), as Terraform prints them. It is built when the plan
is made and saved with it, so ``ctl show --json PLANFILE`` describes the configuration the plan
came from. A sensitive variable's default stays marked, so it is masked like every other secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adapters.plugin.set_order import go_quote
from adapters.registry import Registry
from engine.config.model import Module, ModuleCall, Resource
from engine.lang import ast
from engine.lang.eval import CallsUnknown, EvalContext, evaluate
from engine.lang.references import MANAGED_PREFIX, traversals
from engine.lang.syntax import Attribute, Body
from vocab.conversion.numbers import go_g10
from vocab.errors import CtlError
from vocab.types import plain_data
from vocab.values import SENSITIVE, contains_unknown, mark


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
    found = traversals(expr)
    if found:  # each traversal in turn, repeats kept, as both references list them
        return {"references": [text for node in found for text in _reference_strings(node)]}
    try:
        value = evaluate(expr, EvalContext(variables={}, functions=CallsUnknown()))
    except CtlError:
        return {}
    if contains_unknown(value):
        return {}
    return {"constant_value": plain_data(value)}  # JSON knows a null, not its type


# Names read as ``NAME.ATTR``: the attribute is the subject (``var.x``), the rest a path into it.
_SINGLE_ATTR = frozenset({"var", "local", "count", "each", "path", "terraform"})


def _reference_strings(node: ast.ScopeTraversal) -> list[str]:
    """What Terraform and OpenTofu list for one traversal: the subject with each leading part of
    the rest, longest first (``var.m["k"].x``, ``var.m["k"]``), the subject (``var.m``), then the
    resource or module call the subject is an instance of (``aws_x.y[0]`` → ``aws_x.y``)."""
    found = _subject(node)
    if found is None:
        return []
    subject, rest, extra = found
    out = [subject + "".join(_step_text(s) for s in rest[:n]) for n in range(len(rest), 0, -1)]
    return [*out, subject, *extra]


def _subject(node: ast.ScopeTraversal) -> tuple[str, list[str | _Index], list[str]] | None:
    """The object a traversal names, the steps into it, and what that object is an instance of,
    as Terraform parses a reference; None for a traversal that names no object (``var`` alone, a
    resource key neither a string nor a whole number), which both references leave out."""
    root, steps = node.root, _static_steps(node.steps)
    if root == MANAGED_PREFIX and steps and isinstance(steps[0], str):
        root, steps = steps[0], steps[1:]  # ``resource.TYPE.NAME`` is ``TYPE.NAME``
    extra: list[str] = []
    if root == "self":
        return "self", steps, extra
    if root in _SINGLE_ATTR or root == "module":
        if not steps or not isinstance(steps[0], str):
            return None
        subject, rest = f"{root}.{steps[0]}", steps[1:]
        if root == "module" and rest:
            call = subject
            if isinstance(rest[0], _Index):
                key = _instance_key(rest[0].key)
                if key is None:
                    return None
                subject, rest = call + key, rest[1:]
                extra = [call]
            if rest:  # an output of the call, or of one instance of it
                if not isinstance(rest[0], str):
                    return None
                extra = [subject]
                subject, rest = f"{subject}.{rest[0]}", rest[1:]
        return subject, rest, extra
    named = 2 if root == "data" else 1  # data.TYPE.NAME, TYPE.NAME
    if len(steps) < named or not all(isinstance(s, str) for s in steps[:named]):
        return None
    subject = ".".join((root, *(str(s) for s in steps[:named])))
    rest = steps[named:]
    if rest and isinstance(rest[0], _Index):
        key = _instance_key(rest[0].key)
        if key is None:
            return None
        extra = [subject]
        subject, rest = subject + key, rest[1:]
    return subject, rest, extra


@dataclass(frozen=True, slots=True)
class _Index:
    """``[key]`` with a literal key: kept apart from ``.name``, which is written differently."""

    key: Any


def _static_steps(steps: tuple[ast.Step, ...]) -> list[str | _Index]:
    """The leading steps that are part of the traversal: names and literal keys, up to the first
    splat or computed key (``var.m[var.k]`` reads ``var.m``, then ``var.k``)."""
    out: list[str | _Index] = []
    for s in steps:
        if isinstance(s, ast.AttrStep):
            out.append(s.name)
        elif isinstance(s, ast.IndexStep) and type(s.key) is ast.Literal:
            out.append(_Index(s.key.value))
        else:
            break
    return out


def _step_text(step: str | _Index) -> str:
    """A step as both references write it: ``.name``, or the key as a diagnostic shows a value."""
    if isinstance(step, str):
        return f".{step}"
    key = step.key
    if isinstance(key, str):
        return f"[{go_quote(key)}]"
    if isinstance(key, int | float) and not isinstance(key, bool):
        return f"[{go_g10(key)}]"
    return "[...]"  # OpenTofu's text for any other key (Terraform 1.0.3 writes a bool as [])


def _instance_key(key: Any) -> str | None:
    """A resource or module instance key as its address writes it; None for one that is no key."""
    if isinstance(key, str):
        return f"[{go_quote(key)}]"
    if isinstance(key, bool) or not isinstance(key, int | float) or not float(key).is_integer():
        return None
    return f"[{int(key)}]"


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
    }
    expressions = _body(res.body)
    if expressions:  # both references leave out an empty one
        out["expressions"] = expressions
    out["schema_version"] = rt.schema_version if rt is not None else 0
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
    """What ``depends_on`` names, as the references write the object (``aws_x.y["k"]``)."""
    found = traversals(expr)
    subject = _subject(found[0]) if found else None
    return subject[0] if subject is not None else ""


def _module_call(call: ModuleCall, child: Module | None, registry: Registry, path: tuple[str, ...],
                 configured: Configured) -> dict[str, Any]:
    out: dict[str, Any] = {"source": call.source}
    if call.inputs:
        out["expressions"] = {name: expression(attr.expr) for name, attr in call.inputs.items()}
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
            expressions = _body(cfg.body)
            if expressions:
                entry["expressions"] = expressions
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
