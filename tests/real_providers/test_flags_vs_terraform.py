"""Terraform's common flags (``-input=false``, ``-no-color``, ``-lock=…``, ``-lock-timeout=…``) are
accepted by ctl on every command Terraform accepts them on, so a script written for Terraform runs.

Terraform 1.0.3 is the oracle: each command runs with each flag under both tools, in directories
holding the same applied configuration; a flag Terraform takes on a command must not be a usage error
(exit 64) in ctl. ctl may take more than Terraform does, never less.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

CONFIG = '''
resource "random_string" "x" {
  length = 4
}
'''

FLAGS = ("-input=false", "-no-color", "-lock=false", "-lock-timeout=1s")
# Each command with what it needs after the flag; run in this order, on the same directory.
COMMANDS = [
    ("init",), ("validate",), ("plan",), ("apply", "-auto-approve"), ("refresh",), ("output",), ("show",),
    ("graph",), ("providers",), ("fmt",), ("console",), ("state", "list"), ("state", "pull"),
    ("state", "show", "random_string.x"), ("taint", "random_string.x"), ("untaint", "random_string.x"),
    ("state", "mv", "random_string.x", "random_string.y"), ("state", "mv", "random_string.y", "random_string.x"),
    ("workspace", "list"), ("workspace", "show"), ("workspace", "new", "w1"), ("workspace", "select", "default"),
    ("workspace", "delete", "w1"), ("force-unlock", "-force", "no-such-lock"), ("version",),
]


def _command_with(command: tuple[str, ...], flag: str) -> list[str]:
    """The flag after the (sub)command's name, before its arguments, as Terraform reads flags."""
    words = 2 if command[0] in ("state", "workspace") else 1
    return [*command[:words], flag, *command[words:]]


def _refused_by_terraform(output: str) -> bool:
    return "flag provided but not defined" in output


def test_every_flag_terraform_takes_on_a_command_ctl_takes(tmp_path: Path, real_providers: Path) -> None:
    dirs = {}
    for tool in ("terraform", "ctl"):
        dirs[tool] = tmp_path / tool
        dirs[tool].mkdir()
        (dirs[tool] / "main.tf").write_text(CONFIG)
    terraform = TerraformDir(dirs["terraform"], real_providers)
    terraform.run("init", f"-plugin-dir={real_providers}", "-input=false", "-no-color")
    terraform.run("apply", "-auto-approve", "-input=false", "-no-color")
    project = Project(dirs["ctl"])
    project.ok("init", "-plugin-dir", str(real_providers))
    project.ok("apply", "-auto-approve")

    taken_by_terraform = 0
    refused = []
    for command in COMMANDS:
        for flag in FLAGS:
            args = _command_with(command, flag)
            theirs = terraform.run(*args, expect=None)
            if _refused_by_terraform(theirs.output):
                continue
            taken_by_terraform += 1
            ours = project.ctl(*args)
            assert "Traceback" not in ours.stderr, ours
            if ours.code == 64:
                refused.append(f"ctl {' '.join(args)}: {ours.stderr.strip().splitlines()[0]}")
    assert taken_by_terraform > 40  # the oracle answered: most of these Terraform takes
    assert refused == []
