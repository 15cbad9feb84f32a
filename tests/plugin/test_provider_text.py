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


PROVIDER_SECRETS = ("literal-provider-token", "owner-from-a-variable")
PROVIDER_CONFIG = f"""
variable "owner" {{
  type      = string
  sensitive = true
  default   = "{PROVIDER_SECRETS[1]}"
}}

provider "misbehave" {{
  token = "{PROVIDER_SECRETS[0]}"
  label = var.owner
  trick = "%s"
}}

resource "misbehave_thing" "a" {{
  name = "a"
}}
"""


@pytest.mark.parametrize(("trick", "code"), [("warn_token", 0), ("refuse_token", 1)])
def test_what_a_provider_says_of_its_configuration_hides_its_secrets(
        tmp_path: Path, misbehave_plugins: Path, trick: str, code: int) -> None:
    """ConfigureProvider's warning or error quoting the provider's sensitive ``token`` and an argument
    a sensitive variable set: both cut out, escapes shown as text; a warning is one of the run's
    warnings (in ``-json`` too), an error ends the run with that one message, never an internal error."""
    pair = make_pair(tmp_path, misbehave_plugins, PROVIDER_CONFIG % trick, terraform=False)
    said = "Weak token\\x1b]0;pwned\\x07: The token (sensitive value) of (sensitive value) is weak.\\x1b[2J"
    for command in (("plan",), ("apply", "--auto-approve")):
        ours = pair.ctl.ctl(*command)
        assert ours.code == code, ours
        assert "internal error" not in ours.output and "Traceback" not in ours.output, ours
        assert not any(secret in ours.output for secret in PROVIDER_SECRETS), ours
        assert "\x1b" not in ours.output and "\x07" not in ours.output, ours
        label = "Warning:" if code == 0 else "Error:"
        # (an apply configures the provider for its plan and again for its changes: said by each)
        assert sorted({line for line in ours.stderr.splitlines() if line.startswith(label)}) == [
            f'{label} provider "misbehave" (registry.terraform.io/ctltest/misbehave v1.0.0): token: {said}'], ours
    streamed = pair.ctl.ctl("plan", "-json")
    assert streamed.code == code, streamed
    diagnostics = [json.loads(line)["diagnostic"] for line in streamed.stdout.splitlines()
                   if '"type":"diagnostic"' in line.replace(" ", "")]
    assert [d["summary"].endswith(said) for d in diagnostics] == [True], streamed
    assert not any(secret in streamed.output for secret in PROVIDER_SECRETS), streamed


APPLY_CONFIG = f"""
variable "pw" {{
  type      = string
  sensitive = true
  default   = "{SECRETS[0]}"
}}

resource "misbehave_thing" "from_variable" {{
  name   = "v"
  trick  = "%s"
  secret = var.pw
}}

resource "misbehave_thing" "schema_sensitive" {{
  name   = "s"
  trick  = "%s"
  secret = "{SECRETS[1]}"
}}
"""


@pytest.mark.parametrize(("trick", "code", "label"), [("apply_warn_secret", 0, "Warning:"),
                                                       ("apply_error_secret", 1, "Error:")])
def test_what_a_provider_says_while_applying_hides_secrets(tmp_path: Path, misbehave_plugins: Path, trick: str,
                                                           code: int, label: str) -> None:
    """ApplyResourceChange's warning or error quoting the sensitive argument: cut out, escapes shown as text."""
    pair = make_pair(tmp_path, misbehave_plugins, APPLY_CONFIG % (trick, trick), terraform=False)
    ours = pair.ctl.ctl("apply", "--auto-approve")
    assert ours.code == code, ours
    assert "\x1b" not in ours.output and "\x07" not in ours.output, ours
    assert SECRETS[0] not in ours.output and SECRETS[1] not in ours.output.replace(f'"{SECRETS[1]}"', ""), ours
    said = [line for line in ours.stderr.splitlines() if line.startswith(label)]
    assert len(said) == 2 and all(line.endswith(": Applied a weak secret\\x1b]0;pwned\\x07") for line in said), ours
    assert ours.stderr.count("The secret (sensitive value) is weak.\\x1b[2J") == 2, ours
