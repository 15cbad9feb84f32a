"""Terraform's checks of what a provider answers: after plan, and after apply.

A provider promises three things the client can verify: a planned value keeps what the
configuration sets (only computed arguments left out of the configuration may be chosen by the
provider), the object after apply has every value known, and that object matches the plan wherever
the plan was known. A provider that breaks one has a bug; storing its answer silently would hide
the bug and leave a state that disagrees with the configuration, so the run reports it in
Terraform's words ("Provider produced invalid plan", "Provider returned invalid result object after
apply", "Provider produced inconsistent result after apply").

Providers on the legacy type system (SDK v2) cannot keep these promises exactly, so, as Terraform
does, their plan and apply inconsistencies are only logged; an unknown value after apply is an
error for every provider.

Paths and values are shown as Terraform shows them: ``.rule[0].port`` and cty's Go syntax
(``cty.StringVal("a")``), so a message can be searched for in the provider's issue tracker.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from adapters.base import AdapterError, PartialResult
from vocab.errors import Diagnostic
from vocab.schema.form import (
    LIST,
    SET,
    SINGLE,
    Attribute,
    Block,
    NestedAttributeObject,
    attribute_type,
    implied_type,
)
from vocab.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    Collection,
    CtyType,
    ObjectType,
    TupleType,
    type_of_value,
)
from vocab.values import Marked, Unknown

_log = logging.getLogger("adapters.plugin")

Path = tuple[str | int, ...]


class MapKey(str):
    """A step into a map (``["key"]``), told apart from an attribute name (``.name``)."""

    __slots__ = ()


INVALID_PLAN = "Provider produced invalid plan"
INVALID_RESULT = "Provider returned invalid result object after apply"
INCONSISTENT_RESULT = "Provider produced inconsistent result after apply"
_BUG = "This is a bug in the provider, which should be reported in the provider's own issue tracker."


# -- unknown values after apply ----------------------------------------------------------------


def unknown_paths(value: Any, prefix: Path = ()) -> list[Path]:
    """Where ``value`` still holds an unknown value (an empty path: the whole value)."""
    if isinstance(value, Unknown):
        return [prefix]
    if isinstance(value, Marked):
        return unknown_paths(value.value, prefix)
    out: list[Path] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(unknown_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.extend(unknown_paths(item, (*prefix, index)))
    return out


def unknowns_as_null(value: Any) -> Any:
    """``value`` with each unknown replaced by null: what Terraform keeps of such an object."""
    if isinstance(value, Unknown):
        return None
    if isinstance(value, Marked):
        return Marked(unknowns_as_null(value.value), value.marks)
    if isinstance(value, dict):
        return {key: unknowns_as_null(item) for key, item in value.items()}
    if isinstance(value, list):
        return type(value)(unknowns_as_null(item) for item in value)
    return value


def invalid_result_detail(address: str) -> str:
    return (f"After the apply operation, the provider still indicated an unknown value for {address}. All "
            "values must be known after apply, so this is always a bug in the provider and should be "
            "reported in the provider's own repository. ctl will still save the other known object values "
            "in the state.")


# -- after plan --------------------------------------------------------------------------------


def plan_problems(block: Block, prior: Mapping[str, Any] | None, config: Mapping[str, Any] | None,
                  planned: Mapping[str, Any] | None) -> list[str]:
    """Terraform's ``AssertPlanValid``: each way ``planned`` disagrees with the configuration."""
    if planned is None:
        return [] if config is None else ["planned for absence but config wants existence"]
    if config is None:
        return ["planned for existence but config wants absence"]
    errors: list[str] = []
    _plan_block(block, prior, config, planned, (), errors)
    return errors


def _plan_block(block: Block, prior: Mapping[str, Any] | None, config: Mapping[str, Any],
                planned: Mapping[str, Any], path: Path, errors: list[str]) -> None:
    for attr in block.attributes:
        _plan_attribute(attr, _get(prior, attr.name), config.get(attr.name), planned.get(attr.name),
                        (*path, attr.name), errors)
    for nested in block.block_types:
        name = nested.type_name
        c, p, q = config.get(name), planned.get(name), _get(prior, name)
        here = (*path, name)
        if isinstance(p, Unknown) or isinstance(c, Unknown):
            continue
        if nested.nesting == SINGLE or nested.nesting == "group":
            if isinstance(c, dict) and isinstance(p, dict):
                _plan_block(nested.block, q if isinstance(q, dict) else None, c, p, here, errors)
            elif (c is None) != (p is None) and nested.nesting == SINGLE:
                errors.append(f"{format_path(here)}: block is "
                              f"{'present' if p is not None else 'absent'} in the plan but "
                              f"{'absent' if c is None else 'present'} in the configuration")
        elif nested.nesting == LIST and isinstance(c, list) and isinstance(p, list):
            if len(c) != len(p):
                errors.append(f"{format_path(here)}: block count in plan ({len(p)}) disagrees with count in "
                              f"config ({len(c)})")
                continue
            priors = q if isinstance(q, list) else []
            for i, (ci, pi) in enumerate(zip(c, p, strict=True)):
                if isinstance(ci, dict) and isinstance(pi, dict):
                    qi = priors[i] if i < len(priors) and isinstance(priors[i], dict) else None
                    _plan_block(nested.block, qi, ci, pi, (*here, i), errors)


def _plan_attribute(attr: Attribute, prior: Any, config: Any, planned: Any, path: Path, errors: list[str]) -> None:
    if _same(planned, config):
        return
    nested = attr.nested_type
    if nested is not None and not (attr.computed and config is None) and _plan_nested(
            nested, prior, config, planned, path, errors):
        return
    if prior is not None and config is not None and _same(planned, prior):
        return  # the provider kept the prior value as equivalent to the configured one
    if attr.computed and config is None:
        return
    if isinstance(planned, Unknown) and attr.computed:
        return  # a computed argument whose configured value the provider will settle in apply
    ty = attribute_type(attr)
    where = format_path(path)
    if prior is None:
        if attr.sensitive:
            errors.append(f"{where}: sensitive planned value does not match config value")
        else:
            errors.append(f"{where}: planned value {go_value(planned, ty)} does not match config value "
                          f"{go_value(config, ty)}")
    elif attr.sensitive:
        errors.append(f"{where}: sensitive planned value does not match config value nor prior value")
    else:
        errors.append(f"{where}: planned value {go_value(planned, ty)} does not match config value "
                      f"{go_value(config, ty)} nor prior value {go_value(prior, ty)}")


def _plan_nested(nested: NestedAttributeObject, prior: Any, config: Any, planned: Any, path: Path,
                 errors: list[str]) -> bool:
    """A nested attribute's objects checked attribute by attribute, as Terraform checks them (their
    computed attributes may be planned); False when the shapes do not line up for that."""
    block = Block(attributes=nested.attributes)
    if isinstance(config, Marked):
        config = config.value
    if isinstance(planned, Marked):
        planned = planned.value
    if isinstance(prior, Marked):
        prior = prior.value
    if nested.nesting == SINGLE and isinstance(config, dict) and isinstance(planned, dict):
        _plan_block(block, prior if isinstance(prior, dict) else None, config, planned, path, errors)
        return True
    if nested.nesting == LIST and isinstance(config, list) and isinstance(planned, list) \
            and len(config) == len(planned):
        priors = prior if isinstance(prior, list) else []
        for i, (c, p) in enumerate(zip(config, planned, strict=True)):
            q = priors[i] if i < len(priors) and isinstance(priors[i], dict) else None
            if isinstance(c, dict) and isinstance(p, dict):
                _plan_block(block, q, c, p, (*path, i), errors)
        return True
    if nested.nesting == "map" and isinstance(config, dict) and isinstance(planned, dict) \
            and config.keys() == planned.keys():
        by_key = prior if isinstance(prior, dict) else {}
        for key in sorted(config):
            c, p, q = config[key], planned[key], by_key.get(key)
            if isinstance(c, dict) and isinstance(p, dict):
                _plan_block(block, q if isinstance(q, dict) else None, c, p, (*path, MapKey(key)), errors)
        return True
    if nested.nesting == SET and isinstance(config, list) and isinstance(planned, list):
        return len(config) == len(planned)  # set elements cannot be paired: only their number is checked
    return False


def invalid_plan_detail(provider: str, address: str, problem: str) -> str:
    return f"Provider {json.dumps(provider)} planned an invalid value for {address}{problem_suffix(problem)}.\n\n{_BUG}"


def problem_suffix(problem: str) -> str:
    """``.name: planned ...`` reads on from the address; a whole-object problem after a colon."""
    return problem if problem.startswith((".", "[")) else f": {problem}"


# -- after apply -------------------------------------------------------------------------------


def apply_problems(block: Block, planned: Mapping[str, Any] | None, actual: Mapping[str, Any] | None) -> list[str]:
    """Terraform's ``AssertObjectCompatible``: where the object after apply contradicts the plan."""
    if planned is None or actual is None:
        if (planned is None) != (actual is None):
            return ["planned for existence but provider returned nothing" if actual is None
                    else "planned for absence but provider returned an object"]
        return []
    errors: list[str] = []
    _apply_block(block, planned, actual, (), errors)
    return errors


def _apply_block(block: Block, planned: Mapping[str, Any], actual: Mapping[str, Any], path: Path,
                 errors: list[str]) -> None:
    for attr in block.attributes:
        here = (*path, attr.name)
        p, a = planned.get(attr.name), actual.get(attr.name)
        found: list[str] = []
        _compatible(p, a, attribute_type(attr), here, found)
        if found and attr.sensitive:
            errors.append(f"{format_path(here)}: inconsistent values for sensitive attribute")
        else:
            errors.extend(found)
    for nested in block.block_types:
        here = (*path, nested.type_name)
        p, a = planned.get(nested.type_name), actual.get(nested.type_name)
        if isinstance(p, Unknown):
            continue
        if nested.nesting in (SINGLE, "group"):
            if isinstance(p, dict) and isinstance(a, dict):
                _apply_block(nested.block, p, a, here, errors)
            elif (p is None) != (a is None) and nested.nesting == SINGLE:
                errors.append(f"{format_path(here)}: block has "
                              f"{'vanished' if a is None else 'appeared'}")
        elif nested.nesting == LIST and isinstance(p, list) and isinstance(a, list):
            if len(p) != len(a):
                errors.append(f"{format_path(here)}: block count changed from {len(p)} to {len(a)}")
                continue
            for i, (pi, ai) in enumerate(zip(p, a, strict=True)):
                if isinstance(pi, dict) and isinstance(ai, dict):
                    _apply_block(nested.block, pi, ai, (*here, i), errors)
        elif nested.nesting == SET and isinstance(p, list) and isinstance(a, list):
            if not _has_unknown(p) and _set_key(p) != _set_key(a):
                errors.append(f"{format_path(here)}: planned set of blocks does not match the set returned")
        # map-nested blocks: keys and objects are compared like a map attribute
        elif isinstance(p, dict) and isinstance(a, dict):
            _compatible(p, a, implied_type(nested.block), here, errors)


def _compatible(planned: Any, actual: Any, ty: CtyType, path: Path, errors: list[str]) -> None:
    """``actual`` may fill in what ``planned`` left unknown, and must equal the rest."""
    if isinstance(planned, Marked):
        planned = planned.value
    if isinstance(actual, Marked):
        actual = actual.value
    if isinstance(planned, Unknown) or isinstance(actual, Unknown):
        return  # unknown after apply is reported on its own
    where = format_path(path)
    if planned is None or actual is None:
        if (planned is None) != (actual is None):
            errors.append(f"{where}: was {go_value(planned, ty)}, but now {go_value(actual, ty)}")
        return
    if isinstance(ty, Collection) and ty.kind == "set":
        if not _has_unknown(planned) and _set_key(planned) != _set_key(actual):
            errors.append(f"{where}: planned set element values do not match the set returned: was "
                          f"{go_value(planned, ty)}, but now {go_value(actual, ty)}")
        return
    if isinstance(planned, list) and isinstance(actual, list):
        if len(planned) != len(actual):
            errors.append(f"{where}: length changed from {len(planned)} to {len(actual)}")
            return
        for i, (p, a) in enumerate(zip(planned, actual, strict=True)):
            _compatible(p, a, _element_type(ty, i), (*path, i), errors)
        return
    if isinstance(planned, dict) and isinstance(actual, dict):
        is_map = isinstance(ty, Collection) and ty.kind == "map"
        for key in sorted(set(planned) | set(actual)):
            if key not in actual:
                errors.append(f"{where}: element {json.dumps(key)} has vanished" if is_map
                              else f"{where}: attribute {json.dumps(key)} has vanished")
            elif key not in planned:
                errors.append(f"{where}: new element {json.dumps(key)} has appeared" if is_map
                              else f"{where}: attribute {json.dumps(key)} has appeared")
            else:
                step = MapKey(key) if is_map else key
                _compatible(planned[key], actual[key], _element_type(ty, key), (*path, step), errors)
        return
    if not _same(planned, actual):
        errors.append(f"{where}: was {go_value(planned, ty)}, but now {go_value(actual, ty)}")


def inconsistent_detail(address: str, provider: str, problem: str) -> str:
    return (f"When applying changes to {address}, provider {json.dumps(provider)} produced an unexpected "
            f"new value: {problem}.\n\n{_BUG}")


class ProviderBug(AdapterError):
    """A provider broke a promise of the protocol: one error per problem, in Terraform's words."""

    def __init__(self, address: str, problems: list[tuple[str, str]]) -> None:
        summary, detail = problems[0]
        AdapterError.__init__(self, summary, detail=detail, address=address,
                              hint="Report this to the provider's maintainers.")
        self.problems = problems

    def diagnostics(self) -> list[Diagnostic]:
        return [Diagnostic("error", summary, detail=detail, address=self.address, hint=self.hint)
                for summary, detail in self.problems]


class KeptProviderBug(ProviderBug, PartialResult):
    """The same, after apply: ``result`` is what can be kept of the object (unknowns nulled); the
    applier records it as tainted, as Terraform does, so the next plan replaces it."""

    def __init__(self, address: str, problems: list[tuple[str, str]], result: dict[str, Any]) -> None:
        ProviderBug.__init__(self, address, problems)
        self.result = result


def check_applied(block: Block, address: str, provider: str, planned: Mapping[str, Any] | None,
                  result: dict[str, Any], legacy: bool) -> dict[str, Any]:
    """``result`` as it may be stored; raises ``ProviderBug`` (keeping the object) when the provider
    returned unknown values or contradicted its plan."""
    problems: list[tuple[str, str]] = []
    unknown = unknown_paths(result)
    if unknown:
        problems.extend((INVALID_RESULT, invalid_result_detail(address + format_path(p))) for p in unknown)
        result = unknowns_as_null(result)
    mismatches = apply_problems(block, planned, result)
    if legacy:
        log_legacy("an inconsistent result after apply", provider, address, mismatches)
    else:
        state_provider = f'provider[{json.dumps(provider)}]'
        problems.extend((INCONSISTENT_RESULT, inconsistent_detail(address, state_provider, m)) for m in mismatches)
    if problems:
        raise KeptProviderBug(address, problems, result)
    return result


def check_planned(block: Block, address: str, provider: str, prior: Mapping[str, Any] | None,
                  config: Mapping[str, Any] | None, planned: Mapping[str, Any] | None, legacy: bool) -> None:
    """Raise an error in Terraform's words when a provider's plan contradicts the configuration."""
    problems = plan_problems(block, prior, config, planned)
    if legacy:
        log_legacy("an invalid plan", provider, address, problems)
        return
    if problems:
        raise ProviderBug(address, [(INVALID_PLAN, invalid_plan_detail(provider, address, p)) for p in problems])


def log_legacy(kind: str, provider: str, address: str, problems: list[str]) -> None:
    """What Terraform tolerates from a legacy-type-system provider: only logged."""
    for problem in problems:
        _log.warning("%s: provider %s: %s tolerated for a legacy type system provider: %s",
                     address, provider, kind, problem)


# -- helpers -----------------------------------------------------------------------------------


def _get(value: Mapping[str, Any] | None, name: str) -> Any:
    return None if value is None else value.get(name)


def _has_unknown(value: Any) -> bool:
    return bool(unknown_paths(value))


def _set_key(values: list[Any]) -> list[str]:
    return sorted(json.dumps(_plain(v), sort_keys=True, default=str) for v in values)


def _plain(value: Any) -> Any:
    if isinstance(value, Marked):
        return _plain(value.value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal as cty values: unknowns equal only unknowns, 1 equals 1.0, a set in any order."""
    if isinstance(a, Marked):
        a = a.value
    if isinstance(b, Marked):
        b = b.value
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return isinstance(a, Unknown) and isinstance(b, Unknown)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _element_type(ty: CtyType, step: str | int) -> CtyType:
    if isinstance(ty, Collection):
        return ty.element
    if isinstance(ty, ObjectType) and isinstance(step, str):
        return ty.attributes.get(step, DYNAMIC)
    if isinstance(ty, TupleType) and isinstance(step, int) and step < len(ty.elements):
        return ty.elements[step]
    return DYNAMIC


def format_path(path: Path) -> str:
    """``.rule[0].port``, ``.tags["env"]``: a path as Terraform prints it in these messages."""
    out = ""
    for step in path:
        if isinstance(step, MapKey):
            out += f"[{json.dumps(str(step))}]"
        else:
            out += f"[{step}]" if isinstance(step, int) else f".{step}"
    return out


def go_type(ty: CtyType) -> str:
    """A cty type in Go syntax: ``cty.String``, ``cty.List(cty.Number)``."""
    if ty is STRING:
        return "cty.String"
    if ty is NUMBER:
        return "cty.Number"
    if ty is BOOL:
        return "cty.Bool"
    if isinstance(ty, Collection):
        return f"cty.{ty.kind.capitalize()}({go_type(ty.element)})"
    if isinstance(ty, ObjectType):
        inner = ", ".join(f"{json.dumps(n)}:{go_type(t)}" for n, t in ty.fields)
        return f"cty.Object(map[string]cty.Type{{{inner}}})"
    if isinstance(ty, TupleType):
        return f"cty.Tuple([]cty.Type{{{', '.join(go_type(t) for t in ty.elements)}}})"
    return "cty.DynamicPseudoType"


def go_value(value: Any, ty: CtyType) -> str:
    """A value in cty's Go syntax, as Terraform's ``%#v`` shows it."""
    if isinstance(value, Marked):
        value = value.value
    if ty is DYNAMIC and value is not None and not isinstance(value, Unknown):
        ty = type_of_value(value)
    if isinstance(value, Unknown):
        return f"cty.UnknownVal({go_type(ty)})"
    if value is None:
        return f"cty.NullVal({go_type(ty)})"
    if isinstance(value, bool):
        return "cty.True" if value else "cty.False"
    if isinstance(value, int):
        return f"cty.NumberIntVal({value})"
    if isinstance(value, float):
        return f"cty.NumberIntVal({int(value)})" if value.is_integer() else f"cty.NumberFloatVal({value!r})"
    if isinstance(value, str):
        return f"cty.StringVal({json.dumps(value, ensure_ascii=False)})"
    if isinstance(value, list):
        kind = ty.kind.capitalize() if isinstance(ty, Collection) else "Tuple"
        if not value and isinstance(ty, Collection):
            return f"cty.{kind}ValEmpty({go_type(ty.element)})"
        if not value:
            return "cty.EmptyTupleVal"
        items = ", ".join(go_value(v, _element_type(ty, i)) for i, v in enumerate(value))
        return f"cty.{kind}Val([]cty.Value{{{items}}})"
    if isinstance(value, dict):
        is_map = isinstance(ty, Collection) and ty.kind == "map"
        if not value:
            return f"cty.MapValEmpty({go_type(ty.element)})" if is_map and isinstance(ty, Collection) \
                else "cty.EmptyObjectVal"
        items = ", ".join(f"{json.dumps(k)}:{go_value(v, _element_type(ty, k))}" for k, v in sorted(value.items()))
        return f"cty.{'Map' if is_map else 'Object'}Val(map[string]cty.Value{{{items}}})"
    return repr(value)
