"""``ctl validate``: exit codes, the ``--json`` shape, ``--chdir``, usage errors, the error fixtures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.main import run

MakeConfig = Callable[[dict[str, str]], Path]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ERRORS = FIXTURES / "errors"
CTL = Path(sys.executable).parent / "ctl"

VALID = {"main.tf": 'variable "n" {\n  default = 2\n}\nresource "random_id" "a" {\n  byte_length = var.n\n}\n'}
INVALID = {
    "main.tf": 'resource "random_id" "a" {\n  byte_length = var.nope\n}\n',
    "other.tf": 'output "o" {\n  value = uper("x")\n}\n',
}


def validate_json(capsys: pytest.CaptureFixture[str], *args: str, after: tuple[str, ...] = ()) -> tuple[int, dict]:
    code = run([*args, "validate", "--json", *after])
    out = capsys.readouterr().out
    return code, json.loads(out)


# ---- the error fixtures -----------------------------------------------------------------------

KEY_FACTS = {
    "bad_variable_value": ["terraform.tfvars", "number"],
    "cycle": ["local.prefix", "main.tf:3:20"],
    "duplicate": ["main.tf:1,1-36"],
    "failed_validation": ["The environment must be one of dev, staging or prod."],
    "schema_violation": ["random_integer.port", 'Inappropriate value for attribute "min": a number is required.'],
    "syntax": ["not valid HCL"],
    "unknown_function": ['"uper"'],
    "unknown_reference": ['"nope"', 'a variable "nope" {} block'],
    "wrong_arg_type": ['Invalid value for "str" parameter', "string required, but have tuple"],
}


@pytest.mark.parametrize("case", sorted(p.name for p in ERRORS.iterdir() if p.is_dir()))
def test_error_fixture_reports_its_error_first(
    case: str, capsys: pytest.CaptureFixture[str], fixture_copy: Callable[[str], Path]
) -> None:
    code, doc = validate_json(capsys, "-C", str(fixture_copy(f"errors/{case}")))
    assert code == 1
    assert doc["valid"] is False
    first = doc["diagnostics"][0]
    start = first["range"]["start"]
    got = f'{first["range"]["filename"]}:{start["line"]}:{start["column"]}: {first["summary"]}'
    assert got == (ERRORS / case / "expected.txt").read_text().strip()
    for fact in KEY_FACTS[case]:
        assert fact in first["summary"] + first["detail"], fact


def test_every_error_fixture_has_its_key_fact() -> None:
    assert sorted(KEY_FACTS) == sorted(p.name for p in ERRORS.iterdir() if p.is_dir())


def test_syntax_error_carries_the_offending_line(
    capsys: pytest.CaptureFixture[str], fixture_copy: Callable[[str], Path]
) -> None:
    _, doc = validate_json(capsys, "-C", str(fixture_copy("errors/syntax")))
    assert doc["diagnostics"][0]["snippet"]["code"] == "  input = var.release )"


# ---- exit codes and output ----------------------------------------------------------------------


def test_a_valid_configuration_exits_0(make_config: MakeConfig, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_config(VALID)
    assert run(["-C", str(root), "validate"]) == 0
    captured = capsys.readouterr()
    assert "Success! The configuration is valid." in captured.out
    assert captured.err == ""


def test_an_invalid_configuration_exits_1_and_shows_every_problem(
    make_config: MakeConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_config(INVALID)
    assert run(["-C", str(root), "validate"]) == 1
    captured = capsys.readouterr()
    assert "Success" not in captured.out
    err = captured.err
    assert 'Error: main.tf:2:17: Reference to undeclared input variable' in err
    assert "Error: other.tf:2:11: Call to unknown function" in err
    assert err.index("main.tf:2:17") < err.index("other.tf:2:11")
    lines = err.split("\n")
    src = lines.index("     2 |   byte_length = var.nope")  # the source line …
    assert lines[src + 1].index("^") == lines[src].index("var.nope")  # … and a caret under the column
    assert "Traceback" not in captured.out + err


def test_json_shape(make_config: MakeConfig, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_config(INVALID)
    code, doc = validate_json(capsys, "-C", str(root))
    assert code == 1
    assert list(doc) == ["format_version", "valid", "error_count", "warning_count", "diagnostics"]
    assert (doc["format_version"], doc["valid"], doc["error_count"], doc["warning_count"]) == ("1.0", False, 2, 0)
    first = doc["diagnostics"][0]
    assert first["severity"] == "error"
    assert first["summary"] == 'Reference to undeclared input variable'
    assert "has not been declared" in first["detail"]
    assert first["range"]["filename"] == "main.tf"
    assert first["range"]["start"] == {"line": 2, "column": 17, "byte": 43}
    assert first["range"]["end"] == {"line": 2, "column": 25, "byte": 51}
    assert [d["range"]["filename"] for d in doc["diagnostics"]] == ["main.tf", "other.tf"]


def test_json_of_a_valid_configuration_with_a_warning(
    make_config: MakeConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    failing_check = 'check "c" {\n  assert {\n    condition     = 1 == 2\n    error_message = "no"\n  }\n}\n'
    root = make_config({**VALID, "checks.tf": failing_check})
    code, doc = validate_json(capsys, "-C", str(root))
    assert code == 0
    assert (doc["valid"], doc["error_count"], doc["warning_count"]) == (True, 0, 1)
    assert doc["diagnostics"][0]["severity"] == "warning"


def test_json_of_a_clean_configuration(make_config: MakeConfig, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = validate_json(capsys, "-C", str(make_config(VALID)))
    assert (code, doc) == (0, {"format_version": "1.0", "valid": True, "error_count": 0, "warning_count": 0,
                               "diagnostics": []})


def test_chdir_long_form_and_relative_path(
    make_config: MakeConfig, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_config(INVALID)
    monkeypatch.chdir(root.parent)
    code, doc = validate_json(capsys, "--chdir", root.name)
    assert (code, doc["error_count"]) == (1, 2)
    # file names are relative to the configuration directory, not to where ctl was started
    assert doc["diagnostics"][0]["range"]["filename"] == "main.tf"


def test_default_directory_is_the_current_one(
    make_config: MakeConfig, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(make_config(VALID))
    assert run(["validate"]) == 0
    assert "Success!" in capsys.readouterr().out


def test_a_missing_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["-C", str(tmp_path / "nope"), "validate"]) == 1
    captured = capsys.readouterr()
    assert "does not exist" in captured.err
    assert "Traceback" not in captured.err


def test_json_is_printed_even_when_nothing_can_be_loaded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = validate_json(capsys, "-C", str(tmp_path / "nope"))
    assert (code, doc["valid"], doc["error_count"]) == (1, False, 1)
    assert "does not exist" in doc["diagnostics"][0]["summary"]


def test_variables_from_the_command_line(make_config: MakeConfig, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_config({
        "main.tf": 'variable "n" {\n  type = number\n}\nresource "random_id" "a" {\n  byte_length = var.n\n}\n',
        "bad.tfvars": 'n = "many"\n',
    })
    assert run(["-C", str(root), "validate", "--var", "n=4"]) == 0
    capsys.readouterr()
    code, doc = validate_json(capsys, "-C", str(root), after=("--var-file", "bad.tfvars"))
    assert code == 1
    assert doc["diagnostics"][0]["summary"] == 'Invalid value for input variable "n"'
    # --var given after --var-file wins
    assert run(["-C", str(root), "validate", "--var-file", "bad.tfvars", "--var", "n=4"]) == 0


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--bogus"],
        ["validte"],
        ["--chdir"],
        ["graph", "--format", "png"],
    ],
)
def test_usage_errors_exit_64_without_traceback(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(args) == 64
    captured = capsys.readouterr()
    assert "Usage error" in captured.err
    assert "Traceback" not in captured.out + captured.err


# ---- the installed executable ---------------------------------------------------------------------


def test_the_ctl_executable_validates(make_config: MakeConfig, fixture_copy: Callable[[str], Path]) -> None:
    root = make_config(INVALID)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_VAR_", "CTL_VAR_"))}
    proc = subprocess.run([str(CTL), "-C", str(root), "validate", "--json"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["valid"], doc["error_count"]) == (False, 2)
    assert "Traceback" not in proc.stderr
    ok = subprocess.run([str(CTL), "--chdir", str(fixture_copy("equivalent/yaml")), "validate"],
                        capture_output=True, text=True, env=env, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert "Success! The configuration is valid." in ok.stdout


def test_positions_are_never_turned_into_emoji(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``main.tf:100:11`` must print as written: ``:100:`` is also an emoji code."""
    lines = ["locals {"] + [f"  l{i} = {i}" for i in range(98)] + ["  x = var.nope", "}"]
    (tmp_path / "main.tf").write_text("\n".join(lines) + "\n")
    assert run(["-C", str(tmp_path), "validate"]) == 1
    err = capsys.readouterr().err
    assert "main.tf:100:" in err
