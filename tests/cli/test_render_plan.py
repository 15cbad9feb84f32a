"""The human plan reads like Terraform's, and never shows a secret."""

from __future__ import annotations

from cli.views.plan import render_drift, render_instance, render_plan, summary_line
from engine.plan.model import (
    ACTIONS_CREATE,
    ACTIONS_DELETE,
    ACTIONS_NOOP,
    ACTIONS_READ,
    ACTIONS_REPLACE,
    ACTIONS_REPLACE_CBD,
    ACTIONS_UPDATE,
    OutputChange,
    Plan,
    ResourceChange,
)
from engine.state.address import InstanceAddress
from engine.state.model import State
from vocab.values import UNKNOWN, Marked

RANDOM = 'provider["registry.terraform.io/hashicorp/random"]'


def rc(
    address: str, actions: tuple[str, ...], before: dict | None, after: dict | None, **kw
) -> ResourceChange:
    addr = InstanceAddress.parse(address)
    return ResourceChange(
        address=address,
        module_address=addr.module_str,
        mode=addr.mode,
        type=addr.type,
        name=addr.name,
        index=kw.pop("index", addr.key),
        provider=RANDOM,
        actions=actions,
        before=before,
        after=after,
        **kw,
    )


def plan_of(*changes: ResourceChange, **kw) -> Plan:
    return Plan(
        changes=list(changes),
        drift=kw.pop("drift", []),
        outputs=kw.pop("outputs", {}),
        prior_state=State(serial=1, lineage="l"),
        lineage="l",
        serial=1,
        config_hash="h",
        **kw,
    )


def block(text: str) -> str:
    """Expected output written at the test's indentation (8 spaces), with that indentation removed."""
    return "\n".join(line[8:] for line in text.strip("\n").rstrip().split("\n"))


def test_a_create_plan_in_full() -> None:
    plan = plan_of(
        rc(
            "random_id.suffix",
            ACTIONS_CREATE,
            None,
            {"b64_std": UNKNOWN, "byte_length": 4, "id": UNKNOWN, "keepers": None},
        )
    )
    assert (
        render_plan(plan, color=False)
        == block(
            """
        ctl used the selected adapters to generate the following execution plan. Resource actions are
        indicated with the following symbols:
          + create

        ctl will perform the following actions:

          # random_id.suffix will be created
          + resource "random_id" "suffix" {
              + b64_std     = (known after apply)
              + byte_length = 4
              + id          = (known after apply)
            }

        Plan: 1 to add, 0 to change, 0 to destroy.
        """
        )
        + "\n"
    )


def test_an_update_shows_changes_and_identifying_attributes_and_counts_the_rest() -> None:
    before = {"id": "abc", "length": 8, "special": True, "upper": True, "lower": True}
    after = {"id": "abc", "length": 12, "special": False, "upper": True, "lower": True}
    text = render_plan(plan_of(rc("random_string.s", ACTIONS_UPDATE, before, after)), color=False)
    assert (
        block(
            """
          # random_string.s will be updated in-place
          ~ resource "random_string" "s" {
                id      = "abc"
              ~ length  = 8 -> 12
              ~ special = true -> false
                # (2 unchanged attributes hidden)
            }
        """
        )
        in text
    )
    assert "  ~ update in place\n" in text
    assert "Plan: 0 to add, 1 to change, 0 to destroy." in text


def test_a_replace_marks_the_attribute_that_forces_it() -> None:
    c = rc(
        "local_file.cfg[0]",
        ACTIONS_REPLACE,
        {
            "content": "a",
            "id": "3f",
            "filename": "f",
            "file_permission": "0644",
            "directory_permission": "0755",
        },
        {
            "content": "b",
            "id": UNKNOWN,
            "filename": "f",
            "file_permission": "0644",
            "directory_permission": "0755",
        },
        index=0,
        replace_paths=[["content"]],
    )
    text = render_plan(plan_of(c), color=False)
    assert (
        block(
            """
          # local_file.cfg[0] must be replaced
        -/+ resource "local_file" "cfg" {
              ~ content              = "a" -> "b" # forces replacement
              ~ id                   = "3f" -> (known after apply)
                # (3 unchanged attributes hidden)
            }
        """
        )
        in text
    )
    assert "-/+ destroy and then create replacement\n" in text
    assert "Plan: 1 to add, 0 to change, 1 to destroy." in text


def test_create_before_destroy_uses_its_own_symbol() -> None:
    c = rc("random_id.a", ACTIONS_REPLACE_CBD, {"id": "x"}, {"id": UNKNOWN})
    text = render_plan(plan_of(c), color=False)
    assert "+/- create replacement and then destroy\n" in text
    assert '+/- resource "random_id" "a" {' in text


def test_a_delete_shows_every_attribute_going_to_null_and_why() -> None:
    c = rc(
        "random_id.x",
        ACTIONS_DELETE,
        {"id": "abc", "byte_length": 4, "keepers": None},
        None,
        action_reason="delete_because_no_resource_config",
    )
    text = render_plan(plan_of(c), color=False)
    assert (
        block(
            """
          # random_id.x will be destroyed
          # (because random_id.x is not in configuration)
          - resource "random_id" "x" {
              - byte_length = 4 -> null
              - id          = "abc" -> null
            }
        """
        )
        in text
    )
    assert "Plan: 0 to add, 0 to change, 1 to destroy." in text


def test_delete_reasons_for_count_and_for_each() -> None:
    by_key = rc(
        'random_id.x["k"]',
        ACTIONS_DELETE,
        {"id": "a"},
        None,
        index="k",
        action_reason="delete_because_each_key",
    )
    by_index = rc(
        "random_id.y[1]",
        ACTIONS_DELETE,
        {"id": "b"},
        None,
        index=1,
        action_reason="delete_because_count_index",
    )
    text = render_plan(plan_of(by_key, by_index), color=False)
    assert '  # random_id.x["k"] will be destroyed\n  # (because key ["k"] is not in for_each map)\n' in text
    assert "  # random_id.y[1] will be destroyed\n  # (because index [1] is out of range for count)\n" in text


def test_a_data_source_read_during_apply() -> None:
    c = rc(
        "data.local_file.cfg",
        ACTIONS_READ,
        None,
        {"content": UNKNOWN, "filename": "a.txt"},
        action_reason="read_because_config_unknown",
    )
    text = render_plan(plan_of(c), color=False)
    assert (
        block(
            """
          # data.local_file.cfg will be read during apply
          # (config refers to values not yet known)
         <= data "local_file" "cfg" {
              + content  = (known after apply)
              + filename = "a.txt"
            }
        """
        )
        in text
    )
    assert " <= read (data resources)\n" in text


def test_a_moved_resource() -> None:
    c = rc(
        "random_id.new",
        ACTIONS_NOOP,
        {"id": "a", "hex": "0f"},
        {"id": "a", "hex": "0f"},
        previous_address="random_id.old",
    )
    text = render_plan(plan_of(c), color=False)
    assert (
        block(
            """
          # random_id.old has moved to random_id.new
            resource "random_id" "new" {
                id  = "a"
                # (1 unchanged attribute hidden)
            }
        """
        )
        in text
    )
    assert "Plan: 0 to add, 0 to change, 0 to destroy." in text


def test_a_moved_and_updated_resource_says_where_it_came_from() -> None:
    c = rc("random_id.new", ACTIONS_UPDATE, {"v": 1}, {"v": 2}, previous_address="random_id.old")
    text = render_plan(plan_of(c), color=False)
    assert "  # random_id.new will be updated in-place\n  # (moved from random_id.old)\n" in text


def test_nested_maps_and_lists_on_create() -> None:
    c = rc(
        "random_id.a",
        ACTIONS_CREATE,
        None,
        {"keepers": {"b": "2", "a": "1"}, "zones": ["a", "b"], "empty": [], "rules": [{"port": 80}]},
    )
    assert block(
        """
          + resource "random_id" "a" {
              + empty   = []
              + keepers = {
                  + "a" = "1"
                  + "b" = "2"
                }
              + rules   = [
                  + {
                      + "port" = 80
                    },
                ]
              + zones   = [
                  + "a",
                  + "b",
                ]
            }
        """
    ) in render_plan(plan_of(c), color=False)


def test_nested_changes_hide_unchanged_elements() -> None:
    """Unchanged list elements are counted, but for the one next to a change, shown as context."""
    c = rc(
        "random_id.a",
        ACTIONS_UPDATE,
        {"keepers": {"a": "1", "b": "2", "c": "3"}, "zones": ["a", "b", "c"]},
        {"keepers": {"a": "1", "b": "9", "d": "4"}, "zones": ["a", "b", "x"]},
    )
    assert block(
        """
          ~ resource "random_id" "a" {
              ~ keepers = {
                  ~ "b" = "2" -> "9"
                  - "c" = "3" -> null
                  + "d" = "4"
                    # (1 unchanged element hidden)
                }
              ~ zones   = [
                    # (1 unchanged element hidden)
                    "b",
                  - "c",
                  + "x",
                ]
            }
        """
    ) in render_plan(plan_of(c), color=False)


def test_an_object_removed_before_a_kept_one_is_shown_as_removed() -> None:
    """An object element pairs with the one at its place only when that one is not kept: removing
    the first of two indexes is a removal, not a change of the first into the second (the kept one
    is shown beside the change, as Terraform shows one unchanged element either side)."""
    gone, kept = {"name": "by_zone", "keys": "zone"}, {"name": "by_owner", "keys": "owner"}
    c = rc("random_id.a", ACTIONS_UPDATE, {"indexes": [gone, kept]}, {"indexes": [kept]})
    assert block(
        """
          ~ resource "random_id" "a" {
              ~ indexes = [
                  - {
                      - "keys" = "zone"
                      - "name" = "by_zone"
                    },
                    {
                        "keys" = "owner"
                        "name" = "by_owner"
                    },
                ]
            }
        """
    ) in render_plan(plan_of(c), color=False)


def test_multi_line_strings_are_heredocs() -> None:
    create = rc("local_file.a", ACTIONS_CREATE, None, {"content": "one\ntwo\n"})
    update = rc("local_file.b", ACTIONS_UPDATE, {"content": "one\ntwo\n"}, {"content": "one\n2\n"})
    text = render_plan(plan_of(create, update), color=False)
    assert (
        block(
            """
          + resource "local_file" "a" {
              + content = <<-EOT
                    one
                    two
                EOT
            }
        """
        )
        in text
    )
    assert (
        block(
            """
          ~ resource "local_file" "b" {
              ~ content = <<-EOT
                    one
                  - two
                  + 2
                EOT
            }
        """
        )
        in text
    )


def test_strings_are_quoted_json_style() -> None:
    c = rc("local_file.a", ACTIONS_CREATE, None, {"content": 'say "hi"\tnow', "n": 1.5, "flag": False})
    text = render_plan(plan_of(c), color=False)
    assert '+ content = "say \\"hi\\"\\tnow"\n' in text
    assert "+ flag    = false\n" in text
    assert "+ n       = 1.5\n" in text


def test_secrets_never_appear() -> None:
    create = rc(
        "random_password.a",
        ACTIONS_CREATE,
        None,
        {"result": Marked("hunter2"), "nested": {"token": Marked("tok-9")}},
    )
    update = rc(
        "random_password.b", ACTIONS_UPDATE, {"result": Marked("old-pw")}, {"result": Marked("new-pw")}
    )
    delete = rc("random_password.c", ACTIONS_DELETE, {"result": Marked("gone-pw")}, None)
    whole = rc("random_password.d", ACTIONS_CREATE, None, {"cfg": Marked({"password": "deep-pw"})})
    outputs = {"pw": OutputChange("pw", ACTIONS_CREATE, None, "out-pw", sensitive=True)}
    plan = plan_of(create, update, delete, whole, outputs=outputs)
    for color in (False, True):
        text = render_plan(plan, color=color)
        for secret in ("hunter2", "tok-9", "old-pw", "new-pw", "gone-pw", "deep-pw", "out-pw"):
            assert secret not in text
    text = render_plan(plan, color=False)
    assert "+ result = (sensitive value)\n" in text
    assert '+ "token" = (sensitive value)\n' in text
    assert "~ result = (sensitive value)\n" in text
    assert "- result = (sensitive value) -> null\n" in text
    assert "+ pw = (sensitive value)\n" in text


def test_an_unknown_replacing_a_known_value() -> None:
    c = rc("random_id.a", ACTIONS_UPDATE, {"id": "x", "tags": {"a": "b"}}, {"id": UNKNOWN, "tags": UNKNOWN})
    assert block(
        """
          ~ resource "random_id" "a" {
              ~ id   = "x" -> (known after apply)
              ~ tags = {
                  - "a" = "b"
                } -> (known after apply)
            }
        """
    ) in render_plan(plan_of(c), color=False)


def test_output_changes_after_the_summary() -> None:
    outputs = {
        "id": OutputChange("id", ACTIONS_CREATE, None, UNKNOWN),
        "name": OutputChange("name", ACTIONS_UPDATE, "a", "b"),
        "old": OutputChange("old", ACTIONS_DELETE, "x", None),
        "same": OutputChange("same", ACTIONS_NOOP, "s", "s"),
    }
    text = render_plan(
        plan_of(rc("random_id.a", ACTIONS_CREATE, None, {"n": 1}), outputs=outputs), color=False
    )
    assert text.endswith(
        "Plan: 1 to add, 0 to change, 0 to destroy.\n"
        "\n"
        "Changes to Outputs:\n"
        "  + id   = (known after apply)\n"
        '  ~ name = "a" -> "b"\n'
        '  - old  = "x" -> null\n'
    )


def test_only_output_changes() -> None:
    outputs = {"name": OutputChange("name", ACTIONS_CREATE, None, "n")}
    text = render_plan(plan_of(outputs=outputs), color=False)
    assert text.startswith('Changes to Outputs:\n  + name = "n"\n')
    assert "without changing any real infrastructure" in text
    assert "resource actions" not in text.lower()


def test_no_changes() -> None:
    plan = plan_of(rc("random_id.a", ACTIONS_NOOP, {"id": "x"}, {"id": "x"}))
    assert summary_line(plan) == "No changes. Your infrastructure matches the configuration."
    text = render_plan(plan, color=False)
    assert text.startswith("No changes. Your infrastructure matches the configuration.\n")
    assert "Plan:" not in text and "random_id.a" not in text


def test_summary_counts_a_replace_as_one_add_and_one_destroy() -> None:
    plan = plan_of(
        rc("random_id.a", ACTIONS_CREATE, None, {}),
        rc("random_id.b", ACTIONS_UPDATE, {"v": 1}, {"v": 2}),
        rc("random_id.c", ACTIONS_UPDATE, {"v": 1}, {"v": 2}),
        rc("random_id.d", ACTIONS_REPLACE, {"v": 1}, {"v": 2}),
        rc("random_id.e", ACTIONS_DELETE, {"v": 1}, None),
    )
    assert summary_line(plan) == "Plan: 2 to add, 2 to change, 2 to destroy."


def test_drift_section_with_its_warning() -> None:
    drift = [
        rc("random_id.a", ACTIONS_UPDATE, {"id": "x", "v": 1}, {"id": "x", "v": 2}),
        rc("random_id.b", ACTIONS_DELETE, {"id": "y"}, None),
    ]
    expected = (
        block(
            """
        Note: Objects have changed outside of ctl

        ctl detected the following changes made outside of ctl since the last "ctl apply" which may have affected this plan:

          # random_id.a has changed
          ~ resource "random_id" "a" {
                id = "x"
              ~ v  = 1 -> 2
            }

          # random_id.b has been deleted
          - resource "random_id" "b" {
              - id = "y" -> null
            }

        Unless you have made equivalent changes to your configuration, or ignored the relevant attributes using ignore_changes, the following plan may include actions to undo or respond to these changes.
        """
        )
        + "\n"
    )
    assert render_drift(drift, color=False) == expected


def test_the_plan_itself_leaves_drift_to_the_drift_section() -> None:
    drift = [rc("random_id.a", ACTIONS_UPDATE, {"v": 1}, {"v": 2})]
    text = render_plan(plan_of(rc("random_id.c", ACTIONS_CREATE, None, {}), drift=drift), color=False)
    assert text.startswith("ctl used the selected adapters")
    assert "random_id.a" not in text and "outside of ctl" not in text


def test_colour_only_when_asked() -> None:
    plan = plan_of(
        rc("random_id.a", ACTIONS_REPLACE, {"v": 1}, {"v": 2}, replace_paths=[["v"]]),
        rc("random_id.b", ACTIONS_DELETE, {"v": 1}, None),
        drift=[rc("random_id.c", ACTIONS_UPDATE, {"v": 1}, {"v": 2})],
        outputs={"o": OutputChange("o", ACTIONS_CREATE, None, 1)},
    )
    assert "\x1b" not in render_plan(plan, color=False)
    assert "\x1b" not in render_drift(plan.drift, color=False)
    assert "\x1b" not in render_instance("random_id.a", {"v": 1}, color=False)
    coloured = render_plan(plan, color=True)
    assert "\x1b[31m-\x1b[0m/\x1b[32m+\x1b[0m resource" in coloured
    assert "\x1b[31m # forces replacement\x1b[0m" in coloured


def test_state_show_block() -> None:
    attrs = {"id": "x", "keepers": {"a": "1"}, "result": Marked("hunter2"), "zones": ["a"], "gone": None}
    assert (
        render_instance('random_password.db["main"]', attrs, color=False)
        == block(
            """
        resource "random_password" "db" {
            id      = "x"
            keepers = {
                "a" = "1"
            }
            result  = (sensitive value)
            zones   = [
                "a",
            ]
        }
        """
        )
        + "\n"
    )
    assert render_instance("data.local_file.f", {"content": "c"}, color=False).startswith(
        'data "local_file" "f" {\n'
    )


def test_replace_reasons_change_the_headline() -> None:
    tainted = rc("random_id.a", ACTIONS_REPLACE, {"v": 1}, {"v": 1}, action_reason="replace_because_tainted")
    asked = rc("random_id.b", ACTIONS_REPLACE, {"v": 1}, {"v": 1}, action_reason="replace_by_request")
    text = render_plan(plan_of(tainted, asked), color=False)
    assert "  # random_id.a is tainted, so must be replaced\n" in text
    assert "  # random_id.b will be replaced, as requested\n" in text


def test_a_resource_in_a_module_is_named_by_its_full_address() -> None:
    c = rc('module.net["eu"].random_id.a', ACTIONS_CREATE, None, {"n": 1})
    text = render_plan(plan_of(c), color=False)
    assert '  # module.net["eu"].random_id.a will be created\n  + resource "random_id" "a" {\n' in text


def test_changed_objects_in_a_list_are_diffed_in_place() -> None:
    c = rc(
        "random_id.a",
        ACTIONS_UPDATE,
        {"rules": [{"port": 80, "cidr": "a"}]},
        {"rules": [{"port": 443, "cidr": "a"}]},
    )
    assert block(
        """
              ~ rules = [
                  ~ {
                      ~ "port" = 80 -> 443
                        # (1 unchanged element hidden)
                    },
                ]
        """
    ) in render_plan(plan_of(c), color=False)


def test_a_refresh_only_plan_explains_what_applying_it_does() -> None:
    drift = [rc("random_id.a", ACTIONS_UPDATE, {"v": 1}, {"v": 2})]
    text = render_plan(plan_of(drift=drift, mode="refresh-only"), color=False)
    assert text == (
        "This is a refresh-only plan, so ctl will not take any actions to undo these. If you were "
        "expecting these changes then you can apply this plan to record the updated values in the "
        "ctl state without changing any remote objects.\n"
    )
    quiet = render_plan(plan_of(mode="refresh-only"), color=False)
    assert quiet.startswith("No changes. Your infrastructure still matches the configuration.\n")


def test_a_destroy_plan_with_nothing_to_destroy() -> None:
    text = render_plan(plan_of(mode="destroy"), color=False)
    assert text.startswith("No changes. No objects need to be destroyed.\n")


def test_terminal_control_characters_in_values_are_escaped() -> None:
    c = rc("local_file.a", ACTIONS_CREATE, None, {"one": "x\x1b[2Jy", "many": "a\x1b[2J\nb\n"})
    text = render_plan(plan_of(c), color=False)
    assert "\x1b" not in text
    assert '+ one  = "x\\u001b[2Jy"\n' in text
    assert "            a\\u001b[2J\n" in text


def test_past_a_limit_changes_are_counted_by_action_and_type() -> None:
    changes = [rc(f"random_id.a[{i}]", ACTIONS_CREATE, None, {"n": i}, index=i) for i in range(5)]
    changes += [rc(f"random_pet.p[{i}]", ACTIONS_DELETE, {"n": i}, None, index=i) for i in range(3)]
    changes += [rc("random_string.s", ACTIONS_UPDATE, {"n": 1}, {"n": 2})]
    plan = plan_of(*changes)
    full = render_plan(plan, color=False)
    counted = render_plan(plan, color=False, limit=4)
    assert full.count("will be created") == 5 and "not shown in full" not in full
    assert counted.count("# random_id.a[") == 4
    assert "random_pet.p[0]" not in counted and "random_string.s" not in counted
    assert block("""
        ... and 5 more changes, not shown in full:
          - 3 random_pet to destroy
          + 1 random_id to create
          ~ 1 random_string to update in place
    """) in counted
    assert "Plan: 5 to add, 1 to change, 3 to destroy." in counted  # the verdict counts everything
    assert render_plan(plan, color=False, limit=9) == full  # at the limit, nothing is counted


def test_past_twenty_kinds_of_change_the_rest_are_added_up() -> None:
    changes = [rc(f"random_t{t:02d}.r[{i}]", ACTIONS_CREATE, None, {"n": i}, index=i)
               for t in range(23) for i in range(t + 1)]
    counted = render_plan(plan_of(*changes), color=False, limit=1)
    lines = counted.split("not shown in full:\n")[1].split("\n\n")[0].split("\n")
    assert lines[0] == "  + 23 random_t22 to create"  # the largest group first
    assert len(lines) == 21
    assert lines[-1] == "    5 more of 2 other actions and types"  # t02 and t01 (t00 was shown in full)
