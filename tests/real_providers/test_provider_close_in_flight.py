"""Closing a provider while one of its calls is still under way, with HashiCorp's time provider.

ctl closes a provider when a run ends. Should the run end while an operation is still running on
another thread (a walk cut short), closing must not cut that operation: StopProvider would cancel it
inside the provider (a cloud SDK reports its cancelled request as "use of closed network
connection") and Shutdown would drop its connection, leaving the object half made and the run
failed. ``time_sleep`` is an operation that takes a known time and honours cancellation, so it shows
both.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from adapters.plugin.client import PluginClient
from adapters.plugin.msgpack_codec import encode
from adapters.plugin.schema_json import schema_from_json
from tests.e2e.helpers import Project
from vocab.schema.form import implied_type

CONFIG = '''
terraform {
  required_providers {
    time = { source = "hashicorp/time" }
  }
}
'''


@pytest.fixture
def time_binary(real_providers: Path, scratch: Path) -> Path:
    """The time provider's binary, installed by ``ctl init`` from the mirror as a user's would be."""
    project = Project(scratch)
    project.write(CONFIG)
    project.ok("init", "-plugin-dir", str(real_providers))
    found = sorted((scratch / ".ctl" / "providers").rglob("terraform-provider-time_*"))
    assert found, "ctl init installed no time provider"
    return found[0]


def _planned_sleep(client: PluginClient, duration: str) -> tuple[bytes, bytes, bytes]:
    """(config, planned state, planned private) of a new time_sleep of ``duration``."""
    schema = dataclasses.asdict(client.get_provider_schema())
    provider_type = implied_type(schema_from_json(schema["provider"]).block)
    assert client.configure_provider(encode({}, provider_type)[0]) == []
    block = schema_from_json(schema["resource_schemas"]["time_sleep"]).block
    config: dict[str, Any] = {a.name: None for a in block.attributes}
    config.update({b.type_name: None for b in block.block_types}, create_duration=duration)
    value, _ = encode(config, implied_type(block))
    plan = client.plan_resource_change("time_sleep", None, value, value)
    assert plan.diagnostics == [] and plan.planned_state is not None
    return value, plan.planned_state.msgpack, plan.planned_private


def test_closing_waits_for_the_answer_of_a_call_under_way(time_binary: Path) -> None:
    client = PluginClient.launch(str(time_binary), name="time")
    config, planned, private = _planned_sleep(client, "2s")
    outcome: dict[str, Any] = {}

    def create() -> None:
        outcome["answer"] = client.apply_resource_change("time_sleep", None, planned, config, private)
        outcome["answered_at"] = time.monotonic()

    creating = threading.Thread(target=create)
    creating.start()
    time.sleep(0.5)  # the create is sleeping inside the provider
    client.close()
    closed_at = time.monotonic()
    creating.join(timeout=30)

    answer = outcome["answer"]
    assert answer.diagnostics == [], answer.diagnostics  # not cancelled ("context canceled")
    assert answer.new_state is not None
    assert outcome["answered_at"] <= closed_at
    assert client.process.exit_status is not None  # and the provider is stopped all the same



def test_an_ended_provider_keeps_its_process_number_until_it_is_closed(time_binary: Path) -> None:
    """ctl kills a provider's whole process group when it closes it. A provider that ended on its own
    (a crash, an outside kill) must hold on to its number until then: reaped earlier, the number could
    pass to another process leading a group of its own (another run's provider), which that group kill
    would then reach."""
    client = PluginClient.launch(str(time_binary), name="time")
    pid = client.process.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)  # killed from outside, as the kernel's OOM killer would
    assert client.process.wait_exit(10) == -signal.SIGKILL
    assert client.process.exit_status == -signal.SIGKILL
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    assert state == "Z"  # noticed, and still holding its number (a zombie) while ctl may kill its group
    client.close()
    assert not Path(f"/proc/{pid}").exists() or \
        Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
