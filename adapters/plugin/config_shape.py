"""Giving a configuration value the full shape of its block before a provider sees it.

ctl evaluates a resource's arguments into a dict holding only what the user wrote. A provider
expects what Terraform's decoder produces: every attribute present (null when unset), every nested
block type present (null for an absent single block, an all-null object for a group, an empty
collection otherwise), values converted to the attribute types. ``normalize_config`` does that and
reports what Terraform's decoder would refuse, in Terraform's words. ``proposed_new`` then merges
the prior state in for computed attributes the configuration leaves unset — the "proposed new
state" a plan request carries.
"""

from __future__ import annotations

import difflib
from typing import Any

from adapters.plugin.convert import as_set, convert
from adapters.plugin.schema import (
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
from adapters.plugin.value_errors import PathSteps, PluginValueError, format_path
from vocab.types import BOOL, NUMBER, STRING, CtyType
from vocab.values import Marked, Path, SetValue, Unknown

_PLAIN: dict[CtyType, type] = {STRING: str, NUMBER: int, BOOL: bool}


class ConfigShapeError(PluginValueError):
    """A configuration Terraform's decoder would refuse for this schema."""

    def __init__(self, summary: str, detail: str, path: PathSteps) -> None:
        super().__init__(detail, path)
        self.title, self.detail = summary, detail
        self.argument: str | None = None  # the name an "Unsupported argument" is about
        self.summary = f"{summary}: {detail}" if not path else f"{format_path(path)}: {summary}: {detail}"
        self.args = (self.summary,)


Problems = list[PluginValueError]


def normalize_config(block: Block, config: Any, path: Path = (), problems: Problems | None = None) -> dict[str, Any]:
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
    attributes = {a.name: a for a in block.attributes}
    blocks = {b.type_name: b for b in block.block_types}
    for name in config:
        if name not in attributes and name not in blocks:
            close = difflib.get_close_matches(name, sorted((*attributes, *blocks)), n=1)
            suggestion = f' Did you mean "{close[0]}"?' if close else ""
            unsupported = ConfigShapeError(
                "Unsupported argument", f'An argument named "{name}" is not expected here.{suggestion}', path
            )
            unsupported.argument = name
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
            out[a.name] = _attribute_value(a, value, (*path, a.name))
        else:
            try:
                out[a.name] = _attribute_value(a, value, (*path, a.name))
            except PluginValueError as err:
                problems.append(err)
                out[a.name] = None
    for b in block.block_types:
        if b.type_name in attributes:
            continue
        if problems is None:
            out[b.type_name] = _block_value(b, config.get(b.type_name), (*path, b.type_name))
            continue
        try:
            out[b.type_name] = _block_value(b, config.get(b.type_name), (*path, b.type_name), problems)
        except PluginValueError as err:
            problems.append(err)
            out[b.type_name] = None
    return out


def _attribute_value(a: Attribute, value: Any, path: Path) -> Any:
    if value is None:
        if a.required:
            raise ConfigShapeError(
                "Missing required argument",
                f'The argument "{a.name}" is required, but no definition was found.',
                path,
            )
        return None
    if a.computed and not a.optional and not a.required:
        raise ConfigShapeError(
            "Invalid or unknown key",
            f'Can\'t configure a value for "{a.name}": its value will be decided automatically '
            "based on the result of applying this configuration.",
            path,
        )
    # Nested attributes convert against their type with optional markers, so absent optional
    # attributes come out null rather than failing as missing.
    ty = nested_spec_type(a.nested_type) if a.nested_type is not None else attribute_type(a)
    return convert(value, ty, path)


def _block_value(b: NestedBlock, value: Any, path: Path, problems: Problems | None = None) -> Any:
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
            return _block_value(b, None, path, problems)
        if isinstance(value, Unknown):  # a ``dynamic`` block over a value not known yet
            return Marked(value, marks) if marks else value
    if b.nesting in (SINGLE, GROUP):
        out: Any = normalize_config(b.block, value, path, problems)
    elif b.nesting == MAP:
        if not isinstance(value, dict):
            raise ConfigShapeError("Invalid block", f'"{b.type_name}" blocks must be labelled by key', path)
        out = {k: _one_block(b, v, (*path, k), problems) for k, v in value.items()}
        if any(isinstance(item, Unknown) for item in out.values()):
            return Marked(Unknown(), marks) if marks else Unknown()
    else:
        if isinstance(value, dict):
            value = [value]  # one block written where several may be
        if not isinstance(value, list):
            raise ConfigShapeError("Invalid block", f'"{b.type_name}" must be a list of blocks', path)
        items = [_one_block(b, v, (*path, i), problems) for i, v in enumerate(value)]
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


def _one_block(b: NestedBlock, value: Any, path: Path, problems: Problems | None) -> Any:
    """One block of a list, set or map of them; a block not known yet (a ``dynamic`` block's
    content from a value known only after apply) stays unknown."""
    if isinstance(value, Unknown):
        return value
    return normalize_config(b.block, value, path, problems)


def _too_few(b: NestedBlock, count: int, path: Path) -> ConfigShapeError:
    noun = "block" if b.min_items == 1 else "blocks"
    return ConfigShapeError(
        f'Insufficient "{b.type_name}" blocks',
        f'At least {b.min_items} "{b.type_name}" {noun} {"is" if b.min_items == 1 else "are"} required.',
        path,
    )


def proposed_new(block: Block, prior: Any, config: dict[str, Any]) -> dict[str, Any]:
    """The proposed new state: the normalised ``config`` with computed attributes it leaves null
    taken from ``prior`` (Terraform's ``objchange.ProposedNew``), block by block."""
    prior_obj = prior if isinstance(prior, dict) else {}
    out: dict[str, Any] = {}
    for a in block.attributes:
        configured = config.get(a.name)
        if a.computed and configured is None:
            out[a.name] = prior_obj.get(a.name)
        else:
            out[a.name] = configured
    for b in block.block_types:
        out[b.type_name] = _proposed_block(b, prior_obj.get(b.type_name), config.get(b.type_name))
    return out


def _proposed_block(b: NestedBlock, prior: Any, config: Any) -> Any:
    if config is None or isinstance(config, Unknown | Marked):
        return config
    if b.nesting in (SINGLE, GROUP):
        return proposed_new(b.block, prior, config)
    if b.nesting == MAP:
        prior_map = prior if isinstance(prior, dict) else {}
        return {k: proposed_new(b.block, prior_map.get(k), v) for k, v in config.items()}
    prior_items = prior if isinstance(prior, list) else []
    if b.nesting == LIST:
        return [
            proposed_new(b.block, prior_items[i] if i < len(prior_items) else None, v)
            for i, v in enumerate(config)
        ]
    assert b.nesting == SET
    unused = list(prior_items)
    out = []
    for v in config:
        match = next((p for p in unused if _same_configured(b.block, p, v)), None)
        if match is not None:
            unused.remove(match)
        out.append(proposed_new(b.block, match, v))
    return SetValue(out)


def _same_configured(block: Block, prior: Any, config: dict[str, Any]) -> bool:
    """A prior set element corresponds to a configured one when every non-computed attribute
    agrees (computed ones may differ: the provider filled them in)."""
    if not isinstance(prior, dict):
        return False
    return all(prior.get(a.name) == config.get(a.name) for a in block.attributes if not a.computed)
