"""Every native adapter's schema, converted to Terraform's shape, is a schema the plugin model reads.

The plugin side derives types, value shapes and validation from Terraform-shape schemas; a converted
native schema that it cannot read (or reads as a different type) would mislead every tool that
consumes ``ctl providers schema --json``.
"""

from __future__ import annotations

import pytest

from adapters.plugin.schema_json import schema_from_json
from adapters.registry import Registry
from engine.plugins.native_schema import cty_type, provider_schema
from vocab.schema.form import implied_type

_PROVIDERS = Registry.discover().providers()


@pytest.mark.parametrize("provider", _PROVIDERS, ids=[p.name for p in _PROVIDERS])
def test_every_native_type_converts_to_a_readable_schema(provider) -> None:
    doc = provider_schema(provider)
    assert set(doc["resource_schemas"]) == set(provider.resources)
    assert set(doc["data_source_schemas"]) == set(provider.data_sources)
    for section, types in (("resource_schemas", provider.resources), ("data_source_schemas", provider.data_sources)):
        for name, rt in types.items():
            schema = schema_from_json(doc[section][name])
            assert schema.version == rt.schema_version
            implied_type(schema.block)  # raises on an attribute without a usable type
            attrs = doc[section][name]["block"].get("attributes", {})
            for attr in rt.schema.get("required", []):
                if attr in attrs:
                    assert attrs[attr].get("required") is True, f"{name}.{attr}"
            for attr in rt.computed & set(attrs):
                assert attrs[attr].get("computed") is True, f"{name}.{attr}"
            for attr in rt.sensitive & set(attrs):
                assert attrs[attr].get("sensitive") is True, f"{name}.{attr}"


@pytest.mark.parametrize(("prop", "expected"), [
    ({"type": "string"}, "string"),
    ({"type": ["integer", "null"]}, "number"),
    ({"type": "boolean"}, "bool"),
    ({"type": "array", "items": {"type": "string"}}, ["list", "string"]),
    ({"type": "array", "uniqueItems": True, "items": {"type": "number"}}, ["set", "number"]),
    ({"type": "object", "additionalProperties": {"type": "boolean"}}, ["map", "bool"]),
    ({"type": "object", "properties": {"a": {"type": "string"}}}, ["object", {"a": "string"}]),
    ({"type": ["string", "number"]}, "dynamic"),
    ({}, "dynamic"),
])
def test_json_schema_types_map_to_the_cty_type_that_holds_them(prop, expected) -> None:
    assert cty_type(prop) == expected
