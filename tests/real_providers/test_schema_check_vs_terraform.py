"""Resource arguments are checked against the provider's schema as Terraform's decoder checks them.

HashiCorp's real ``random``, ``null``, ``local`` and ``time`` providers, driven by ctl, Terraform 1.0.3
and OpenTofu 1.12.6 side by side. A value not known until apply, inside a map argument
(``triggers = { a = random_id.x.hex }``) or as a whole argument, is accepted and planned as both
references plan it; a known mistake beside an unknown is still refused. The schema problems ctl reports
are the references' own diagnostics: summary, detail and line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir, opentofu_executable

PROVIDERS = '''
terraform {
  required_providers {
    random = { source = "registry.terraform.io/hashicorp/random" }
    null   = { source = "registry.terraform.io/hashicorp/null" }
    local  = { source = "registry.terraform.io/hashicorp/local" }
    time   = { source = "registry.terraform.io/hashicorp/time" }
  }
}

resource "random_id" "x" {
  byte_length = 4
}
'''

UNKNOWN_INSIDE = PROVIDERS + '''
resource "null_resource" "n" {
  triggers = { a = random_id.x.hex, b = "known", c = 3 }
}

resource "local_file" "f" {
  filename = "${path.module}/out.txt"
  content  = random_id.x.hex
}

resource "time_rotating" "r" {
  rotation_days = 1
  triggers      = { id = random_id.x.id }
}

resource "random_string" "s" {
  length  = 4
  keepers = { hex = random_id.x.hex, n = random_id.x.byte_length }
}
'''

REFUSED = PROVIDERS + '''
resource "null_resource" "misspelt" {
  trigers = { a = random_id.x.hex }
}

resource "null_resource" "beside_unknown" {
  triggers = { a = random_id.x.hex, b = [1] }
}

resource "null_resource" "not_a_map" {
  triggers = [random_id.x.hex]
}

resource "random_string" "word" {
  length = "abc"
}

resource "random_password" "missing" {
}

resource "time_rotating" "block" {
  rotation_days = 1
  bogus {}
}

resource "random_string" "read_only" {
  length = 3
  result = "x"
}
'''


def _dirs(tmp_path: Path, config: str) -> dict[str, Path]:
    dirs = {tool: tmp_path / tool for tool in ("terraform", "opentofu", "ctl")}
    for work in dirs.values():
        work.mkdir()
        (work / "main.tf").write_text(config)
    return dirs


def _diagnostics(doc: dict[str, Any], *, detail: bool = True) -> list[tuple[str, ...]]:
    """What a user reads of each diagnostic: severity, summary, line, and the detail without the
    ``ADDRESS:`` ctl starts it with (Terraform prints it as ``with ADDRESS``)."""
    out = []
    for d in doc["diagnostics"]:
        line = str((d.get("range") or {}).get("start", {}).get("line"))
        said = re.sub(r"^[a-z0-9_]+\.[a-z0-9_]+: ", "", d.get("detail", "")) if detail else ""
        out.append((d["severity"], d["summary"], line, said))
    return sorted(out)


def _initialised(tmp_path: Path, config: str, real_providers: Path) -> tuple[TerraformDir, OpenTofuDir, Project]:
    """``config`` in three directories, initialised by Terraform 1.0.3, OpenTofu and ctl alike."""
    dirs = _dirs(tmp_path, config)
    terraform = TerraformDir(dirs["terraform"], real_providers)
    terraform.init()
    opentofu = OpenTofuDir(dirs["opentofu"], real_providers, opentofu_executable(tmp_path / "bin"))
    opentofu.init()
    project = Project(dirs["ctl"])
    project.ok("init", "-plugin-dir", str(real_providers))
    return terraform, opentofu, project


def test_an_unknown_inside_a_map_validates_and_plans_as_the_references(tmp_path: Path, real_providers: Path) -> None:
    terraform, opentofu, project = _initialised(tmp_path, UNKNOWN_INSIDE, real_providers)

    assert json.loads(terraform.run("validate", "-json").stdout)["valid"] is True
    ours = project.ctl("validate", "--json")
    assert ours.code == 0 and json.loads(ours.stdout) == {**json.loads(ours.stdout), "valid": True}, str(ours)

    planned = project.ctl("plan", "-no-color", "--out", "ctl.plan")
    assert planned.code == 0, str(planned)
    expected = _changes(terraform.plan(expect=2).stdout)
    assert _changes(planned.stdout) == expected
    assert '      + triggers = {\n          + "a" = (known after apply)' in "\n".join(expected)
    opentofu.plan("-out=tofu.plan", expect=2)
    theirs = json.loads(opentofu.run("show", "-json", "tofu.plan").stdout)
    shown = json.loads(project.ok("show", "-json", "ctl.plan").stdout)
    assert _unknown(shown) == _unknown(theirs)
    assert _unknown(shown)["null_resource.n"]["triggers"] == {"a": True}


def test_schema_problems_are_the_references_diagnostics(tmp_path: Path, real_providers: Path) -> None:
    terraform, opentofu, project = _initialised(tmp_path, REFUSED, real_providers)

    ours = project.ctl("validate", "--json")
    assert ours.code == 1 and "Traceback" not in ours.stderr, str(ours)
    got = json.loads(ours.stdout)
    newer = json.loads(opentofu.run("validate", "-json", expect=None).stdout)
    assert _diagnostics(got) == _diagnostics(newer)
    # Terraform 1.0.3 says the same, but for cty's older "string required." (no ", but have tuple").
    older = json.loads(terraform.run("validate", "-json", expect=None).stdout)
    assert _diagnostics(got, detail=False) == _diagnostics(older, detail=False)
    summaries = {d[1] for d in _diagnostics(got)}
    assert summaries == {"Unsupported argument", "Incorrect attribute value type", "Missing required argument",
                         "Unsupported block type", "Invalid Configuration for Read-Only Attribute"}
    assert ('error', 'Unsupported argument', _line("trigers ="),
            'An argument named "trigers" is not expected here. Did you mean "triggers"?') in _diagnostics(got)
    assert ('error', 'Incorrect attribute value type', _line("b = [1]"),
            'Inappropriate value for attribute "triggers": element "b": string required, but have tuple.'
            ) in _diagnostics(got)

    human = project.ctl("validate")
    assert human.code == 1 and "Traceback" not in human.stderr
    assert f"main.tf:{_line('trigers =')}:3: Unsupported argument" in human.stderr, str(human)


def _line(text: str) -> str:
    """The line of ``REFUSED`` that holds ``text``, as a diagnostic's range gives it."""
    return str(next(n for n, line in enumerate(REFUSED.split("\n"), 1) if text in line))


def _changes(plan_text: str) -> list[str]:
    """The resources' change lines, without the tool's name."""
    lines = plan_text.split(" will perform the following actions:", 1)[1].split("\nPlan:", 1)[0]
    return [line.rstrip() for line in lines.splitlines()]


def _unknown(plan_json: dict[str, Any]) -> dict[str, Any]:
    """What each resource's plan leaves unknown until apply (``after_unknown``), by address."""
    return {c["address"]: c["change"]["after_unknown"] for c in plan_json["resource_changes"]}
