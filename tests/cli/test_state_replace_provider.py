"""``ctl state replace-provider`` does to a state what Terraform 1.0.3's command of that name does.

The same state is given to both (Terraform's local ``terraform.tfstate``, ctl's ``ctl.tfstate``):
the providers written afterwards, resource by resource (alias and module kept), and the resources
listed are the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

NULL = 'provider["registry.terraform.io/hashicorp/null"]'


def _resource(name: str, provider: str, module: str | None = None, type_: str = "null_resource") -> dict[str, Any]:
    res: dict[str, Any] = {"mode": "managed", "type": type_, "name": name, "provider": provider,
                           "instances": [{"schema_version": 0, "attributes": {"id": name},
                                          "sensitive_attributes": []}]}
    if module:
        res["module"] = module
    return res


STATE = {"version": 4, "terraform_version": "1.0.3", "serial": 3, "lineage": "0f3a7c1e-lineage", "outputs": {},
         "resources": [_resource("a", NULL), _resource("b", NULL + ".alias"),
                       _resource("c", "module.m." + NULL, module="module.m"),
                       _resource("d", 'provider["registry.terraform.io/hashicorp/random"]', type_="random_id")]}


def _providers(doc: dict[str, Any]) -> dict[str, str]:
    return {f"{r.get('module', '')}/{r['type']}.{r['name']}": r["provider"] for r in doc["resources"]}


def test_replace_provider_writes_what_terraform_writes(tmp_path: Path) -> None:
    tf_dir, ctl_dir = tmp_path / "tf", tmp_path / "ctl"
    tf_dir.mkdir()
    ctl_dir.mkdir()
    (tf_dir / "terraform.tfstate").write_text(json.dumps(STATE))
    (ctl_dir / "ctl.tfstate").write_text(json.dumps(STATE))
    args = ("state", "replace-provider", "-auto-approve", "hashicorp/null", "example.com/acme/null")

    tf = TerraformDir(tf_dir, Path("/nonexistent")).run(*args, "-no-color")
    project = Project(ctl_dir)
    res = project.ctl(*args, "-lock-timeout=1s", "-ignore-remote-version")
    assert res.code == 0, res

    expected = _providers(json.loads((tf_dir / "terraform.tfstate").read_text()))
    assert _providers(project.state()) == expected
    assert expected["/null_resource.b"] == 'provider["example.com/acme/null"].alias'
    listed = [line.strip() for line in tf.stdout.splitlines() if line.startswith("  ") and "." in line
              and not line.strip().startswith(("-", "+"))]
    assert sorted(listed) == ["module.m.null_resource.c", "null_resource.a", "null_resource.b"]  # in any order
    assert all(f"  {a}\n" in res.stdout for a in listed)
    assert "Successfully replaced provider for 3 resources." in res.stdout
    assert project.state()["serial"] > STATE["serial"]


def test_nothing_to_replace_and_no_confirmation(tmp_path: Path) -> None:
    project = Project(tmp_path)
    (tmp_path / "ctl.tfstate").write_text(json.dumps(STATE))
    res = project.ctl("state", "replace-provider", "-auto-approve", "hashicorp/aws", "acme/aws")
    assert res.code == 0 and "No matching resources found." in res.stdout, res

    asked = project.ctl("state", "replace-provider", "hashicorp/null", "acme/null")
    assert asked.code == 1 and "--auto-approve" in asked.stderr, asked
    assert _providers(project.state()) == _providers(STATE)

    bad = project.ctl("state", "replace-provider", "-auto-approve", "hashicorp/null", "not a source")
    assert bad.code == 1 and "Invalid provider source address" in bad.stderr, bad
