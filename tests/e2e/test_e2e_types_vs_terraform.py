"""Equality, conditionals and ``tolist`` over generated pairs of values agree with Terraform's.

The corpus in ``tests/fixtures/expressions/types.tf`` holds the cases written by hand; this one
draws pairs from a pool of literals and typed collections (tuples and lists, objects and maps, sets,
function results) with a fixed seed and writes, for each pair ``a``, ``b``, one of ``a == b``,
``true ? a : b``, ``false ? a : b`` or ``tolist([a, b])``, each inside ``try(…, "ERR")`` so that a
pair Terraform refuses (results of no common type) is one output among the others. Terraform 1.0.3
and ctl apply the same file; every output's value and whole type must be equal.

``null``, ``tolist([])`` and ``tomap({})`` are in the pool: values of no known type (``dynamic``),
which unify with collections by rules of their own (``tolist([null, [1]])`` is refused,
``tomap({a = null, b = {c = 1}})`` is not, ``true ? tolist([]) : [{b = 2}]`` is a ``list(dynamic)``).
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import CTL, clean_env
from tests.plugin.terraform_cli import TerraformDir

SEED = 41
CASES = 300
NO_PLUGINS = Path("/nonexistent")  # outputs need no provider
POOL = (
    "1", '"a"', '"1"', "true", "null", "[]", "{}", "tolist([])", "tomap({})", "[1]", '["a"]', '[1, "a"]', "[1, 2]", "[true]",
    "{ a = 1 }", '{ a = "x" }', "{ b = 1 }", '{ a = 1, b = "x" }', "{ a = [1] }", '{ a = ["x", "y"] }',
    "tolist([1])", 'tolist(["a"])', "toset([1])", 'toset(["a"])', "tomap({ a = 1 })",
    'tomap({ a = "x" })', '[[1], ["a"]]', "[{ a = 1 }]", "[{ b = 2 }]", "tolist([[1]])",
    "{ a = { b = 1 } }", '{ a = { c = "x" } }', "[tolist([1]), [2]]", 'split(",", "a,b")', "range(2)",
    "keys({ a = 1 })", "values(tomap({ a = 1 }))", 'concat([1], ["a"])',
)
FORMS = ("{a} == {b}", "true ? {a} : {b}", "false ? {a} : {b}", "tolist([{a}, {b}])")


def _expressions() -> dict[str, str]:
    rnd = random.Random(SEED)
    out = {}
    for i in range(CASES):
        a, b, form = rnd.choice(POOL), rnd.choice(POOL), rnd.choice(FORMS)
        out[f"c{i:03d}"] = form.format(a=a, b=b)
    return out


EXPRESSIONS = _expressions()


def _source() -> str:
    return "".join(f'output "{name}" {{ value = try({expr}, "ERR") }}\n' for name, expr in EXPRESSIONS.items())


def _ctl(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CTL, *args], cwd=workdir, env=clean_env(), capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, check=False)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    """Terraform's ``output -json`` and ctl's, each applying the generated file once."""
    root = tmp_path_factory.mktemp("types")
    theirs_dir, ours_dir = root / "terraform", root / "ctl"
    for d in (theirs_dir, ours_dir):
        d.mkdir()
        (d / "main.tf").write_text(_source())
    tf = TerraformDir(theirs_dir, NO_PLUGINS)
    tf.apply()
    theirs = json.loads(tf.run("output", "-json").stdout)
    applied = _ctl(ours_dir, "apply", "-auto-approve")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    shown = _ctl(ours_dir, "output", "-json")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    return theirs, json.loads(shown.stdout)


@pytest.mark.parametrize("name", sorted(EXPRESSIONS), ids=lambda n: f"{n}: {EXPRESSIONS[n]}")
def test_value_and_type_equal_terraforms(outputs: tuple[dict[str, Any], dict[str, Any]], name: str) -> None:
    theirs, ours = outputs
    expected, actual = theirs.get(name), ours.get(name)
    if expected is None:  # Terraform leaves null outputs out of its state and `output -json`
        assert actual is None or actual["value"] is None
        return
    assert actual is not None
    assert (actual["value"], actual["type"]) == (expected["value"], expected["type"])


def test_the_pool_reaches_every_outcome(outputs: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """The generated pairs are refused, equal, unequal and unified: the corpus tests each rule."""
    theirs, _ = outputs
    values = [out["value"] for out in theirs.values()]
    assert "ERR" in values and True in values and False in values
    assert any(isinstance(v, list) for v in values) and any(isinstance(v, dict) for v in values)
