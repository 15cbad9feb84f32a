"""``validate`` asks each provider to check its own configuration blocks and its resources' arguments,
as Terraform's does.

A provider's own validators (a length of at least 1, arguments that exclude each other, one of several
that must be set) refuse a configuration at ``validate``, not first at ``plan``; values a plan could
give (an unset variable) are unknown then and refused by nobody. Terraform 1.0.3 and ctl validate the
same configurations with HashiCorp's providers; their diagnostics must be the same: severity, summary,
line and detail. A provider block's problem (the aws provider's validators: an ARN that is not one,
a duration that does not parse, two frameworks' words for one value) is reported at the argument inside
the block, nested blocks included, with the provider's words alone.
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
provider "random" {}

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


AWS_PROVIDER = '''
terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

variable "role" {
  type = string
}

provider "aws" {
  region = "us-east-1"
  assume_role {
    role_arn = %s
    duration = %s
  }
}

provider "aws" {
  alias  = "second"
  region = "us-east-1"
  assume_role {
    role_arn = var.role
  }
}

resource "aws_sqs_queue" "q" {
  name = "q"
}

resource "aws_sqs_queue" "r" {
  provider = aws.second
  name     = "r"
}
'''


@pytest.mark.parametrize("name", ["refused", "accepted"])
def test_validate_asks_the_aws_provider_about_its_own_blocks(name: str, tmp_path: Path, aws_provider: Path) -> None:
    values = ('"not-an-arn"', '"1x"') if name == "refused" else ('"arn:aws:iam::123456789012:role/r"', '"15m"')
    body = AWS_PROVIDER % values
    dirs = {}
    for tool in ("terraform", "ctl"):
        work = tmp_path / tool
        work.mkdir()
        (work / "main.tf").write_text(body)
        dirs[tool] = work
    terraform = TerraformDir(dirs["terraform"], aws_provider)
    terraform.run("init", f"-plugin-dir={aws_provider}", "-input=false", "-no-color")
    theirs = terraform.run("validate", "-json", expect=None)
    project = Project(dirs["ctl"])
    project.ok("init", "-plugin-dir", str(aws_provider))
    ours = project.ctl("validate", "--json")
    assert "Traceback" not in ours.stderr
    expected, got = json.loads(theirs.stdout), json.loads(ours.stdout)
    assert got["valid"] is expected["valid"] is (name == "accepted"), (theirs.output, ours)
    assert (ours.code == 0) is (theirs.returncode == 0)
    assert _diagnostics(got, strip_address=False) == _diagnostics(expected, strip_address=False)
    assert _starts(got) == _starts(expected)  # at the argument inside the nested block, to the column
    if name == "refused":
        human = project.ctl("validate")
        assert human.code == 1 and "Traceback" not in human.stderr
        assert 'main.tf:17:16: "assume_role.0.role_arn" (not-an-arn) is an invalid ARN' in human.stderr, human


def _starts(doc: dict) -> list[tuple[int, int]]:
    return sorted((d["range"]["start"]["line"], d["range"]["start"]["column"]) for d in doc["diagnostics"])
