"""What a provider says is shown safely: sensitive argument values cut out of warnings as of errors,
and terminal escape sequences shown as text, never written raw.

The misbehaving provider warns quoting its sensitive ``secret`` argument and puts escape sequences (a
window title, a screen clear, colours) in its summaries and details. Terraform 1.0.3 does not show the
secret either.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin.misbehave import make_pair

SECRETS = ("hunter2-from-a-variable", "literal-schema-secret")
WARNING_CONFIG = f"""
variable "pw" {{
  type      = string
  sensitive = true
  default   = "{SECRETS[0]}"
}}

resource "misbehave_thing" "from_variable" {{
  name   = "v"
  trick  = "warn_secret"
  secret = var.pw
}}

resource "misbehave_thing" "schema_sensitive" {{
  name   = "s"
  trick  = "warn_secret"
  secret = "{SECRETS[1]}"
}}
"""

ERROR_CONFIG = """
resource "misbehave_thing" "e" {
  name  = "e"
  trick = "error_escape"
}
"""


@pytest.mark.parametrize("command", [("plan",), ("apply", "--auto-approve")])
def test_warnings_hide_sensitive_arguments_and_escape_control_characters(
        tmp_path: Path, misbehave_plugins: Path, command: tuple[str, ...]) -> None:
    pair = make_pair(tmp_path, misbehave_plugins, WARNING_CONFIG)
    terraform = pair.terraform.plan(expect=2)
    ours = pair.ctl.ctl(*command)
    assert ours.code == 0, ours
    for secret in SECRETS:
        assert secret not in terraform.output
        assert secret not in ours.stdout and secret not in ours.stderr.replace(f'"{SECRETS[1]}"', ""), ours
    assert "\x1b" not in ours.output and "\x07" not in ours.output
    lines = (pair.ctl.root / "main.tf").read_text().splitlines()
    first, second = (i + 1 for i, line in enumerate(lines) if line.strip().startswith("secret ="))
    warnings = [line for line in ours.stderr.splitlines() if line.startswith("Warning:")]
    assert sorted(set(warnings)) == [f"Warning: main.tf:{first}:12: Weak secret\\x1b]0;pwned\\x07",
                                f"Warning: main.tf:{second}:12: Weak secret\\x1b]0;pwned\\x07"], ours
    assert "The secret (sensitive value) is weak.\\x1b[2J\\x1b[31mred\\x1b[0m" in ours.stderr
    assert (f'with misbehave_thing.from_variable, on main.tf line {first}, in resource "misbehave_thing"'
            in ours.stderr)


def test_errors_escape_control_characters(tmp_path: Path, misbehave_plugins: Path) -> None:
    pair = make_pair(tmp_path, misbehave_plugins, ERROR_CONFIG, terraform=False)
    ours = pair.ctl.ctl("plan")
    assert ours.code == 1, ours
    assert "\x1b" not in ours.output and "\x07" not in ours.output
    assert "Refused\\x1b]0;pwned\\x07" in ours.stderr, ours
    assert "This name is refused.\\x1b[2J" in ours.stderr


def test_validate_shows_provider_text_as_plan_does(tmp_path: Path, misbehave_plugins: Path) -> None:
    """``ctl validate`` asks the provider too (ValidateResourceConfig): its warnings and errors are cut and
    escaped there as in a plan, in the text a terminal shows and in ``-json``."""
    pair = make_pair(tmp_path, misbehave_plugins, WARNING_CONFIG + ERROR_CONFIG, terraform=False)
    shown = pair.ctl.ctl("validate")
    assert shown.code == 1, shown
    assert "\x1b" not in shown.output and "\x07" not in shown.output, shown
    assert SECRETS[1] not in shown.output.replace(f'"{SECRETS[1]}"', ""), shown  # only in the quoted source line
    assert "Weak secret\\x1b]0;pwned\\x07" in shown.stderr and "Refused\\x1b]0;pwned\\x07" in shown.stderr, shown
    assert "The secret (sensitive value) is weak.\\x1b[2J\\x1b[31mred\\x1b[0m" in shown.stderr, shown
    doc = json.loads(pair.ctl.ctl("validate", "-json").stdout)
    texts = [d["summary"] + d.get("detail", "") for d in doc["diagnostics"]]
    assert any("The secret (sensitive value) is weak." in t for t in texts), texts
    assert not any(SECRETS[1] in t or "\x1b" in t for t in texts), texts
