"""``ctl console`` through the real executable: piped input, variables, state values, errors, and a
session at a pseudo-terminal (prompt, Tab completion, history).

The configuration is applied first with native adapters (``terraform_data``, ``random_id``,
``local_file``), so the console has a state to read: what it prints for a resource is what the
state file holds.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.e2e.helpers import CTL, Project, Result, clean_env, release_lock, take_lock
from tests.e2e.test_e2e_terminal import Terminal, terminal

__all__ = ["terminal"]  # the pty fixture, shared with the terminal tests

MAIN_TF = """
variable "cidr" { type = string }
variable "region" { default = "eu-west-1" }
variable "replicas" { default = 2 }
variable "password" {
  default   = "hunter2"
  sensitive = true
}

locals {
  subnet   = cidrsubnet(var.cidr, 8, 1)
  greeting = "hello ${terraform_data.d.output.name}"
}

resource "terraform_data" "d" {
  input = { name = "world", ports = [80, 443] }
}

resource "random_id" "r" {
  count       = 2
  byte_length = 4
}

resource "local_file" "f" {
  content  = "hi\\nthere\\n"
  filename = "${path.module}/out.txt"
}

module "net" {
  source = "./net"
  cidr   = var.cidr
}

output "subnet" { value = local.subnet }
"""

NET_TF = """
variable "cidr" { type = string }
output "subnets" { value = cidrsubnets(var.cidr, 4, 4) }
"""

VARIABLES_TF = """
variable "from_default" { default = "default" }
variable "from_tfvars" { default = "default" }
variable "from_auto" { default = "default" }
variable "from_ctl_env" { default = "default" }
variable "from_tf_env" { default = "default" }
variable "from_var" { default = "default" }
variable "from_var_file" { default = "default" }
variable "overridden" { default = "default" }
"""


def write_config(project: Project, main_tf: str = MAIN_TF) -> None:
    project.write(main_tf)
    project.path("net").mkdir(exist_ok=True)
    project.write(NET_TF, "net/main.tf")


def console(project: Project, text: str, *args: str, env: Mapping[str, str] | None = None) -> Result:
    """``ctl console ARGS`` with ``text`` piped to its stdin."""
    proc = subprocess.run([CTL, "console", *args], cwd=project.root, env=clean_env(env), input=text,
                          capture_output=True, text=True, timeout=60)
    return Result(["console", *args], proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The configuration above, applied once for every test that only reads it."""
    project = Project(tmp_path_factory.mktemp("console"))
    write_config(project)
    project.write('cidr = "10.0.0.0/16"\n', "terraform.tfvars")
    project.apply()
    return project


def test_piped_lines_see_variables_locals_modules_and_the_state(applied: Project) -> None:
    hexes = [applied.instances()[f"random_id.r[{i}]"]["attributes"]["hex"] for i in (0, 1)]
    lines = [
        "cidrsubnet(var.cidr, 8, 1)", "var.region", "local.subnet", "module.net.subnets",
        "terraform_data.d.output", "random_id.r[*].hex", "local_file.f.content", "local.greeting",
        "var.password", "path.module", "path.root", "path.cwd", "terraform.workspace",
    ]
    res = console(applied, "\n".join(lines) + "\n")
    assert res.code == 0, res
    assert res.stdout == "\n".join([
        '"10.0.1.0/24"',
        '"eu-west-1"',
        '"10.0.1.0/24"',
        'tolist([\n  "10.0.0.0/20",\n  "10.0.16.0/20",\n])',
        '{\n  "name" = "world"\n  "ports" = [\n    80,\n    443,\n  ]\n}',
        f'[\n  "{hexes[0]}",\n  "{hexes[1]}",\n]',
        "<<EOT\nhi\nthere\n\nEOT",
        '"hello world"',
        "(sensitive)",
        '"."',
        '"."',
        json.dumps(str(applied.root.resolve())),
        '"default"',
    ]) + "\n"
    assert res.stderr == ""


def test_a_resource_not_in_the_state_yet_is_known_after_apply(applied: Project, tmp_path: Path) -> None:
    project = Project(tmp_path)
    write_config(project, MAIN_TF + '\nresource "random_id" "later" {\n  byte_length = 2\n}\n')
    (tmp_path / "ctl.tfstate").write_bytes(applied.state_file.read_bytes())
    res = console(project, "random_id.later.hex\nrandom_id.later\nterraform_data.d.output.name\n",
                  "--var", "cidr=10.1.0.0/16")
    assert res.code == 0, res
    assert res.stdout == '(known after apply)\n(known after apply)\n"world"\n'


def test_variables_come_from_everywhere_a_plan_takes_them(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(VARIABLES_TF)
    project.write('from_tfvars = "terraform.tfvars"\noverridden = "terraform.tfvars"\n', "terraform.tfvars")
    project.write('from_auto = "auto.tfvars"\n', "x.auto.tfvars")
    project.write('from_var_file = "var-file"\n', "extra.tfvars")
    names = ["default", "tfvars", "auto", "ctl_env", "tf_env", "var", "var_file"]
    res = console(project, "".join(f"var.from_{n}\n" for n in names) + "var.overridden\n",
                  "--var", "from_var=--var", "--var-file", "extra.tfvars", "--var", "overridden=--var",
                  env={"CTL_VAR_from_ctl_env": "CTL_VAR", "TF_VAR_from_tf_env": "TF_VAR"})
    assert res.code == 0, res
    assert res.stdout.splitlines() == [
        '"default"', '"terraform.tfvars"', '"auto.tfvars"', '"CTL_VAR"', '"TF_VAR"', '"--var"', '"var-file"',
        '"--var"',
    ]


def test_the_first_failing_line_ends_the_run_with_exit_code_1(applied: Project) -> None:
    res = console(applied, "1 + 1\nvar.nope\n2 + 2\n")
    assert res.code == 1, res
    assert res.stdout == "2\n"  # what came before the error, and nothing after it
    assert "<console-input>:1:4" in res.stderr and "nope" in res.stderr
    assert "var.nope" in res.stderr  # the line, quoted under the message
    assert "Traceback" not in res.stderr

    syntax = console(applied, "upper(\n")
    assert syntax.code == 1 and syntax.stdout == ""
    assert "Invalid syntax" in syntax.stderr and "Traceback" not in syntax.stderr


def test_exit_blank_lines_and_help(applied: Project) -> None:
    res = console(applied, "\n1\n\n  exit  \n2\n")
    assert (res.code, res.stdout) == (0, "1\n"), res
    helped = console(applied, "help\n")
    assert helped.code == 0 and "exit" in helped.stdout and "var.NAME" in helped.stdout


def test_the_state_is_read_without_a_lock_and_never_written(applied: Project) -> None:
    before = applied.state_file.read_bytes()
    mtime = applied.state_file.stat().st_mtime_ns
    lock_id = take_lock(applied, "someone else is applying")
    try:
        res = console(applied, "length(random_id.r)\n")
        assert (res.code, res.stdout) == (0, "2\n"), res
        assert lock_id in applied.lock_file.read_text()  # the other holder's lock, untouched
    finally:
        release_lock(applied, lock_id)
    assert applied.state_file.read_bytes() == before
    assert applied.state_file.stat().st_mtime_ns == mtime
    assert not (applied.root / ".ctl" / "console_history").exists()  # piped input is not history


def test_the_selected_workspace_is_the_one_read(applied: Project, tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('resource "terraform_data" "w" {\n  input = terraform.workspace\n}\n')
    project.apply()
    project.ok("workspace", "new", "dev")
    res = console(project, "terraform.workspace\nterraform_data.w.output\n")
    assert (res.code, res.stdout) == (0, '"dev"\n(known after apply)\n'), res
    project.ok("workspace", "select", "default")
    res = console(project, "terraform_data.w.output\n")
    assert (res.code, res.stdout) == (0, '"default"\n'), res


def test_a_broken_configuration_is_reported_before_any_input(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('locals {\n  x = upper(1, 2)\n}\n')
    res = console(project, "1\n")
    assert res.code == 1, res
    assert res.stdout == ""
    assert "main.tf:2" in res.stderr and "Traceback" not in res.stderr


def test_a_directory_without_configuration_still_has_functions(tmp_path: Path) -> None:
    res = console(Project(tmp_path), 'jsonencode({a = [1, "x"]})\ntolist(["a"])\n')
    assert res.code == 0, res
    assert res.stdout == '"{\\"a\\":[1,\\"x\\"]}"\ntolist([\n  "a",\n])\n'


# -- at a terminal ---------------------------------------------------------------------------------


def test_a_session_at_a_terminal(terminal: Terminal, applied: Project) -> None:
    history = applied.root / ".ctl" / "console_history"
    history.unlink(missing_ok=True)
    terminal.run(applied.root, ["console"], env={"HOME": str(applied.root)})
    terminal.wait_for(r"(?m)^>$")

    terminal.send("var.cid", "\t")  # one variable starts so: Tab completes it
    terminal.wait_for(r"(?m)^> var\.cidr$")
    terminal.send("Enter")
    terminal.wait_for(r'(?m)^"10\.0\.0\.0/16"\n>$')

    terminal.send("var.re", "\t", "\t")  # two do: the second Tab lists them
    terminal.wait_for(r"var\.region\s+var\.replicas")
    terminal.send("gion", "Enter")
    terminal.wait_for(r'(?m)^"eu-west-1"\n>$')

    terminal.send("nope", "Enter")  # an error is reported and the session goes on
    terminal.wait_for(r'Reference to undeclared name "nope"')
    terminal.send("local.sub", "\t", "Enter")
    terminal.wait_for(r'(?m)^"10\.0\.1\.0/24"\n>$')

    terminal.send("exit", "Enter")
    done = terminal.wait_for(r"\[exit \d+\]")
    assert "[exit 0]" in done, done
    assert "Traceback" not in done
    assert history.read_text().splitlines() == ["var.cidr", "var.region", "nope", "local.subnet", "exit"]


def test_ctrl_d_ends_a_session_and_history_is_read_back(terminal: Terminal, applied: Project) -> None:
    history = applied.root / ".ctl" / "console_history"
    history.parent.mkdir(exist_ok=True)
    history.write_text("var.region\n")
    terminal.run(applied.root, ["console"], env={"HOME": str(applied.root)})
    terminal.wait_for(r"(?m)^>$")
    terminal.send("\x1b[A")  # Up: the previous session's line
    terminal.wait_for(r"(?m)^> var\.region$")
    terminal.send("Enter")
    terminal.wait_for(r'(?m)^"eu-west-1"\n>$')
    terminal.send("\x04")  # Ctrl-D
    done = terminal.wait_for(r"\[exit \d+\]")
    assert "[exit 0]" in done, done
    assert os.path.getsize(history) > 0
