"""Many diagnostics from one provider call cost time in proportion to their number.

The misbehaving provider answers one ValidateResourceConfig with N warnings, or N errors. Each is shown
(as Terraform shows each); ten times as many must take about ten times as long, not a hundred (each
warning used to be compared with every one before it).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.plugin.misbehave import make_pair


def _config(trick: str) -> str:
    return f"""
resource "misbehave_thing" "a" {{
  name  = "a"
  trick = "{trick}"
}}
"""


@pytest.mark.parametrize(("kind", "label", "code"), [("warnings", "Warning:", 0), ("diagnostics", "Error:", 1)])
def test_ten_times_the_diagnostics_take_about_ten_times_as_long(tmp_path: Path, misbehave_plugins: Path,
                                                                kind: str, label: str, code: int) -> None:
    pair = make_pair(tmp_path, misbehave_plugins, _config(f"{kind}:1"), terraform=False)
    main = pair.ctl.root / "main.tf"
    header = main.read_text().split('resource "misbehave_thing"')[0]
    seconds = {}
    for n in (1_000, 10_000):
        main.write_text(header + _config(f"{kind}:{n}"))
        began = time.perf_counter()
        result = pair.ctl.ctl("plan", timeout=600)
        seconds[n] = time.perf_counter() - began
        assert result.code == code, result.stderr[-2000:]
        assert "Traceback" not in result.output
        assert sum(1 for line in result.stderr.splitlines() if line.startswith(label)) == n
    # Linear: about 10 (plus start-up, which only lowers it); quadratic would be near 100.
    assert seconds[10_000] / seconds[1_000] < 25, seconds


def test_a_hundred_thousand_warnings_from_one_call(misbehave_plugins: Path) -> None:
    """The real call, then the run's own handling of its answer (each warning kept once, in order)."""
    from adapters.base import Provider, ResourceType
    from adapters.plugin.client import PluginClient
    from adapters.plugin.msgpack_codec import encode
    from adapters.plugin.outcome import raise_for
    from adapters.registry import Registry
    from engine.providers import Providers
    from tests import plugin_providers as pp
    from tests.plugin.misbehave import SPEC
    from vocab.types import STRING, ObjectType

    class Thing(ResourceType):
        name = "misbehave_thing"

    registry = Registry.discover()
    registry.register(Provider("misbehave", "registry.terraform.io/ctltest/misbehave",
                               resources={"misbehave_thing": Thing()}))
    object_type = ObjectType({"id": STRING, "name": STRING, "trick": STRING, "secret": STRING})
    executable = misbehave_plugins / SPEC.relative_path(pp._host_os_arch(pp.find_go()))
    seconds = {}
    with PluginClient.launch(str(executable)) as client:
        for n in (10_000, 100_000):
            config, _ = encode({"id": None, "name": "a", "trick": f"warnings:{n}", "secret": None}, object_type)
            diagnostics = client.validate_resource_config("misbehave_thing", config)
            assert len(diagnostics) == n
            providers = Providers(registry, {}, Path.cwd())
            ctx = providers.context(Thing(), "misbehave_thing.a")
            began = time.perf_counter()
            raise_for(diagnostics, ctx.address, address=ctx.address, warn=ctx.warn)
            warnings = providers.take_warnings()
            seconds[n] = time.perf_counter() - began
            assert len(warnings) == n
            assert warnings[-1].summary == f"name: Odd name {n - 1}: Remark number {n - 1} about this name."
    assert seconds[100_000] / seconds[10_000] < 25, seconds
