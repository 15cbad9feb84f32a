"""Plans and states in Terraform's machine-readable shapes (``show -json``).

conftest, checkov, jq scripts and review bots already read Terraform's plan JSON (format 1.2) and
its state values representation, so ctl prints exactly those shapes and those tools work unchanged.
Two things differ from Terraform, both on purpose:

* Secrets are masked as ``"(sensitive value)"`` in every value unless ``show_sensitive`` is asked
  for; the ``*_sensitive`` maps still say where they were, so a tool can tell what was hidden.
* ``ctl_version`` is added next to ``terraform_version`` (unknown keys are ignored by readers).

Values arrive in the expression language's model: ``Unknown`` leaves become ``true`` in
``after_unknown`` and are left out of ``after``; ``Marked`` leaves become ``true`` in the
``*_sensitive`` maps.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from engine.plan.model import DELETE, OutputChange, Plan, ResourceChange
from engine.state.address import format_module, parse_module
from engine.state.gc_pause import gc_paused
from engine.state.model import TERRAFORM_COMPAT_VERSION, State, output_type
from vocab.values import SENSITIVE, Marked, Unknown, entries_before
from vocab.version import VERSION

PLAN_FORMAT_VERSION = "1.2"
# The first Terraform release whose plan document has every field written here (format 1.2,
# ``applyable`` and ``complete``): readers that gate features on the version see a true claim.
PLAN_TERRAFORM_VERSION = "1.8.0"
STATE_FORMAT_VERSION = "1.0"
MASK = "(sensitive value)"

_OMIT = object()  # an unknown leaf: left out of objects, null inside lists
_PROVIDER_RE = re.compile(r'provider\["([^"]+)"\]')


# -- values ---------------------------------------------------------------------------------------


def value_shapes(value: Any, *, show_sensitive: bool = False) -> tuple[Any, Any, Any]:
    """``(plain, unknown_shape, sensitive_shape)`` of one value, as Terraform's plan JSON wants them.

    ``plain`` has unknown leaves left out (``null`` in lists) and secrets masked unless
    ``show_sensitive``. The shapes follow the value with ``true`` at unknown (resp. sensitive)
    leaves and leave out everything else; with nothing to flag they are ``{}`` for an object,
    ``[false, …]`` for a list and ``false`` otherwise — what Terraform prints.
    """
    plain, unknown, sensitive = _walk(value, not show_sensitive)
    return (None if plain is _OMIT else plain), _default(value, unknown), _default(value, sensitive)


_SCALARS = (str, int, float, bool, type(None))


class _Shapes:
    """``value_shapes`` for one document, each value object walked once.

    A plan shows the same object in several places: an unchanged instance is its change's
    ``before`` and ``after``, its planned value and its prior state; a created one is its change's
    ``after`` and its planned value. The three views are made once per object and then shared by
    every place that shows it (the document is only read and serialised, never edited in place,
    so a value with nothing to mask or leave out is shown as the very object the plan holds).
    """

    def __init__(self, show_sensitive: bool) -> None:
        self.show_sensitive = show_sensitive
        self._seen: dict[int, tuple[Any, tuple[Any, Any, Any]]] = {}  # id -> (the object, its views)

    def __call__(self, value: Any) -> tuple[Any, Any, Any]:
        if not isinstance(value, dict | list):
            return value_shapes(value, show_sensitive=self.show_sensitive)
        hit = self._seen.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        views = value_shapes(value, show_sensitive=self.show_sensitive)
        self._seen[id(value)] = (value, views)  # holding the object keeps its id from being reused
        return views


def _walk(v: Any, mask: bool) -> tuple[Any, Any, Any]:
    """``_plain``, ``_shape(…, _is_unknown)`` and ``_shape(…, _is_sensitive)`` in one pass.

    A plan of tens of thousands of resources turns every value into these three views for the
    policy gate and ``show --json``; one walk instead of three is most of that cost saved.
    """
    if type(v) in _SCALARS:
        return v, None, None
    if isinstance(v, Marked):
        sensitive = SENSITIVE in v.marks
        if isinstance(v.value, Unknown):
            return _OMIT, True, (True if sensitive else None)
        plain, unknown, inner_sensitive = _walk(v.value, mask)
        if sensitive:  # a null hides nothing: shown as null, as the references show it
            return (MASK if mask and plain is not None else plain), unknown, True
        return plain, unknown, inner_sensitive
    if isinstance(v, Unknown):
        return _OMIT, True, None
    if isinstance(v, dict):
        plain_d: dict[str, Any] | None = None  # made only when some value's plain view differs
        unknown_d: dict[str, Any] = {}
        sensitive_d: dict[str, Any] = {}
        for k, x in v.items():
            if type(x) in _SCALARS:  # most leaves: no call
                if plain_d is not None:
                    plain_d[k] = x
                continue
            p, u, s = _walk(x, mask)
            if plain_d is None and p is not x:
                plain_d = entries_before(v, k)
            if plain_d is not None and p is not _OMIT:
                plain_d[k] = p
            if u is not None:
                unknown_d[k] = u
            if s is not None:
                sensitive_d[k] = s
        return (v if plain_d is None else plain_d), (unknown_d or None), (sensitive_d or None)
    if isinstance(v, list | tuple):
        plain_l, unknown_l, sensitive_l = [], [], []
        any_unknown = any_sensitive = False
        same = type(v) is list  # a list whose items are all their own plain views is its own
        for x in v:
            if type(x) in _SCALARS:
                plain_l.append(x)
                unknown_l.append(False)
                sensitive_l.append(False)
                continue
            p, u, s = _walk(x, mask)
            same = same and p is x
            plain_l.append(None if p is _OMIT else p)
            unknown_l.append(False if u is None else u)
            sensitive_l.append(False if s is None else s)
            any_unknown = any_unknown or u is not None
            any_sensitive = any_sensitive or s is not None
        return (v if same else plain_l), (unknown_l if any_unknown else None), (sensitive_l if any_sensitive else None)
    return v, None, None


def _default(v: Any, shape: Any) -> Any:
    """A shape with nothing flagged, as Terraform prints it: ``{}``, ``[false, …]`` or ``false``."""
    if shape is not None:
        return shape
    inner = v.value if isinstance(v, Marked) else v
    if isinstance(inner, dict):
        return {}
    if isinstance(inner, list | tuple):
        return [False] * len(inner)
    return False


def _plain(v: Any, *, mask: bool) -> Any:
    """The value as JSON shows it: unknowns left out, secrets masked (when ``mask``); nothing copied
    that needs no change (the plain view of ``_walk``)."""
    return _walk(v, mask)[0]


def _is_unknown(v: Any) -> bool:
    return isinstance(v, Unknown) or (isinstance(v, Marked) and isinstance(v.value, Unknown))


def _is_sensitive(v: Any) -> bool:
    return isinstance(v, Marked) and SENSITIVE in v.marks


def _shape(v: Any, flagged: Any) -> Any:
    """``True`` at flagged leaves; ``None`` when nothing inside ``v`` is flagged."""
    if flagged(v):
        return True
    if isinstance(v, Marked):
        v = v.value
    if isinstance(v, dict):
        out = {k: s for k, x in v.items() if (s := _shape(x, flagged)) is not None}
        return out or None
    if isinstance(v, list | tuple):
        items = [_shape(x, flagged) for x in v]
        if all(s is None for s in items):
            return None
        return [False if s is None else s for s in items]
    return None


# -- plan -----------------------------------------------------------------------------------------


@gc_paused
def plan_to_json(
    plan: Plan,
    *,
    show_sensitive: bool = False,
    configuration: dict[str, Any] | None = None,
    ctl_version: str = VERSION,
) -> dict[str, Any]:
    """The ``show -json PLANFILE`` document (Terraform's plan representation, format 1.2).

    Empty ``relevant_attributes`` and ``checks`` are left out, as Terraform leaves them out.
    """
    shapes = _Shapes(show_sensitive)
    doc: dict[str, Any] = {
        "format_version": PLAN_FORMAT_VERSION,
        "terraform_version": PLAN_TERRAFORM_VERSION,
        "ctl_version": ctl_version,
        "variables": {
            name: {"value": value_shapes(v, show_sensitive=show_sensitive)[0]}
            for name, v in plan.variables.items()
        },
        "planned_values": _planned_values(plan, show_sensitive, shapes),
        "resource_drift": [_resource_change(c, shapes) for c in plan.drift],
        "resource_changes": resource_changes_json(plan, show_sensitive=show_sensitive, shapes=shapes),
        "output_changes": {
            name: _output_change(oc, show_sensitive) for name, oc in sorted(plan.outputs.items())
        },
    }
    if plan.prior_state.resources or plan.prior_state.outputs:  # Terraform leaves out an empty one
        doc["prior_state"] = state_to_json(plan.prior_state, show_sensitive=show_sensitive, ctl_version=ctl_version,
                                           shapes=shapes)
    doc.update({
        "configuration": _plain(plan.configuration_json() if configuration is None else configuration,
                                mask=not show_sensitive),
        "timestamp": plan.timestamp,
        "applyable": plan.has_changes and not plan.errored,
        "complete": True,
        "errored": plan.errored,
    })
    return doc


def resource_changes_json(plan: Plan, *, show_sensitive: bool = False, shapes: _Shapes | None = None,
                          keep: Callable[[ResourceChange], bool] | None = None) -> list[dict[str, Any]]:
    """The document's ``resource_changes``: all the built-in policy pack reads of a plan; only the
    changes ``keep`` accepts, when given."""
    shapes = shapes if shapes is not None else _Shapes(show_sensitive)
    changes = plan.changes if keep is None else [c for c in plan.changes if keep(c)]
    return [_resource_change(c, shapes) for c in changes]


def provider_name(provider: str) -> str:
    """``provider["registry.terraform.io/hashicorp/aws"].east`` -> ``registry.terraform.io/hashicorp/aws``."""
    m = _PROVIDER_RE.search(provider)
    return m.group(1) if m else provider


def _resource_change(c: ResourceChange, shapes: _Shapes) -> dict[str, Any]:
    before, _, before_sensitive = shapes(c.before)
    after, after_unknown, after_sensitive = shapes(c.after)
    if c.after is None:
        after_unknown = {}  # Terraform: nothing is unknown about a deleted object
    change: dict[str, Any] = {
        "actions": list(c.actions),
        "before": before,
        "after": after,
        "after_unknown": after_unknown,
        "before_sensitive": before_sensitive,
        "after_sensitive": after_sensitive,
    }
    if c.replace_paths:
        change["replace_paths"] = [list(p) for p in c.replace_paths]
    if c.importing_id:
        change["importing"] = {"id": c.importing_id}  # Terraform 1.5's field
    doc: dict[str, Any] = {"address": c.address}
    if c.previous_address:
        doc["previous_address"] = c.previous_address
    if c.module_address:
        doc["module_address"] = c.module_address
    doc.update(mode=c.mode, type=c.type, name=c.name)
    if c.index is not None:
        doc["index"] = c.index
    if c.deposed:
        doc["deposed"] = c.deposed
    doc["provider_name"] = provider_name(c.provider)
    doc["change"] = change
    if c.action_reason:
        doc["action_reason"] = c.action_reason
    return doc


def _output_change(oc: OutputChange, show_sensitive: bool) -> dict[str, Any]:
    mask = oc.sensitive and not show_sensitive

    def shown(v: Any) -> Any:
        plain = value_shapes(v, show_sensitive=show_sensitive)[0]
        return MASK if mask and plain is not None else plain

    after_unknown = _shape(oc.after, _is_unknown)
    return {
        "actions": list(oc.actions),
        "before": shown(oc.before),
        "after": shown(oc.after),
        "after_unknown": False if after_unknown is None else after_unknown,
        "before_sensitive": oc.sensitive or _shape(oc.before, _is_sensitive) is not None,
        "after_sensitive": oc.sensitive or _shape(oc.after, _is_sensitive) is not None,
    }


def _planned_values(plan: Plan, show_sensitive: bool, shapes: _Shapes) -> dict[str, Any]:
    outputs: dict[str, dict[str, Any]] = {}
    for name, oc in sorted(plan.outputs.items()):
        if DELETE in oc.actions and oc.after is None:
            continue
        sensitive = oc.sensitive or _shape(oc.after, _is_sensitive) is not None
        entry: dict[str, Any] = {"sensitive": sensitive}
        if _shape(oc.after, _is_unknown) is None:
            plain = value_shapes(oc.after, show_sensitive=True)[0]
            entry["type"] = oc.type if oc.type is not None else output_type(plain)
            # A null hides nothing: shown as null, as in the output changes and the references
            entry["value"] = MASK if sensitive and not show_sensitive and plain is not None else plain
        outputs[name] = entry
    tree = _ModuleTree()
    for c in plan.changes:
        if c.after is None or c.actions == (DELETE,):
            continue
        values, _, sensitive_values = shapes(c.after)
        tree.add(
            c.module_address,
            {
                "address": c.address,
                "mode": c.mode,
                "type": c.type,
                "name": c.name,
                "index": c.index,
                "provider_name": provider_name(c.provider),
                "schema_version": c.schema_version,
                "values": values,
                "sensitive_values": sensitive_values,
            },
        )
    return {"outputs": outputs, "root_module": tree.to_json()}


# -- state ----------------------------------------------------------------------------------------


@gc_paused
def state_to_json(state: State, *, show_sensitive: bool = False, ctl_version: str = VERSION,
                  shapes: _Shapes | None = None) -> dict[str, Any]:
    """The ``show -json`` document of a state; an empty state has no ``values`` (as in Terraform).

    ``shapes`` is the plan document's, when the state is a plan's prior state (see ``_Shapes``).
    """
    shapes = shapes or _Shapes(show_sensitive)
    doc: dict[str, Any] = {
        "format_version": STATE_FORMAT_VERSION,
        "terraform_version": state.terraform_version or TERRAFORM_COMPAT_VERSION,
        "ctl_version": ctl_version,
    }
    if state.is_empty and not state.outputs:
        return doc
    values: dict[str, Any] = {}
    if state.outputs:
        values["outputs"] = {
            name: {
                "sensitive": out.sensitive,
                "value": MASK if out.sensitive and not show_sensitive else out.value,
                "type": out.type if out.type is not None else output_type(out.value),
            }
            for name, out in sorted(state.outputs.items())
        }
    tree = _ModuleTree()
    providers = {res.key: res.provider for res in state.resources}
    for addr, inst in state.instances(include_deposed=True):
        attrs, _, sensitive_values = shapes(inst.marked_attributes())
        entry: dict[str, Any] = {
            "address": str(addr),
            "mode": addr.mode,
            "type": addr.type,
            "name": addr.name,
            "index": addr.key,
            "provider_name": provider_name(providers[addr.resource_key]),
            "schema_version": inst.schema_version,
            "values": attrs,
            "sensitive_values": sensitive_values,
        }
        if inst.dependencies:
            entry["depends_on"] = list(inst.dependencies)
        if inst.status == "tainted":
            entry["tainted"] = True
        if inst.deposed:
            entry["deposed_key"] = inst.deposed
        tree.add(addr.module_str, entry)
    values["root_module"] = tree.to_json()
    doc["values"] = values
    return doc


class _ModuleTree:
    """Resources grouped into Terraform's nested ``root_module``/``child_modules`` structure."""

    def __init__(self, address: str = "") -> None:
        self.address = address
        self.resources: list[dict[str, Any]] = []
        self.children: dict[str, _ModuleTree] = {}

    def add(self, module_address: str, resource: dict[str, Any]) -> None:
        if resource.get("index") is None:
            resource.pop("index", None)
        node = self
        path = parse_module(module_address)
        for depth in range(1, len(path) + 1):
            addr = format_module(path[:depth])
            node = node.children.setdefault(addr, _ModuleTree(addr))
        node.resources.append(resource)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {}
        if self.address:
            doc["address"] = self.address
        if self.resources:
            doc["resources"] = sorted(self.resources, key=_resource_order)
        if self.children:
            doc["child_modules"] = [self.children[a].to_json() for a in sorted(self.children)]
        return doc


def _resource_order(res: dict[str, Any]) -> tuple[Any, ...]:
    """Resources by mode, type and name, then count indexes numerically, then for_each keys."""
    index = res.get("index")
    key = (0, 0, "") if index is None else (1, index, "") if isinstance(index, int) else (2, 0, index)
    return (res["mode"] != "managed", res["type"], res["name"], key, res.get("deposed_key", ""))


__all__ = [
    "MASK",
    "PLAN_FORMAT_VERSION",
    "STATE_FORMAT_VERSION",
    "plan_to_json",
    "provider_name",
    "state_to_json",
    "value_shapes",
]


class PolicyDocument:
    """A plan's JSON document as the policy gate reads it (``policies.gate.PlanDocument``), with the
    real values: built only in the size the gate asks for, and never written anywhere."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan

    def resource_changes(self, keep: Callable[[str, str, tuple[str, ...]], bool]) -> list[dict[str, Any]]:
        return resource_changes_json(self.plan, show_sensitive=True,
                                     keep=lambda c: keep(c.mode, c.type, tuple(c.actions)))

    def whole(self) -> dict[str, Any]:
        # A saved plan and a fresh one build their configuration when first asked (configuration_json).
        return plan_to_json(self.plan, show_sensitive=True)
