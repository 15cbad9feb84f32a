"""The attributes of a drifted object that differ, with secrets masked, from a refresh's drift."""

from __future__ import annotations

from engine.drift.detect import MASK, drifted_objects
from engine.plan.model import ACTIONS_DELETE, ACTIONS_UPDATE, ResourceChange
from vocab.values import mark


def _change(address: str, before: dict[str, object], after: dict[str, object] | None,
            actions: tuple[str, ...] = ACTIONS_UPDATE) -> ResourceChange:
    type_, name = address.split(".")
    return ResourceChange(address=address, module_address="", mode="managed", type=type_, name=name, index=None,
                          provider="", actions=actions, before=before, after=after)


def test_each_changed_leaf_is_named_with_its_path_and_both_values() -> None:
    change = _change("aws_s3_bucket.b",
                     {"bucket": "b", "tags": {"team": "a", "env": "prod"}, "rule": [{"days": 1}]},
                     {"bucket": "b", "tags": {"team": "b", "env": "prod", "new": "x"}, "rule": [{"days": 2}]})
    [obj] = drifted_objects([change])
    found = {a.name: (a.before, a.after) for a in obj.attributes}
    assert found == {'tags["team"]': ("a", "b"), 'tags["new"]': (None, "x"), "rule[0].days": (1, 2)}


def test_a_sensitive_value_that_changed_is_listed_but_never_shown() -> None:
    change = _change("x_secret.s", {"password": mark("hunter2"), "nested": {"k": mark("old-secret")}},
                     {"password": mark("correct horse"), "nested": {"k": mark("old-secret")}})
    [obj] = drifted_objects([change])
    [attr] = obj.attributes
    assert attr.name == "password" and attr.sensitive
    assert (attr.before, attr.after) == (MASK, MASK)
    text = repr(obj.as_json())
    assert "hunter2" not in text and "correct horse" not in text


def test_targets_select_what_is_reported_and_a_deleted_object_has_no_attributes() -> None:
    gone = _change("local_file.a", {"content": "x"}, None, ACTIONS_DELETE)
    other = _change("local_file.b", {"content": "x"}, {"content": "y"})
    objs = drifted_objects([gone, other], ["local_file.a"])
    assert [(o.address, o.action, o.attributes) for o in objs] == [("local_file.a", "delete", [])]
