"""Configurations past ctl's size limits (vocab/limits.py) end in one clear error naming the limit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.helpers import Project
from vocab.limits import MAX_NESTING

DEEP = 3000
NESTED = {
    "parentheses": "(" * DEEP + "1" + ")" * DEEP,
    "lists": "[" * DEEP + "]" * DEEP,
    "objects": "{a = " * DEEP + "1" + "}" * DEEP,
    "calls": "abs(" * DEEP + "1" + ")" * DEEP,
    "conditionals": "true ? " * DEEP + "1" + " : 2" * DEEP,
    "for expressions": "[for x in " * 1000 + "[1]" + " : x]" * 1000,
    "operator chain": "+".join(["1"] * 100_000),
    "unary operators": "-" * DEEP + "1",
}


@pytest.mark.parametrize("expression", list(NESTED.values()), ids=list(NESTED))
def test_too_deep_an_expression_names_the_limit_and_where(tmp_path: Path, expression: str) -> None:
    project = Project(tmp_path)
    project.write(f'locals {{\n  a = {expression}\n}}\noutput "a" {{\n  value = local.a\n}}\n')
    res = project.ctl("plan")
    assert res.code == 1, res
    assert "Traceback" not in res.output and "internal error" not in res.output
    assert "Error: main.tf:2:" in res.stderr
    assert f"at most {MAX_NESTING} levels deep (MAX_NESTING)" in res.stderr


@pytest.mark.parametrize(("name", "text"), [
    ("main.tf.json", '{"locals": {"a": ' + "[" * 500 + "]" * 500 + "}}"),
    ("main.tf.yaml", "locals:\n  a: " + "[" * 500 + "]" * 500 + "\n"),
])
def test_too_deep_a_json_or_yaml_value_names_the_limit(tmp_path: Path, name: str, text: str) -> None:
    project = Project(tmp_path)
    project.path(name).write_text(text)
    res = project.ctl("validate")
    assert res.code == 1, res
    assert "Traceback" not in res.output and "internal error" not in res.output
    assert f"Error: {name}:" in res.stderr and "(MAX_NESTING)" in res.stderr


def test_nesting_just_under_the_limit_applies(tmp_path: Path) -> None:
    project = Project(tmp_path)
    depth = MAX_NESTING - 10
    project.write(f'locals {{\n  a = {"[" * depth + "]" * depth}\n  n = {"+".join(["1"] * depth)}\n'
                  f'  p = {"(" * depth + "2" + ")" * depth}\n}}\n'
                  'resource "terraform_data" "x" {\n  input = [local.a, local.n, local.p]\n}\n'
                  'output "n" {\n  value = local.n + local.p\n}\n')
    project.apply()
    assert project.state()["outputs"]["n"]["value"] == depth + 2
    assert "No changes" in project.ok("plan").stdout


def test_a_huge_count_is_refused_at_once_and_the_limit_can_be_raised(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('resource "terraform_data" "x" {\n  count = 1000000000\n}\n')
    res = project.ctl("validate", timeout=30)
    assert res.code == 1, res
    assert "Error: main.tf:2:11: Too many instances for count" in res.stderr
    assert "at most 100,000" in res.stderr and "CTL_MAX_INSTANCES=1000000000" in res.stderr
    project.write('resource "terraform_data" "x" {\n  for_each = toset(["a", "b", "c"])\n}\n')
    low = project.ctl("plan", env={"CTL_MAX_INSTANCES": "2"})
    assert low.code == 1 and "Too many instances for for_each" in low.stderr, low
    assert "Plan: 3 to add" in project.ok("plan", env={"CTL_MAX_INSTANCES": "3"}).stdout


@pytest.mark.parametrize("expression", [
    'format("%999999999d", 1)',
    'format("%.999999999f", 1)',
    'indent(999999999, "a\\nb")',
    'join(",", [format("%6000000s", "a"), format("%6000000s", "b")])',
])
def test_a_huge_string_is_refused_naming_the_limit(tmp_path: Path, expression: str) -> None:
    project = Project(tmp_path)
    project.write(f'output "o" {{\n  value = {expression}\n}}\n')
    res = project.ctl("plan", timeout=30)
    assert res.code == 1, res
    assert "Error: main.tf:2:" in res.stderr and "(MAX_STRING_LENGTH)" in res.stderr


def test_a_set_product_blow_up_is_refused_naming_the_limit(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('locals {\n  r = range(1000)\n}\noutput "n" {\n'
                  '  value = length(setproduct(local.r, local.r, local.r))\n}\n')
    res = project.ctl("plan")
    assert res.code == 1, res
    assert "Error: main.tf:5:" in res.stderr
    assert "1,000,000,000 elements" in res.stderr and "(MAX_COLLECTION_LENGTH)" in res.stderr


def test_a_fifo_is_refused_instead_of_blocking(tmp_path: Path) -> None:
    project = Project(tmp_path)
    os.mkfifo(project.path("pipe"))
    project.write('output "x" {\n  value = file("${path.module}/pipe")\n}\n')
    res = project.ctl("plan")
    assert res.code == 1, res
    assert "Error: main.tf:2:" in res.stderr and "not a regular file" in res.stderr


def test_a_large_hcl_file_is_read_and_a_ceiling_is_only_an_opt_in_guard(tmp_path: Path) -> None:
    """A 5 MiB string literal, over the 4 MiB that used to be refused, is read; the grammar never
    reads its inside, so it costs a few bytes of memory per byte. CTL_MAX_HCL_FILE_MB still sets a
    ceiling for untrusted input, refused at once with a short message."""
    project = Project(tmp_path)
    (tmp_path / "main.tf").write_text('output "o" {\n  value = length("' + "a" * (5 * 1024 * 1024) + '")\n}\n')
    res = project.ctl("validate", timeout=120)
    assert res.code == 0, res.stderr[:500]
    limited = project.ctl("validate", env={"CTL_MAX_HCL_FILE_MB": "4"}, timeout=60)
    assert limited.code == 1, limited.stderr[:500]
    assert "Error: main.tf:1:1: File too large: 5.0 MiB, over the 4 MiB limit CTL_MAX_HCL_FILE_MB sets" in limited.stderr
    assert max(len(line) for line in limited.stderr.splitlines()) < 300  # the source line is shown cut short
