"""Terraform's checks of a provider's plan and result, on values built by hand (the misbehaving Go
provider drives them end to end in tests/plugin/test_misbehaving_results.py)."""

from __future__ import annotations

import pytest

from adapters.plugin.consistency import (
    KeptProviderBug,
    ProviderBug,
    apply_problems,
    check_applied,
    check_planned,
    go_value,
    plan_problems,
)
from vocab.schema.form import SINGLE, Attribute, Block, NestedAttributeObject
from vocab.types import NUMBER, STRING, list_of, map_of, set_of
from vocab.values import UNKNOWN

SETTINGS = NestedAttributeObject(attributes=(
    Attribute("level", type=NUMBER, optional=True),
    Attribute("label", type=STRING, optional=True, computed=True),
), nesting=SINGLE)
BLOCK = Block(attributes=(
    Attribute("id", type=STRING, computed=True),
    Attribute("name", type=STRING, required=True),
    Attribute("tags", type=map_of(STRING), optional=True),
    Attribute("ports", type=set_of(NUMBER), optional=True),
    Attribute("secret", type=STRING, optional=True, sensitive=True),
    Attribute("settings", nested_type=SETTINGS, optional=True),
))


def _obj(**values: object) -> dict[str, object]:
    return {"id": None, "name": "a", "tags": None, "ports": None, "secret": None, "settings": None, **values}


def test_a_plan_may_fill_computed_attributes_the_configuration_leaves_out() -> None:
    config = _obj(settings={"level": 2, "label": None})
    planned = _obj(id=UNKNOWN, settings={"level": 2, "label": UNKNOWN})
    assert plan_problems(BLOCK, None, config, planned) == []


def test_a_plan_that_changes_configured_values_is_invalid() -> None:
    config = _obj(tags={"env": "prod"}, secret="s3cret", settings={"level": 2, "label": None})
    planned = _obj(name="b", tags={"env": "dev"}, secret="other", settings={"level": 3, "label": "x"})
    assert plan_problems(BLOCK, None, config, planned) == [
        '.name: planned value cty.StringVal("b") does not match config value cty.StringVal("a")',
        '.tags: planned value cty.MapVal(map[string]cty.Value{"env":cty.StringVal("dev")}) does not match '
        'config value cty.MapVal(map[string]cty.Value{"env":cty.StringVal("prod")})',
        ".secret: sensitive planned value does not match config value",
        ".settings.level: planned value cty.NumberIntVal(3) does not match config value cty.NumberIntVal(2)",
    ]
    with pytest.raises(ProviderBug) as caught:
        check_planned(BLOCK, "x.a", "example.com/x/x", None, config, planned, legacy=False)
    assert [d.summary for d in caught.value.diagnostics()] == ["Provider produced invalid plan"] * 4
    check_planned(BLOCK, "x.a", "example.com/x/x", None, config, planned, legacy=True)  # only logged


def test_a_result_must_keep_what_was_planned_and_know_everything() -> None:
    planned = _obj(id=UNKNOWN, tags={"env": "prod"}, ports=[1, 2])
    assert apply_problems(BLOCK, planned, _obj(id="i", tags={"env": "prod"}, ports=[2, 1])) == []
    assert apply_problems(BLOCK, planned, _obj(id="i", tags={"env": "dev", "x": "y"}, ports=[1])) == [
        '.tags["env"]: was cty.StringVal("prod"), but now cty.StringVal("dev")',
        '.tags: new element "x" has appeared',
        ".ports: planned set element values do not match the set returned: was "
        "cty.SetVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)}), but now "
        "cty.SetVal([]cty.Value{cty.NumberIntVal(1)})",
    ]
    with pytest.raises(KeptProviderBug) as caught:
        check_applied(BLOCK, "x.a", "example.com/x/x", planned, _obj(id=UNKNOWN, tags={"env": "prod"}, ports=[1, 2]),
                      legacy=True)
    assert caught.value.result["id"] is None  # kept, the unknown nulled
    assert [d.summary for d in caught.value.diagnostics()] == ["Provider returned invalid result object after apply"]
    assert "unknown value for x.a.id." in caught.value.diagnostics()[0].detail


def test_values_are_shown_in_cty_go_syntax() -> None:
    assert go_value(None, list_of(STRING)) == "cty.NullVal(cty.List(cty.String))"
    assert go_value(UNKNOWN, NUMBER) == "cty.UnknownVal(cty.Number)"
    assert go_value(1.5, NUMBER) == "cty.NumberFloatVal(1.5)"
    assert go_value([], list_of(STRING)) == "cty.ListValEmpty(cty.String)"
    assert go_value(True, STRING) == "cty.True"
