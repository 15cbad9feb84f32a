"""The lock file reads and writes Terraform's format, and refuses what Terraform would not write."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.install.lockfile import LOCK_FILE, LockedProvider, parse_lock, read_lock, render, write_lock
from vocab.errors import CtlError

TERRAFORM_WRITTEN = """\
# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/null" {
  version     = "3.1.0"
  constraints = "~> 3.0"
  hashes = [
    "h1:Jlbb7buZGU5fqsqrPeDIKzFJ5r2k7RWXgX5bqBwR8tI=",
    "zh:02a1675fd8de126a00460942aaae242e65ca3380b5bb192e8773ef3da9073fd2",
  ]
}

provider "registry.terraform.io/hashicorp/random" {
  version = "3.6.0"
  hashes = [
    "h1:R5Ucn26riKIEijcsiOMBR3uOAjuOMfI1x7XvH4P6B1w=",
  ]
}
"""


def test_a_terraform_lock_file_reads_and_renders_back_byte_for_byte() -> None:
    entries = parse_lock(TERRAFORM_WRITTEN.encode(), LOCK_FILE)
    assert entries["registry.terraform.io/hashicorp/null"].constraints == "~> 3.0"
    assert entries["registry.terraform.io/hashicorp/random"].hashes == ["h1:R5Ucn26riKIEijcsiOMBR3uOAjuOMfI1x7XvH4P6B1w="]
    assert render(entries) == TERRAFORM_WRITTEN


def test_entries_are_written_sorted_with_sorted_unique_hashes(tmp_path: Path) -> None:
    entries = {
        "z.example/a/b": LockedProvider("z.example/a/b", "1.0.0", "", ["zh:2", "h1:1", "zh:2"]),
        "a.example/a/b": LockedProvider("a.example/a/b", "2.0.0", ">= 1.0.0", []),
    }
    assert write_lock(tmp_path, entries) is True
    text = (tmp_path / LOCK_FILE).read_text()
    assert text.index("a.example") < text.index("z.example")
    assert '    "h1:1",\n    "zh:2",\n  ]' in text
    assert write_lock(tmp_path, entries) is False  # unchanged: not rewritten
    assert read_lock(tmp_path) == {k: LockedProvider(v.address, v.version, v.constraints, sorted(set(v.hashes)))
                                   for k, v in entries.items()}


def test_short_addresses_are_normalised_and_absent_file_is_empty(tmp_path: Path) -> None:
    assert read_lock(tmp_path) == {}
    src = b'provider "hashicorp/null" {\n  version = "3.1.0"\n}\n'
    assert list(parse_lock(src, LOCK_FILE)) == ["registry.terraform.io/hashicorp/null"]


@pytest.mark.parametrize(("src", "message", "line"), [
    ('provider "hashicorp/null" {\n  version = "1.0.0"\n  pinned = true\n}\n', 'Unsupported argument "pinned"', 3),
    ('provider "hashicorp/null" {\n  hashes = []\n}\n', "has no version", 1),
    ('module "x" {\n}\n', 'Unsupported block "module"', 1),
    ('provider "a/b" {\n  version = "1.0.0"\n}\nprovider "a/b" {\n  version = "1.0.0"\n}\n', "names provider", 4),
    ('provider "a/b" {\n  version = "1.0.0"\n  hashes = [1]\n}\n', "hashes must be a list of strings", 3),
])
def test_a_damaged_lock_file_is_an_error_at_its_line(src: str, message: str, line: int) -> None:
    with pytest.raises(CtlError) as err:
        parse_lock(src.encode(), LOCK_FILE)
    assert message in err.value.summary
    assert err.value.range is not None and err.value.range.start.line == line
