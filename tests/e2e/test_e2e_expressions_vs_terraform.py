"""The expression language agrees with both references', value by value and type by type.

The corpus in ``tests/fixtures/expressions/`` is a set of configurations made of outputs only, one
file per topic (numbers, strings, unicode, collections, expressions, conversion, encoding, files,
modules, language, types, sensitive).
Each file is applied by Terraform 1.0.3 (the test extra), by OpenTofu 1.12.6 (the newest language,
unpacked from ``../shared/peers``) and by ``ctl``; every output's value from each reference's
``output -json`` must equal ctl's ``output -json``, and so must the primitive type of each of its
elements (see ``_leaf_types``); for ``types.tf`` (equality across collection kinds, conditional
results and collection elements unified) the whole type must be the reference's, list against tuple
and map against object. ``errors.tf`` holds outputs the references refuse: each is applied on its
own and ctl must refuse it too, with a position and no traceback.

An output preceded by ``# differs: REASON`` is a known disagreement: its test is expected to fail
(strictly, so fixing the cause turns the marker into a failure to remove). An output preceded by
``# newer: REASON`` is one where the language changed after Terraform 1.0.3 and ctl follows the newest
(docs/language-versions.md lists them): Terraform 1.0.3 does not see it (it refuses it or gives
another value), and ctl must give OpenTofu's value. In ``errors.tf`` the marker means Terraform
1.0.3 accepts what the newest language refuses. An output preceded by ``# older: REASON`` is one where
ctl still gives Terraform 1.0.3's value and OpenTofu's differs (a gap to close, also listed there):
ctl must equal Terraform 1.0.3 and differ from OpenTofu, so closing the gap fails the test until the
marker becomes ``newer``. Under CI=true a missing reference is a failure.
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
from tests.plugin.terraform_cli import OpenTofuDir, TerraformDir, opentofu_executable

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "expressions"
_OUTPUT = re.compile(r'^output "([A-Za-z0-9_-]+)"', re.MULTILINE)
_MARKER = re.compile(r"^# (differs|newer|older): (.+)$")
_RUN_TIMEOUT = 120.0
# HashiCorp's real providers: the references install ``local`` from here for language.tf's resource;
# ctl serves it with its native adapter.
MIRROR = Path(__file__).resolve().parents[2].parent / "shared" / "providers"
EXACT_TYPES = frozenset({"types"})  # topics whose outputs' types must equal the references' exactly


@dataclass(frozen=True)
class Case:
    topic: str
    name: str
    marker: str | None  # "differs", "newer" or "older"
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
    """A configuration directory holding ``main_tf`` and the corpus's data files and modules, and
    beside it the files the cases read outside the configuration directory (``../outside.txt``)."""
    base.mkdir(parents=True)
    shutil.copytree(CORPUS / "data", base / "data")
    shutil.copytree(CORPUS / "modules", base / "modules")
    (base / "main.tf").write_text(main_tf)
    (base.parent / "outside.txt").write_text("read from outside\n")
    (base.parent / "outside.tftpl").write_text("hello ${name} from outside")
    return base


def _needs_init(source: str) -> bool:
    """Local modules or providers: ``init`` installs them from the corpus and the mirror, not a network."""
    return "module " in source or "required_providers" in source


class Outputs:
    """The three tools' ``output -json`` for each topic, computed once per test module."""

    def __init__(self, root: Path, tofu: Path) -> None:
        self.root = root
        self.tofu = tofu
        self._seen: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {}
        self._failed: set[str] = set()

    def of(self, topic: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """Terraform 1.0.3's outputs, OpenTofu's and ctl's, each tool applying the whole topic file once.

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
            theirs = _reference_outputs(TerraformDir(_workdir(self.root / topic / "terraform", source), MIRROR))
            newest = _reference_outputs(OpenTofuDir(_workdir(self.root / topic / "opentofu", path.read_text()),
                                                    MIRROR, self.tofu))
            self._failed.discard(topic)
            ours = self._ctl_outputs(self.root / topic / "ctl", path.read_text())
            if isinstance(ours, str):
                ours = {}
                for case in _cases(path):
                    alone = _preamble(path) + "\n" + case.block + "\n"
                    one = self._ctl_outputs(self.root / topic / f"ctl-{case.name}", alone)
                    ours[case.name] = one.get(case.name) if isinstance(one, dict) else {"error": one}
            self._seen[topic] = (theirs, newest, ours)
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


def _reference_outputs(tool: TerraformDir) -> dict[str, Any]:
    """A reference's ``output -json`` after applying the configuration in its directory."""
    if _needs_init(next(tool.workdir.glob("*.tf")).read_text()):
        tool.init()
    tool.apply()
    shown = tool.run("output", "-json").stdout
    return json.loads(shown[shown.find("{"):])  # type: ignore[no-any-return]


def _preamble(path: Path) -> str:
    """A corpus file without its outputs: the locals the outputs read."""
    text = path.read_text()
    for case in _cases(path):
        text = text.replace(case.block, "")
    return text


@pytest.fixture(scope="module")
def tofu(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return opentofu_executable(tmp_path_factory.mktemp("opentofu"))


@pytest.fixture(scope="module")
def outputs(tofu: Path) -> Any:
    root = Path(tempfile.mkdtemp(prefix="ctl-expr-"))
    yield Outputs(root, tofu)
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("case", [_param(c) for c in VALUE_CASES])
def test_value_and_type_equal_the_references(outputs: Outputs, case: Case) -> None:
    theirs, newest, ours = outputs.of(case.topic)
    actual = ours.get(case.name) or {"value": None, "type": "dynamic"}
    assert "error" not in actual, actual.get("error")
    exact = case.topic in EXACT_TYPES
    if case.marker == "older":
        with pytest.raises(AssertionError):
            _same(actual, newest.get(case.name), "OpenTofu 1.12.6", exact=exact)
    else:
        _same(actual, newest.get(case.name), "OpenTofu 1.12.6", exact=exact)
    if case.marker != "newer":
        _same(actual, theirs.get(case.name), "Terraform 1.0.3", exact=exact)


def _same(actual: dict[str, Any], expected: dict[str, Any] | None, reference: str, *, exact: bool) -> None:
    if expected is None:  # the references leave null outputs out of their state and `output -json`
        assert actual["value"] is None, f"{reference} has no value here"
        return
    assert actual["value"] == expected["value"], reference
    if exact:
        assert actual["type"] == expected["type"], reference
    assert _leaf_types(actual["type"], actual["value"]) == _leaf_types(expected["type"], expected["value"]), reference


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
def test_what_the_references_refuse_ctl_refuses(tofu: Path, tmp_path: Path, case: Case) -> None:
    newest = OpenTofuDir(_workdir(tmp_path / "opentofu", case.block + "\n"), MIRROR, tofu)
    assert newest.apply(expect=None).returncode == 1, "OpenTofu accepts this: it does not belong in errors.tf"
    tf = TerraformDir(_workdir(tmp_path / "terraform", case.block + "\n"), MIRROR)
    if case.marker == "newer":
        assert tf.apply(expect=None).returncode == 0, "Terraform 1.0.3 refuses this too: drop its newer marker"
    else:
        assert tf.apply(expect=None).returncode == 1, "Terraform accepts this: it does not belong in errors.tf"
    ours = _ctl(_workdir(tmp_path / "ctl", case.block + "\n"), "apply", "-auto-approve")
    assert ours.returncode == 1, ours.stdout + ours.stderr
    assert "Traceback" not in ours.stderr
    assert "main.tf:1:" in ours.stderr, ours.stderr
