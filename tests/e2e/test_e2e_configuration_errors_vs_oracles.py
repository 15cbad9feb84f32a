"""A block of the wrong shape is reported as OpenTofu 1.12.6 and Terraform 1.0.3 report it.

Unsupported arguments and blocks, labels missing or one too many, required arguments left out,
names no address can hold, names defined twice, module arguments the module does not declare or
leaves out, variables and values where Terraform reads with no
evaluation context, type constraints it cannot read, validation conditions that check nothing:
configurations made of such blocks, one case a line, validated with ``validate -json`` by ctl and by
both references. ctl's diagnostics on each line (severity, summary, detail and range) must be
OpenTofu's; where Terraform 1.0.3 words one otherwise (``NEWER``, listed in
``docs/language-versions.md``), ctl follows the newest, and everywhere else it must be 1.0.3's too.

Under CI=true a missing reference is a failure, never a skip.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.helpers import validate_diagnostics
from tests.plugin.terraform_cli import opentofu_executable

BLOCKS = """\
variable "a" {
  bogus = 1
}
variable "b" {
  type = strin
}
variable "c" {
  default = var.a
}
variable "d" {
  validation {
    condition = true
  }
}
output "e" {
  valu = 1
}
output "f" {
  value = 1
  bogus = 2
}
locals {
  g = 1
}
locals {
  g = 2
}
variable "a" {}
output "h" {
  value = 1
  lifecycle {
    bogus = 1
  }
}
module "i" {}
resource "x" {}
variable "1bad" {}
output "j" {
  value = 1
  depends_on = [1]
}
variable "k" {
  type = list(string, number)
}
variable "l" {
  type = object({a = strng})
}
variable "m" {
  sensitive = "yes"
}
variable "n" {
  default = upper("a")
}
"""

SHAPES = """\
output "o" { value = 1 }
output "o" { value = 2 }
module "m" { source = "./m" }
module "m" { source = "./m" }
resource "terraform_data" "r" {}
resource "terraform_data" "r" {}
data "terraform_remote_state" "d" { backend = "local" }
data "terraform_remote_state" "d" { backend = "local" }
variable {}
variable "x" "y" {}
output "p" "q" { value = 1 }
resource "a" "b" "c" {}
variable "n" { nullable = "x" }
variable "s" { sensitive = 1 }
bogus = 1
output "t" {
  value = 1
  sensitive = [true]
}
output "2y" { value = 1 }
resource "terraform_data" "3z" {}
module "4w" { source = "./m" }
variable "u" { sensitive = "true" }
output "v" {
  value       = 1
  description = 2
}
"""

# Module calls whose arguments are not the called module's variables ("r" declares two). Each is a
# configuration of its own: the references report one module call's problems and stop there.
CALL_UNKNOWN = 'module "w" {\n  source = "./m"\n  bogus  = 1\n}\n'
CALL_MISSING = 'module "r" {\n  source = "./r"\n  nam    = 2\n}\n'

CONFIGS = {"blocks": BLOCKS, "shapes": SHAPES, "call_unknown": CALL_UNKNOWN, "call_missing": CALL_MISSING}

# Lines where Terraform 1.0.3 reports otherwise and ctl follows the newest language.
NEWER = {
    ("blocks", 12): "a condition reading nothing is also 'Invalid validation expression' (OpenTofu 1.12)",
    ("shapes", 13): "nullable is Terraform 1.1's",
    ("shapes", 14): 'cty names the type given: "bool required, but have number" (1.0.3: "bool required")',
    ("shapes", 18): 'cty names the type given: "bool required, but have tuple" (1.0.3: "bool required")',
}

Case = tuple[str, int]
Seen = dict[str, dict[Case, set[tuple[Any, ...]]]]


def _by_line(config: str, diagnostics: list[dict[str, Any]]) -> dict[Case, set[tuple[Any, ...]]]:
    out: dict[Case, set[tuple[Any, ...]]] = {}
    for d in diagnostics:
        start, end = d["range"]["start"], d["range"]["end"]
        out.setdefault((config, start["line"]), set()).add(
            (d["severity"], d["summary"], d["detail"], start["column"], end["line"], end["column"]))
    return out


# The modules the configurations call.
CALLED = {"m/main.tf": 'output "x" {\n  value = 1\n}\n', "r/main.tf": 'variable "need" {}\nvariable "name" {}\n'}


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> Seen:
    root = tmp_path_factory.mktemp("configuration-errors")
    tofu = opentofu_executable(root / "opentofu-bin")
    out: Seen = {}
    for tool in ("ctl", "opentofu", "terraform"):
        found: dict[Case, set[tuple[Any, ...]]] = {}
        for config, text in CONFIGS.items():
            found |= _by_line(config, validate_diagnostics(tool, root / f"{tool}-{config}", text, tofu, CALLED))
        out[tool] = found
    return out


def _differing(ours: dict[Case, set[tuple[Any, ...]]], theirs: dict[Case, set[tuple[Any, ...]]],
               skip: frozenset[Case] = frozenset()) -> str:
    """The lines where two tools report otherwise, each with both reports, for a failure to show."""
    lines = sorted((set(ours) | set(theirs)) - skip)
    return "\n".join(f"{c}:{n} {CONFIGS[c].splitlines()[n - 1]!r}\n  ctl: {ours.get((c, n))}\n  ref: {theirs.get((c, n))}"
                     for c, n in lines if ours.get((c, n)) != theirs.get((c, n)))


def test_every_line_is_reported_as_opentofu_reports_it(seen: Seen) -> None:
    assert len(seen["opentofu"]) >= 30, "the references should refuse every case"
    assert not _differing(seen["ctl"], seen["opentofu"]), _differing(seen["ctl"], seen["opentofu"])


def test_and_as_terraform_1_0_3_where_it_did_not_change(seen: Seen) -> None:
    skip = frozenset(NEWER)
    assert not _differing(seen["ctl"], seen["terraform"], skip), _differing(seen["ctl"], seen["terraform"], skip)


@pytest.mark.parametrize("case", list(NEWER), ids=lambda c: f"{c[0]}-{c[1]}")
def test_the_newer_lines_are_newer(seen: Seen, case: Case) -> None:
    assert seen["terraform"].get(case) != seen["opentofu"].get(case), "Terraform 1.0.3 agrees: drop it from NEWER"


def test_what_terraform_converts_is_accepted(seen: Seen) -> None:
    """``sensitive = "true"`` and ``description = 2`` are converted, not refused."""
    shapes = SHAPES.splitlines()
    for line in (shapes.index('variable "u" { sensitive = "true" }') + 1, shapes.index("  description = 2") + 1):
        assert ("shapes", line) not in seen["ctl"]
        assert ("shapes", line) not in seen["opentofu"]
