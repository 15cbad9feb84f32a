"""The body/block/attribute structure that every input syntax is reduced to.

HCL files, Terraform's JSON syntax and our YAML syntax all become ``Body`` trees whose attribute
values are expression syntax trees (``engine.lang.ast``), each with its exact source range. The
configuration decoder reads only this structure, so it never cares which syntax a file used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import SourceRange
from engine.lang.ast import Expr


@dataclass(frozen=True, slots=True)
class Attribute:
    name: str
    expr: Expr
    rng: SourceRange  # the whole ``name = value``
    name_rng: SourceRange


@dataclass(slots=True)
class Block:
    type: str
    labels: list[str]
    body: Body
    rng: SourceRange  # the block header (type and labels)
    label_rngs: list[SourceRange] = field(default_factory=list)


@dataclass(slots=True)
class Body:
    attributes: dict[str, Attribute]
    blocks: list[Block]
    rng: SourceRange
    # Attributes defined twice in one body: (first, second); reported by the decoder.
    duplicates: list[tuple[Attribute, Attribute]] = field(default_factory=list)

    def blocks_of(self, block_type: str) -> list[Block]:
        return [b for b in self.blocks if b.type == block_type]

    def attr(self, name: str) -> Attribute | None:
        return self.attributes.get(name)


@dataclass(frozen=True, slots=True)
class BlockSchema:
    """Which keys of a JSON/YAML object are nested blocks, and how many labels each takes.

    HCL marks blocks syntactically; Terraform's JSON syntax does not, so the decoder tells the JSON
    reader what to expect (everything else is an attribute).
    """

    blocks: dict[str, tuple[int, BlockSchema]] = field(default_factory=dict)
    literal_attributes: frozenset[str] = frozenset()  # values taken literally, not as templates


EMPTY_SCHEMA = BlockSchema()
