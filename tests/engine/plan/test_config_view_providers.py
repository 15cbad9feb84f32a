"""Provider configuration keys in the plan document's ``configuration``, as Terraform writes them."""

from __future__ import annotations

from pathlib import Path

from adapters.registry import Registry
from engine.config.loader import load_config
from engine.plan.config_view import configuration


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_module_resource_without_any_provider_block_has_its_modules_own_key(tmp_path: Path) -> None:
    _write(tmp_path, {
        "main.tf": 'provider "random" {}\nmodule "m" {\n  source = "./m"\n}\n',
        "m/main.tf": ('terraform {\n  required_providers {\n    time = { source = "hashicorp/time", version = ">= 0.9" }\n'
                      '  }\n}\nresource "time_static" "t" {}\nresource "random_id" "r" {\n  byte_length = 2\n}\n'),
    })
    root, diags = load_config(tmp_path)
    assert not diags.has_errors
    doc = configuration(root, Registry.discover())
    keys = {r["address"]: r["provider_config_key"] for r in doc["root_module"]["module_calls"]["m"]["module"]["resources"]}
    assert keys == {"time_static.t": "module.m:time", "random_id.r": "random"}  # random: inherited from the root
    assert doc["provider_config"]["module.m:time"] == {
        "name": "time", "full_name": "registry.terraform.io/hashicorp/time",
        "version_constraint": ">= 0.9", "module_address": "module.m",
    }
    assert "module_address" not in doc["provider_config"]["random"]
