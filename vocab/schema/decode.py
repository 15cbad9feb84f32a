"""Terraform's decoding of a resource's arguments against its schema: the one schema checker.

ctl evaluates a resource's arguments into a dict holding only what the user wrote. A provider
expects what Terraform's decoder produces: every attribute present (null when unset), every nested
block type present (null for an absent single block, an all-null object for a group, an empty
collection otherwise), values converted to the attribute types. ``normalize_config`` does that and
reports what Terraform's decoder would refuse, in Terraform's words (``Unsupported argument``,
``Missing required argument``, ``Too many "X" blocks``, ``Incorrect attribute value type`` with
cty's conversion wording). Provider plugins and native adapters describe their arguments in this
one form, so one checker serves both; a value not known yet passes at any depth, as in Terraform.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vocab.conversion.convert import as_set, convert
from vocab.conversion.value_errors import PathSteps, PluginValueError, format_path
from vocab.schema.form import (
    GROUP,
    LIST,
    MAP,
    SET,
    SINGLE,
    Attribute,
    Block,
    NestedBlock,
    attribute_type,
    empty_value,
    nested_spec_type,
)
from vocab.types import BOOL, DYNAMIC, NUMBER, STRING, Collection, CtyType, ObjectType, TupleType
from vocab.values import Marked, Path, Unknown

READ_ONLY_SUMMARY = "Invalid Configuration for Read-Only Attribute"
READ_ONLY_DETAIL = (
    "Cannot set value for this attribute as the provider has marked it as read-only. Remove the "
    "configuration line setting the value.\n\nRefer to the provider documentation or contact the provider "
    "developers for additional information about configurable and read-only attributes that are supported."
)


class ConfigShapeError(PluginValueError):
    """A configuration Terraform's decoder would refuse for this schema: Terraform's ``title``
    (summary) and ``detail``, at ``path``; ``argument`` names what an "Unsupported argument" is about."""

    def __init__(self, summary: str, detail: str, path: PathSteps) -> None:
        super().__init__(detail, path)
        self.title, self.detail = summary, detail
        self.argument: str | None = None
        self.summary = f"{summary}: {detail}" if not path else f"{format_path(path)}: {summary}: {detail}"
        self.args = (self.summary,)


Problems = list[PluginValueError]


def check_config(block: Block, config: Any, *, refuse_read_only: bool) -> list[ConfigShapeError]:
    """Every problem Terraform's decoder finds in ``config`` for ``block``, in Terraform's words.

    ``refuse_read_only``: a computed-only attribute given a value is refused here ("Invalid
    Configuration for Read-Only Attribute"). Terraform leaves that to the provider's own check, so a
    plugin (whose check runs next) passes False and its provider's words are the ones shown.
    """
    problems: Problems = []
    try:
        _check_object(block, config, (), problems, refuse_read_only)
    except PluginValueError as err:  # the arguments are not an object at all
        problems.append(err)
    return [p if isinstance(p, ConfigShapeError) else _type_problem(block, p) for p in problems]


@dataclass(frozen=True, slots=True)
class _Layout:
    """What checking a block's values needs, worked out once per block: every name it declares, and
    per attribute its type, the Python type a plain value of it has, and whether a configuration
    may set it."""

    names: frozenset[str]
    attributes: tuple[tuple[Attribute, CtyType, type | None, bool], ...]
    block_types: tuple[NestedBlock, ...]


# Keyed by identity, as ``form.implied_type``'s cache is (hashing a deep schema costs more than the
# check); the block is kept alive by its entry so its id cannot be reused.
_LAYOUTS: dict[int, tuple[Block, _Layout]] = {}


def _layout(block: Block) -> _Layout:
    hit = _LAYOUTS.get(id(block))
    if hit is not None and hit[0] is block:
        return hit[1]
    attributes = []
    for a in block.attributes:
        ty = nested_spec_type(a.nested_type) if a.nested_type is not None else attribute_type(a)
        attributes.append((a, ty, _PLAIN.get(ty), a.optional or a.required))
    names = frozenset((*(a.name for a in block.attributes), *(b.type_name for b in block.block_types)))
    taken = {a.name for a in block.attributes}
    layout = _Layout(names, tuple(attributes), tuple(b for b in block.block_types if b.type_name not in taken))
    _LAYOUTS[id(block)] = (block, layout)
    return layout


def _check_object(block: Block, config: Any, path: Path, problems: Problems, refuse_read_only: bool) -> None:
    """``normalize_config``'s findings without building the value it returns: a check runs for every
    resource of every plan, and most arguments are unset, a plain value of their type, or of a
    ``dynamic`` attribute, which takes any value."""
    if isinstance(config, Marked):
        config = config.value
    if config is None:
        return _check_object(block, {}, path, problems, refuse_read_only)
    if not isinstance(config, dict):
        raise ConfigShapeError("Invalid block", "an object of arguments is required", path)
    layout = _layout(block)
    if not layout.names.issuperset(config):
        problems.extend(_unsupported(block, config, path))
    for a, ty, plain, settable in layout.attributes:
        value = config.get(a.name)
        if value is None or (type(value) is Marked and value.value is None):  # a secret null is no more set
            if a.required:
                problems.append(_missing(a, (*path, a.name)))
            continue
        if settable and (type(value) is plain or ty is DYNAMIC):
            continue
        try:
            _attribute_value(a, value, (*path, a.name), refuse_read_only)
        except PluginValueError as err:
            problems.append(err)
    for b in layout.block_types:
        value = config.get(b.type_name)
        if value is None and not b.min_items:
            continue
        try:
            _block_value(b, value, (*path, b.type_name), problems, refuse_read_only)
        except PluginValueError as err:
            problems.append(err)
    return None


def _unsupported(block: Block, config: dict[str, Any], path: Path) -> list[ConfigShapeError]:
    """An "Unsupported argument" for each name ``block`` does not declare, with HCL's suggestion."""
    declared = (*(a.name for a in block.attributes), *(b.type_name for b in block.block_types))
    out = []
    for name in config:
        if name not in declared:
            # As HCL: the names not written already, attributes before blocks, in schema order.
            close = suggestion(name, [n for n in declared if config.get(n) is None])
            hint = f' Did you mean "{close}"?' if close else ""
            unsupported = ConfigShapeError(
                "Unsupported argument", f'An argument named "{name}" is not expected here.{hint}', path
            )
            unsupported.argument = name
            out.append(unsupported)
    return out


def _missing(a: Attribute, path: Path) -> ConfigShapeError:
    return ConfigShapeError(
        "Missing required argument", f'The argument "{a.name}" is required, but no definition was found.', path
    )


def _type_problem(block: Block, err: PluginValueError) -> ConfigShapeError:
    """A conversion error as Terraform's decoder words it: ``Incorrect attribute value type`` naming
    the attribute, with cty's steps below it (``element "a": string required``) in the detail."""
    path = list(err.path)
    attr_at, ty = _attribute_along(block, path)
    if attr_at is None:
        where = format_path(path)
        out = ConfigShapeError("Incorrect attribute value type",
                               f'Inappropriate value for attribute "{where}": {err.message}.', path)
        return out
    steps = path[attr_at + 1:]
    prefix = "".join(f"{step}: " for step in _cty_steps(ty, steps))
    detail = f'Inappropriate value for attribute "{path[attr_at]}": {prefix}{err.message}.'
    return ConfigShapeError("Incorrect attribute value type", detail, path[:attr_at + 1])


def _attribute_along(block: Block, path: list[str | int]) -> tuple[int | None, CtyType | None]:
    """Where on ``path`` the attribute is (blocks and block keys come before it), and its type."""
    current: Block | None = block
    i = 0
    while current is not None and i < len(path):
        step = path[i]
        if not isinstance(step, str):
            return None, None
        attribute = current.attribute(step)
        if attribute is not None:
            ty = nested_spec_type(attribute.nested_type) if attribute.nested_type is not None \
                else attribute_type(attribute)
            return i, ty
        nested = current.block_type(step)
        if nested is None:
            return None, None
        current = nested.block
        i += 1 if nested.nesting in (SINGLE, GROUP) else 2
    return None, None


def _cty_steps(ty: CtyType | None, steps: list[str | int]) -> list[str]:
    """cty's words for the steps into a value of ``ty``: ``element 0``, ``element "k"``, ``attribute "a"``."""
    out: list[str] = []
    for step in steps:
        if isinstance(ty, ObjectType) and isinstance(step, str):
            out.append(f'attribute "{step}"')
            ty = ty.attributes.get(step)
            continue
        out.append(f"element {step}" if isinstance(step, int) else f'element "{step}"')
        if isinstance(ty, Collection):
            ty = ty.element
        elif isinstance(ty, TupleType) and isinstance(step, int) and step < len(ty.elements):
            ty = ty.elements[step]
        else:
            ty = None
    return out


def suggestion(name: str, candidates: list[str]) -> str | None:
    """HCL's ``nameSuggestion``: the first candidate within an edit distance of 2 of ``name``."""
    for candidate in candidates:
        if _distance(name, candidate) < 3:
            return candidate
    return None


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


_PLAIN: dict[CtyType, type] = {STRING: str, NUMBER: int, BOOL: bool}


def normalize_config(block: Block, config: Any, path: Path = (), problems: Problems | None = None, *,
                     refuse_read_only: bool = False) -> dict[str, Any]:
    """``config`` (the arguments as evaluated) in the exact shape of ``block``'s value.

    Without ``problems`` the first thing Terraform's decoder would refuse is raised; with it, every
    such thing is appended there and the value it concerns is left null, so a check reports all of a
    resource's problems at once (as ``terraform validate`` does) from the same rules the plan uses.
    Unknown values pass at any depth: what is not known yet cannot be wrong yet.
    """
    if isinstance(config, Marked):
        config = config.value
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ConfigShapeError("Invalid block", "an object of arguments is required", path)
    layout = _layout(block)
    for unsupported in _unsupported(block, config, path) if not layout.names.issuperset(config) else ():
        if problems is None:
            raise unsupported
        problems.append(unsupported)
    out: dict[str, Any] = {}
    for a in block.attributes:
        value = config.get(a.name)
        ty = a.type
        # Most arguments are unset or already a plain value of their type: no conversion needed.
        if value is None and not a.required:
            out[a.name] = None
        elif ty is not None and type(value) is _PLAIN.get(ty) and (a.optional or a.required):
            out[a.name] = value
        elif problems is None:
            out[a.name] = _attribute_value(a, value, (*path, a.name), refuse_read_only)
        else:
            try:
                out[a.name] = _attribute_value(a, value, (*path, a.name), refuse_read_only)
            except PluginValueError as err:
                problems.append(err)
                out[a.name] = None
    for b in layout.block_types:
        if problems is None:
            out[b.type_name] = _block_value(b, config.get(b.type_name), (*path, b.type_name), None, refuse_read_only)
            continue
        try:
            out[b.type_name] = _block_value(b, config.get(b.type_name), (*path, b.type_name), problems, refuse_read_only)
        except PluginValueError as err:
            problems.append(err)
            out[b.type_name] = None
    return out


def _attribute_value(a: Attribute, value: Any, path: Path, refuse_read_only: bool) -> Any:
    if (value.value if isinstance(value, Marked) else value) is None:  # a secret null is no more set
        if a.required:
            raise _missing(a, path)
        return value
    if refuse_read_only and a.computed and not a.optional and not a.required:
        raise ConfigShapeError(READ_ONLY_SUMMARY, READ_ONLY_DETAIL, path)
    # Nested attributes convert against their type with optional markers, so absent optional
    # attributes come out null rather than failing as missing.
    ty = nested_spec_type(a.nested_type) if a.nested_type is not None else attribute_type(a)
    return convert(value, ty, path)


def _block_value(b: NestedBlock, value: Any, path: Path, problems: Problems | None = None,
                 refuse_read_only: bool = False) -> Any:
    marks = None
    if isinstance(value, Marked):
        value, marks = value.value, value.marks
    if isinstance(value, Unknown):
        return value
    if value is None:
        if b.min_items > 0 and b.nesting in (SINGLE, GROUP, LIST, SET):
            raise _too_few(b, 0, path)
        return empty_value(b)
    if b.nesting in (SINGLE, GROUP) and isinstance(value, list):
        # HCL gives every nested block as a list of the blocks written; a single block is one.
        if len(value) > 1:
            raise ConfigShapeError(f'Too many "{b.type_name}" blocks',
                                   f'No more than 1 "{b.type_name}" block is allowed.', path)
        value = value[0] if value else None
        if value is None:
            return _block_value(b, None, path, problems, refuse_read_only)
        if isinstance(value, Unknown):  # a ``dynamic`` block over a value not known yet
            return Marked(value, marks) if marks else value
    if b.nesting in (SINGLE, GROUP):
        out: Any = normalize_config(b.block, value, path, problems, refuse_read_only=refuse_read_only)
    elif b.nesting == MAP:
        if not isinstance(value, dict):
            raise ConfigShapeError("Invalid block", f'"{b.type_name}" blocks must be labelled by key', path)
        out = {k: _one_block(b, v, (*path, k), problems, refuse_read_only) for k, v in value.items()}
        if any(isinstance(item, Unknown) for item in out.values()):
            return Marked(Unknown(), marks) if marks else Unknown()
    else:
        if isinstance(value, dict):
            value = [value]  # one block written where several may be
        if not isinstance(value, list):
            raise ConfigShapeError("Invalid block", f'"{b.type_name}" must be a list of blocks', path)
        items = [_one_block(b, v, (*path, i), problems, refuse_read_only) for i, v in enumerate(value)]
        if any(isinstance(item, Unknown) for item in items):
            # A ``dynamic`` block over a value not known yet: how many blocks there will be is not
            # known either, so the whole list or set is unknown (as Terraform decodes it), and its
            # item counts are checked when it is known.
            return Marked(Unknown(), marks) if marks else Unknown()
        if b.min_items and len(items) < b.min_items:
            raise _too_few(b, len(items), path)
        if b.max_items and len(items) > b.max_items:
            raise ConfigShapeError(
                "Too many " + f'"{b.type_name}" blocks',
                f'No more than {b.max_items} "{b.type_name}" blocks are allowed.',
                path,
            )
        out = as_set(items) if b.nesting == SET else items
    return Marked(out, marks) if marks else out


def _one_block(b: NestedBlock, value: Any, path: Path, problems: Problems | None, refuse_read_only: bool) -> Any:
    """One block of a list, set or map of them; a block not known yet (a ``dynamic`` block's
    content from a value known only after apply) stays unknown."""
    if isinstance(value, Unknown):
        return value
    return normalize_config(b.block, value, path, problems, refuse_read_only=refuse_read_only)


def _too_few(b: NestedBlock, count: int, path: Path) -> ConfigShapeError:
    noun = "block" if b.min_items == 1 else "blocks"
    return ConfigShapeError(
        f'Insufficient "{b.type_name}" blocks',
        f'At least {b.min_items} "{b.type_name}" {noun} {"is" if b.min_items == 1 else "are"} required.',
        path,
    )


