"""The state document in memory, shaped like Terraform's state format version 4.

State is what ctl believes exists: one ``ResourceState`` per resource block (per module instance),
each holding ``InstanceState`` objects keyed by count index or for_each key. The engine reads and
writes instances by address string (``module.net["a"].aws_s3_bucket.logs[0]``), so ``State`` keeps a
small position index to make those look-ups O(1) even with tens of thousands of instances; mutate
through ``set_instance``/``remove_instance`` and the index stays exact (direct edits of the lists are
noticed and the index rebuilt).

Attributes are stored unmarked, with the paths of sensitive values alongside in
``sensitive_attributes`` (as ``values.Path`` tuples) — exactly what Terraform writes, so a secret
never needs a special encoding and the marks come back with ``marked_attributes()``.
The model does not know its JSON: ``codec.decode_state`` reads a state document into it and
``encode.encode_state`` writes one, both building on this module.
"""

from __future__ import annotations

import dataclasses
import secrets
import uuid
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from engine.state.address import InstanceAddress, Key, parse_module
from vocab.types import type_of_value, type_to_json_value
from vocab.values import ListValue, MapValue, Null, Path, SetValue, apply_paths, unmark_paths

# Terraform refuses a state whose ``terraform_version`` is newer than itself, so a fresh state
# claims the oldest Terraform release that writes this exact format; a version read from an
# existing state is kept as it is.
TERRAFORM_COMPAT_VERSION = "1.5.0"

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class OutputValue:
    """A root module output as stored in state: value, Terraform type expression, sensitivity."""

    value: Any
    type: Any = None
    sensitive: bool = False


@dataclass(frozen=True)
class InstanceState:
    """One object of a resource instance (the current object, or a deposed one)."""

    index_key: Key = None
    schema_version: int = 0
    attributes: dict[str, Any] = field(default_factory=dict)
    sensitive_attributes: list[Path] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)
    create_before_destroy: bool = False
    status: str | None = None  # "tainted" when a create failed half-way
    private: str | None = None
    deposed: str | None = None  # set on an old object kept during create-before-destroy
    extra: dict[str, Any] = field(default_factory=dict)  # fields from newer writers, kept verbatim
    # The sensitive paths exactly as read (Terraform distinguishes attribute and map-key steps,
    # our Path does not); written back unchanged while the paths are unchanged.
    _tf_paths: tuple[tuple[Path, ...], Any] | None = field(default=None, compare=False, repr=False)
    # Dynamically typed attributes as read, ``{"value", "type"}`` (see dynamic_attrs.py).
    _tf_dynamic: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_marked(cls, attributes: dict[str, Any], **fields: Any) -> InstanceState:
        """Build an instance from evaluated attributes whose secrets carry the sensitive mark.

        Attributes without marks are kept as they are, not copied: evaluated values are never
        changed in place, and an apply's object and the value its dependents read are then one.
        """
        plain, paths = unmark_paths(attributes)
        return cls(attributes=plain, sensitive_attributes=paths, **fields)

    def marked_attributes(self) -> dict[str, Any]:
        """The attributes with sensitive values marked again, ready for expression evaluation."""
        if not self.sensitive_attributes:
            return self.attributes
        marked: dict[str, Any] = apply_paths(self.attributes, list(self.sensitive_attributes))
        return marked

    def private_bytes(self) -> bytes:
        """The provider's private data (state keeps it base64-encoded, as Terraform does)."""
        import base64
        import binascii

        try:
            return base64.b64decode(self.private) if self.private else b""
        except (binascii.Error, ValueError):
            return b""

    def replace(self, **changes: Any) -> InstanceState:
        """A copy with some fields changed (instances are immutable so snapshots can share them)."""
        return dataclasses.replace(self, **changes)


_SCANNED = 8  # a resource with at most this many instances is searched, not indexed


class _Positions(Generic[K, T]):
    """key -> position in a list, rebuilt whenever the list was changed behind its back."""

    def __init__(self, items: list[T], key_of: Callable[[T], K]) -> None:
        self._key_of = key_of
        self._pos: dict[K, int] = {}
        self._items: list[T] | None = None
        self._len = -1
        self._bind(items)

    def _bind(self, items: list[T]) -> None:
        self._items = items
        self._pos = {self._key_of(x): i for i, x in enumerate(items)}
        self._len = len(items)

    def find(self, items: list[T], key: K) -> int | None:
        if items is not self._items or len(items) != self._len:
            self._bind(items)
        pos = self._pos.get(key)
        if pos is not None and pos < len(items) and self._key_of(items[pos]) == key:
            return pos
        if pos is not None:  # stale: the list was edited in place
            self._bind(items)
            return self._pos.get(key)
        return None

    def append(self, items: list[T], item: T) -> None:
        items.append(item)
        self._pos[self._key_of(item)] = len(items) - 1
        self._len = len(items)

    def remove_at(self, items: list[T], pos: int) -> T:
        """Swap-remove: O(1); order does not matter because serialisation sorts."""
        item = items[pos]
        last = items.pop()
        if pos < len(items):
            items[pos] = last
            self._pos[self._key_of(last)] = pos
        del self._pos[self._key_of(item)]
        self._len = len(items)
        return item


@dataclass(eq=False)
class ResourceState:
    """A resource block's instances in one module instance."""

    mode: str
    type: str
    name: str
    provider: str
    module: str | None = None
    each: str | None = None  # "list" (count), "map" (for_each) or None (single instance)
    instances: list[InstanceState] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Built when the instances outgrow a scan: most resources have one or a few, and an index
        # each (a dict, its keys and the index object) was a visible share of a large state.
        self._index: _Positions[tuple[Key, str | None], InstanceState] | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        """(module, mode, type, name), the sort and look-up key."""
        return (self.module or "", self.mode, self.type, self.name)

    def get(self, index_key: Key, deposed: str | None = None) -> InstanceState | None:
        pos = self._find(_typed(index_key, deposed))
        return None if pos is None else self.instances[pos]

    def put(self, inst: InstanceState) -> None:
        pos = self._find(_slot_key(inst))
        if pos is not None:
            self.instances[pos] = inst
        elif self._index is not None:
            self._index.append(self.instances, inst)
        else:
            self.instances.append(inst)
        if inst.deposed is None:
            self.each = _each_for(inst.index_key)

    def pop(self, index_key: Key, deposed: str | None = None) -> InstanceState | None:
        pos = self._find(_typed(index_key, deposed))
        if pos is None:
            return None
        if self._index is not None:
            return self._index.remove_at(self.instances, pos)
        items = self.instances
        item, last = items[pos], items.pop()  # swap-remove, as the index does
        if pos < len(items):
            items[pos] = last
        return item

    def _find(self, slot: tuple[Any, str | None]) -> int | None:
        items = self.instances
        if len(items) <= _SCANNED:
            self._index = None
            return next((i for i, x in enumerate(items) if _slot_key(x) == slot), None)
        if self._index is None:
            self._index = _Positions(items, _slot_key)
        return self._index.find(items, slot)

    def __eq__(self, other: object) -> bool:
        """Same resource with the same objects; the order of ``instances`` does not matter."""
        if not isinstance(other, ResourceState):
            return NotImplemented
        return (self.key, self.provider, self.each) == (other.key, other.provider, other.each) and sorted(
            self.instances, key=instance_sort_key
        ) == sorted(other.instances, key=instance_sort_key)

    def copy(self) -> ResourceState:
        """A copy whose instance list can change independently (instances themselves are shared)."""
        return ResourceState(
            self.mode, self.type, self.name, self.provider, self.module, self.each, list(self.instances)
        )


def _typed(index_key: Key, deposed: str | None) -> tuple[Any, str | None]:
    # The type name keeps count index 1 and for_each key "1" apart.
    return ((type(index_key).__name__, index_key), deposed)


def _slot_key(inst: InstanceState) -> tuple[Any, str | None]:
    return _typed(inst.index_key, inst.deposed)


def _resource_key(res: ResourceState) -> tuple[str, str, str, str]:
    return res.key


def _each_for(key: Key) -> str | None:
    if key is None:
        return None
    return "list" if isinstance(key, int) else "map"


@dataclass(eq=False)
class State:
    """A whole state document: serial, lineage, root outputs and resources."""

    serial: int
    lineage: str
    outputs: dict[str, OutputValue] = field(default_factory=dict)
    resources: list[ResourceState] = field(default_factory=list)
    terraform_version: str = TERRAFORM_COMPAT_VERSION
    check_results: Any = None
    extra: dict[str, Any] = field(default_factory=dict)  # top-level fields from newer writers

    def __post_init__(self) -> None:
        self._index: _Positions[tuple[str, str, str, str], ResourceState] = _Positions(
            self.resources, _resource_key
        )

    def __eq__(self, other: object) -> bool:
        """Same document content; the order of ``resources`` does not matter (files are sorted)."""
        if not isinstance(other, State):
            return NotImplemented
        mine = (
            self.serial,
            self.lineage,
            self.outputs,
            self.terraform_version,
            self.check_results,
            self.extra,
        )
        theirs = (
            other.serial,
            other.lineage,
            other.outputs,
            other.terraform_version,
            other.check_results,
            other.extra,
        )
        return mine == theirs and sorted(self.resources, key=_resource_key) == sorted(
            other.resources, key=_resource_key
        )

    # -- look-ups -------------------------------------------------------------------------------

    def resource(self, addr: str | InstanceAddress) -> ResourceState | None:
        """The resource an address belongs to (its instance key is ignored)."""
        a = _addr(addr)
        pos = self._index.find(self.resources, a.resource_key)
        return None if pos is None else self.resources[pos]

    def instance(self, addr: str | InstanceAddress, deposed: str | None = None) -> InstanceState | None:
        """The current object at ``addr`` (or the deposed object with that key), or None."""
        a = _addr(addr)
        res = self.resource(a)
        return None if res is None else res.get(a.key, deposed)

    def instances(self, include_deposed: bool = False) -> Iterator[tuple[InstanceAddress, InstanceState]]:
        """Every instance with its address, in the order they are written to the state file."""
        if include_deposed:
            return self._listed(lambda _inst: True)
        return self._listed(lambda inst: inst.deposed is None)

    def deposed_instances(self) -> Iterator[tuple[InstanceAddress, InstanceState]]:
        """Every deposed object with its address, in the order ``instances`` gives them. A plan
        looks for them in every state; an address is built only for one that is found."""
        return self._listed(lambda inst: inst.deposed is not None)

    def _listed(self, keep: Callable[[InstanceState], bool]) -> Iterator[tuple[InstanceAddress, InstanceState]]:
        """The instances ``keep`` accepts, in state file order, each with its address (built only
        for those: a resource with none of them is passed over without parsing its module)."""
        for res in sorted(self.resources, key=_resource_key):
            kept = [inst for inst in res.instances if keep(inst)]
            if kept:
                module = parse_module(res.module or "")
                for inst in sorted(kept, key=instance_sort_key):
                    yield InstanceAddress(module, res.mode, res.type, res.name, inst.index_key), inst

    @property
    def is_empty(self) -> bool:
        """True when no resource has any object left (a workspace that may be deleted)."""
        return not any(res.instances for res in self.resources)

    # -- changes --------------------------------------------------------------------------------

    def set_instance(
        self, addr: str | InstanceAddress, instance: InstanceState, provider: str | None = None
    ) -> None:
        """Store ``instance`` at ``addr`` (its index key is taken from the address).

        ``provider`` is needed only when the resource is new; by default it is the provider
        Terraform would imply from the type's prefix (``aws_s3_bucket`` → hashicorp/aws).
        """
        a = _addr(addr)
        if instance.index_key != a.key or type(instance.index_key) is not type(a.key):
            instance = instance.replace(index_key=a.key)
        res = self.resource(a)
        if res is None:
            res = ResourceState(
                mode=a.mode,
                type=a.type,
                name=a.name,
                provider=provider or default_provider(a.type),
                module=a.module_str or None,
            )
            self._index.append(self.resources, res)
        elif provider:
            res.provider = provider
        res.put(instance)

    def depose(self, addr: str | InstanceAddress) -> str | None:
        """Keep the current object at ``addr`` as a deposed one under a new key (the old half of a
        create-before-destroy replacement), so the new object can take its place; the key, or None
        when there is no current object."""
        old = self.instance(addr)
        if old is None:
            return None
        key = secrets.token_hex(4)
        self.set_instance(addr, old.replace(deposed=key))
        return key

    def remove_instance(
        self, addr: str | InstanceAddress, deposed: str | None = None
    ) -> InstanceState | None:
        """Forget the object at ``addr``; a resource left without objects is dropped too."""
        a = _addr(addr)
        pos = self._index.find(self.resources, a.resource_key)
        if pos is None:
            return None
        res = self.resources[pos]
        removed = res.pop(a.key, deposed)
        if not res.instances:
            self._index.remove_at(self.resources, pos)
        return removed

    def copy(self) -> State:
        """An independent copy (instances are immutable and shared)."""
        return State(
            serial=self.serial,
            lineage=self.lineage,
            outputs=dict(self.outputs),
            resources=[r.copy() for r in self.resources],
            terraform_version=self.terraform_version,
            check_results=self.check_results,
            extra=dict(self.extra),
        )


def new_state() -> State:
    """An empty state with a fresh lineage (the identity every later write must keep)."""
    return State(serial=0, lineage=str(uuid.uuid4()))


def default_provider(resource_type: str) -> str:
    """The provider address Terraform implies for a resource type without an explicit provider."""
    prefix = resource_type.split("_", 1)[0]
    return f'provider["registry.terraform.io/hashicorp/{prefix}"]'


def instance_sort_key(inst: InstanceState) -> tuple[int, int, str, str]:
    """Terraform's instance order: no key, then numeric keys, then string keys; deposed last."""
    k = inst.index_key
    if k is None:
        return (0, 0, "", inst.deposed or "")
    if isinstance(k, int):
        return (1, k, "", inst.deposed or "")
    return (2, 0, k, inst.deposed or "")


def encode_private(data: bytes | None) -> str | None:
    """Private data as the state file keeps it (base64), None when there is none."""
    import base64

    return base64.b64encode(data).decode("ascii") if data else None


def output_type(value: Any) -> Any:
    """The Terraform type expression of a plain value (what ``outputs.*.type`` holds), its object
    attributes in order as Terraform writes them, so that an equal type is the same JSON text.
    A typed null is of its type (``tostring(null)`` is a ``string``)."""
    if isinstance(value, Null):
        return type_to_json_value(type_of_value(value))
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    for kind, collection in (("set", SetValue), ("list", ListValue), ("map", MapValue)):
        if isinstance(value, collection):  # a collection keeps its type: its elements share one
            elements = value.values() if isinstance(value, dict) else value
            empty = type_to_json_value(value.element) if value.element is not None else "dynamic"
            return [kind, next((output_type(x) for x in elements if x is not None), empty)]
    if isinstance(value, list):
        return ["tuple", [output_type(v) for v in value]]
    if isinstance(value, dict):
        return ["object", {k: output_type(value[k]) for k in sorted(value)}]
    return "dynamic"


def _addr(addr: str | InstanceAddress) -> InstanceAddress:
    return addr if isinstance(addr, InstanceAddress) else InstanceAddress.parse(addr)


__all__ = [
    "TERRAFORM_COMPAT_VERSION",
    "InstanceState",
    "OutputValue",
    "ResourceState",
    "State",
    "default_provider",
    "instance_sort_key",
    "new_state",
    "output_type",
]
