"""Every flag Terraform 1.0.3 lists in ``terraform <command> -help`` is accepted by ctl on that command.

The table below gives each flag a value to try. Terraform itself is the oracle twice over: the
table must name exactly the flags its help lists (plus ``-no-color``, which every Terraform
command takes), so a flag cannot be left out unnoticed, and Terraform must accept each sample as
written (no "flag provided but not defined", no usage text). ctl must then run the same command line without a
usage error (exit 64). Left out, and named here: Terraform's legacy ``-state``/``-state-out``/
``-backup`` options of its own local backend where they write (ctl writes the configured backend;
it answers them with a usage error saying what to do instead). Where ``-state`` only names a file
to read (``output``, ``state list``, ``state show``) ctl reads it too.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from cli.main import run
from tests.plugin.terraform_cli import TerraformDir

LEGACY = {"state", "state-out", "backup"}
READS_STATE_FILE = {"output", "state list", "state show"}
CONFIG = 'resource "terraform_data" "a" {\n  input = "a"\n}\n'
PUSHED = '{"version": 4, "terraform_version": "1.0.3", "serial": 1, "lineage": "l", "outputs": {}, "resources": []}'

# Values for each flag, whatever the command; a command's own spelling goes in SAMPLES_FOR.
SAMPLES: dict[str, list[str]] = {
    "allow-missing": ["-allow-missing"],
    "allow-missing-config": ["-allow-missing-config"],
    "auto-approve": ["-auto-approve"],
    "backend": ["-backend=false"],
    "backend-config": ["-backend-config=path=other.tfstate"],
    "check": ["-check"],
    "compact-warnings": ["-compact-warnings"],
    "config": ["-config=."],
    "destroy": ["-destroy"],
    "detailed-exitcode": ["-detailed-exitcode"],
    "diff": ["-diff"],
    "draw-cycles": ["-draw-cycles"],
    "dry-run": ["-dry-run"],
    "force": ["-force"],
    "force-copy": ["-force-copy"],
    "from-module": ["-from-module=./module"],
    "fs-mirror": ["-fs-mirror=mirror"],
    "get": ["-get=false"],
    "id": ["-id=x"],
    "ignore-remote-version": ["-ignore-remote-version"],
    "input": ["-input=false"],
    "json": ["-json"],
    "list": ["-list=false"],
    "lock": ["-lock=false"],
    "lock-timeout": ["-lock-timeout=1s"],
    "lockfile": ["-lockfile=readonly"],
    "migrate-state": ["-migrate-state"],
    "module-depth": ["-module-depth=1"],
    "net-mirror": ["-net-mirror=http://127.0.0.1:9/"],
    "no-color": ["-no-color"],
    "out": ["-out=tfplan"],
    "parallelism": ["-parallelism=3"],
    "plan": ["-plan=tfplan"],
    "platform": ["-platform=linux_amd64"],
    "plugin-dir": ["-plugin-dir=plugins"],
    "raw": ["-raw"],
    "reconfigure": ["-reconfigure"],
    "recursive": ["-recursive"],
    "refresh": ["-refresh=false"],
    "refresh-only": ["-refresh-only"],
    "replace": ["-replace=terraform_data.a"],
    "state": ["-state=pushed.tfstate"],
    "target": ["-target=terraform_data.a"],
    "type": ["-type=plan"],
    "upgrade": ["-upgrade=false"],
    "var": ["-var", "x=1"],
    "var-file": ["-var-file=x.tfvars"],
    "write": ["-write=false"],
}
SAMPLES_FOR: dict[tuple[str, str], list[str]] = {
    ("fmt", "list"): ["-list=false"],
    ("state push", "force"): ["-force"],
    ("apply", "json"): ["-json", "-auto-approve"],  # both tools refuse -json without an approval source
    ("destroy", "json"): ["-json", "-auto-approve"],
}

# Each command: the arguments after its flags, and where its flags come from.
COMMANDS: dict[str, list[str]] = {
    "init": [], "validate": [], "plan": [], "apply": [], "destroy": [], "refresh": [],
    "output": [], "show": [], "import": ["terraform_data.a", "a"], "taint": ["terraform_data.a"],
    "untaint": ["terraform_data.a"], "fmt": [], "console": [], "graph": [], "version": [],
    "state list": [], "state show": ["terraform_data.a"], "state mv": ["terraform_data.a", "terraform_data.b"],
    "state rm": ["terraform_data.a"], "state pull": [], "state push": ["pushed.tfstate"],
    "state replace-provider": ["hashicorp/null", "acme/null"],
    "workspace new": ["w1"], "workspace select": ["default"], "workspace delete": ["w0"],
    "workspace list": [], "workspace show": [],
    "providers": [], "providers lock": [], "providers mirror": ["mirror"], "providers schema": ["-json"],
}
# terraform destroy -help lists no flags of its own: it takes apply's and plan's, except those it
# refuses in destroy mode (-refresh-only, -destroy, -replace) or does not define (-out, -detailed-exitcode).
DESTROY_REFUSES = {"refresh-only", "destroy", "replace", "out", "detailed-exitcode"}

# What each command's table holds: every flag of its help (checked against Terraform's help below).
TABLE: dict[str, set[str]] = {
    "init": {"backend", "backend-config", "force-copy", "from-module", "get", "input", "no-color", "plugin-dir",
             "reconfigure", "migrate-state", "upgrade", "lockfile", "ignore-remote-version"},
    "validate": {"json", "no-color"},
    "plan": {"destroy", "refresh-only", "refresh", "replace", "target", "var", "var-file", "compact-warnings",
             "detailed-exitcode", "input", "lock", "lock-timeout", "no-color", "out", "parallelism"},
    "apply": {"auto-approve", "compact-warnings", "lock", "lock-timeout", "input", "no-color", "parallelism"},
    "destroy": {"auto-approve", "compact-warnings", "lock", "lock-timeout", "input", "no-color", "parallelism",
                "refresh", "target", "var", "var-file"},
    "refresh": {"compact-warnings", "input", "lock", "lock-timeout", "no-color", "target", "var", "var-file"},
    "output": {"no-color", "json", "raw", "state"},
    "show": {"no-color", "json"},
    "import": {"config", "allow-missing-config", "input", "lock", "lock-timeout", "no-color", "var", "var-file",
               "ignore-remote-version"},
    "taint": {"allow-missing", "lock", "lock-timeout", "ignore-remote-version", "no-color"},
    "untaint": {"allow-missing", "lock", "lock-timeout", "ignore-remote-version", "no-color"},
    "fmt": {"list", "write", "diff", "check", "no-color", "recursive"},
    "console": {"var", "var-file", "no-color"},
    "graph": {"plan", "draw-cycles", "type", "module-depth", "no-color"},
    "version": {"json", "no-color"},
    "state list": {"id", "no-color", "state"},
    "state show": {"no-color", "state"},
    "state mv": {"dry-run", "lock", "lock-timeout", "ignore-remote-version", "no-color"},
    "state rm": {"dry-run", "lock", "lock-timeout", "ignore-remote-version", "no-color"},
    "state pull": {"no-color"},
    "state push": {"force", "lock", "lock-timeout", "no-color"},
    "state replace-provider": {"auto-approve", "lock", "lock-timeout", "ignore-remote-version", "no-color"},
    "workspace new": {"lock", "lock-timeout", "no-color"},
    "workspace select": {"no-color"},
    "workspace delete": {"force", "lock", "lock-timeout", "no-color"},
    "workspace list": {"no-color"},
    "workspace show": {"no-color"},
    "providers": {"no-color"},
    "providers lock": {"fs-mirror", "net-mirror", "platform", "no-color"},
    "providers mirror": {"platform", "no-color"},
    "providers schema": {"json", "no-color"},
}
# Flags Terraform's help lists where ctl's table adds more: apply's help lists its own flags and
# points at plan's (-destroy, -refresh-only, -replace, -target, -var, -var-file, -refresh), which
# apply takes too; the table checks those under plan. workspace new's -state (a file to start
# from) is not the legacy option: it is tested in tests/cli/test_terraform_flags_behaviour.py.
EXTRA_CASES = [("apply", f) for f in ("destroy", "refresh-only", "refresh", "replace", "target", "var", "var-file")]
EXTRA_CASES.append(("workspace new", "state"))
# Flags Terraform takes without listing them in the command's help; ctl takes them too (hidden).
EXTRA_CASES += [("init", "compact-warnings"), ("init", "target"), ("init", "var"), ("init", "var-file"),
                ("import", "compact-warnings"), ("import", "parallelism"), ("import", "target"),
                ("validate", "compact-warnings"), ("output", "compact-warnings"), ("console", "compact-warnings"),
                ("console", "input"), ("console", "target"), ("state push", "ignore-remote-version"),
                ("refresh", "parallelism"), ("refresh", "json"), ("destroy", "json"), ("apply", "json")]

# A flag's line in the options list, or a flag the usage line requires (providers schema -json).
_FLAG_LINE = re.compile(r"^\s+-([a-z][a-z0-9-]*)(?=[\s=]|$)|^Usage: .* -([a-z][a-z0-9-]*)$", re.M)


def _flags_in(text: str) -> set[str]:
    return {a or b for a, b in _FLAG_LINE.findall(text)}


def _sample(command: str, flag: str) -> list[str]:
    return SAMPLES_FOR.get((command, flag), SAMPLES[flag])


def _cases() -> list[tuple[str, str]]:
    return [(c, f) for c, flags in TABLE.items() for f in sorted(flags)] + EXTRA_CASES


@pytest.fixture(scope="module")
def terraform(tmp_path_factory: pytest.TempPathFactory) -> TerraformDir:
    return TerraformDir(tmp_path_factory.mktemp("tf-help"), Path("/nonexistent"))


def _terraform_help_flags(tf: TerraformDir, command: str) -> set[str]:
    words = "apply" if command in ("destroy",) else command
    text = tf.run(*words.split(), "-help", expect=None).output
    flags = _flags_in(text) - (LEGACY - {"state"} if command in READS_STATE_FILE else LEGACY)
    if command == "destroy":
        plan = tf.run("plan", "-help", expect=None).output
        flags = (flags | _flags_in(plan)) - LEGACY - DESTROY_REFUSES
    return flags | {"no-color"}


@pytest.mark.parametrize("command", sorted(TABLE))
def test_the_table_names_every_flag_of_terraforms_help(terraform: TerraformDir, command: str) -> None:
    assert TABLE[command] == _terraform_help_flags(terraform, command)


@pytest.mark.parametrize(("command", "flag"), _cases())
def test_terraform_accepts_the_sample(tmp_path: Path, command: str, flag: str) -> None:
    tf = TerraformDir(tmp_path, Path("/nonexistent"))
    result = tf.run(*command.split(), *_sample(command, flag), *COMMANDS[command], expect=None)
    assert not refused_by_terraform(result.output), result.output


def refused_by_terraform(output: str) -> bool:
    """Terraform's answer to a flag it does not define: that message, or (init, import) only its usage."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", output)
    return "flag provided but not defined" in text or text.lstrip().startswith("Usage: terraform")


@pytest.mark.parametrize(("command", "flag"), _cases())
def test_ctl_takes_the_flag_without_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capfd: pytest.CaptureFixture[str], command: str,
                                                  flag: str) -> None:
    for name in [k for k in os.environ if k.startswith(("CTL_", "TF_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "main.tf").write_text(CONFIG)
    (tmp_path / "x.tfvars").write_text("")
    (tmp_path / "pushed.tfstate").write_text(PUSHED)
    (tmp_path / "module").mkdir()
    (tmp_path / "module" / "main.tf").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    if command == "init" and flag == "from-module":
        (tmp_path / "main.tf").unlink()
    code = run([*command.split(), *_sample(command, flag), *COMMANDS[command]])
    err = capfd.readouterr().err
    assert code != 64, err
    assert "Usage error" not in err and "internal error" not in err, err
