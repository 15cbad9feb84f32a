"""Starting provider plugins: the handshake with real providers and every way a start can fail.

The failure cases run real small programs as fake providers (shell scripts, a file that is not a
program); every test checks that no child process is left behind.
"""

from __future__ import annotations

import gc
import logging
import os
import textwrap
import time
from pathlib import Path

import pytest

from adapters.plugin.handshake import MAGIC_COOKIE_VALUE
from adapters.plugin.process import START_TIMEOUT_ENV, PluginProcess
from tests.adapters.plugin.conftest import in_process_group
from vocab.provider_errors import PluginHandshakeError, PluginLaunchError, PluginStartTimeout


def script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body).lstrip("\n"))
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(("provider", "version"), [("fwtest", 6), ("sdktest", 5)])
def test_handshake_with_real_providers(plugin_binaries, no_leftover_children, provider, version) -> None:
    with PluginProcess(plugin_binaries[provider]) as plugin:
        assert plugin.protocol_version == version
        assert plugin.handshake is not None
        assert plugin.handshake.network == "unix" and plugin.handshake.rpc_kind == "grpc"
        assert len(plugin.handshake.server_cert) > 50, "mutual TLS was not negotiated"
        pid = plugin.pid
        assert pid is not None and Path(f"/proc/{pid}").exists()
        # The socket lives in a private directory that only this user can enter.
        socket_dir = Path(plugin.handshake.address).parent
        assert socket_dir.stat().st_mode & 0o777 == 0o700
    assert not Path(f"/proc/{pid}").exists()
    assert not socket_dir.exists()
    no_leftover_children()


def test_plain_grpc_when_tls_is_turned_off(plugin_binaries, no_leftover_children, monkeypatch) -> None:
    monkeypatch.setenv("CTL_PLUGIN_TLS", "0")
    with PluginProcess(plugin_binaries["fwtest"]) as plugin:
        assert plugin.handshake is not None and plugin.handshake.server_cert == ""
        assert plugin.protocol_version == 6
    no_leftover_children()


def test_graceful_shutdown_lets_the_provider_exit_by_itself(plugin_binaries, no_leftover_children) -> None:
    plugin = PluginProcess(plugin_binaries["fwtest"]).start()
    started = time.monotonic()
    plugin.shutdown(grace=5)
    assert time.monotonic() - started < 4, "the provider did not exit on GRPCController.Shutdown"
    assert plugin.exit_status == 0  # exited on its own, not killed (which would be -9)
    no_leftover_children()


def test_a_forgotten_plugin_is_reaped_when_collected(plugin_binaries, no_leftover_children) -> None:
    plugin = PluginProcess(plugin_binaries["fwtest"]).start()
    pid = plugin.pid
    del plugin
    gc.collect()
    assert not Path(f"/proc/{pid}").exists()
    no_leftover_children()


def test_provider_log_lines_reach_python_logging(tmp_path, caplog, no_leftover_children) -> None:
    fake = script(
        tmp_path,
        "terraform-provider-noisy_v1.0.0",
        """
        echo '{"@level":"warn","@message":"disk nearly full","@module":"provider","free":"2%"}' >&2
        echo '[ERROR] plain tagged line' >&2
        exit 3
        """,
    )
    with caplog.at_level(logging.DEBUG, logger="ctl.plugin"), pytest.raises(PluginLaunchError) as err:
        PluginProcess(fake).start()
    records = [(r.name, r.levelno, r.getMessage()) for r in caplog.records if r.name == "ctl.plugin.noisy"]
    assert ("ctl.plugin.noisy", logging.WARNING, "disk nearly full free=2%") in records
    assert ("ctl.plugin.noisy", logging.ERROR, "plain tagged line") in records
    assert "exited with status 3" in err.value.summary
    no_leftover_children()


def test_missing_binary(tmp_path, no_leftover_children) -> None:
    with pytest.raises(PluginLaunchError) as err:
        PluginProcess(tmp_path / "terraform-provider-gone_v1.0.0").start()
    assert err.value.summary == "Provider gone: its plugin binary does not exist"
    assert "ctl init" in err.value.hint
    no_leftover_children()


def test_binary_without_execute_permission(tmp_path, no_leftover_children) -> None:
    path = script(tmp_path, "terraform-provider-locked", "exit 0\n")
    path.chmod(0o644)
    with pytest.raises(PluginLaunchError) as err:
        PluginProcess(path).start()
    assert "is not executable" in err.value.summary and "chmod +x" in err.value.hint
    no_leftover_children()


def test_binary_for_another_platform(tmp_path, no_leftover_children) -> None:
    # An ELF header for a CPU this machine does not have (machine 0xB7: AArch64, or x86-64 on arm).
    machine = b"\x3e\x00" if os.uname().machine in ("aarch64", "arm64") else b"\xb7\x00"
    path = tmp_path / "terraform-provider-foreign_v1.0.0"
    path.write_bytes(b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + b"\x02\x00" + machine + b"\x01\x00\x00\x00" + b"\x00" * 40)
    path.chmod(0o755)
    with pytest.raises(PluginLaunchError) as err:
        PluginProcess(path).start()
    assert "not a program this machine can run" in err.value.summary
    assert "another operating system or CPU architecture" in err.value.hint
    no_leftover_children()


def test_crash_before_the_handshake_shows_its_last_output(tmp_path, no_leftover_children) -> None:
    fake = script(
        tmp_path,
        "terraform-provider-crashy_v0.1.0",
        """
        echo "loading credentials" >&2
        echo "panic: runtime error: invalid memory address" >&2
        exit 2
        """,
    )
    with pytest.raises(PluginLaunchError) as err:
        PluginProcess(fake).start()
    assert err.value.summary == "Provider crashy: it exited with status 2 before it was ready"
    assert "panic: runtime error: invalid memory address" in err.value.detail
    assert "loading credentials" in err.value.detail
    no_leftover_children()


def test_the_magic_cookie_is_in_the_environment(tmp_path, no_leftover_children) -> None:
    fake = script(
        tmp_path,
        "terraform-provider-env",
        """
        echo "cookie=$TF_PLUGIN_MAGIC_COOKIE versions=$PLUGIN_PROTOCOL_VERSIONS" >&2
        case "$PLUGIN_CLIENT_CERT" in "-----BEGIN CERTIFICATE-----"*) echo "cert=yes" >&2;; esac
        exit 1
        """,
    )
    with pytest.raises(PluginLaunchError) as err:
        PluginProcess(fake).start()
    assert f"cookie={MAGIC_COOKIE_VALUE} versions=5,6" in err.value.detail
    assert "cert=yes" in err.value.detail
    no_leftover_children()


def test_garbage_handshake(tmp_path, no_leftover_children) -> None:
    fake = script(tmp_path, "terraform-provider-chatty", 'echo "Hello! I am not a plugin."\nsleep 30\n')
    with pytest.raises(PluginHandshakeError) as err:
        PluginProcess(fake).start()
    assert "not a plugin handshake line" in err.value.summary
    assert "Hello! I am not a plugin." in err.value.summary
    no_leftover_children()


def test_unsupported_protocol_version(tmp_path, no_leftover_children) -> None:
    fake = script(tmp_path, "terraform-provider-old", 'echo "1|4|unix|/tmp/nowhere|netrpc|"\nsleep 30\n')
    with pytest.raises(PluginHandshakeError) as err:
        PluginProcess(fake).start()
    assert "protocol version 4" in err.value.summary and "5 and 6" in err.value.summary
    no_leftover_children()


def test_a_hanging_provider_times_out_and_is_killed_with_its_children(
    tmp_path, monkeypatch, no_leftover_children
) -> None:
    # The script does not exec: its `sleep` is a grandchild that must die with it.
    fake = script(tmp_path, "terraform-provider-sleepy", "sleep 600\necho never\n")
    monkeypatch.setenv(START_TIMEOUT_ENV, "0.5")
    plugin = PluginProcess(fake)
    started = time.monotonic()
    with pytest.raises(PluginStartTimeout) as err:
        plugin.start()
    assert time.monotonic() - started < 3
    assert "within 0.5 s" in err.value.summary and START_TIMEOUT_ENV in err.value.hint
    assert plugin.pid is not None and not in_process_group(plugin.pid)
    no_leftover_children()


def test_a_handshake_with_a_broken_certificate(tmp_path, no_leftover_children) -> None:
    junk = "Zm9v" * 20  # valid base64, not a certificate
    fake = script(tmp_path, "terraform-provider-badcert", f'echo "1|6|unix|/nowhere/sock|grpc|{junk}"\nsleep 30\n')
    with pytest.raises(PluginHandshakeError) as err:
        PluginProcess(fake).start()
    assert "server certificate in the handshake is not valid" in err.value.summary
    no_leftover_children()


def test_a_handshake_without_the_requested_certificate(tmp_path, no_leftover_children) -> None:
    fake = script(tmp_path, "terraform-provider-notls", 'echo "1|6|unix|/nowhere/sock|grpc|"\nsleep 30\n')
    with pytest.raises(PluginHandshakeError) as err:
        PluginProcess(fake).start()
    assert "did not answer the request for mutual TLS" in err.value.summary and "CTL_PLUGIN_TLS=0" in err.value.hint
    no_leftover_children()


def test_an_announced_socket_nobody_listens_on(tmp_path, no_leftover_children) -> None:
    fake = script(tmp_path, "terraform-provider-ghost", f'echo "1|5|unix|{tmp_path}/absent.sock|grpc|"\nsleep 30\n')
    with pytest.raises(PluginStartTimeout) as err:
        PluginProcess(fake, use_tls=False, start_timeout=0.5).start()
    assert "no connection could be made" in err.value.summary
    no_leftover_children()


def test_real_provider_debug_logs_reach_python_logging(plugin_binaries, caplog, no_leftover_children) -> None:
    from adapters.plugin.client import PluginClient

    with caplog.at_level(logging.DEBUG, logger="ctl.plugin"), PluginClient.launch(
        str(plugin_binaries["fwtest"])
    ) as client:
        client.get_provider_schema()
    served = [r for r in caplog.records if r.name == "ctl.plugin.fwtest" and "tf_rpc=GetProviderSchema" in r.getMessage()]
    assert served and all(r.levelno == logging.DEBUG for r in served)
    no_leftover_children()
