"""Orphaned creates after a crash: looked up by their planned arguments, adopted or reported.

The end-to-end runs (a killed apply of real files) are in ``tests/e2e/test_e2e_crash_and_interrupt.py``;
these cover the outcomes a local configuration cannot produce (a lookup that fails, arguments that
name nothing) and the messages each outcome prints.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from adapters.base import AdapterContext, AdapterError, Provider, ResourceType
from adapters.registry import Registry
from engine.providers import Providers
from engine.recovery import ABSENT, FAILED, FOUND, STATE_ONLY, UNSEARCHABLE, Recovery, describe, find_orphans
from engine.state.address import InstanceAddress
from engine.state.journal import Orphan
from engine.state.model import new_state


class _Named(ResourceType):
    """A cloud-like type: objects are named by ``name``; a lookup of "down" fails like an outage."""

    name = "demo_thing"
    computed = frozenset({"id"})

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        return identity.get("name")

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        if resource_id == "down":
            raise AdapterError("cannot reach the endpoint", address=ctx.address)
        return {"name": resource_id, "id": resource_id}

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        return attrs if attrs["name"] in ctx.client else None


class _Cloud(Provider):
    """The "cloud" is the set of names that exist; configuring the provider hands it to the type."""

    def __init__(self, existing: set[str]) -> None:
        super().__init__("demo", "example.com/demo/demo", resources={"demo_thing": _Named()})
        self.existing = existing

    def configure(self, config: dict[str, Any], workdir: Path) -> Any:
        return self.existing


def _registry(existing: set[str], workdir: Path | None = None) -> tuple[Registry, Providers]:
    registry = Registry.discover()
    registry.register(_Cloud(existing))
    return registry, Providers(registry, {}, workdir or Path.cwd())


def test_each_orphaned_create_gets_the_outcome_its_lookup_found(tmp_path: Path) -> None:
    registry, providers = _registry({"made"}, tmp_path)
    (tmp_path / "a.txt").write_text("hello")
    orphans = [
        Orphan("demo_thing.made", "create", {"name": "made"}),
        Orphan("demo_thing.never", "create", {"name": "never"}),
        Orphan("demo_thing.down", "create", {"name": "down"}),
        Orphan("demo_thing.unnamed", "create", {}),  # the name was unknown or secret at plan time
        Orphan("random_id.r", "create", {"byte_length": 4}),
        Orphan('local_file.f["a"]', "create", {"filename": "a.txt", "content": "hello"}),
        Orphan("demo_thing.old", "delete", {"name": "old"}),
    ]
    state = new_state()
    outcomes = find_orphans(state, orphans, registry, providers, {})
    assert [o.kind for o in outcomes] == [FOUND, ABSENT, FAILED, UNSEARCHABLE, STATE_ONLY, FOUND, ""]
    adopted = state.instance(InstanceAddress.parse("demo_thing.made"))
    assert adopted is not None and adopted.attributes == {"name": "made", "id": "made"}
    file = state.instance(InstanceAddress.parse('local_file.f["a"]'))
    assert file is not None and file.attributes["id"] == hashlib.sha1(b"hello").hexdigest()
    assert state.instance(InstanceAddress.parse("demo_thing.never")) is None

    lines = describe(Recovery(orphans=orphans, outcomes=outcomes, persisted=True))
    assert lines == [
        "demo_thing.made: found the object an interrupted apply created (id made); adopted it into the state",
        "demo_thing.never: an interrupted apply started to create it, but nothing was created (looked for never); "
        "the next apply creates it",
        "demo_thing.down: possibly created by an interrupted apply; looking it up failed: cannot reach the "
        "endpoint; if the object exists, adopt it with: ctl import 'demo_thing.down' down",
        "demo_thing.unnamed: possibly created by an interrupted apply; if the object exists, adopt it with: "
        "ctl import 'demo_thing.unnamed' ID",
        "random_id.r: an interrupted apply started to create it; a random_id leaves nothing outside the state, "
        "so the next apply simply creates it",
        f'local_file.f["a"]: found the object an interrupted apply created (id {hashlib.sha1(b"hello").hexdigest()}); '
        "adopted it into the state",
        "demo_thing.old: possibly deleted by an interrupted apply; the next plan's refresh reads what it became",
    ]


def test_a_file_with_other_content_than_planned_is_not_adopted(tmp_path: Path) -> None:
    registry, providers = _registry(set(), tmp_path)
    (tmp_path / "a.txt").write_text("someone else's")
    state = new_state()
    (outcome,) = find_orphans(state, [Orphan("local_file.f", "create", {"filename": "a.txt", "content": "mine"})],
                              registry, providers, {})
    assert outcome.kind == ABSENT and state.instance(InstanceAddress.parse("local_file.f")) is None


def test_an_address_already_in_state_is_left_to_the_user(tmp_path: Path) -> None:
    registry, providers = _registry({"made"})
    state = new_state()
    find_orphans(state, [Orphan("demo_thing.made", "create", {"name": "made"})], registry, providers, {})
    (again,) = find_orphans(state, [Orphan("demo_thing.made", "create", {"name": "made"})], registry, providers, {})
    assert again.kind == UNSEARCHABLE


def test_without_a_lock_the_message_says_the_adoption_is_not_written_yet() -> None:
    registry, providers = _registry({"made"})
    orphans = [Orphan("demo_thing.made", "create", {"name": "made"})]
    outcomes = find_orphans(new_state(), orphans, registry, providers, {})
    (line,) = describe(Recovery(orphans=orphans, outcomes=outcomes, persisted=False))
    assert line.endswith("this plan counts it as existing; the next apply records it in the state")
