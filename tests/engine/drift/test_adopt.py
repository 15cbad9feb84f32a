"""Adoption edits: literals replaced in place, keys added, expressions and secrets left alone."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.config.loader import load_config
from engine.drift.adopt import plan_adoption
from engine.drift.detect import drifted_objects
from engine.plan.model import ACTIONS_UPDATE, ResourceChange
from engine.plugins.registry import registry_for
from vocab.values import mark


def _change(address: str, before: dict[str, Any], after: dict[str, Any]) -> ResourceChange:
    *module, type_, name = address.split(".")
    return ResourceChange(address=address, module_address=".".join(module), mode="managed", type=type_, name=name,
                          index=None, provider="", actions=ACTIONS_UPDATE, before=before, after=after)


def _adopt(root: Path, changes: list[ResourceChange], *, allow_sensitive: bool = False) -> Any:
    module, diags = load_config(root)
    assert not diags.has_errors, diags.items
    return plan_adoption(root, module, changes, drifted_objects(changes), registry_for(root),
                         allow_sensitive=allow_sensitive)


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_one_line_map_gets_the_new_key_after_its_last_item_and_a_module_file_is_edited(root: Path) -> None:
    _write(root, "main.tf", 'module "m" {\n  source = "./mod"\n}\n')
    mod = _write(root, "mod/main.tf", """
        resource "terraform_data" "d" {
          input = { team = "a" } // who owns it
        }
        """)
    change = _change("module.m.terraform_data.d", {"input": {"team": "a"}}, {"input": {"team": "b", "env": "dev"}})
    adoption = _adopt(root, [change])
    assert not adoption.notes, adoption.notes
    _, new = adoption.files[mod.resolve()]
    assert 'input = { team = "b", env = "dev" } // who owns it' in new


def test_a_sensitive_value_is_written_only_when_allowed(root: Path) -> None:
    main = _write(root, "main.tf", """
        resource "terraform_data" "d" {
          input = "old-secret"
        }
        """)
    change = _change("terraform_data.d", {"input": mark("old-secret")}, {"input": mark("new-secret")})
    refused = _adopt(root, [change])
    assert refused.files == {} and refused.unresolved
    assert "is sensitive: not written" in refused.notes[0].message
    assert "new-secret" not in repr(refused.notes)
    allowed = _adopt(root, [change], allow_sensitive=True)
    assert 'input = "new-secret"' in allowed.files[main.resolve()][1]
    assert [e.shown for e in allowed.edits] == ["(sensitive value)"]  # the report shows it masked
    _, shown = allowed.shown_files[main.resolve()]  # and so does the --dry-run patch
    assert "new-secret" not in shown and "(sensitive value)" in shown


def test_instances_that_drifted_apart_are_reported_not_written(root: Path) -> None:
    _write(root, "main.tf", """
        resource "terraform_data" "d" {
          count = 2
          input = "same"
        }
        """)
    changes = [_change("terraform_data.d[0]", {"input": "same"}, {"input": "x"}),
               _change("terraform_data.d[1]", {"input": "same"}, {"input": "y"})]
    for c in changes:
        c.name, c.index = "d", int(c.address[-2])
    adoption = _adopt(root, changes)
    assert adoption.files == {}
    assert all("one literal cannot hold them all" in n.message for n in adoption.notes)


def test_an_argument_of_a_nested_block_is_found_by_its_block_s_position(root: Path) -> None:
    main = _write(root, "main.tf", """
        resource "aws_s3_bucket_lifecycle_configuration" "l" {
          bucket = "b"
          rule {
            id     = "first"
            status = "Enabled"
          }
          rule {
            id     = "second"
            status = "Enabled" # on while we test
          }
        }
        """)
    before = {"bucket": "b", "rule": [{"id": "first", "status": "Enabled"}, {"id": "second", "status": "Enabled"}]}
    after = {"bucket": "b", "rule": [{"id": "first", "status": "Enabled"}, {"id": "second", "status": "Disabled"}]}
    adoption = _adopt(root, [_change("aws_s3_bucket_lifecycle_configuration.l", before, after)])
    assert not adoption.notes, adoption.notes
    _, new = adoption.files[main.resolve()]
    assert new.count('"Enabled"') == 1
    assert 'status = "Disabled" # on while we test' in new


def test_a_tf_json_file_is_edited_in_place_and_a_template_string_is_left_alone(root: Path) -> None:
    text = ('{\n  "resource": {\n    "aws_s3_bucket": {\n      "logs": {\n        "bucket": "b",\n'
            '        "tags": {\n          "team": "payments",\n          "env": "${var.env}"\n        }\n'
            '      }\n    }\n  },\n  "variable": {"env": {"default": "prod"}}\n}\n')
    main = root / "main.tf.json"
    main.write_text(text)
    before = {"bucket": "b", "tags": {"team": "payments", "env": "prod"}}
    after = {"bucket": "b", "tags": {"team": "search", "env": "dev", "owner": "ops"}}
    adoption = _adopt(root, [_change("aws_s3_bucket.logs", before, after)])
    _, new = adoption.files[main.resolve()]
    assert new == text.replace('"payments"', '"search"').replace(
        '"env": "${var.env}"', '"env": "${var.env}",\n          "owner": "ops"')
    [note] = [n for n in adoption.notes if n.remains]
    assert note.name == 'tags["env"]' and "comes from var.env (default at main.tf.json:13)" in note.message
    assert 'reality has "dev"' in note.message


def test_a_tf_yaml_file_keeps_its_comments_and_plain_scalars(root: Path) -> None:
    text = textwrap.dedent("""
        resource:
          aws_s3_bucket:
            logs:
              bucket: b
              tags:
                team: payments # owned by payments
                env: prod
        """).lstrip()
    main = root / "main.tf.yaml"
    main.write_text(text)
    before = {"bucket": "b", "tags": {"team": "payments", "env": "prod"}}
    after = {"bucket": "b", "tags": {"team": "search", "env": "prod", "owner": "ops"}}
    adoption = _adopt(root, [_change("aws_s3_bucket.logs", before, after)])
    assert not [n for n in adoption.notes if n.remains], adoption.notes
    _, new = adoption.files[main.resolve()]
    assert new == text.replace("team: payments", "team: search").replace(
        "env: prod\n", 'env: prod\n        owner: "ops"\n')
