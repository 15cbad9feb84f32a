"""Configurations written as JSON by python-hcl2 (the parser oracle) load as their HCL source does.

python-hcl2 writes every block type as an array of objects, at the label levels too
(``"variable": [{"a": {…}}, {"b": {…}}]``), as the HCL JSON specification allows; and a string
that only holds escaped template markers (``$${`` and ``%%{``) must not gain a character.
"""

from __future__ import annotations

import json
from pathlib import Path

import hcl2
import pytest

from engine.validate import load_and_evaluate
from vocab.values import deep_unmark


def _observed(directory: Path) -> dict:
    loaded = load_and_evaluate(directory, environ={})
    assert not loaded.diags.has_errors, [d.summary for d in loaded.diags.items]
    assert loaded.walk is not None and loaded.root is not None
    scope = loaded.walk.scopes[()][0]
    return {
        "variables": sorted(loaded.root.variables),
        "locals": deep_unmark(dict(scope.locals))[0],
        "instances": {i.address: deep_unmark(i.config)[0] for insts in loaded.walk.instances.values() for i in insts},
        "outputs": sorted(loaded.root.outputs),
    }


# python-hcl2 7.x drops the quotes of string literals nested inside expressions (`toset(["a"])` comes
# out as `toset([a])`), so this configuration keeps literals at the top level of its values.
SOURCE = """
variable "project" {
  type    = string
  default = "inventory"
}

variable "labels" {
  type    = map(string)
  default = { team = "platform" }
}

variable "replicas" {
  default = 2
}

locals {
  prefix = "${var.project}-x"
  names  = [for i in range(var.replicas) : "${local.prefix}-${i}"]
}

resource "terraform_data" "replica" {
  count = var.replicas
  input = { name = local.names[count.index], labels = var.labels }
  lifecycle {
    ignore_changes = [input]
  }
}

resource "terraform_data" "audit" {
  input      = length(terraform_data.replica)
  depends_on = [terraform_data.replica]
}

output "names" {
  value = local.names
}
"""


def test_python_hcl2_json_of_a_configuration_means_the_same(tmp_path: Path) -> None:
    hcl_dir, json_dir = tmp_path / "hcl", tmp_path / "json"
    hcl_dir.mkdir()
    json_dir.mkdir()
    (hcl_dir / "main.tf").write_text(SOURCE)
    converted = hcl2.loads(SOURCE)
    assert isinstance(converted["variable"], list) and len(converted["variable"]) == 3  # label arrays
    (json_dir / "main.tf.json").write_text(json.dumps(converted))
    assert _observed(json_dir) == _observed(hcl_dir)


@pytest.mark.parametrize(("suffix", "text"), [
    (".tf.json", json.dumps({"output": {"o": {"value": "$${lit} %%{ok}"}}})),
    (".tf.yaml", 'output:\n  o: { value: "$${lit} %%{ok}" }\n'),
])
def test_escaped_markers_alone_stay_as_written(tmp_path: Path, suffix: str, text: str) -> None:
    (tmp_path / f"main{suffix}").write_text(text)
    loaded = load_and_evaluate(tmp_path, environ={})
    assert loaded.walk is not None
    assert loaded.walk.root_outputs["o"][0] == "${lit} %{ok}"
