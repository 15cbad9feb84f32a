"""``local-exec`` provisioners end to end: output, ordering, taint on failure, destroy time, signals.

Commands write files next to the configuration, so each test checks what really ran, in which order
and with which values, and the state file shows what a user's next plan would act on.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, background, communicate, release_lock, unlock_command_id, wait_until


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_creation_provisioners_run_with_self_count_and_environment_before_dependents(project: Project) -> None:
    project.write("""
    resource "terraform_data" "a" {
      count = 2
      input = "value-${count.index}"
      provisioner "local-exec" {
        command     = "echo $GREETING ${self.output} > made-${count.index}.txt; echo wrote ${count.index}"
        environment = { GREETING = "hello" }
      }
      provisioner "local-exec" {
        command     = "import os; print(os.getcwd().endswith('sub'))"
        interpreter = ["python3", "-c"]
        working_dir = "sub"
      }
    }

    resource "terraform_data" "b" {
      input = terraform_data.a[1].output
      provisioner "local-exec" {
        command = "cat made-0.txt made-1.txt > both.txt"
      }
    }
    """)
    project.path("sub").mkdir()
    res = project.ok("apply", "-auto-approve")
    assert project.path("made-1.txt").read_text() == "hello value-1\n"
    assert project.path("both.txt").read_text() == "hello value-0\nhello value-1\n"  # b waited for a's provisioners
    assert "terraform_data.a[0]: Provisioning with 'local-exec'..." in res.stdout
    assert 'terraform_data.a[1] (local-exec): Executing: ["/bin/sh" "-c" "echo $GREETING value-1' in res.stdout
    assert "terraform_data.a[1] (local-exec): wrote 1" in res.stdout
    assert "terraform_data.a[0] (local-exec): True" in res.stdout
    assert all(inst.get("status") is None for inst in project.instances().values())
    assert project.ctl("plan", "--detailed-exitcode").code == 0  # provisioners never cause a diff


def test_a_failing_provisioner_taints_the_object_and_holds_its_dependents(project: Project) -> None:
    project.write("""
    resource "terraform_data" "a" {
      input = "x"
      provisioner "local-exec" {
        command = "echo half-way; exit 3"
      }
    }
    resource "terraform_data" "b" {
      input = terraform_data.a.output
    }
    resource "terraform_data" "c" {
      input = "y"
      provisioner "local-exec" {
        command    = "exit 4"
        on_failure = continue
      }
    }
    """)
    res = project.ctl("apply", "-auto-approve")
    assert res.code == 1, res
    assert "terraform_data.a: local-exec provisioner error: the command exited with status 3" in res.stderr
    assert "half-way" in res.stderr  # the last output is in the error
    assert "Warning: terraform_data.c: local-exec provisioner error: the command exited with status 4" in res.stderr
    assert "terraform_data.b was not applied because terraform_data.a failed" in res.stderr
    instances = project.instances()
    assert instances["terraform_data.a"]["status"] == "tainted"
    assert instances["terraform_data.c"].get("status") is None
    assert "terraform_data.b" not in instances

    plan = project.ctl("plan", "--detailed-exitcode")
    assert plan.code == 2 and "terraform_data.a is tainted, so must be replaced" in plan.stdout, plan


def test_destroy_time_provisioners_run_before_the_destroy_and_a_failure_keeps_the_object(project: Project) -> None:
    project.write("""
    resource "terraform_data" "a" {
      for_each = toset(["x", "y"])
      input    = "v-${each.key}"
      provisioner "local-exec" {
        when    = destroy
        command = "echo ${each.key}=${self.output} >> destroyed.txt; test ${each.key} = x"
      }
    }
    """)
    project.ok("apply", "-auto-approve")
    assert not project.path("destroyed.txt").exists()
    res = project.ctl("destroy", "-auto-approve")
    assert res.code == 1, res
    assert sorted(project.path("destroyed.txt").read_text().split()) == ["x=v-x", "y=v-y"]
    assert set(project.instances()) == {'terraform_data.a["y"]'}  # its provisioner failed: not destroyed


def test_sensitive_arguments_suppress_the_output(project: Project) -> None:
    project.write("""
    variable "token" {
      default   = "s3cr3t-t0ken"
      sensitive = true
    }
    resource "terraform_data" "a" {
      input = "x"
      provisioner "local-exec" {
        command = "echo using ${var.token}; exit 2"
      }
    }
    """)
    res = project.ctl("apply", "-auto-approve")
    assert res.code == 1, res
    assert "(output suppressed due to sensitive value in config)" in res.stdout
    assert "s3cr3t-t0ken" not in res.output


def test_json_output_streams_provisioner_lines(project: Project) -> None:
    project.write("""
    resource "terraform_data" "a" {
      input = "x"
      provisioner "local-exec" {
        command = "echo from-the-command"
      }
    }
    """)
    res = project.ok("apply", "-auto-approve", "--json")
    messages = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    progress = [m for m in messages if m["type"] == "provision_progress"]
    assert {"resource": progress[-1]["hook"]["resource"]["addr"], "output": progress[-1]["hook"]["output"]} == \
        {"resource": "terraform_data.a", "output": "from-the-command"}


@pytest.mark.parametrize("source", [
    'provisioner "remote-exec" {\n    inline = ["true"]\n  }',
    'provisioner "local-exec" {\n    command = "true"\n    when    = later\n  }',
])
def test_unsupported_provisioners_are_configuration_errors(project: Project, source: str) -> None:
    project.write(f'resource "terraform_data" "a" {{\n  {source}\n}}\n')
    res = project.ctl("validate")
    assert res.code == 1, res
    assert "main.tf:2:" in res.stderr or "main.tf:4:" in res.stderr, res
    assert "Traceback" not in res.stderr


SLOW = """
resource "terraform_data" "a" {
  input = "x"
  provisioner "local-exec" {
    command = "touch started; sleep 30; touch finished"
  }
}
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_a_killed_or_interrupted_provisioner_leaves_the_object_tainted(project: Project, sig: signal.Signals) -> None:
    project.write(SLOW)
    with background(project.start("apply", "-auto-approve")) as proc:
        wait_until(lambda: project.path("started").exists(), what="the provisioner to start")
        os.killpg(proc.pid, sig)
        res = communicate(proc)
    assert res.code == (-signal.SIGKILL if sig == signal.SIGKILL else 130), res
    assert not project.path("finished").exists()
    assert "Traceback" not in res.stderr
    plan = project.ctl("plan", "--detailed-exitcode")  # reads the journal a SIGKILL left behind
    assert plan.code == 2 and "terraform_data.a is tainted, so must be replaced" in plan.stdout, plan

    project.write(SLOW.replace("sleep 30; ", ""))
    res = project.ctl("apply", "-auto-approve")
    if sig == signal.SIGKILL:  # a killed run leaves its lock, and says how to release it
        assert res.code == 4 and "no longer runs" in res.stderr, res
        release_lock(project, unlock_command_id(res.stderr))
        res = project.ctl("apply", "-auto-approve")
    assert res.code == 0, res
    assert "Resources: 1 added, 0 changed, 1 destroyed." in res.stdout
    assert project.path("finished").exists()
    assert project.instances()["terraform_data.a"].get("status") is None
