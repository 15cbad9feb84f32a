"""One running provider plugin: started, handshaken, connected, and always stopped and reaped.

A provider is a child process that serves gRPC on a socket it announces on stdout (see
handshake.py). ``PluginProcess`` owns that process, a private directory for sockets and the gRPC
channel. Whatever happens (an error during start, a forgotten ``close``, interpreter exit) the
child is killed and waited for: a weakref finaliser, which also runs at exit, holds only the
``Popen`` and the directory, never the object itself.

The gRPC channel is thread safe; any number of worker threads may call through it at once.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import IO

import grpc

from adapters.plugin import tls
from adapters.plugin.handshake import (
    DEFAULT_MAX_PORT,
    DEFAULT_MIN_PORT,
    Handshake,
    HandshakeLineError,
    parse_handshake,
    plugin_environment,
)
from adapters.plugin.proto import plugin_pb2
from adapters.plugin.stderr_log import OutputForwarder
from adapters.plugin.tls_bridge import TlsBridge, client_ssl_context
from vocab import lifeline
from vocab.provider_errors import PluginHandshakeError, PluginLaunchError, PluginStartTimeout

# Providers' own log lines are records of ``ctl.plugin.<type>``: shown only where logging is set up.
logging.getLogger("ctl.plugin").addHandler(logging.NullHandler())

START_TIMEOUT_ENV = "CTL_PLUGIN_START_TIMEOUT"
DEFAULT_START_TIMEOUT = 10.0
# Set to 0 to talk plain gRPC over the private socket directory (Terraform: TF_DISABLE_PLUGIN_TLS).
TLS_ENV = "CTL_PLUGIN_TLS"
# Schemas of large providers run to tens of megabytes; Terraform allows 256 MiB messages.
MAX_MESSAGE_BYTES = 256 << 20
SHUTDOWN_GRACE = 2.0


def start_timeout_from_env() -> float:
    raw = os.environ.get(START_TIMEOUT_ENV, "")
    try:
        return float(raw) if raw else DEFAULT_START_TIMEOUT
    except ValueError:
        return DEFAULT_START_TIMEOUT


# terraform-plugin-log's per-subsystem level variables; the SDKs log every RPC at debug/trace.
SDK_LOG_ENVS = ("TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_HELPER_SCHEMA")


def quiet_sdk_logging(env: dict[str, str], logger: logging.Logger) -> dict[str, str]:
    """Ask the provider's SDK to log only warnings unless ctl shows its debug output.

    The SDKs write several JSON lines per call by default, which halves call throughput for
    output nobody reads. A user's own TF_LOG settings are left alone; the provider's own log
    (TF_LOG_PROVIDER) is untouched.
    """
    if logger.isEnabledFor(logging.DEBUG) or "TF_LOG" in env:
        return {}
    return {name: "WARN" for name in SDK_LOG_ENVS if name not in env}


def provider_type_of(executable: Path) -> str:
    """``random`` from ``terraform-provider-random_v3.6.0``: the name logs and errors use."""
    name = executable.name.removeprefix("terraform-provider-")
    return name.split("_v", 1)[0].split("_", 1)[0] or executable.name


def _ended(popen: subprocess.Popen[bytes]) -> int | None:
    """The child's exit status once it has ended, else None, *without* reaping it.

    Until ``_reap`` waits for it, an ended child's pid stays taken (a zombie holds it), and with it
    the number of the process group it leads: so ``_reap``'s group kill reaches this provider's
    group and nothing else. Reaped earlier, that number could already belong to another process
    that leads a group of its own (another run's provider, say) by the time ctl closes this one.
    """
    if popen.returncode is not None:
        return popen.returncode
    try:
        info = os.waitid(os.P_PID, popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped by someone else
        return popen.poll()
    if info is None:
        return None
    return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status


def _reap(popen: subprocess.Popen[bytes], private_dir: str) -> None:
    """Kill and wait for the child, remove its sockets; the finaliser and ``close`` share it.

    The provider leads its own process group (``start_new_session``), so the whole group is
    killed: a wrapper script's children go too. Only while the child is not reaped yet, so that
    its group's number is still its own (see ``_ended``).
    """
    if popen.returncode is None:
        with contextlib.suppress(OSError):
            os.killpg(popen.pid, signal.SIGKILL)
    if popen.poll() is None:
        with contextlib.suppress(OSError):
            popen.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        popen.wait(timeout=10)
    shutil.rmtree(private_dir, ignore_errors=True)
    lifeline.release(popen.pid)


class PluginProcess:
    """A provider binary started under go-plugin's contract; use as a context manager."""

    def __init__(
        self,
        executable: str | os.PathLike[str],
        *,
        name: str | None = None,
        start_timeout: float | None = None,
        use_tls: bool | None = None,
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        self.executable = Path(executable)
        self.cwd = cwd  # Terraform runs providers in the working directory: relative paths resolve there
        self.name = name or provider_type_of(self.executable)
        self.start_timeout = start_timeout if start_timeout is not None else start_timeout_from_env()
        self.use_tls = use_tls if use_tls is not None else os.environ.get(TLS_ENV, "1") != "0"
        self._env = env if env is not None else dict(os.environ)
        self.logger = logging.getLogger(f"ctl.plugin.{provider_type_of(self.executable)}")
        self._stderr = OutputForwarder(self.logger)
        self._popen: subprocess.Popen[bytes] | None = None
        self._private_dir = ""
        self._bridge: TlsBridge | None = None
        self._stdio_call: grpc.Future | None = None
        self.handshake: Handshake | None = None
        self.channel: grpc.Channel | None = None
        self._finalizer: weakref.finalize[[subprocess.Popen[bytes], str], PluginProcess] | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def __enter__(self) -> PluginProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        return self._popen.pid if self._popen else None

    @property
    def protocol_version(self) -> int:
        assert self.handshake is not None, "start() first"
        return self.handshake.protocol_version

    def start(self) -> PluginProcess:
        """Launch, wait for the handshake, connect. Raises ``PluginLaunchError`` on any failure."""
        self._private_dir = tempfile.mkdtemp(prefix="ctl-plugin-")
        cert = tls.generate_client_certificate() if self.use_tls else None
        env = plugin_environment(self._env, cert.cert_pem if cert else None, DEFAULT_MIN_PORT, DEFAULT_MAX_PORT)
        env["PLUGIN_UNIX_SOCKET_DIR"] = self._private_dir
        env.update(quiet_sdk_logging(env, self.logger))
        try:
            self._launch(env)
            self.handshake = self._await_handshake()
            self._connect(self.handshake, cert)
        except BaseException:
            self.kill()
            raise
        return self

    def _launch(self, env: dict[str, str]) -> None:
        lifeline.prepare()
        try:
            self._popen = subprocess.Popen(
                [str(self.executable)],
                env=env,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # a terminal's Ctrl-C is ctl's to handle, not the provider's
                close_fds=True,
            )
        except FileNotFoundError:
            raise self._error("its plugin binary does not exist", "Run `ctl init` to install it.") from None
        except PermissionError:
            raise self._error(
                "its plugin binary is not executable",
                f"Make it executable (chmod +x {self.executable}) or reinstall it with `ctl init`.",
            ) from None
        except OSError as exc:
            if exc.errno == errno.ENOEXEC:
                raise self._error(
                    "its plugin binary is not a program this machine can run",
                    "It was probably built for another operating system or CPU architecture; "
                    "install the build for this platform.",
                ) from None
            raise self._error(f"it could not be started: {exc.strerror or exc}", "") from None
        self._finalizer = weakref.finalize(self, _reap, self._popen, self._private_dir)
        lifeline.guard(self._popen.pid, self._private_dir)
        assert self._popen.stdout is not None and self._popen.stderr is not None
        threading.Thread(
            target=self._stderr.pump, args=(self._popen.stderr,), name=f"plugin-stderr-{self.name}", daemon=True
        ).start()

    def _await_handshake(self) -> Handshake:
        assert self._popen is not None and self._popen.stdout is not None
        lines: queue.Queue[str | None] = queue.Queue()
        stdout_log = OutputForwarder(self.logger)

        def read_stdout(stream: IO[bytes]) -> None:  # first line is the handshake; later ones are logged
            with stream:
                first = stream.readline()
                lines.put(first.decode("utf-8", "replace") if first else None)
                for raw in iter(stream.readline, b""):
                    stdout_log.feed(raw.decode("utf-8", "replace"))

        threading.Thread(
            target=read_stdout, args=(self._popen.stdout,), name=f"plugin-stdout-{self.name}", daemon=True
        ).start()
        try:
            line = lines.get(timeout=self.start_timeout)
        except queue.Empty:
            raise self._error(
                f"it did not finish starting within {self.start_timeout:g} s",
                f"Check that it is a Terraform provider. A slow machine may need more time: set "
                f"{START_TIMEOUT_ENV} to a number of seconds.",
                cls=PluginStartTimeout,
            ) from None
        if line is None:
            status = self.wait_exit(2.0)
            self._wait_for_tail()
            raise self._error(
                f"it exited{f' with status {status}' if status is not None else ''} before it was ready",
                "Its last output is shown above; a provider crashing at start is a bug in the provider "
                "or a missing library.",
            )
        try:
            return parse_handshake(line)
        except HandshakeLineError as exc:
            raise self._error(
                f"its handshake cannot be used: {exc} (it printed {line.strip()[:200]!r})",
                "Check that the binary is a Terraform provider; protocol versions 5 and 6 are "
                "supported (Terraform 0.12 and later).",
                cls=PluginHandshakeError,
            ) from None

    def _connect(self, handshake: Handshake, cert: tls.ClientCertificate | None) -> None:
        options = [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ]
        if cert is not None:
            if not handshake.server_cert:
                raise self._error(
                    "it did not answer the request for mutual TLS",
                    f"Set {TLS_ENV}=0 to run it without TLS.",
                    cls=PluginHandshakeError,
                )
            try:
                server_pem = tls.server_certificate_pem(handshake.server_cert)
            except ValueError as exc:
                raise self._error(str(exc), "", cls=PluginHandshakeError) from None
            context = client_ssl_context(cert, server_pem, Path(self._private_dir))
            self._bridge = TlsBridge(
                Path(self._private_dir) / "tls-bridge.sock", handshake.network, handshake.address, context
            )
            self._bridge.start()
            target = f"unix:{self._bridge.listen_path}"
        elif handshake.network == "unix":
            target = f"unix:{handshake.address}"
        else:
            target = handshake.address
        self.channel = grpc.insecure_channel(target, options=options)
        try:
            grpc.channel_ready_future(self.channel).result(timeout=self.start_timeout)
        except grpc.FutureTimeoutError:
            raise self._error(
                f"it announced {handshake.network}:{handshake.address} but no connection could be made",
                "", cls=PluginStartTimeout,
            ) from None
        self._follow_stdio()

    def _follow_stdio(self) -> None:
        """Read what the provider writes to stdout/stderr after the handshake (go-plugin holds it
        in an unbuffered queue: unread, it would block the provider's writes)."""
        assert self.channel is not None
        call = self.channel.unary_stream(
            "/plugin.GRPCStdio/StreamStdio",
            request_serializer=lambda _: b"",
            response_deserializer=plugin_pb2.StdioData.FromString,
        )(None)
        self._stdio_call = call
        forwarder = OutputForwarder(self.logger)

        def pump() -> None:
            with contextlib.suppress(grpc.RpcError):
                for chunk in call:
                    for line in chunk.data.decode("utf-8", "replace").splitlines():
                        forwarder.feed(line)

        threading.Thread(target=pump, name=f"plugin-stdio-{self.name}", daemon=True).start()

    # -- stopping ------------------------------------------------------------------------------

    def shutdown(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Ask go-plugin to stop serving and exit; wait ``grace`` seconds; then kill."""
        if self.channel is not None and self._popen is not None and self._popen.poll() is None:
            shutdown = self.channel.unary_unary(
                "/plugin.GRPCController/Shutdown",
                request_serializer=plugin_pb2.Empty.SerializeToString,
                response_deserializer=plugin_pb2.Empty.FromString,
            )
            with contextlib.suppress(grpc.RpcError):
                shutdown(plugin_pb2.Empty(), timeout=grace)
            self.wait_exit(grace)
        self.kill()

    close = shutdown

    def kill(self) -> None:
        """Release everything now: stdio stream, channel, bridge, process (killed and reaped)."""
        if self._stdio_call is not None:
            self._stdio_call.cancel()
            self._stdio_call = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self._bridge is not None:
            self._bridge.close()
            self._bridge = None
        if self._finalizer is not None:
            self._finalizer()  # runs _reap once
        elif self._private_dir:
            shutil.rmtree(self._private_dir, ignore_errors=True)

    @property
    def exit_status(self) -> int | None:
        """The exit status once the process has ended (left for ``kill`` to reap: see ``_ended``)."""
        return _ended(self._popen) if self._popen else None

    def wait_exit(self, timeout: float) -> int | None:
        """The exit status once the process ends within ``timeout`` seconds, else None."""
        assert self._popen is not None
        deadline = time.monotonic() + timeout
        pause = 0.001
        while (status := _ended(self._popen)) is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.05)
        return status

    def _wait_for_tail(self) -> None:
        """Give the stderr thread a moment to read the last lines of a process that just died."""
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and self._popen is not None and self._popen.stderr is not None:
            if self._popen.stderr.closed:
                return
            time.sleep(0.01)

    def stderr_tail(self) -> list[str]:
        return self._stderr.tail

    def _error(self, what: str, hint: str, cls: type[PluginLaunchError] = PluginLaunchError) -> PluginLaunchError:
        tail = self.stderr_tail()
        detail = f"Binary: {self.executable}"
        if tail:
            detail += "\nIts last output:\n  " + "\n  ".join(tail[-10:])
        return cls(f"Provider {self.name}: {what}", detail=detail, hint=hint)
