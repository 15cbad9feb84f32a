"""A provider's schema as plain immutable data, and what Terraform derives from it.

The protocol's ``Schema`` messages are turned into these dataclasses once (by the protocol side),
so everything else — the type a resource's values have, which attributes are secrets, how a
configuration is filled in before a provider sees it — works without protobuf. The derivations
follow Terraform's ``configschema`` rules exactly, because providers check what they receive
against the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vocab.types import (
    DYNAMIC,
    Collection,
    CtyType,
    ObjectType,
    has_dynamic,
    without_optional_attributes,
)
from vocab.values import Marked, Path, SetValue, Unknown, apply_paths

SINGLE, GROUP, LIST, SET, MAP = "single", "group", "list", "set", "map"
BLOCK_NESTINGS = frozenset({SINGLE, GROUP, LIST, SET, MAP})
ATTRIBUTE_NESTINGS = frozenset({SINGLE, LIST, SET, MAP})


@dataclass(frozen=True, slots=True)
class Attribute:
    """One attribute: a cty ``type``, or (protocol 6) a ``nested_type`` of attributes."""

    name: str
    type: CtyType | None = None
    nested_type: NestedAttributeObject | None = None
    required: bool = False
    optional: bool = False
    computed: bool = False
    sensitive: bool = False
    description: str = ""
    deprecated: bool = False
    write_only: bool = False


@dataclass(frozen=True, slots=True)
class NestedAttributeObject:
    """The attributes of a protocol-6 nested attribute and how they repeat."""

    attributes: tuple[Attribute, ...]
    nesting: str = SINGLE


@dataclass(frozen=True, slots=True)
class Block:
    """A block's attributes and nested block types (a resource's schema is one block)."""

    attributes: tuple[Attribute, ...] = ()
    block_types: tuple[NestedBlock, ...] = ()
    description: str = ""
    deprecated: bool = False

    def attribute(self, name: str) -> Attribute | None:
        return next((a for a in self.attributes if a.name == name), None)

    def block_type(self, name: str) -> NestedBlock | None:
        return next((b for b in self.block_types if b.type_name == name), None)


@dataclass(frozen=True, slots=True)
class NestedBlock:
    """A nested block type: its block, nesting mode and item limits (0 means no limit)."""

    type_name: str
    block: Block
    nesting: str = LIST
    min_items: int = 0
    max_items: int = 0


@dataclass(frozen=True, slots=True)
class Schema:
    """A resource, data source or provider schema: its version and its block."""

    version: int
    block: Block


# Derived types are asked for on every request; blocks are immutable, so each is computed once.
# Keyed by identity (hashing a deep schema costs more than deriving from it); the block is kept
# alive by the cache entry so its id cannot be reused.
_IMPLIED: dict[int, tuple[Block, CtyType]] = {}


def implied_type(block: Block) -> CtyType:
    """The object type of a value of ``block`` (Terraform's ``Block.ImpliedType``).

    Nested blocks: single and group are objects, list a list of objects, set a set, map a map —
    except that a list or map block with a ``dynamic`` attribute anywhere inside becomes
    ``dynamic`` (Terraform decodes it as a tuple or object, whose exact type only the value knows).
    Optional-attribute markers are dropped at every depth.
    """
    hit = _IMPLIED.get(id(block))
    if hit is not None and hit[0] is block:
        return hit[1]
    ty = without_optional_attributes(_block_type(block)[0])
    _IMPLIED[id(block)] = (block, ty)
    return ty


def _block_type(block: Block) -> tuple[ObjectType, bool]:
    """The block's object type, and whether ``dynamic`` appears anywhere in it: worked out once per
    block on the way up, so a deep schema is walked once, not once per level of nesting."""
    attrs: dict[str, CtyType] = {a.name: attribute_type(a) for a in block.attributes}
    dynamic = any(has_dynamic(t) for t in attrs.values())
    for nested in block.block_types:
        if nested.type_name in attrs:
            continue  # an attribute and a block of one name: invalid schema, the attribute wins
        inner, inner_dynamic = _block_type(nested.block)
        dynamic = dynamic or inner_dynamic
        if nested.nesting in (SINGLE, GROUP):
            attrs[nested.type_name] = inner
        elif nested.nesting == SET:
            attrs[nested.type_name] = Collection("set", inner)
        elif nested.nesting in (LIST, MAP):
            attrs[nested.type_name] = DYNAMIC if inner_dynamic else Collection(nested.nesting, inner)
    return ObjectType(attrs), dynamic


def attribute_type(attribute: Attribute) -> CtyType:
    """The attribute's type; for a nested attribute, the type its nesting implies."""
    if attribute.nested_type is not None:
        return without_optional_attributes(nested_spec_type(attribute.nested_type))
    if attribute.type is None:
        return DYNAMIC
    return attribute.type


def nested_spec_type(nested: NestedAttributeObject) -> CtyType:
    attrs = {
        a.name: nested_spec_type(a.nested_type) if a.nested_type is not None else (a.type or DYNAMIC)
        for a in nested.attributes
    }
    optional = frozenset(a.name for a in nested.attributes if a.optional or a.computed)
    obj = ObjectType(attrs, optional)
    if nested.nesting == SINGLE:
        return obj
    return Collection(nested.nesting, obj)


def required_attributes(block: Block) -> frozenset[str]:
    """Names of the attributes a configuration must set."""
    return frozenset(a.name for a in block.attributes if a.required)


def computed_attributes(block: Block) -> frozenset[str]:
    """Names of the attributes the provider may fill in (computed, optional or not)."""
    return frozenset(a.name for a in block.attributes if a.computed)


def contains_sensitive(block: Block) -> bool:
    """True when any attribute at any depth is sensitive."""
    return any(a.sensitive or _nested_contains_sensitive(a.nested_type) for a in block.attributes) or any(
        contains_sensitive(b.block) for b in block.block_types
    )


def _nested_contains_sensitive(nested: NestedAttributeObject | None) -> bool:
    if nested is None:
        return False
    return any(a.sensitive or _nested_contains_sensitive(a.nested_type) for a in nested.attributes)


def sensitive_paths(block: Block, value: Any, prefix: Path = ()) -> list[Path]:
    """Paths of the sensitive attributes set in ``value`` (an object of ``block``).

    The shape is ctl's state ``sensitive_attributes``: attribute names, list/set positions and map
    keys, e.g. ``("rule", 0, "secret")``. Like ctl's own marking, an attribute that is absent or
    null is not listed: there is nothing to hide.
    """
    obj = _plain(value)
    if not isinstance(obj, dict):
        return []
    out: list[Path] = []
    for a in block.attributes:
        v = obj.get(a.name)
        if (v.value if isinstance(v, Marked) else v) is None:
            continue  # an unknown value is listed: it is a secret once known
        if a.sensitive:
            out.append((*prefix, a.name))
        elif a.nested_type is not None and _nested_contains_sensitive(a.nested_type):
            nested = a.nested_type
            for key, item in _instances(nested.nesting, v):
                path = (*prefix, a.name) if key is None else (*prefix, a.name, key)
                out.extend(_nested_sensitive_paths(nested, item, path))
    for b in block.block_types:
        if not contains_sensitive(b.block):
            continue
        for key, item in _instances(b.nesting, obj.get(b.type_name)):
            path = (*prefix, b.type_name) if key is None else (*prefix, b.type_name, key)
            out.extend(sensitive_paths(b.block, item, path))
    return out


def _nested_sensitive_paths(nested: NestedAttributeObject, value: Any, prefix: Path) -> list[Path]:
    return sensitive_paths(Block(attributes=nested.attributes), value, prefix)


def _instances(nesting: str, value: Any) -> list[tuple[str | int | None, Any]]:
    """The objects of a nested block or attribute value, with the path step that reaches each."""
    plain = _plain(value)
    if plain is None:
        return []
    if nesting in (SINGLE, GROUP):
        return [(None, plain)]
    if nesting == MAP and isinstance(plain, dict):
        return list(plain.items())
    if isinstance(plain, list):
        return list(enumerate(plain))
    if isinstance(plain, dict):  # a map-nested block decoded as an object (dynamic inside)
        return list(plain.items())
    return []


def _plain(v: Any) -> Any:
    if isinstance(v, Marked):
        v = v.value
    return None if isinstance(v, Unknown) else v


def mark_sensitive(block: Block, value: Any) -> Any:
    """``value`` with every sensitive attribute the schema declares marked (for values read back)."""
    paths = sensitive_paths(block, value)
    return apply_paths(value, paths) if paths else value


def empty_value(nested: NestedBlock) -> Any:
    """What an absent nested block is: null (single), an all-null object (group), empty collection."""
    if nested.nesting == SINGLE:
        return None
    if nested.nesting == GROUP:
        return _empty_object(nested.block)
    if nested.nesting == SET:
        return SetValue()
    if nested.nesting == MAP:
        return {}
    return []


def _empty_object(block: Block) -> dict[str, Any]:
    out: dict[str, Any] = dict.fromkeys((a.name for a in block.attributes), None)
    for b in block.block_types:
        out[b.type_name] = empty_value(b)
    return out
