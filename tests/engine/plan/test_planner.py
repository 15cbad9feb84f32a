"""``make_plan``: the change each instance gets, against a real local state and real adapters.

Each test applies a first configuration (so the state holds real objects), edits it, and plans
again; what is asserted is what ``ctl plan`` would show: the actions, the reasons, the values.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.plan.planner import PlanOptions, config_hash
from engine.state.encode import encode_state
from tests.engine.pipeline import Project, actions, change, new_project
from vocab.errors import DiagnosticsError, UsageError
from vocab.values import Unknown, contains_unknown, is_marked, unmark


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return new_project(tmp_path / "cfg")


FOUR = """
resource "demo_thing" "keep" { name = "keep" }
resource "demo_thing" "edit" {
  name  = "edit"
  value = "one"
}
resource "demo_thing" "rename" { name = "old" }
resource "demo_thing" "gone" { name = "gone" }
"""


def test_each_kind_of_change_gets_its_action_and_reason(project: Project) -> None:
    project.write(FOUR)
    project.apply()
    project.write("""
        resource "demo_thing" "keep" { name = "keep" }
        resource "demo_thing" "edit" {
          name  = "edit"
          value = "two"
        }
        resource "demo_thing" "rename" { name = "new" }
        resource "demo_thing" "fresh" { name = "fresh" }
    """)
    plan = project.plan().plan
    assert actions(plan) == {
        "demo_thing.edit": "update", "demo_thing.fresh": "create", "demo_thing.gone": "delete",
        "demo_thing.keep": "no-op", "demo_thing.rename": "replace",
    }
    rename = change(plan, "demo_thing.rename")
    assert rename.action_reason == "replace_because_cannot_update" and rename.replace_paths == [["name"]]
    assert change(plan, "demo_thing.gone").action_reason == "delete_because_no_resource_config"
    edit = change(plan, "demo_thing.edit")
    assert (edit.before["value"], edit.after["value"]) == ("one", "two")
    assert edit.after["id"] == "id-edit"  # computed attributes keep their value on an update
    assert plan.counts() == (2, 1, 2) and plan.has_changes


def test_nothing_to_do_after_an_apply(project: Project) -> None:
    project.write(FOUR)
    project.apply()
    plan = project.plan().plan
    assert set(actions(plan).values()) == {"no-op"} and not plan.has_changes


def test_a_native_adapters_replace_on_argument_forces_replacement(project: Project, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    project.write(f'resource "local_file" "f" {{\n  filename = "{out}"\n  content = "a"\n}}\n')
    project.apply()
    project.write(f'resource "local_file" "f" {{\n  filename = "{out}"\n  content = "b"\n}}\n')
    replaced = change(project.plan().plan, "local_file.f")
    assert replaced.actions == ("delete", "create") and replaced.replace_paths == [["content"]]
    assert isinstance(replaced.after["id"], Unknown)  # the new file's checksum is known after apply


def test_replace_by_request_and_create_before_destroy(project: Project) -> None:
    project.write("""
        resource "demo_thing" "a" { name = "a" }
        resource "demo_thing" "b" {
          name = "b"
          lifecycle { create_before_destroy = true }
        }
    """)
    project.apply()
    plan = project.plan(replace=["demo_thing.a", "demo_thing.b"]).plan
    assert actions(plan) == {"demo_thing.a": "replace", "demo_thing.b": "replace (create first)"}
    assert {c.action_reason for c in plan.changes} == {"replace_by_request"}
    assert change(plan, "demo_thing.b").create_before_destroy


def test_ignore_changes_keeps_the_stored_value(project: Project) -> None:
    project.write("""
        resource "demo_thing" "a" {
          name  = "a"
          value = "one"
          lifecycle { ignore_changes = [value] }
        }
    """)
    project.apply()
    project.write("""
        resource "demo_thing" "a" {
          name  = "a"
          value = "two"
          lifecycle { ignore_changes = [value] }
        }
    """)
    assert actions(project.plan().plan) == {"demo_thing.a": "no-op"}
    project.write("""
        resource "demo_thing" "a" {
          name  = "b"
          value = "two"
          lifecycle { ignore_changes = all }
        }
    """)
    assert actions(project.plan().plan) == {"demo_thing.a": "no-op"}


def test_values_known_only_after_apply_are_unknown_in_the_plan(project: Project) -> None:
    project.write("""
        resource "demo_thing" "a" { name = "a" }
        resource "demo_thing" "b" {
          name  = "b"
          value = demo_thing.a.id
        }
        output "b_value" { value = demo_thing.b.value }
        output "fixed" { value = "x" }
    """)
    plan = project.plan().plan
    assert isinstance(change(plan, "demo_thing.b").after["value"], Unknown)
    assert change(plan, "demo_thing.b").dependencies == ["demo_thing.a"]
    assert contains_unknown(plan.outputs["b_value"].after)
    assert plan.outputs["fixed"].after == "x" and plan.outputs["fixed"].actions == ("create",)
    project.apply()
    plan = project.plan().plan
    assert plan.outputs["b_value"].actions == ("no-op",) and not plan.has_changes


def test_dependencies_are_recorded_transitively_as_terraform_records_them(project: Project) -> None:
    project.write("""
        resource "demo_thing" "a" { name = "a" }
        resource "demo_thing" "b" { name = demo_thing.a.id }
        locals { via = demo_thing.b.id }
        resource "demo_thing" "c" { name = local.via }
    """)
    plan = project.plan().plan
    assert change(plan, "demo_thing.c").dependencies == ["demo_thing.a", "demo_thing.b"]
    assert change(plan, "demo_thing.a").dependencies == []


def test_sensitive_values_stay_marked_in_the_plan(project: Project) -> None:
    project.write("""
        variable "secret" {
          type      = string
          sensitive = true
          default   = "hunter2"
        }
        resource "demo_thing" "a" {
          name  = "a"
          value = var.secret
        }
        resource "random_password" "p" { length = 12 }
        resource "terraform_data" "t" { input = var.secret }
        output "s" {
          value     = var.secret
          sensitive = true
        }
    """)
    plan = project.plan().plan
    assert is_marked(plan.variables["secret"]) and unmark(plan.variables["secret"])[0] == "hunter2"
    assert is_marked(change(plan, "demo_thing.a").after["value"])
    assert is_marked(change(plan, "terraform_data.t").after["output"])  # follows its sensitive input
    assert plan.outputs["s"].sensitive
    project.apply()
    again = project.plan().plan
    assert is_marked(change(again, "random_password.p").before["result"])  # sensitive by its adapter
    assert is_marked(change(again, "demo_thing.a").before["value"])  # remembered in state
    assert is_marked(change(again, "terraform_data.t").before["output"])  # follows input again when read
    assert not again.has_changes


def test_a_target_brings_its_dependencies_and_nothing_else(project: Project) -> None:
    project.write("""
        resource "demo_thing" "base" { name = "base" }
        resource "demo_thing" "app" {
          name  = "app"
          value = demo_thing.base.id
        }
        resource "demo_thing" "other" { name = "other" }
    """)
    plan = project.plan(targets=["demo_thing.app"]).plan
    assert actions(plan) == {"demo_thing.app": "create", "demo_thing.base": "create"}
    assert plan.targets == ["demo_thing.app"]


def test_an_exclude_leaves_out_its_dependents_too(project: Project) -> None:
    project.write("""
        resource "demo_thing" "base" { name = "base" }
        resource "demo_thing" "app" {
          name  = "app"
          value = demo_thing.base.id
        }
        resource "demo_thing" "other" { name = "other" }
    """)
    assert actions(project.plan(excludes=["demo_thing.base"]).plan) == {"demo_thing.other": "create"}


def test_a_targeted_plan_does_not_delete_objects_outside_the_target(project: Project) -> None:
    project.write(FOUR)
    project.apply()
    project.write('resource "demo_thing" "keep" { name = "keep" }\n')
    assert actions(project.plan(targets=["demo_thing.keep"]).plan) == {"demo_thing.keep": "no-op"}
    assert actions(project.plan(targets=["demo_thing.gone"]).plan) == {"demo_thing.gone": "delete"}


def test_malformed_target_and_replace_addresses_are_usage_errors(project: Project) -> None:
    project.write(FOUR)
    with pytest.raises(UsageError, match="--target"):
        project.plan(targets=["demo_thing."])
    with pytest.raises(UsageError, match="--replace"):
        project.plan(replace=["module.x"])


def test_destroy_plans_every_managed_object_and_output_for_deletion(project: Project) -> None:
    project.write(FOUR + 'output "o" { value = demo_thing.keep.id }\n')
    project.apply()
    plan = project.plan(mode="destroy").plan
    assert set(actions(plan).values()) == {"delete"} and len(plan.changes) == 4
    assert plan.outputs["o"].actions == ("delete",) and plan.mode == "destroy"


def test_prevent_destroy_refuses_a_plan_that_would_destroy(project: Project) -> None:
    protected = """
        resource "demo_thing" "a" {
          name = "a"
          lifecycle { prevent_destroy = true }
        }
    """
    project.write(protected)
    project.apply()
    with pytest.raises(DiagnosticsError, match="cannot be destroyed"):
        project.plan(mode="destroy")
    with pytest.raises(DiagnosticsError, match="cannot be destroyed"):
        project.plan(replace=["demo_thing.a"])
    assert actions(project.plan().plan) == {"demo_thing.a": "no-op"}


def test_removed_instances_say_why_they_go(project: Project) -> None:
    project.write("""
        resource "demo_thing" "n" {
          count = 2
          name  = "n${count.index}"
        }
        resource "demo_thing" "m" {
          for_each = toset(["x", "y"])
          name     = each.key
        }
    """)
    project.apply()
    project.write("""
        resource "demo_thing" "n" {
          count = 1
          name  = "n${count.index}"
        }
        resource "demo_thing" "m" {
          for_each = toset(["x"])
          name     = each.key
        }
    """)
    plan = project.plan().plan
    reasons = {c.address: c.action_reason for c in plan.changes if c.actions == ("delete",)}
    assert reasons == {"demo_thing.n[1]": "delete_because_count_index",
                       'demo_thing.m["y"]': "delete_because_each_key"}


def test_a_moved_block_renames_without_replacing(project: Project) -> None:
    project.write('resource "demo_thing" "old" { name = "a" }\n')
    project.apply()
    project.write("""
        resource "demo_thing" "new" { name = "a" }
        moved {
          from = demo_thing.old
          to   = demo_thing.new
        }
    """)
    plan = project.plan().plan
    assert actions(plan) == {"demo_thing.new": "no-op"}
    assert change(plan, "demo_thing.new").previous_address == "demo_thing.old"
    assert plan.has_changes  # only an apply records the new address
    project.apply()
    assert [str(a) for a, _ in project.state().instances()] == ["demo_thing.new"]


def test_refresh_finds_an_object_deleted_outside_and_plans_it_again(project: Project, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    project.write(f'resource "local_file" "f" {{\n  filename = "{out}"\n  content = "a"\n}}\n')
    project.apply()
    out.unlink()
    result = project.plan()
    assert actions(result.plan) == {"local_file.f": "create"}
    assert [d.address for d in result.plan.drift] == ["local_file.f"]
    assert actions(project.plan(refresh=False).plan) == {"local_file.f": "no-op"}  # state taken as is
    refresh_only = project.plan(mode="refresh-only").plan
    assert refresh_only.changes == [] and refresh_only.has_changes  # only the state would change


def test_a_plan_leaves_the_state_it_was_given_as_it_was(project: Project, tmp_path: Path) -> None:
    """Refresh gives the state back uncopied when no object changed; what the plan then adds to
    its prior state (a data source's read) must not reach the caller's state."""
    (tmp_path / "in.txt").write_text("hello")
    project.write('resource "terraform_data" "t" {\n  input = "x"\n}\n')
    project.apply()
    manager = project.manager()
    state = manager.load()
    stored = encode_state(state)
    unchanged = project._plan(manager, state, PlanOptions())
    assert actions(unchanged.plan) == {"terraform_data.t": "no-op"}
    assert unchanged.plan.prior_state is state  # nothing drifted, nothing read: no copy of the state
    project.write('resource "terraform_data" "t" {\n  input = "x"\n}\n'
                  f'data "local_file" "in" {{\n  filename = "{tmp_path / "in.txt"}"\n}}\n')
    read = project._plan(manager, state, PlanOptions())
    assert read.plan.prior_state.instance("data.local_file.in") is not None
    assert state.instance("data.local_file.in") is None
    assert encode_state(state) == stored


def test_output_changes_against_the_stored_outputs(project: Project) -> None:
    project.write('output "a" { value = 1 }\noutput "b" { value = 2 }\n')
    project.apply()
    project.write('output "a" { value = 1 }\noutput "c" { value = 3 }\n')
    outputs = project.plan().plan.outputs
    assert {n: o.actions[0] for n, o in outputs.items()} == {"a": "no-op", "b": "delete", "c": "create"}


def test_plan_records_what_a_saved_plan_needs(project: Project) -> None:
    project.write(FOUR)
    first = project.plan().plan
    assert first.serial == -1 and first.lineage  # no state stored yet
    project.apply()
    stored = project.manager()
    stored.load()
    second = project.plan().plan
    assert (second.lineage, second.serial) == (stored.lineage, stored.serial)
    assert second.config_hash == first.config_hash
    (project.root / "extra.tf").write_text('output "x" { value = 1 }\n')
    assert project.plan().plan.config_hash != first.config_hash


def test_a_plans_configuration_view_is_built_when_asked_for(project: Project) -> None:
    project.write(FOUR)
    plan = project.plan().plan
    assert plan.configuration == {} and plan.configuration_later is not None  # nothing built yet
    resources = plan.configuration_json()["root_module"]["resources"]
    assert sorted(r["address"] for r in resources) == [f"demo_thing.{n}" for n in ("edit", "gone", "keep", "rename")]
    assert plan.configuration_json() is plan.configuration and plan.configuration_later is None  # built once


def test_config_hash_covers_module_files(project: Project) -> None:
    project.write('module "m" { source = "./m" }\n', **{"m/main.tf": 'output "o" { value = 1 }\n'})
    root = project.plan().root
    before = config_hash(root)
    (project.root / "m" / "main.tf").write_text('output "o" { value = 2 }\n')
    assert config_hash(project.plan().root) != before


def test_configuration_errors_are_reported_together(project: Project) -> None:
    project.write("""
        resource "demo_thing" "a" { value = "no name" }
        resource "demo_thing" "b" {
          name = "b"
          nope = true
        }
    """)
    with pytest.raises(DiagnosticsError) as err:
        project.plan()
    addresses = {d.address for d in err.value.diagnostics() if d.severity == "error"}
    assert addresses == {"demo_thing.a", "demo_thing.b"}
    assert project.cloud.calls == []


def test_a_data_source_read_waits_with_terraforms_reason(project: Project) -> None:
    """Unknown configuration is named first; a pending dependency only when the configuration is known."""
    project.write("""
        resource "demo_thing" "src" { name = "src" }
        data "demo_thing" "unknown_config" { name = demo_thing.src.id }
        data "demo_thing" "known_config" {
          name       = "src"
          depends_on = [demo_thing.src]
        }
    """)
    plan = project.plan().plan
    assert change(plan, "data.demo_thing.unknown_config").action_reason == "read_because_config_unknown"
    assert change(plan, "data.demo_thing.known_config").action_reason == "read_because_dependency_pending"


def test_refresh_logs_each_object_read_only_at_debug(project: Project, caplog: pytest.LogCaptureFixture) -> None:
    """``CTL_LOG=debug`` shows how long each object's read took; at any other level the record is
    not made at all (at 50,000 objects it cost more than a state-only read)."""
    import logging

    project.write(FOUR)
    project.apply()
    with caplog.at_level(logging.INFO, logger="engine.plan.refresh"):
        project.plan()
    assert not [r for r in caplog.records if r.name == "engine.plan.refresh"]
    with caplog.at_level(logging.DEBUG, logger="engine.plan.refresh"):
        project.plan()
    records = {r.address: r for r in caplog.records if r.name == "engine.plan.refresh"}
    assert sorted(records) == ["demo_thing.edit", "demo_thing.gone", "demo_thing.keep", "demo_thing.rename"]
    assert all(r.ok and r.seconds >= 0 and r.getMessage().startswith(f"refreshed {a} in ")
               for a, r in records.items())
