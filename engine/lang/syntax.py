"""The body/block/attribute structure that every input syntax is reduced to.

HCL files, Terraform's JSON syntax and our YAML syntax all become ``Body`` trees whose attribute
values are expression syntax trees (``engine.lang.ast``), each with its exact source range. The
configuration decoder reads only this structure, so it never cares which syntax a file used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from engine.lang.ast import Expr, Ranged
from vocab.positions import Located, SourceRange, as_range


@dataclass(frozen=True, slots=True)
class Attribute(Ranged):
    name: str
    expr: Expr
    _rng: Located  # the whole ``name = value``
    _name_rng: Located

    @property
    def name_rng(self) -> SourceRange:
        return as_range(self._name_rng)


@dataclass(slots=True)
class Block(Ranged):
    type: str
    labels: list[str]
    body: Body
    _rng: Located  # the block header (type and labels)
    _label_rngs: list[Located] = field(default_factory=list)

    @property
    def label_rngs(self) -> list[SourceRange]:
        return [as_range(r) for r in self._label_rngs]


@dataclass(slots=True, init=False)
class Body(Ranged):
    attributes: dict[str, Attribute]
    blocks: Sequence[Block]
    _rng: Located
    # Attributes defined twice in one body: (first, second); reported by the decoder.
    duplicates: Sequence[tuple[Attribute, Attribute]]

    def __init__(self, attributes: dict[str, Attribute], blocks: Sequence[Block], _rng: Located,
                 duplicates: Sequence[tuple[Attribute, Attribute]] = ()) -> None:
        # Most bodies have no nested block and no duplicate: an empty list each would be 56 bytes
        # apiece for every resource of a large configuration, so they share the empty tuple.
        self.attributes = attributes
        self.blocks = blocks or ()
        self._rng = _rng
        self.duplicates = duplicates or ()

    def blocks_of(self, block_type: str) -> list[Block]:
        return [b for b in self.blocks if b.type == block_type]

    def attr(self, name: str) -> Attribute | None:
        return self.attributes.get(name)


@dataclass(frozen=True, slots=True)
class BlockSchema:
    """Which keys of a JSON/YAML object are nested blocks, and how many labels each takes.

    HCL marks blocks syntactically; Terraform's JSON syntax does not, so the decoder tells the JSON
    reader what to expect (everything else is an attribute). The same schema says which names a
    block of the language takes at all, so a misspelt one is refused rather than ignored.
    """

    blocks: dict[str, tuple[int, BlockSchema]] = field(default_factory=dict)
    literal_attributes: frozenset[str] = frozenset()  # values taken literally, not as templates
    # The arguments the body takes; None where they are not the language's to know (a resource's
    # arguments are its provider's, a module call's its variables). Checked by ``engine.config.names``.
    attributes: frozenset[str] | None = None
    # Whether nested blocks other than ``blocks`` may appear (a resource's, by its provider's schema).
    other_blocks: bool = True


EMPTY_SCHEMA = BlockSchema()


class ReleasedBody(Body):
    """Stands for a body whose syntax was let go of after its last use (``Resource.release_body``).

    Reading it is a bug, and says so, rather than acting on a configuration that seems empty: it is
    a ``Body`` whose fields are never set, so every read of one ends in ``__getattr__``.
    """

    __slots__ = ()

    def __init__(self) -> None:
        pass

    def __getattr__(self, name: str) -> NoReturn:
        raise RuntimeError(f"a released body was read ({name}): its syntax was let go of after its last use")


RELEASED_BODY = ReleasedBody()
