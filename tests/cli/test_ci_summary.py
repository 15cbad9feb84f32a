"""Markdown summaries (GitHub job summary, ``plan --summary-md``) and GitHub annotations."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cli import ci_summary
from cli.ci_summary import COMMENT_BUDGET, STEP_SUMMARY_BUDGET
from cli.ci_summary.apply import apply_document
from cli.ci_summary.plan import plan_document
from engine.apply.applier import ApplyResult
from engine.plan.model import (
    ACTIONS_CREATE,
    ACTIONS_DELETE,
    ACTIONS_REPLACE,
    ACTIONS_UPDATE,
    Plan,
    ResourceChange,
)
from engine.state.model import State
from tests.e2e.helpers import Project


def change(address: str, actions: tuple[str, ...], reason: str | None = None) -> ResourceChange:
    rtype, name = address.split(".")[-2:]
    return ResourceChange(address=address, module_address="", mode="managed", type=rtype, name=name.split("[")[0],
                          index=None, provider='provider["registry.terraform.io/hashicorp/aws"]', actions=actions,
                          before=None, after={}, action_reason=reason)


def plan_of(changes: list[ResourceChange], **kw: Any) -> Plan:
    return Plan(changes=changes, drift=[], outputs={}, prior_state=State(0, "l"), lineage="l", serial=1,
                config_hash="h", **kw)


def test_plan_markdown_counts_table_and_policy() -> None:
    plan = plan_of([
        change("aws_s3_bucket.logs", ACTIONS_CREATE),
        change("aws_s3_bucket.data", ACTIONS_UPDATE),
        change("aws_iam_role.r", ACTIONS_REPLACE, "replace_because_cannot_update"),
        change("aws_sqs_queue.q", ACTIONS_DELETE, "delete_because_no_resource_config"),
    ], policy_results=[
        {"rule": "ctl.aws.s3.deny", "level": "hard-mandatory", "status": "failed",
         "message": "bucket | must be <encrypted>", "address": "aws_s3_bucket.logs"},
        {"rule": "main.warn", "level": "advisory", "status": "advisory", "message": "tag it"},
    ])
    md = plan_document(plan).render(COMMENT_BUDGET)
    assert md.startswith("## ctl plan: 2 to add, 1 to change, 2 to destroy\n")
    assert "| `+` create | `aws_s3_bucket.logs` |" in md
    assert "| `-/+` replace | `aws_iam_role.r` | cannot update |" in md
    assert "| `-` destroy | `aws_sqs_queue.q` | delete because no resource config |" in md
    assert "### Policy results" in md and "1 advisory, 1 failed" in md
    assert "bucket \\| must be &lt;encrypted&gt;" in md  # a pipe or a tag cannot break the table
    for line in md.splitlines():
        if line.startswith("|"):
            assert len(re.findall(r"(?<!\\)\|", line)) == line.count("|") - line.count("\\|")


def test_no_policy_section_without_results_and_no_changes() -> None:
    md = plan_document(plan_of([])).render(COMMENT_BUDGET)
    assert md.startswith("## ctl plan: no changes")
    assert "Policy" not in md and "| ---" not in md


def test_large_plans_are_truncated_with_a_note() -> None:
    changes = [change(f'aws_s3_bucket.b["{"x" * 40}-{i}"]', ACTIONS_CREATE) for i in range(20_000)]
    doc = plan_document(plan_of(changes))
    comment = doc.render(COMMENT_BUDGET)
    assert len(comment) < 65_536 and len(comment.encode()) <= COMMENT_BUDGET
    assert "truncated" in comment and re.search(r"_… \d+ more not shown_", comment)
    summary = doc.render(STEP_SUMMARY_BUDGET)
    assert len(summary.encode()) <= STEP_SUMMARY_BUDGET < 1024 * 1024
    assert summary.count("\n| `+` create") > comment.count("\n| `+` create") > 100
    shown = summary.count("\n| `+` create")
    omitted = int(re.search(r"_… (\d+) more not shown_", summary).group(1))
    assert shown + omitted == 20_000


def test_apply_markdown_reports_each_outcome() -> None:
    plan = plan_of([change("aws_s3_bucket.a", ACTIONS_CREATE), change("aws_s3_bucket.b", ACTIONS_CREATE),
                    change("aws_s3_bucket.c", ACTIONS_UPDATE)])
    result = ApplyResult(State(0, "l"), applied=["aws_s3_bucket.a"], failed={"aws_s3_bucket.b": RuntimeError("denied\nmore")},
                         skipped={"aws_s3_bucket.c": "aws_s3_bucket.b"})
    result.counts["add"] = 1
    md = apply_document(plan, result, "normal").render(STEP_SUMMARY_BUDGET)
    assert md.startswith("## ctl apply ❌ failed: 1 added, 0 changed, 0 destroyed")
    assert "| ✅ done | `+` create | `aws_s3_bucket.a` |  |" in md
    assert "| ❌ failed | `+` create | `aws_s3_bucket.b` | denied |" in md
    assert "| ⏭️ not attempted | `~` update | `aws_s3_bucket.c` | `aws_s3_bucket.b` failed |" in md


def test_step_summary_budget_counts_what_is_there(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    assert ci_summary.step_summary_budget(path) == STEP_SUMMARY_BUDGET
    path.write_bytes(b"x" * (900 * 1024))
    assert ci_summary.step_summary_budget(path) < 124 * 1024


# -- through the real executable --------------------------------------------------------------------------

CONFIG = """
resource "terraform_data" "a" {
  input = "one"
}
resource "terraform_data" "b" {
  count = 2
  input = "two"
}
"""


def test_plan_and_apply_write_the_job_summary(tmp_path: Path) -> None:
    project = Project(tmp_path / "cfg")
    project.root.mkdir()
    project.write(CONFIG)
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step output\n")
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_ACTIONS": "true"}
    project.ok("plan", "--summary-md", "pr.md", env=env)
    pr = project.path("pr.md").read_text()
    assert pr.startswith("## ctl plan: 3 to add, 0 to change, 0 to destroy")
    assert "| `+` create | `terraform_data.b[1]` |" in pr
    project.ok("apply", "--auto-approve", env=env)
    text = summary.read_text()
    assert text.startswith("earlier step output\n")  # appended, never overwritten
    assert text.count("## ctl plan: 3 to add") == 1
    assert "## ctl apply ✅ complete: 3 added, 0 changed, 0 destroyed" in text
    assert "| ✅ done | `+` create | `terraform_data.a` |  |" in text


def test_summary_md_with_json(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(CONFIG)
    res = project.ok("plan", "--json", "--summary-md", "pr.md")
    assert "## ctl plan" not in res.stdout
    assert project.path("pr.md").read_text().startswith("## ctl plan: 3 to add")


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_annotations_on_github_actions(tmp_path: Path, json_flag: list[str]) -> None:
    project = Project(tmp_path)
    project.write('resource "terraform_data" "a" {\n  input = nope.value\n}\n')
    res = project.ctl("plan", *json_flag, env={"GITHUB_ACTIONS": "true"})
    assert res.code == 1
    assert re.search(r"^::error file=main\.tf,line=2,col=\d+::\S.*$", res.stderr, re.M), res
    quiet = project.ctl("plan", *json_flag)
    assert "::error" not in quiet.stderr


def test_annotation_messages_are_escaped(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from cli import output
    from vocab.errors import Diagnostic, Pos, SourceRange

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rng = SourceRange("dir,1/a:b.tf", Pos(3, 4), Pos(3, 9))
    output.print_diagnostics([Diagnostic("warning", "100% sure\nreally", range=rng)])
    err = capsys.readouterr().err
    assert "::warning file=dir%2C1/a%3Ab.tf,line=3,col=4::100%25 sure%0Areally\n" in err
