"""A ``dynamic`` block over a collection not known until apply, as a provider is sent it.

Terraform's decoder makes the nested blocks of such a ``dynamic`` block one unknown value — the
whole list, set or map of blocks, or the single block — so the provider checks their arguments
and their number when they are known, and the plan goes ahead.
"""

from __future__ import annotations

import pytest

from vocab.schema.decode import normalize_config
from vocab.schema.form import LIST, MAP, SET, SINGLE, Attribute, Block, NestedBlock
from vocab.types import STRING
from vocab.values import Unknown

INNER = Block(attributes=(Attribute("content", STRING, required=True),
                          Attribute("filename", STRING, required=True)))


def _schema(nesting: str, min_items: int = 0, max_items: int = 0) -> Block:
    return Block(
        attributes=(Attribute("type", STRING, required=True),),
        block_types=(NestedBlock("source", INNER, nesting, min_items, max_items),),
    )


@pytest.mark.parametrize("nesting", [LIST, SET])
def test_blocks_from_an_unknown_for_each_are_one_unknown_collection(nesting: str) -> None:
    shaped = normalize_config(_schema(nesting, min_items=1, max_items=1), {"type": "zip", "source": [Unknown()]})
    assert isinstance(shaped["source"], Unknown)
    assert shaped["type"] == "zip"


def test_known_blocks_beside_an_unknown_dynamic_make_the_whole_collection_unknown() -> None:
    config = {"type": "zip", "source": [{"content": "a", "filename": "a.txt"}, Unknown()]}
    assert isinstance(normalize_config(_schema(SET), config)["source"], Unknown)


def test_a_single_block_from_an_unknown_for_each_is_unknown() -> None:
    shaped = normalize_config(_schema(SINGLE), {"type": "zip", "source": [Unknown()]})
    assert isinstance(shaped["source"], Unknown)


def test_labelled_blocks_from_an_unknown_for_each_are_one_unknown_map() -> None:
    shaped = normalize_config(_schema(MAP), {"type": "zip", "source": {"k": Unknown()}})
    assert isinstance(shaped["source"], Unknown)


def test_known_blocks_are_still_checked() -> None:
    problems: list = []
    normalize_config(_schema(SET), {"type": "zip", "source": [{"content": "a"}]}, problems=problems)
    assert problems, "a block without its required filename is refused"
