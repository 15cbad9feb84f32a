"""Checking resource arguments against their schema, and shaping them like state.

Every type's arguments are checked in the provider schema form (blocks, attributes, cty types,
nesting) by Terraform's decoder, ``vocab.schema.decode``: a plugin's block as its provider reports
it, a native adapter's read from its JSON Schema (``engine.plugins.native_schema``, the one
translation). A value not known until apply is accepted at any depth, as Terraform accepts it.
What a native JSON Schema says beyond types and nesting (``enum``, ``minimum``, ``oneOf`` …) is that
adapter's own validation, run after the decoder found nothing, as a provider's ValidateResourceConfig
runs after Terraform's decoding. Each problem names the resource address, and sits at the
argument's file:line:col.

``normalize`` gives a configuration the shape Terraform's state has: every declared attribute
present (null when unset) and a nested block written as a single JSON/YAML object wrapped in a list.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from functools import cache
from typing import TYPE_CHECKING, Any

from adapters.base import ArgumentProblem, ResourceType
from engine.config.shape import brace_after
from engine.lang.syntax import Body
from engine.plugins.native_schema import block_of
from vocab.errors import Diagnostic
from vocab.positions import Located, SourceRange, as_range
from vocab.schema.decode import READ_ONLY_SUMMARY, ConfigShapeError, check_config
from vocab.schema.form import LIST, SET, Block
from vocab.values import Marked, Unknown, deep_unmark, type_name

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

# Keywords that describe a value without constraining it: a subschema of only these accepts anything.
_ANNOTATIONS = frozenset({"$comment", "default", "deprecated", "description", "examples", "readOnly", "title",
                          "writeOnly"})


@cache
def _validator(rt: ResourceType) -> Draft202012Validator:
    """The type's validator. jsonschema is imported here, on the first check that needs it: the
    import is a noticeable part of a short command, and a configuration whose checks all ``_cannot_reject``
    (``terraform_data`` alone) never needs it."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_checked_schema(rt))


@cache
def _checked_schema(rt: ResourceType) -> dict[str, Any]:
    """The schema ``check`` validates against: ``_assertions_only``, and without a root ``"type":
    "object"``, which what it checks always is (a dict it builds), so that keyword's call per
    resource proved nothing."""
    checked = _assertions_only(rt.schema)
    if checked.get("type") == "object":
        checked = {key: value for key, value in checked.items() if key != "type"}
    return checked


def _assertions_only(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each property whose subschema only annotates (a description, ``readOnly``)
    made ``true``. Both accept every value, but jsonschema descends into a value for the one and
    not the other: descending was most of a check (``terraform_data``'s ``input``, for one), and a
    check runs for every resource of every plan."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return schema
    pruned = {name: True if isinstance(sub, dict) and sub.keys() <= _ANNOTATIONS else
              _assertions_only(sub) if isinstance(sub, dict) else sub for name, sub in props.items()}
    return {**schema, "properties": pruned}


@cache
def _block_shape(block: Block) -> tuple[tuple[str, ...], frozenset[str]]:
    """Every argument and block type name of ``block``, and those of the nested blocks that repeat
    in a list or set (a lone object written for one is wrapped in a list)."""
    names = tuple(dict.fromkeys((*(a.name for a in block.attributes), *(b.type_name for b in block.block_types))))
    return names, frozenset(b.type_name for b in block.block_types if b.nesting in (LIST, SET))


def argument_names(rt: ResourceType) -> Collection[str]:
    """The names the type declares (arguments, computed attributes and nested block types)."""
    if rt.block is not None:
        return _block_shape(rt.block)[0]
    props: dict[str, Any] = rt.schema.get("properties", {})
    return props.keys()


def read_only(rt: ResourceType, name: str) -> bool:
    """Whether ``name`` is a computed-only attribute: no configuration sets it."""
    if rt.block is not None:
        attribute = rt.block.attribute(name)
        return attribute is not None and attribute.computed and not (attribute.optional or attribute.required)
    prop = rt.schema.get("properties", {}).get(name)
    return isinstance(prop, dict) and prop.get("readOnly") is True


def repeated_block(rt: ResourceType, name: str) -> bool:
    """Whether ``name`` is a nested block type written any number of times (a list or set of them)."""
    if rt.block is not None:
        return name in _block_shape(rt.block)[1]
    prop = rt.schema.get("properties", {}).get(name)
    return isinstance(prop, dict) and _is_block_list(prop)


def normalize(rt: ResourceType, config: dict[str, Any]) -> dict[str, Any]:
    if rt.block is not None:
        names, repeated = _block_shape(rt.block)
        shaped = dict(config)
        for name in names:
            if name not in shaped:
                shaped[name] = None
            elif name in repeated and isinstance(shaped[name], dict):
                shaped[name] = [shaped[name]]
        return shaped
    props: dict[str, Any] = rt.schema.get("properties", {})
    out = dict(config)
    for name, prop in props.items():
        if name not in out:
            out[name] = None
            continue
        value = out[name]
        if isinstance(value, dict) and _is_block_list(prop):
            out[name] = [value]
    return out


def _is_block_list(prop: dict[str, Any]) -> bool:
    t = prop.get("type")
    is_array = t == "array" or (isinstance(t, list) and "array" in t)
    return is_array and prop.get("items", {}).get("type") == "object"


def check(rt: ResourceType, config: dict[str, Any], address: str, body: Body, fallback: Located) -> list[Diagnostic]:
    """Schema problems of one instance's arguments; ``fallback`` is where one goes that no
    argument's range places, made a range only then.

    A type described in the provider schema form (``rt.block``) is checked by Terraform's decoder
    (``vocab.schema.decode``), the same for a plugin's types and a native adapter's: a value not
    known yet is accepted at any depth. A plugin's provider refuses a computed-only attribute in its
    own words (its check runs next, as in Terraform), so only a native type's is refused here.
    """
    if rt.block is not None:
        found = check_config(rt.block, config, refuse_read_only=not rt.remote_plan)
        return [_decoder_diagnostic(rt, err, address, body, fallback) for err in found]
    args = _plain_arguments(rt, config)
    for computed in rt.computed:
        if computed in args and config.get(computed) is None:
            args.pop(computed, None)
    if _cannot_reject(rt, args) and args.keys().isdisjoint(_read_only_names(rt)):
        # Every argument set takes any value and none is computed-only: neither the decoder nor the
        # adapter's own validation can find anything (``terraform_data``, and most of a large plan).
        return []
    found = check_config(block_of(rt), config, refuse_read_only=True)
    if found:
        return [_decoder_diagnostic(rt, err, address, body, fallback) for err in found]
    return _native_validation(rt, args, address, body, fallback)


@cache
def _read_only_names(rt: ResourceType) -> frozenset[str]:
    """A native type's computed-only attributes (``readOnly`` in its JSON Schema)."""
    props: dict[str, Any] = rt.schema.get("properties", {})
    return frozenset(name for name, prop in props.items() if isinstance(prop, dict) and prop.get("readOnly"))


def _native_validation(rt: ResourceType, args: dict[str, Any], address: str, body: Body,
                       fallback: Located) -> list[Diagnostic]:
    """A native type's own checks beyond types and nesting: its JSON Schema's value constraints
    (``enum``, ``minimum``, ``pattern``, one of several arguments …), with the words they always had.
    A value not known yet cannot break one yet: a problem at or about it is left for the plan.
    ``args``: the arguments set, unmarked (``_plain_arguments``)."""
    if _cannot_reject(rt, args):
        return []
    out = []
    for err in _validator(rt).iter_errors(_fill_unknowns(args, _checked_schema(rt))):
        path = list(err.absolute_path)
        if _at_unknown(args, path) or _involves_unknown(err):
            continue
        out.append(_diagnostic(err, path, address, body, fallback))
    return out


_NATIVE_HINT = ("ctl's native adapter for {name} does not have it{what}; Terraform's provider may. Run `ctl init`: "
                "it then selects the provider's plugin, which serves every type of the provider.")


def _decoder_diagnostic(rt: ResourceType, err: ConfigShapeError, address: str, body: Body,
                        fallback: Located) -> Diagnostic:
    """What the decoder found, at its argument; an argument a native type lacks (or only records)
    comes with how to get the provider's plugin, which may take it."""
    diag = _problem_diagnostic(_decoder_problem(err, body), address, body, fallback)
    if rt.remote_plan or err.path[:-1] or (err.argument is None and err.title != READ_ONLY_SUMMARY):
        return diag
    what = " as an argument (it only records it)" if err.title == READ_ONLY_SUMMARY else ""
    return dataclasses.replace(diag, hint=_NATIVE_HINT.format(name=rt.name, what=what))


def _decoder_problem(err: ConfigShapeError, body: Body) -> ArgumentProblem:
    """What the decoder found, as Terraform words it: a name written as a block that the schema does
    not have is an "Unsupported block type", not an argument."""
    name = err.argument
    written_as_block = any(b.type == name or (b.type == "dynamic" and b.labels[:1] == [name]) for b in body.blocks)
    if name is not None and not err.path and name not in body.attributes and written_as_block:
        return ArgumentProblem((), "Unsupported block type", f'Blocks of type "{name}" are not expected here.', name)
    return ArgumentProblem(tuple(err.path), err.title, err.detail, name)


# Root keywords that read only which arguments are set, or each one's own subschema: with no others
# at the root, an argument whose subschema is ``true`` is never looked into.
_KEYS_ONLY_ROOT = _ANNOTATIONS | {"$schema", "$id", "properties", "additionalProperties", "required", "type"}


@cache
def _opaque_arguments(rt: ResourceType) -> frozenset[str]:
    """The arguments whose value the check never looks into, only whether it is set."""
    checked = _checked_schema(rt)
    if not checked.keys() <= _KEYS_ONLY_ROOT:
        return frozenset()
    return frozenset(name for name, sub in checked.get("properties", {}).items() if sub is True)


@cache
def _required_when_keys_only(rt: ResourceType) -> frozenset[str] | None:
    """The required arguments, when the checked schema's root only lists properties and which are
    required (no root ``type`` left, see ``_checked_schema``); None for any other schema."""
    checked = _checked_schema(rt)
    required = checked.get("required", [])
    if not checked.keys() <= _KEYS_ONLY_ROOT or "type" in checked or not isinstance(required, list) \
            or not all(isinstance(name, str) for name in required):
        return None
    return frozenset(required)


def _cannot_reject(rt: ResourceType, args: dict[str, Any]) -> bool:
    """Whether the schema check of ``args`` is sure to find nothing, without running it: every set
    argument is opaque (``_opaque_arguments``: its subschema accepts any value) and every required
    one is set, under a root that checks nothing else. ``terraform_data``, with its ``input`` and
    ``triggers_replace``, is such a type; jsonschema's walk over it was most of its check, for a
    verdict known in advance."""
    required = _required_when_keys_only(rt)
    return required is not None and args.keys() <= _opaque_arguments(rt) and required <= args.keys()


def _plain_arguments(rt: ResourceType, config: dict[str, Any]) -> dict[str, Any]:
    """The set arguments without their marks (null is unset: a required one is then missing).

    An opaque argument (``_opaque_arguments``) loses only the marks around it: the check reads
    nothing inside it, and unmarking all of ``terraform_data``'s ``input`` was a large part of its
    check.
    """
    opaque = _opaque_arguments(rt)
    args: dict[str, Any] = {}
    for name, value in config.items():
        if name in opaque:
            if isinstance(value, Marked):  # never nested in another
                value = value.value
        else:
            value, _ = deep_unmark(value)
        if value is not None:
            args[name] = value
    return args


_PLACEHOLDERS: dict[str, Any] = {"string": "", "number": 0, "integer": 0, "boolean": False,
                                  "array": [], "object": {}}


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _fill_unknowns(value: Any, sub: dict[str, Any] | bool) -> Any:
    """Unknown values replaced by a value of the type the schema expects there, for a native type's
    own validation only (the decoder checks types and takes an unknown at any depth as it is).

    A value not known until apply cannot break a constraint yet, but its presence still counts for
    "exactly one of these arguments" rules (``oneOf`` alternatives that also say the argument's
    type), so it stands in as a typed placeholder there.
    A collection with nothing unknown inside, the usual case, is returned as it is, not copied, and
    so is whatever a ``true`` subschema (``_assertions_only``) accepts: the check does not look
    inside it, so a placeholder there would change nothing — and ``terraform_data``'s ``input``,
    the largest value of most such resources, is not walked at all.
    """
    if type(sub) is not dict:
        return value
    if isinstance(value, Unknown):
        t = sub.get("type", "string")
        if isinstance(t, list):
            t = next((x for x in t if x != "null"), "string")
        return _PLACEHOLDERS.get(t, "")
    if isinstance(value, dict):
        props = sub.get("properties", {})
        extra = sub.get("additionalProperties")
        other: dict[str, Any] | bool = extra if isinstance(extra, dict) else True
        out: dict[Any, Any] | None = None
        for k, v in value.items():
            if type(v) in _SCALARS:
                continue
            filled = _fill_unknowns(v, props.get(k, other))
            if filled is not v:
                if out is None:
                    out = dict(value)
                out[k] = filled
        return value if out is None else out
    if isinstance(value, list):
        items = sub.get("items", {})
        item_schema: dict[str, Any] | bool = items if isinstance(items, dict) else True
        out_l: list[Any] | None = None
        for i, v in enumerate(value):
            if type(v) in _SCALARS:
                continue
            filled = _fill_unknowns(v, item_schema)
            if filled is not v:
                if out_l is None:
                    out_l = list(value)
                out_l[i] = filled
        return value if out_l is None else out_l
    return value


def _at_unknown(value: Any, path: list[Any]) -> bool:
    for step in path:
        if isinstance(value, Unknown):
            return True
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return False
    return isinstance(value, Unknown)


def _involves_unknown(err: ValidationError) -> bool:
    return isinstance(err.instance, Unknown)


def provider_diagnostics(problems: list[ArgumentProblem], address: str, body: Body,
                         fallback: Located, *, prefix: bool = True) -> list[Diagnostic]:
    """What a provider's own check found (``Provider.validate_arguments``), each at its argument.

    ``prefix``: the detail starts with ``ADDRESS:`` (a resource's, which Terraform prints as ``with
    ADDRESS``); a provider block's problem is the provider's words alone, as Terraform shows it.
    """
    return [_problem_diagnostic(problem, address, body, fallback, prefix) for problem in problems]


def _problem_diagnostic(problem: ArgumentProblem, address: str, body: Body, fallback: Located,
                        prefix: bool = True) -> Diagnostic:
    """A problem the type found by its own schema form, at the argument (or block) it is about."""
    if problem.argument is not None and not problem.path:
        rng = _name_range(problem.argument, body) or as_range(fallback)
    else:
        rng = _range_at(list(problem.path), body, fallback)
    if problem.summary == "Missing required argument":
        rng = brace_after(rng)  # where Terraform points: the brace that opens the body lacking it
    detail = f"{address}: {problem.detail}" if prefix else problem.detail
    return Diagnostic(problem.severity, problem.summary, detail=detail, range=rng, address=address)


def _range_at(path: list[Any], body: Body, fallback: Located) -> SourceRange:
    """Where the value at ``path`` was written: its attribute's expression, else the innermost block
    on the way to it (``("assume_role", 0, "duration")``: the ``duration`` inside the first
    ``assume_role`` block; a block ``dynamic`` writes is found by its label)."""
    found = as_range(fallback)
    steps = list(path)
    while steps and isinstance(steps[0], str):
        name = steps.pop(0)
        attr = body.attributes.get(name)
        if attr is not None:
            return attr.expr.rng
        blocks = body.blocks_of(name)
        if not blocks:
            dynamic = next((b for b in body.blocks if b.type == "dynamic" and b.labels[:1] == [name]), None)
            return dynamic.rng if dynamic is not None else found
        index = steps.pop(0) if steps and isinstance(steps[0], int) else 0
        if index >= len(blocks):
            return blocks[0].rng
        found, body = blocks[index].rng, blocks[index].body
    return found


def _name_range(name: str, body: Body) -> SourceRange | None:
    """Where the argument or block named ``name`` is written (a ``dynamic`` block by its label)."""
    attr = body.attributes.get(name)
    if attr is not None:
        return attr.name_rng
    block = next((b for b in body.blocks if name in (b.type, *(b.labels[:1] if b.type == "dynamic" else ()))), None)
    if block is None:
        return None
    return block.label_rngs[0] if block.type == "dynamic" and block.label_rngs else block.rng


def _diagnostic(err: ValidationError, path: list[Any], address: str, body: Body, fallback: Located) -> Diagnostic:
    attr_path = _format_path(path)
    rng = _range_at(path, body, fallback)
    validator = err.validator
    if validator == "required":
        missing = str(err.message).split("'")[1] if "'" in err.message else err.message
        summary = f'Missing required argument "{missing}"'
        detail = f'The argument "{missing}" is required for {address}, but it is not set.'
    elif validator == "additionalProperties":
        extra = _extra_names(err)
        if extra and not path:
            rng = _name_range(extra[0], body) or rng
        summary = f'Unsupported argument "{extra[0] if extra else "?"}"'
        detail = "This resource type has no argument or block named like this."
    elif validator == "type":
        want = err.validator_value if isinstance(err.validator_value, str) else " or ".join(err.validator_value)
        summary = f'Inappropriate value for attribute "{attr_path}"'
        detail = f"{_tf_type(want)} required, got {type_name(err.instance)}."
    else:  # a rule over the whole block (one of these, not both) has no attribute to name
        summary = f'Invalid value for attribute "{attr_path}"' if attr_path else "Invalid combination of arguments"
        detail = err.message
    return Diagnostic("error", summary, detail=f"{address}: {detail}", range=rng, address=address)


def _extra_names(err: ValidationError) -> list[str]:
    allowed = set(err.schema.get("properties", {}))
    inst = err.instance if isinstance(err.instance, dict) else {}
    return sorted(k for k in inst if k not in allowed)


def _tf_type(json_type: str) -> str:
    return {"integer": "whole number", "object": "object", "array": "list"}.get(json_type, json_type)


def _format_path(path: list[Any]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out
