"""The adapter registry: real entry points, broken plug-ins as warnings, cheap discovery."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from adapters.base import Provider, ResourceType
from adapters.registry import AdapterPluginWarning, Registry


class _Widget(ResourceType):
    name = "acme_widget"


def _install_plugins(root: Path, group: str, modules: dict[str, str], entries: dict[str, str]) -> None:
    """A real installed distribution (dist-info + modules) in ``root``, as pip would lay it out."""
    dist = root / "ctl_test_plugins-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ctl-test-plugins\nVersion: 1.0\n")
    lines = [f"[{group}]"] + [f"{name} = {value}" for name, value in entries.items()]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")
    for module, source in modules.items():
        (root / f"{module}.py").write_text(textwrap.dedent(source))


def test_discover_finds_the_built_in_providers() -> None:
    registry = Registry.discover()
    sources = {p.name: p.source for p in registry.providers()}
    assert sources["local"] == "registry.terraform.io/hashicorp/local"
    assert sources["random"] == "registry.terraform.io/hashicorp/random"
    assert sources["time"] == "registry.terraform.io/hashicorp/time"
    assert sources["terraform"] == "terraform.io/builtin/terraform"
    assert [p.name for p in registry.providers()] == sorted(sources)


def test_resource_types_and_data_sources_are_looked_up_separately() -> None:
    registry = Registry.discover()
    managed = registry.resource_type("local_file")
    data = registry.resource_type("local_file", mode="data")
    assert managed is not None and managed.mode == "managed"
    assert data is not None and data.mode == "data"
    assert registry.resource_type("terraform_data") is not None
    assert registry.resource_type("time_sleep", mode="data") is None
    assert registry.resource_type("acme_widget") is None
    assert registry.provider("nope") is None


@pytest.mark.parametrize(
    ("type_name", "provider"),
    [("aws_s3_bucket", "aws"), ("terraform_data", "terraform"), ("local_file", "local"), ("solo", "solo")],
)
def test_implied_provider_is_the_prefix_before_the_first_underscore(type_name: str, provider: str) -> None:
    assert Registry().provider_for_type(type_name) == provider


def test_discovery_is_cached_per_process_and_registries_stay_independent() -> None:
    first = Registry.discover()
    first.register(
        Provider(name="acme", source="example.com/acme/acme", resources={"acme_widget": _Widget()})
    )
    second = Registry.discover()
    assert first.resource_type("acme_widget") is not None
    assert second.provider("acme") is None  # register on one registry never leaks into another
    assert first.resource_type("random_id") is second.resource_type("random_id")  # loaded once


def test_register_replaces_a_provider_of_the_same_name() -> None:
    registry = Registry()
    registry.register(Provider(name="acme", source="a", resources={"acme_widget": _Widget()}))
    registry.register(Provider(name="acme", source="b", resources={}))
    assert registry.provider("acme").source == "b"
    assert registry.resource_type("acme_widget") is None


def test_broken_plugins_are_warnings_and_the_rest_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tag = uuid.uuid4().hex[:8]
    group = f"ctl.adapters.test{tag}"
    good, bad, odd = f"ctl_good_{tag}", f"ctl_bad_{tag}", f"ctl_odd_{tag}"
    _install_plugins(
        tmp_path,
        group,
        modules={
            good: """
                from adapters.base import Provider
                PROVIDER = Provider(name="acme", source="example.com/acme/acme")
                TWIN = Provider(name="acme", source="example.com/other/acme")
            """,
            bad: "raise RuntimeError('boom at import')\n",
            odd: "PROVIDER = 42\n",
        },
        entries={
            "acme": f"{good}:PROVIDER",
            "broken": f"{bad}:PROVIDER",
            "missing": f"ctl_no_such_module_{tag}:PROVIDER",
            "notaprovider": f"{odd}:PROVIDER",
            "twin": f"{good}:TWIN",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(AdapterPluginWarning) as caught:
        registry = Registry.from_entry_points(group)
    for module in (good, bad, odd):
        monkeypatch.delitem(sys.modules, module, raising=False)
    assert [p.name for p in registry.providers()] == ["acme"]
    assert registry.provider("acme").source == "example.com/acme/acme"
    messages = [str(w.message) for w in caught]
    assert len(messages) == len(registry.problems) == 4
    assert any("'broken'" in m and "boom at import" in m for m in messages)
    assert any("'missing'" in m for m in messages)
    assert any("'notaprovider'" in m and "int" in m for m in messages)
    assert any("'twin'" in m and "already" in m for m in messages)


def test_discovery_stays_cheap() -> None:
    """Tab completion runs discovery: no SDK, no crypto, no schema validator gets imported."""
    code = (
        "import sys, time; t = time.perf_counter()\n"
        "from adapters.registry import Registry; r = Registry.discover()\n"
        "elapsed = time.perf_counter() - t\n"
        "heavy = [m for m in ('hashlib', 'secrets', 'uuid', 'jsonschema', 'bcrypt', 'boto3',\n"
        "         'google.cloud', 'azure.storage') if m in sys.modules]\n"
        "from importlib.metadata import entry_points\n"
        "print(len(r.providers()) == len(entry_points(group='ctl.adapters')), heavy, elapsed)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == "True"  # every installed adapter package was found
    assert out[1] == "[]"
    assert float(out[2]) < 1.0
