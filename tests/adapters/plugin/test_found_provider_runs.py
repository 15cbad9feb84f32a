"""A provider the installer's discovery finds on disk is one the plugin client can start."""

from __future__ import annotations

from adapters.plugin.client import PluginClient
from engine.install.discovery import find_provider
from vocab.providers import host_os_arch


def isolated_env(tmp_path):
    return {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "xdg-home"),
            "XDG_DATA_DIRS": str(tmp_path / "xdg-a") + ":" + str(tmp_path / "xdg-b")}


def test_a_found_real_provider_runs(plugin_binaries, tmp_path, no_leftover_children) -> None:
    plugin_root = plugin_binaries["fwtest"].parents[5]
    found = find_provider("ctltest/fwtest", "~> 1.0", plugin_dirs=[plugin_root], config_dir=tmp_path,
                          env=isolated_env(tmp_path), os_arch=host_os_arch())
    assert found.path == plugin_binaries["fwtest"]
    with PluginClient.launch(str(found.path)) as client:
        assert client.protocol_version == 6
    no_leftover_children()
