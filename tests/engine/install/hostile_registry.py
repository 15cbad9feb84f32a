"""A provider registry that misbehaves on purpose, for the installation hardening tests.

``HostileRegistry`` is the loopback HTTPS registry of tests/provider_registry.py with ways to turn it
against its client:

- ``on(path_regex, action)`` answers matching requests with ``action(handler)`` instead: ``endless``
  (a body that never ends), ``drip`` (a byte every so often, never tripping a socket timeout),
  ``redirect_to`` (a 302 elsewhere), ``plain_json`` (a fixed document). ``seen[path_regex]`` lists the
  Authorization header of every request an action answered.
- ``publish(type, version, zip_bytes, filename=…)`` serves other zip bytes for a release, with the
  download document, SHA256SUMS and its signature all made to match, signed by the registry's own key:
  everything a client can check checks out, so only what it does with the contents is tested.
- ``download_url[(type, version)]`` replaces the download URL the registry names.

``PlainHttpServer`` is a plain-HTTP server on loopback that records what reaches it (it should be
nothing). ``ctl_project`` writes a configuration that requires one provider from a registry.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

import pytest

from tests.e2e.helpers import Project, Result
from tests.provider_registry import ProviderRegistry, default_releases, host_os_arch
from tests.provider_release import Release, signing_key

Action = Callable[[Any], None]

CONFIG = """
terraform {{
  required_providers {{
    fwtest = {{ source = "{host}/ctltest/fwtest", version = "{constraint}" }}
  }}
}}
"""


class HostileRegistry(ProviderRegistry):
    """See the module docstring."""

    def __init__(self, releases: Sequence[Release] | None = None) -> None:
        super().__init__(releases or default_releases())
        self.actions: list[tuple[str, Action]] = []
        self.seen: dict[str, list[str | None]] = {}
        self.published: dict[tuple[str, str], tuple[bytes, str, bytes]] = {}  # zip, filename, SHA256SUMS
        self.download_url: dict[tuple[str, str], str] = {}
        self.stopping = threading.Event()

    def close(self) -> None:
        self.stopping.set()  # ends drips and endless bodies, so closing joins their threads at once
        super().close()

    # -- what tests set up ---------------------------------------------------------------------------

    def on(self, path: str, action: Action) -> None:
        self.actions.append((path, action))
        self.seen.setdefault(path, [])

    def publish(self, type_name: str, version: str, data: bytes, *, filename: str | None = None) -> None:
        r = self.find(type_name, version)
        name = filename if filename is not None else r.zip_name(host_os_arch())
        sums = f"{hashlib.sha256(data).hexdigest()}  {name}\n".encode()
        self.published[(type_name, version)] = (data, name, sums)

    # -- faults ----------------------------------------------------------------------------------------

    def endless(self, content_type: str = "application/json", chunk: bytes = b"[" * 65536) -> Action:
        def act(handler: Any) -> None:
            handler.close_connection = True
            handler.send_response(200)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Connection", "close")
            handler.end_headers()
            try:
                while not self.stopping.is_set():
                    handler.wfile.write(chunk)
            except OSError:
                pass

        return act

    def drip(self, every: float, length: int = 100_000, content_type: str = "application/json") -> Action:
        def act(handler: Any) -> None:
            handler.close_connection = True
            handler.send_response(200)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(length))
            handler.end_headers()
            try:
                for _ in range(length):
                    handler.wfile.write(b" ")
                    handler.wfile.flush()
                    if self.stopping.wait(every):
                        return
            except OSError:
                pass

        return act

    @staticmethod
    def redirect_to(location: str) -> Action:
        def act(handler: Any) -> None:
            handler.send_response(302)
            handler.send_header("Location", location)
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        return act

    @staticmethod
    def plain_json(document: Any) -> Action:
        return lambda handler: handler.send_json(200, document)

    # -- answering -------------------------------------------------------------------------------------

    def _route(self, handler: Any, path: str) -> None:
        for pattern, action in self.actions:
            if re.search(pattern, path):
                self.seen[pattern].append(handler.headers.get("Authorization"))
                return action(handler)
        return super()._route(handler, path)

    def _download(self, r: Release, os_name: str, arch: str) -> dict[str, Any]:
        document = super()._download(r, os_name, arch)
        if (r.type, r.version) in self.published:
            data, name, _ = self.published[(r.type, r.version)]
            document["filename"] = name
            document["shasum"] = hashlib.sha256(data).hexdigest()
        if (r.type, r.version) in self.download_url:
            document["download_url"] = self.download_url[(r.type, r.version)]
        return document

    def _file_bytes(self, name: str) -> bytes | None:
        for (type_name, version), (data, _, sums) in self.published.items():
            r = self.find(type_name, version)
            if name == r.zip_name(host_os_arch()):
                return data
            if name == r.sums_name:
                return sums
            if name == r.sig_name:
                return signing_key().sign(sums)
        return super()._file_bytes(name)


class PlainHttpServer:
    """``with PlainHttpServer() as plain:`` — plain HTTP on loopback; ``plain.requests`` lists
    (path, Authorization) of every request it got."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str | None]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                outer.requests.append((self.path, self.headers.get("Authorization")))
                body = b'{"providers.v1": "/v1/providers/"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


@pytest.fixture
def hostile_registry() -> Iterator[HostileRegistry]:
    """A running hostile registry over ``default_releases()``, behaving until a test turns it."""
    with HostileRegistry() as registry:
        yield registry


def ctl_project(root: Path, registry: ProviderRegistry, constraint: str = "1.2.0") -> Project:
    """A configuration that requires ``fwtest`` from ``registry`` (and nothing else)."""
    root.mkdir(parents=True, exist_ok=True)
    project = Project(root)
    project.write(CONFIG.format(host=registry.host, constraint=constraint))
    return project


def ctl_env(registry: ProviderRegistry, home: Path, **extra: str) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return {"HOME": str(home), **registry.env(), **extra}


def staging_dirs(root: Path) -> list[Path]:
    """Staging directories left anywhere under ``root``."""
    return [p for p in root.rglob(".staging-*") if p.is_dir()]



def fails_cleanly(result: Result, *needles: str) -> str:
    """The one error a user sees: exit 1, no traceback, no internal error, and the words given
    (matched with the lines unwrapped); returns that flattened text."""
    assert result.code == 1, result
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result
    flat = " ".join(result.stderr.split())
    for needle in needles:
        assert needle in flat, result
    return flat


def nothing_installed(project: Project) -> None:
    """No provider executable under ``.ctl/providers`` and no staging directory left anywhere."""
    providers = project.path(".ctl", "providers")
    installed = list(providers.rglob("terraform-provider-*")) if providers.exists() else []
    assert installed == [] and staging_dirs(project.root) == []
