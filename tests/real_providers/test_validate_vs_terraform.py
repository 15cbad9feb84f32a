"""``validate`` asks each provider to check its resources' arguments, as Terraform's does.

A provider's own validators (a length of at least 1, arguments that exclude each other, one of several
that must be set) refuse a configuration at ``validate``, not first at ``plan``; values a plan could
give (an unset variable) are unknown then and refused by nobody. Terraform 1.0.3 and ctl validate the
same configurations with HashiCorp's providers; their diagnostics must be the same: severity, summary,
line and detail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

REFUSED = '''
resource "random_string" "short" {
  count  = 2
  length = 0
}

resource "local_file" "two_sources" {
  filename = "a.txt"
  content  = "a"
  source   = "b.txt"
}

resource "time_offset" "no_offset" {
}
'''

ACCEPTED = '''
variable "n" {
  type = number
}

resource "random_password" "later" {
  length = var.n
}

resource "local_file" "one_source" {
  filename = "a.txt"
  content  = "a"
}

data "archive_file" "zip" {
  type        = "zip"
  output_path = "out.zip"
  source_file = "main.tf"
}
'''

_ADDRESS = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+(\[[^\]]+\])?: ")


def _diagnostics(doc: dict, *, strip_address: bool) -> list[tuple[str, str, int | None, str]]:
    """What a user reads of each diagnostic: severity, summary, line, and the detail (without the
    ``ADDRESS:`` ctl starts it with, which Terraform prints as ``with ADDRESS``)."""
    out = []
    for d in doc["diagnostics"]:
        detail = d.get("detail", "")
        if strip_address:
            detail = _ADDRESS.sub("", detail)
        out.append((d["severity"], d["summary"], (d.get("range") or {}).get("start", {}).get("line"), detail))
    return sorted(out)


@pytest.mark.parametrize("name", ["refused", "accepted"])
def test_validate_asks_the_providers_as_terraform_does(name: str, tmp_path: Path, real_providers: Path) -> None:
    body = REFUSED if name == "refused" else ACCEPTED
    dirs = {}
    for tool in ("terraform", "ctl"):
        work = tmp_path / tool
        work.mkdir()
        (work / "main.tf").write_text(body)
        dirs[tool] = work
    terraform = TerraformDir(dirs["terraform"], real_providers)
    terraform.run("init", f"-plugin-dir={real_providers}", "-input=false", "-no-color")
    theirs = terraform.run("validate", "-json", expect=None)
    project = Project(dirs["ctl"])
    project.ok("init", "-plugin-dir", str(real_providers))
    ours = project.ctl("validate", "--json")
    assert "Traceback" not in ours.stderr
    expected = json.loads(theirs.stdout)
    got = json.loads(ours.stdout)
    assert got["valid"] is expected["valid"] is (name == "accepted"), (theirs.output, ours)
    assert (ours.code == 0) is (theirs.returncode == 0)
    assert _diagnostics(got, strip_address=True) == _diagnostics(expected, strip_address=False)
    if name == "refused":
        # Two instances of one block with the same problem: one diagnostic, as Terraform's one check.
        assert sum(d[1] == "Invalid Attribute Value" for d in _diagnostics(got, strip_address=True)) == 1
