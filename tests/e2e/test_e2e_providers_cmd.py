"""``ctl providers``, ``ctl providers schema --json`` and ``ctl version`` over real plugins and native adapters.

The schema document is compared with what Terraform 1.0.3 prints for the same provider binaries:
tools written for ``terraform providers schema -json`` must read ctl's unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

ROOT = """
terraform {
  required_providers {
    fwtest = { source = "ctltest/fwtest", version = "~> 1.0" }
  }
}

provider "fwtest" {
  root = "objs"
}

resource "local_file" "note" {
  filename = "note.txt"
  content  = "hello"
}

module "child" {
  source = "./child"
}
"""

CHILD = """
terraform {
  required_providers {
    sdktest = { source = "ctltest/sdktest", version = ">= 1.0.0" }
  }
}
"""


def _write(root: Path) -> None:
    (root / "main.tf").write_text(ROOT)
    (root / "child").mkdir()
    (root / "child" / "main.tf").write_text(CHILD)


def _differences(terraform: Any, ctl: Any, path: str = "") -> list[str]:
    if isinstance(terraform, dict) and isinstance(ctl, dict):
        out = []
        for key in sorted(set(terraform) | set(ctl)):
            if key not in ctl:
                out.append(f"{path}/{key}: only in Terraform's")
            elif key not in terraform:
                out.append(f"{path}/{key}: only in ctl's")
            else:
                out.extend(_differences(terraform[key], ctl[key], f"{path}/{key}"))
        return out
    return [] if terraform == ctl else [f"{path}: Terraform {terraform!r}, ctl {ctl!r}"]


def test_schema_document_matches_terraform(tmp_path: Path, plugin_dir: Path) -> None:
    work = tmp_path / "tf"
    work.mkdir()
    _write(work)
    main_tf = (work / "main.tf").read_text()
    # Terraform would need the real hashicorp/local provider (the network): it reads the plugins only.
    (work / "main.tf").write_text(main_tf.split('resource "local_file"')[0] + main_tf.split('"hello"\n}')[1])
    terraform = TerraformDir(work, plugin_dir)
    terraform.init()
    expected = json.loads(terraform.run("providers", "schema", "-json").stdout)["provider_schemas"]
    (work / "main.tf").write_text(main_tf)

    project = Project(work)
    project.ok("init", "-plugin-dir", str(plugin_dir))
    result = project.ok("providers", "schema", "--json")
    assert result.stdout.count("\n") == 1  # one line, as Terraform prints it
    document = json.loads(result.stdout)
    assert document["format_version"] == "1.0"
    ours = document["provider_schemas"]
    # Terraform 1.0.3 knows no provider functions, and labels each data source with the schema version of
    # the managed resource of the same name (its jsonprovider passes the resource versions for both).
    assert "reverse" in ours["registry.terraform.io/ctltest/fwtest"].pop("functions")
    for provider in expected.values():
        for schema in provider.get("data_source_schemas", {}).values():
            schema.pop("version")
    for provider in ours.values():
        for schema in provider.get("data_source_schemas", {}).values():
            assert schema.pop("version") == 0
    native = ours.pop("registry.terraform.io/hashicorp/local")
    assert _differences(expected, ours) == []
    local_file = native["resource_schemas"]["local_file"]["block"]["attributes"]
    assert local_file["filename"]["required"] is True
    assert local_file["id"]["computed"] is True
    assert local_file["sensitive_content"]["sensitive"] is True


def test_requirement_tree_state_and_how_each_is_served(tmp_path: Path, plugin_dir: Path) -> None:
    _write(tmp_path)
    project = Project(tmp_path)
    project.ok("init", "-plugin-dir", str(plugin_dir))
    project.ok("apply", "--auto-approve")
    lines = project.ok("providers").stdout.splitlines()
    tree = lines[lines.index("Providers required by configuration:") + 1:]
    assert tree[:5] == [
        ".",
        "├── provider[registry.terraform.io/ctltest/fwtest] ~> 1.0",
        "├── provider[registry.terraform.io/hashicorp/local]",
        "└── module.child",
        "    └── provider[registry.terraform.io/ctltest/sdktest] >= 1.0.0",
    ]
    state = lines[lines.index("Providers required by state:") + 2]
    assert state == "    provider[registry.terraform.io/hashicorp/local]"
    served = "\n".join(lines[lines.index("Providers served:"):])
    assert "provider[registry.terraform.io/ctltest/fwtest] - plugin v1.0.0 (protocol 6)" in served
    assert "provider[registry.terraform.io/ctltest/sdktest] - plugin v1.0.0 (protocol 5)" in served
    assert "provider[registry.terraform.io/hashicorp/local] - native adapter" in served


def test_version_lists_the_selected_plugins_and_native_adapters(tmp_path: Path, plugin_dir: Path) -> None:
    _write(tmp_path)
    project = Project(tmp_path)
    project.ok("init", "-plugin-dir", str(plugin_dir))
    text = project.ok("version").stdout  # init starts no provider: the protocol is not known yet
    assert "+ provider registry.terraform.io/ctltest/fwtest v1.0.0 (plugin)" in text
    assert json.loads(project.ok("version", "--json").stdout)["providers"][0]["protocol"] is None
    project.ok("validate")  # reads the schemas, and with them each plugin's protocol
    text = project.ok("version").stdout
    assert "+ provider registry.terraform.io/ctltest/fwtest v1.0.0 (plugin, protocol 6)" in text
    assert "+ provider registry.terraform.io/hashicorp/local (native adapter)" in text
    document = json.loads(project.ok("version", "--json").stdout)
    assert document["provider_selections"] == {"registry.terraform.io/ctltest/fwtest": "1.0.0",
                                               "registry.terraform.io/ctltest/sdktest": "1.0.0"}
    (tmp_path / "main.tf").write_text("this is { not hcl")  # a broken configuration: still a version
    assert project.ok("version").stdout.startswith("ctl ")


def test_a_provider_without_a_plugin_is_named_with_what_to_do(tmp_path: Path) -> None:
    _write(tmp_path)
    project = Project(tmp_path)
    served = project.ok("providers").stdout
    assert "provider[registry.terraform.io/ctltest/fwtest] - no plugin selected: run `ctl init`" in served
    result = project.ctl("providers", "schema", "--json")
    assert result.code == 1
    assert "provider registry.terraform.io/ctltest/fwtest has no plugin selected" in result.stderr
    assert "Traceback" not in result.stderr
