"""The expression language agrees with Terraform's, value by value and type by type.

The corpus in ``tests/fixtures/expressions/`` is a set of configurations made of outputs only, one
file per topic (numbers, strings, unicode, collections, expressions, conversion, encoding, files,
modules, types).
Each file is applied by Terraform 1.0.3 (the test extra) and by ``ctl``; every output's value from
``terraform output -json`` must equal ctl's ``output -json``, and so must the primitive type of each
of its elements (see ``_leaf_types``); for ``types.tf`` (equality across collection kinds,
conditional results and collection elements unified) the whole type must be Terraform's, list
against tuple and map against object. ``errors.tf`` holds outputs
Terraform refuses: each is applied on its own and ctl must refuse it too, with a position and no
traceback.

An output preceded by ``# differs: REASON`` is a known disagreement: its test is expected to fail
(strictly, so fixing the cause turns the marker into a failure to remove). An output preceded by
``# newer: REASON`` is one where ctl follows a later Terraform on purpose: Terraform 1.0.3 does not
see it, and ctl must evaluate it without an error.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import CTL, clean_env
from tests.plugin.terraform_cli import TerraformDir

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "expressions"
_OUTPUT = re.compile(r'^output "([A-Za-z0-9_-]+)"', re.MULTILINE)
_MARKER = re.compile(r"^# (differs|newer): (.+)$")
_RUN_TIMEOUT = 120.0
NO_PLUGINS = Path("/nonexistent")  # outputs need no provider, and `terraform init` is never run
EXACT_TYPES = frozenset({"types"})  # topics whose outputs' types must equal Terraform's exactly


@dataclass(frozen=True)
class Case:
    topic: str
    name: str
    marker: str | None  # "differs" or "newer"
    reason: str
    block: str  # the output block's source, for the error cases run one by one


def _cases(path: Path) -> list[Case]:
    """Every output of one corpus file, with the marker comment just above it, if any."""
    lines = path.read_text().splitlines()
    cases = []
    for i, line in enumerate(lines):
        found = _OUTPUT.match(line)
        if not found:
            continue
        marker = _MARKER.match(lines[i - 1]) if i else None
        end = i + 1
        if not line.rstrip().endswith("}"):  # a multi-line block ends at the first "}" in column 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            end += 1
        cases.append(Case(path.stem, found.group(1), marker.group(1) if marker else None,
                          marker.group(2) if marker else "", "\n".join(lines[i:end])))
    return cases


TOPICS = sorted(p for p in CORPUS.glob("*.tf") if p.stem != "errors")
VALUE_CASES = [c for p in TOPICS for c in _cases(p)]
ERROR_CASES = _cases(CORPUS / "errors.tf")


def _param(case: Case) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=case.reason)] if case.marker == "differs" else []
    return pytest.param(case, id=f"{case.topic}.{case.name}", marks=marks)


def _ctl(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CTL, *args], cwd=workdir, env=clean_env(), capture_output=True, text=True,
                          timeout=_RUN_TIMEOUT, stdin=subprocess.DEVNULL, check=False)


def _workdir(base: Path, main_tf: str) -> Path:
    """A configuration directory holding ``main_tf`` and the corpus's data files and modules."""
    base.mkdir(parents=True)
    shutil.copytree(CORPUS / "data", base / "data")
    shutil.copytree(CORPUS / "modules", base / "modules")
    (base / "main.tf").write_text(main_tf)
    return base


class Outputs:
    """Both tools' ``output -json`` for each topic, computed once per test session."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seen: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        self._failed: set[str] = set()

    def of(self, topic: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Terraform's outputs and ctl's, each tool applying the whole topic file once.

        When ctl refuses the file, each output is applied on its own so that one disagreement
        costs one test, and the refused ones are reported with ctl's message.
        """
        if topic not in self._seen:
            if topic in self._failed:
                pytest.fail(f"Terraform could not apply the {topic} corpus (see its first test)", pytrace=False)
            self._failed.add(topic)
            path = CORPUS / f"{topic}.tf"
            source = path.read_text()
            for case in _cases(path):
                if case.marker == "newer":  # Terraform 1.0.3 refuses what a later version accepts
                    source = source.replace(case.block, "")
            tf = TerraformDir(_workdir(self.root / topic / "terraform", source), NO_PLUGINS)
            if "module " in source:
                tf.run("init", "-input=false", "-no-color")  # local modules only: nothing to download
            tf.apply()
            theirs = json.loads(tf.run("output", "-json").stdout)
            self._failed.discard(topic)
            ours = self._ctl_outputs(self.root / topic / "ctl", path.read_text())
            if isinstance(ours, str):
                ours = {}
                for case in _cases(path):
                    alone = _preamble(path) + "\n" + case.block + "\n"
                    one = self._ctl_outputs(self.root / topic / f"ctl-{case.name}", alone)
                    ours[case.name] = one.get(case.name) if isinstance(one, dict) else {"error": one}
            self._seen[topic] = (theirs, ours)
        return self._seen[topic]

    @staticmethod
    def _ctl_outputs(workdir: Path, source: str) -> dict[str, Any] | str:
        """ctl's ``output -json`` after applying ``source``, or its message when it refuses."""
        applied = _ctl(_workdir(workdir, source), "apply", "-auto-approve")
        if applied.returncode != 0:
            return applied.stderr or applied.stdout
        shown = _ctl(workdir, "output", "-json")
        assert shown.returncode == 0, shown.stdout + shown.stderr
        return json.loads(shown.stdout)


def _preamble(path: Path) -> str:
    """A corpus file without its outputs: the locals the outputs read."""
    text = path.read_text()
    for case in _cases(path):
        text = text.replace(case.block, "")
    return text


@pytest.fixture(scope="module")
def outputs() -> Any:
    root = Path(tempfile.mkdtemp(prefix="ctl-expr-"))
    yield Outputs(root)
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("case", [_param(c) for c in VALUE_CASES])
def test_value_and_type_equal_terraforms(outputs: Outputs, case: Case) -> None:
    theirs, ours = outputs.of(case.topic)
    actual = ours.get(case.name) or {"value": None, "type": "dynamic"}
    assert "error" not in actual, actual.get("error")
    if case.marker == "newer":
        return
    if case.name not in theirs:  # Terraform leaves null outputs out of its state and `output -json`
        assert actual["value"] is None
        return
    expected = theirs[case.name]
    assert actual["value"] == expected["value"]
    if case.topic in EXACT_TYPES:
        assert actual["type"] == expected["type"]
    assert _leaf_types(actual["type"], actual["value"]) == _leaf_types(expected["type"], expected["value"])


def _leaf_types(type_: Any, value: Any) -> Any:
    """The primitive type of every leaf of ``value``, laid out as the value is.

    ctl reports a collection's structural type (``tuple``, ``object``) where Terraform may know a
    ``list``, ``set`` or ``map``; what must agree is the type of each element: ``"1"`` against ``1``.
    """
    if isinstance(type_, str) or value is None:
        return type_ if isinstance(type_, str) else "null"
    kind, inner = type_
    if kind == "tuple":
        return [_leaf_types(t, v) for t, v in zip(inner, value, strict=True)]
    if kind == "object":
        return {k: _leaf_types(inner[k], v) for k, v in value.items()}
    if kind == "map":
        return {k: _leaf_types(inner, v) for k, v in value.items()}
    return [_leaf_types(inner, v) for v in value]  # list, set


@pytest.mark.parametrize("case", [_param(c) for c in ERROR_CASES])
def test_what_terraform_refuses_ctl_refuses(tmp_path: Path, case: Case) -> None:
    tf = TerraformDir(_workdir(tmp_path / "terraform", case.block + "\n"), NO_PLUGINS)
    assert tf.apply(expect=None).returncode == 1, "Terraform accepts this: it does not belong in errors.tf"
    ours = _ctl(_workdir(tmp_path / "ctl", case.block + "\n"), "apply", "-auto-approve")
    assert ours.returncode == 1, ours.stdout + ours.stderr
    assert "Traceback" not in ours.stderr
    assert "main.tf:1:" in ours.stderr, ours.stderr
