"""Provider schemas: implied types, sensitive paths, config normalisation and proposed new state."""

from __future__ import annotations

import pytest

from adapters.plugin.config_shape import proposed_new
from adapters.plugin.msgpack_codec import decode, encode
from vocab.conversion.convert import ConversionError
from vocab.errors import CtlError
from vocab.schema.decode import ConfigShapeError, normalize_config
from vocab.schema.form import (
    GROUP,
    LIST,
    MAP,
    SET,
    SINGLE,
    Attribute,
    Block,
    NestedAttributeObject,
    NestedBlock,
    Schema,
    attribute_type,
    computed_attributes,
    contains_sensitive,
    empty_value,
    implied_type,
    mark_sensitive,
    required_attributes,
    sensitive_paths,
)
from vocab.types import BOOL, DYNAMIC, NUMBER, STRING, list_of, map_of, parse_type, type_json
from vocab.values import UNKNOWN, Marked, SetValue, Unknown, unmark_paths

RULE = Block(
    attributes=(
        Attribute("port", NUMBER, required=True),
        Attribute("secret", STRING, optional=True, sensitive=True),
        Attribute("id", STRING, computed=True),
    )
)

INSTANCE = Block(
    attributes=(
        Attribute("name", STRING, required=True),
        Attribute("id", STRING, computed=True),
        Attribute("size", NUMBER, optional=True, computed=True),
        Attribute("password", STRING, optional=True, sensitive=True),
        Attribute("tags", map_of(STRING), optional=True),
        Attribute("enabled", BOOL, optional=True),
    ),
    block_types=(
        NestedBlock("rule", RULE, LIST, max_items=3),
        NestedBlock("ingress", RULE, SET),
        NestedBlock("timeouts", Block(attributes=(Attribute("create", STRING, optional=True),)), SINGLE),
        NestedBlock("settings", Block(attributes=(Attribute("mode", STRING, optional=True),)), GROUP),
        NestedBlock(
            "env", Block(attributes=(Attribute("value", STRING, required=True, sensitive=True),)), MAP
        ),
    ),
)


def tj(block: Block) -> str:
    return type_json(implied_type(block)).decode()


def test_implied_type_of_a_typical_resource() -> None:
    assert tj(INSTANCE) == (
        '["object",{"enabled":"bool","env":["map",["object",{"value":"string"}]],'
        '"id":"string","ingress":["set",["object",{"id":"string","port":"number","secret":"string"}]],'
        '"name":"string","password":"string",'
        '"rule":["list",["object",{"id":"string","port":"number","secret":"string"}]],'
        '"settings":["object",{"mode":"string"}],"size":"number","tags":["map","string"],'
        '"timeouts":["object",{"create":"string"}]}]'
    )


def test_implied_type_is_computed_once_per_block() -> None:
    assert implied_type(INSTANCE) is implied_type(INSTANCE)
    assert implied_type(Block()) == parse_type('["object",{}]')


def test_list_and_map_blocks_with_dynamic_attributes_become_dynamic() -> None:
    dyn = Block(attributes=(Attribute("value", DYNAMIC, optional=True),))
    deep = Block(block_types=(NestedBlock("inner", dyn, SINGLE),))
    block = Block(
        block_types=(
            NestedBlock("as_list", dyn, LIST),
            NestedBlock("as_map", dyn, MAP),
            NestedBlock("as_set", dyn, SET),
            NestedBlock("as_single", dyn, SINGLE),
            NestedBlock("as_group", dyn, GROUP),
            NestedBlock("deep_list", deep, LIST),
        )
    )
    assert tj(block) == (
        '["object",{"as_group":["object",{"value":"dynamic"}],"as_list":"dynamic","as_map":"dynamic",'
        '"as_set":["set",["object",{"value":"dynamic"}]],"as_single":["object",{"value":"dynamic"}],'
        '"deep_list":"dynamic"}]'
    )


def test_nested_attribute_types_protocol_6() -> None:
    inner = (
        Attribute("host", STRING, required=True),
        Attribute("port", NUMBER, optional=True),
        Attribute("token", STRING, computed=True, sensitive=True),
    )
    by_nesting = [
        Attribute(f"{nesting}_attr", nested_type=NestedAttributeObject(inner, nesting), optional=True)
        for nesting in (SINGLE, LIST, SET, MAP)
    ]
    items = Attribute("items", nested_type=NestedAttributeObject(inner, LIST), optional=True)
    deep = Attribute("deep", nested_type=NestedAttributeObject((items,), SINGLE), optional=True)
    block = Block(attributes=(*by_nesting, deep))
    obj = '["object",{"host":"string","port":"number","token":"string"}]'
    # Optional markers are dropped from the implied type at every depth, and nested attributes
    # with list nesting stay lists.
    assert tj(block) == (
        f'["object",{{"deep":["object",{{"items":["list",{obj}]}}],"list_attr":["list",{obj}],'
        f'"map_attr":["map",{obj}],"set_attr":["set",{obj}],"single_attr":{obj}}}]'
    )
    assert attribute_type(block.attributes[1]) == list_of(parse_type(obj))


def test_required_and_computed_attribute_names() -> None:
    assert required_attributes(INSTANCE) == {"name"}
    assert computed_attributes(INSTANCE) == {"id", "size"}
    assert INSTANCE.attribute("name") is INSTANCE.attributes[0]
    assert INSTANCE.attribute("nope") is None
    assert INSTANCE.block_type("rule") is INSTANCE.block_types[0]


def test_schema_objects_are_immutable_and_comparable() -> None:
    schema = Schema(version=2, block=INSTANCE)
    assert schema == Schema(version=2, block=INSTANCE)
    with pytest.raises(AttributeError):
        schema.version = 3


# ---- sensitive paths -----------------------------------------------------------------------------


def test_sensitive_paths_in_attributes_and_nested_blocks() -> None:
    value = {
        "name": "a",
        "password": "p",
        "rule": [{"port": 1, "secret": None}, {"port": 2, "secret": "s"}],
        "ingress": SetValue([{"port": 3, "secret": "t"}]),
        "env": {"HOME": {"value": "x"}, "PATH": {"value": None}},
        "timeouts": None,
    }
    assert sensitive_paths(INSTANCE, value) == [
        ("password",),
        ("rule", 1, "secret"),
        ("ingress", 0, "secret"),
        ("env", "HOME", "value"),
    ]
    assert contains_sensitive(INSTANCE)
    assert not contains_sensitive(Block(attributes=(Attribute("a", STRING),)))


def test_sensitive_paths_skip_absent_null_and_unknown_values() -> None:
    assert sensitive_paths(INSTANCE, {"name": "a", "password": None}) == []
    assert sensitive_paths(INSTANCE, {"rule": UNKNOWN, "password": Marked(None)}) == []
    assert sensitive_paths(INSTANCE, UNKNOWN) == []
    # An unknown sensitive value is still a secret once it is known.
    assert sensitive_paths(INSTANCE, {"password": UNKNOWN}) == [("password",)]


def test_sensitive_paths_in_nested_attributes() -> None:
    inner = (
        Attribute("user", STRING, optional=True),
        Attribute("pass", STRING, optional=True, sensitive=True),
    )
    block = Block(
        attributes=(
            Attribute("one", nested_type=NestedAttributeObject(inner, SINGLE), optional=True),
            Attribute("many", nested_type=NestedAttributeObject(inner, LIST), optional=True),
            Attribute("keyed", nested_type=NestedAttributeObject(inner, MAP), optional=True),
            Attribute("whole", nested_type=NestedAttributeObject(inner, SET), optional=True, sensitive=True),
        )
    )
    value = {
        "one": {"user": "u", "pass": "p"},
        "many": [{"user": "a", "pass": None}, {"user": "b", "pass": "q"}],
        "keyed": {"k": {"user": "c", "pass": "r"}},
        "whole": SetValue([{"user": "d", "pass": "s"}]),
    }
    assert sensitive_paths(block, value) == [
        ("one", "pass"),
        ("many", 1, "pass"),
        ("keyed", "k", "pass"),
        ("whole",),
    ]


def test_sensitive_paths_are_the_shape_ctl_state_records() -> None:
    # Marking by schema and then recording the marks as state does gives back the same paths.
    value = {"name": "a", "password": "p", "rule": [{"port": 1, "secret": "s"}], "env": {"A": {"value": "v"}}}
    marked = mark_sensitive(INSTANCE, value)
    plain, recorded = unmark_paths(marked)
    assert plain == value
    assert recorded == sensitive_paths(INSTANCE, value)
    assert marked["password"] == Marked("p")
    assert marked["rule"][0]["secret"] == Marked("s")


def test_decoded_provider_values_get_their_schema_marks_back() -> None:
    ty = implied_type(INSTANCE)
    value = normalize_config(INSTANCE, {"name": "a", "password": "p", "rule": [{"port": 1, "secret": "s"}]})
    data, _ = encode(value, ty)
    back = decode(data, ty)
    back = decode(data, ty, sensitive=sensitive_paths(INSTANCE, back))
    assert back["password"] == Marked("p")
    assert back["rule"][0]["secret"] == Marked("s")
    assert back["name"] == "a"


# ---- config normalisation ------------------------------------------------------------------------


def test_normalize_fills_every_attribute_and_block() -> None:
    got = normalize_config(INSTANCE, {"name": "web"})
    assert got == {
        "name": "web",
        "id": None,
        "size": None,
        "password": None,
        "tags": None,
        "enabled": None,
        "rule": [],
        "ingress": SetValue(),
        "timeouts": None,
        "settings": {"mode": None},
        "env": {},
    }
    assert isinstance(got["ingress"], SetValue)
    # The result encodes strictly: nothing is missing.
    encode(got, implied_type(INSTANCE), strict=True)


def test_normalize_converts_and_fills_nested_blocks() -> None:
    got = normalize_config(
        INSTANCE,
        {
            "name": "web",
            "size": "3",
            "enabled": "true",
            "tags": {"n": 1},
            "rule": [{"port": "80"}],
            "ingress": [{"port": 443}, {"port": 22}, {"port": 443}],
            "timeouts": {"create": "5m"},
            "env": {"A": {"value": "x"}},
        },
    )
    assert got["size"] == 3
    assert got["enabled"] is True
    assert got["tags"] == {"n": "1"}
    assert got["rule"] == [{"port": 80, "secret": None, "id": None}]
    assert got["ingress"] == [
        {"port": 22, "secret": None, "id": None},
        {"port": 443, "secret": None, "id": None},
    ]
    assert got["timeouts"] == {"create": "5m"}
    assert got["env"] == {"A": {"value": "x"}}


def test_normalize_keeps_unknown_and_marked_values() -> None:
    got = normalize_config(INSTANCE, {"name": UNKNOWN, "password": Marked("p"), "rule": UNKNOWN})
    assert isinstance(got["name"], Unknown)
    assert got["password"] == Marked("p")
    assert isinstance(got["rule"], Unknown)


def test_normalize_nested_attributes_fill_optional_attributes() -> None:
    inner = (Attribute("host", STRING, required=True), Attribute("port", NUMBER, optional=True))
    block = Block(
        attributes=(Attribute("endpoints", nested_type=NestedAttributeObject(inner, LIST), optional=True),)
    )
    assert normalize_config(block, {"endpoints": [{"host": "a"}]}) == {
        "endpoints": [{"host": "a", "port": None}]
    }
    with pytest.raises(ConversionError) as info:
        normalize_config(block, {"endpoints": [{"port": 1}]})
    assert (
        str(info.value) == 'Inappropriate value for attribute "endpoints": element 0: attribute "host" is required.'
    )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {},
            'name: Missing required argument: The argument "name" is required, but no definition was found.',
        ),
        ({"name": "a", "nmae": "b"}, 'Unsupported argument: An argument named "nmae" is not expected here.'),
        ({"name": "a", "size": "big"}, 'Inappropriate value for attribute "size": a number is required.'),
        ({"name": "a", "tags": ["x"]}, 'Inappropriate value for attribute "tags": map of string required.'),
        (
            {"name": "a", "rule": [{"port": "x"}]},
            'Inappropriate value for attribute "rule[0].port": a number is required.',
        ),
        (
            {"name": "a", "rule": [{"port": 1}] * 4},
            'rule: Too many "rule" blocks: No more than 3 "rule" blocks are allowed.',
        ),
        (
            {"name": "a", "rule": [{}]},
            'rule[0].port: Missing required argument: The argument "port" is required',
        ),
        ({"name": "a", "env": [{"value": "x"}]}, 'env: Invalid block: "env" blocks must be labelled by key'),
    ],
)
def test_normalize_refuses_what_terraform_refuses(config: dict, message: str) -> None:
    with pytest.raises(CtlError) as info:
        normalize_config(INSTANCE, config)
    assert str(info.value).startswith(message)


def test_a_computed_only_attribute_is_left_to_the_provider_unless_asked() -> None:
    """Terraform's decoder takes a value for a computed-only attribute; the provider's own check
    refuses it (``Invalid Configuration for Read-Only Attribute`` from the plugin framework). A
    native type has no such check after the decoder, so it asks the decoder to refuse it."""
    assert normalize_config(INSTANCE, {"name": "a", "id": "x"})["id"] == "x"
    with pytest.raises(ConfigShapeError) as info:
        normalize_config(INSTANCE, {"name": "a", "id": "x"}, refuse_read_only=True)
    assert info.value.title == "Invalid Configuration for Read-Only Attribute"
    assert info.value.detail.startswith("Cannot set value for this attribute as the provider has marked it as "
                                        "read-only. Remove the configuration line setting the value.")
    assert info.value.path == ("id",)


def test_minimum_block_counts() -> None:
    block = Block(block_types=(NestedBlock("origin", RULE, LIST, min_items=1),))
    with pytest.raises(ConfigShapeError) as info:
        normalize_config(block, {})
    assert str(info.value) == 'origin: Insufficient "origin" blocks: At least 1 "origin" block is required.'
    two = Block(block_types=(NestedBlock("origin", RULE, SET, min_items=2),))
    with pytest.raises(ConfigShapeError, match='At least 2 "origin" blocks are required'):
        normalize_config(two, {"origin": [{"port": 1}]})


def test_empty_values_per_nesting_mode() -> None:
    inner = Block(
        attributes=(Attribute("a", STRING, optional=True),), block_types=(NestedBlock("b", RULE, SET),)
    )
    assert empty_value(NestedBlock("x", inner, SINGLE)) is None
    assert empty_value(NestedBlock("x", inner, GROUP)) == {"a": None, "b": SetValue()}
    assert empty_value(NestedBlock("x", inner, LIST)) == []
    assert empty_value(NestedBlock("x", inner, MAP)) == {}
    assert isinstance(empty_value(NestedBlock("x", inner, SET)), SetValue)


# ---- proposed new state --------------------------------------------------------------------------


def test_proposed_new_takes_computed_values_from_prior_state() -> None:
    config = normalize_config(INSTANCE, {"name": "web", "rule": [{"port": 80}], "ingress": [{"port": 22}]})
    prior = {
        "name": "old",
        "id": "i-123",
        "size": 2,
        "password": "was",
        "rule": [{"port": 8080, "secret": None, "id": "r-1"}],
        "ingress": [{"port": 443, "secret": None, "id": "g-2"}, {"port": 22, "secret": None, "id": "g-1"}],
    }
    got = proposed_new(INSTANCE, prior, config)
    assert got["name"] == "web"  # configured: the configuration wins
    assert got["id"] == "i-123"  # computed, unset: the prior value
    assert got["size"] == 2  # optional+computed, unset: the prior value
    assert got["password"] is None  # not computed: what the configuration says
    assert got["rule"] == [{"port": 80, "secret": None, "id": "r-1"}]  # lists by position
    # Sets by the element whose configured attributes agree.
    assert got["ingress"] == [{"port": 22, "secret": None, "id": "g-1"}]


def test_proposed_new_for_a_create_has_null_computed_values() -> None:
    config = normalize_config(INSTANCE, {"name": "web", "size": 4})
    got = proposed_new(INSTANCE, None, config)
    assert got["id"] is None
    assert got["size"] == 4
    assert got == config
