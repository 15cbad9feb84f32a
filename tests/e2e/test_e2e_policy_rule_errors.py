"""A queue whose policy is "" plans and applies its changes: the built-in advisory rule reads the
empty policy as no policy instead of stopping the plan.

Through the real ``ctl`` executable and its native AWS adapter against moto.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import Project
from tests.servers import MotoServer

QUEUE = """
provider "aws" {{
  region = "us-east-1"
}}

resource "aws_sqs_queue" "q" {{
  name   = "ctl-empty-policy"
  policy = ""
  tags   = {{ team = "{team}" }}
}}
"""


def test_an_in_place_change_of_a_queue_with_an_empty_policy_plans_and_applies(
        tmp_path: Path, moto_server_clean: MotoServer) -> None:
    project = Project(tmp_path)
    env = moto_server_clean.env
    project.write(QUEUE.format(team="a"))
    assert project.ctl("init", env=env).code == 0
    project.ok("apply", "--auto-approve", env=env)

    project.write(QUEUE.format(team="b"))
    res = project.ctl("plan", "--detailed-exitcode", env=env)
    assert res.code == 2, res
    assert "Plan: 0 to add, 1 to change, 0 to destroy." in res.stdout
    assert "Policy check passed" in res.stdout
    assert "Invalid JSON" not in res.output and "could not evaluate" not in res.output
    project.ok("apply", "--auto-approve", env=env)

    sqs = moto_server_clean.client("sqs")
    url = sqs.get_queue_url(QueueName="ctl-empty-policy")["QueueUrl"]
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "b"}
