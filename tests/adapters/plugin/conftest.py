"""Fixtures of the provider plugin tests: the real Go-built test providers and child-process checks.

The providers come from ``tests.plugin_providers.provider_dir()``: built from tests/providers, or a
prebuilt plugin directory named by ``CTL_TEST_PROVIDERS_DIR``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import msgpack
import pytest

from adapters.plugin.results import DynamicValue
from tests.plugin_providers import provider_dir
from vocab import lifeline


@pytest.fixture(scope="session")
def plugin_binaries() -> dict[str, Path]:
    """``{"fwtest": path, "sdktest": path}``: the test providers' executables."""
    root = provider_dir()
    found = {}
    for type_name in ("fwtest", "sdktest"):
        matches = sorted(root.glob(f"*/*/{type_name}/*/*/terraform-provider-{type_name}*"))
        assert matches, f"terraform-provider-{type_name} is not in {root}"
        found[type_name] = matches[-1]
    return found


def children_of(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (zombies included: an unreaped child counts)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            out.append(int(entry.name))
    return out


def in_process_group(pgid: int) -> list[int]:
    """Live processes of one process group (a provider and anything it started)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


@pytest.fixture
def no_leftover_children() -> Callable[[], None]:
    """Call the returned check at the end of a test: no child of this process may remain."""
    before = set(children_of(os.getpid()))

    def check() -> None:
        left = set(children_of(os.getpid())) - before - {lifeline.watcher_pid()}
        assert not left, f"child processes left behind: {sorted(left)}"

    return check


def pack(value: object) -> bytes:
    """cty msgpack of a plain value (objects and maps as dicts, lists and sets as lists)."""
    return msgpack.packb(value, use_bin_type=True)


def unpack(answer: DynamicValue | None) -> object:
    """A provider's answer, which these Go-built providers always send as msgpack."""
    assert answer is not None and answer.msgpack and not answer.json
    return msgpack.unpackb(answer.msgpack, raw=False, strict_map_key=False)


UNKNOWN = msgpack.ExtType(0, b"\x00")


def config_object(schema: dict, **values: object) -> dict:
    """A config value for a resource schema: every attribute null, every block empty, then ``values``."""
    block = schema["block"]
    out: dict = {name: None for name in block.get("attributes", {})}
    for name, nested in block.get("block_types", {}).items():
        out[name] = None if nested["nesting_mode"] == "single" else ([] if nested["nesting_mode"] != "map" else {})
    out.update(values)
    return out
