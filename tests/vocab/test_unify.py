"""cty's unification rules, one place for conditionals, ``list(any)`` and function arguments.

Each expectation is what Terraform 1.0.3 (and OpenTofu 1.12.6) give for a conditional whose two
results have these types (see tests/fixtures/expressions/types.tf for the same cases run side by
side with Terraform).
"""

from __future__ import annotations

import pytest

from vocab.types import (
    BOOL,
    DYNAMIC,
    NUMBER,
    STRING,
    CtyType,
    ObjectType,
    Repeated,
    TupleType,
    list_of,
    map_of,
    set_of,
    type_of_value,
)
from vocab.unify import converts, unify
from vocab.values import ListValue, MapValue, Marked, SetValue


@pytest.mark.parametrize(
    ("types", "expected"),
    [
        ([NUMBER, NUMBER], NUMBER),
        ([NUMBER, STRING], STRING),
        ([BOOL, STRING], STRING),
        ([NUMBER, BOOL], None),  # `true ? 1 : true` is an error
        ([DYNAMIC, NUMBER], NUMBER),  # a null adapts to a primitive
        ([DYNAMIC, list_of(STRING)], DYNAMIC),  # not to a collection (a conditional's null literal does)
        ([DYNAMIC, ObjectType({"a": NUMBER})], DYNAMIC),
        ([list_of(DYNAMIC), TupleType((ObjectType({"b": NUMBER}),))], list_of(DYNAMIC)),
        ([TupleType((NUMBER,)), TupleType((STRING,))], TupleType((STRING,))),  # `[1]` and `["a"]`
        ([TupleType((NUMBER,)), TupleType((NUMBER, NUMBER))], list_of(NUMBER)),
        ([TupleType(()), TupleType((STRING,))], list_of(STRING)),
        ([list_of(NUMBER), TupleType((STRING,))], list_of(STRING)),
        ([set_of(NUMBER), TupleType((STRING,))], set_of(NUMBER)),  # a tuple converts to the set
        ([list_of(NUMBER), set_of(NUMBER)], list_of(NUMBER)),
        ([set_of(NUMBER), list_of(NUMBER)], list_of(NUMBER)),
        ([ObjectType({"a": NUMBER}), ObjectType({"a": STRING})], ObjectType({"a": STRING})),
        ([ObjectType({"a": NUMBER}), ObjectType({"b": STRING})], map_of(STRING)),
        ([map_of(NUMBER), ObjectType({"a": STRING})], map_of(STRING)),
        ([TupleType((NUMBER,)), ObjectType({"a": NUMBER})], None),  # `true ? [1] : {a = 1}`
        ([list_of(STRING), STRING], None),
        ([ObjectType({"a": NUMBER}), ObjectType({"a": BOOL})], None),
        ([Repeated("tuple", NUMBER), TupleType((STRING,))], list_of(STRING)),
    ],
)
def test_unify_as_cty_does(types: list[CtyType], expected: CtyType | None) -> None:
    assert unify(types) == expected
    assert unify(reversed(types)) == expected  # the order of the results does not matter


def test_nothing_but_dynamic_stays_dynamic() -> None:
    assert unify([DYNAMIC, DYNAMIC]) is DYNAMIC


def test_conversions_cty_has() -> None:
    assert converts(TupleType((NUMBER, STRING)), list_of(STRING))
    assert converts(ObjectType({"a": NUMBER}), map_of(STRING))
    assert not converts(list_of(STRING), TupleType((STRING,)))
    assert not converts(NUMBER, BOOL)


def test_values_say_which_collection_they_are() -> None:
    assert type_of_value([1, "a"]) == TupleType((NUMBER, STRING))
    assert type_of_value(ListValue(["a"])) == list_of(STRING)
    assert type_of_value(ListValue([], STRING)) == list_of(STRING)
    assert type_of_value(ListValue([])) == list_of(DYNAMIC)
    assert type_of_value(SetValue([1])) == set_of(NUMBER)
    assert type_of_value(MapValue({"a": Marked(True)})) == map_of(BOOL)
    assert type_of_value({"a": 1}) == ObjectType({"a": NUMBER})
