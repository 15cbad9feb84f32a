"""A provider registry and network mirror over HTTPS on loopback, for testing provider installation.

``ProviderRegistry(releases)`` serves Terraform's provider registry protocol, its provider network
mirror protocol and the release files (tests/provider_release.py) from a ThreadingHTTPServer on a free
loopback port, with a certificate for ``localhost`` and ``127.0.0.1`` from a throwaway CA. Clients trust
that CA through ``SSL_CERT_FILE`` (``registry.env()``), which Python's default SSL context and Go honour.

    /.well-known/terraform.json                          service discovery: {"providers.v1": "/v1/providers/"}
    /v1/providers/NS/TYPE/versions                       versions, protocols and platforms
    /v1/providers/NS/TYPE/VERSION/download/OS/ARCH       download metadata with the signing key
    /files/NAME                                          zips, SHA256SUMS, .sig (HEAD and Range: bytes=N-)
    /mirror/HOSTNAME/NS/TYPE/index.json                  network mirror (base URL ``.mirror_url``)
    /mirror/HOSTNAME/NS/TYPE/VERSION.json                archives with zh: hashes and *relative* zip URLs,
    /mirror/HOSTNAME/NS/TYPE/ZIP                         laid out as `terraform providers mirror` writes them

The mirror answers for one registry hostname, ``mirror_hostname`` (default the server's own
``localhost:PORT``; set ``registry.terraform.io`` for addresses such as ``ctltest/fwtest``). Terraform
1.0.3 itself cannot use a mirror for a HOST:PORT address (it takes the relative reference
"HOST:PORT/NS/TYPE/index.json" for a URL with scheme HOST), so its tests use registry.terraform.io.

Faults a test flips at runtime: ``tamper`` (zip bytes no longer match SHA256SUMS), ``bad_signature``
(SHA256SUMS signed by another key), ``offline``/``online`` (every connection reset before TLS), and
``fail_next`` (the next N requests, or the next N whose path matches a regex, answer an HTTP error).
``requests`` lists every (method, path) served. The ``provider_registry`` fixture starts one per test
over ``default_releases()``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import socket
import ssl
import struct
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import unquote, urlsplit

import pytest

from tests.plugin_providers import PROVIDERS, _host_os_arch, binary, find_go
from tests.provider_release import (
    Release,
    build_releases,
    h1_hash,
    sha256_hex,
    signing_key,
    tls_files,
    zh_hash,
)

NAMESPACE = "ctltest"
DEFAULT_VERSIONS = {
    "fwtest": ("1.0.0", "1.1.0", "1.2.0", "2.0.0", "2.1.0-beta1"),
    "sdktest": ("1.0.0", "1.1.0"),
}
CONNECTION_TIMEOUT = 30.0  # seconds an idle or stuck client connection may hold a server thread


@functools.cache
def host_os_arch() -> str:
    return _host_os_arch(find_go())


def release(
    type_name: str, version: str, *, namespace: str = NAMESPACE, platforms: Sequence[str] = ()
) -> Release:
    """A release of test provider ``fwtest`` or ``sdktest`` (built with Go when needed) for this host."""
    spec = PROVIDERS[type_name]
    return Release(
        namespace,
        type_name,
        version,
        (f"{spec.protocol}.0",),
        binary(type_name),
        tuple(platforms) or (host_os_arch(),),
    )


def default_releases() -> tuple[Release, ...]:
    return tuple(release(t, v) for t, versions in DEFAULT_VERSIONS.items() for v in versions)


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0), as an unreachable or crashed server looks to a client."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


class _TLSServer(ThreadingHTTPServer):
    """TLS per connection in its handler thread (so a slow handshake holds up no one); tracks connections."""

    daemon_threads = False  # server_close() joins the handler threads: nothing outlives the test

    def __init__(self, registry: ProviderRegistry, context: ssl.SSLContext) -> None:
        self.registry, self.context = registry, context
        self.live: set[socket.socket] = set()
        self.closing = False
        super().__init__(("127.0.0.1", 0), _Handler)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        if self.registry.is_offline or self.closing:
            _reset(request)
            return False
        return True

    def finish_request(self, request: Any, client_address: Any) -> None:
        request.settimeout(CONNECTION_TIMEOUT)
        tls = self.context.wrap_socket(request, server_side=True, do_handshake_on_connect=False)
        with self.registry._lock:
            self.live.add(tls)  # before the handshake, so that close() can cut a stalled one short
        try:
            if not self.closing:
                tls.do_handshake()
                _Handler(tls, client_address, self)
        except OSError:
            pass  # a client that hung up, or failed our certificate
        finally:
            with self.registry._lock:
                self.live.discard(tls)
            tls.close()

    def drop_connections(self) -> None:
        with self.registry._lock:
            live = list(self.live)
        for sock in live:  # the plain socket's shutdown: SSLSocket's drops its TLS state under the reader
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up mid-request are part of the tests; handler bugs land in .errors


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _TLSServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.registry._serve(self)

    do_HEAD = do_GET

    def send(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status: int, document: Any) -> None:
        self.send(status, json.dumps(document).encode(), "application/json")


class ProviderRegistry:
    """``with ProviderRegistry(releases) as registry:`` — a registry + mirror at ``registry.url``."""

    def __init__(self, releases: Sequence[Release], *, mirror_hostname: str | None = None) -> None:
        self.releases = tuple(releases)
        self.files_dir = build_releases(self.releases)
        self.ca_file, cert_file, key_file = tls_files()
        key = signing_key()
        self.public_key_armor, self.key_id = key.public_key_armor, key.key_id
        self.requests: list[tuple[str, str]] = []
        self.errors: list[str] = []  # exceptions raised while answering (a bug here, not in the client)
        self._lock = threading.Lock()
        self._tampered: set[tuple[str, str]] = set()
        self._bad_signature = False
        self._offline = False
        self._failures: list[tuple[int, str]] = []
        self._token: str | None = None
        self.authorizations: list[str | None] = []  # the Authorization header of each API request
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        self._server = _TLSServer(self, context)
        self.port: int = self._server.server_address[1]
        self.host = f"localhost:{self.port}"
        self.url = f"https://{self.host}"
        self.mirror_url = f"{self.url}/mirror/"
        self.mirror_hostname = mirror_hostname or self.host
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name=f"registry-{self.port}", daemon=True
        )

    # -- life cycle --------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._server.closing = True
        self._server.shutdown()
        self._server.drop_connections()
        self._server.server_close()  # joins the handler threads
        self._thread.join()

    # -- what tests ask ----------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        return {"SSL_CERT_FILE": str(self.ca_file)}

    def find(self, type_name: str, version: str, namespace: str = NAMESPACE) -> Release:
        for r in self.releases:
            if (r.namespace, r.type, r.version) == (namespace, type_name, version):
                return r
        raise KeyError(f"{namespace}/{type_name} {version} is not published here")

    def zip_path(self, type_name: str, version: str, os_arch: str | None = None) -> Path:
        return self.files_dir / self.find(type_name, version).zip_name(os_arch or host_os_arch())

    def sha256sums(self, type_name: str, version: str) -> bytes:
        return (self.files_dir / self.find(type_name, version).sums_name).read_bytes()

    def shasum(self, type_name: str, version: str, os_arch: str | None = None) -> str:
        return sha256_hex(self.zip_path(type_name, version, os_arch).read_bytes())

    def zh_hash(self, type_name: str, version: str, os_arch: str | None = None) -> str:
        return zh_hash(self.zip_path(type_name, version, os_arch).read_bytes())

    def h1_hash(self, type_name: str, version: str, os_arch: str | None = None) -> str:
        return h1_hash(self.zip_path(type_name, version, os_arch).read_bytes())

    # -- faults ------------------------------------------------------------------------------------

    def tamper(self, type_name: str, version: str, on: bool = True) -> None:
        """Serve zips of this release with one byte flipped (SHA256SUMS and metadata keep the true hash)."""
        self.find(type_name, version)
        with self._lock:
            if on:
                self._tampered.add((type_name, version))
            else:
                self._tampered.discard((type_name, version))

    def bad_signature(self, on: bool = True) -> None:
        """Serve SHA256SUMS signatures made by a key the registry does not list."""
        if on:
            signing_key("impostor")  # generate it now, not inside a client's request
        self._bad_signature = on

    def offline(self) -> None:
        """Reset every connection, open ones and new ones, before TLS: the host looks unreachable."""
        self._offline = True
        self._server.drop_connections()

    def online(self) -> None:
        self._offline = False

    @property
    def is_offline(self) -> bool:
        return self._offline

    def require_token(self, token: str | None) -> None:
        """Answer 401 to registry and mirror API requests without ``Authorization: Bearer <token>``
        (a private registry; the release files themselves stay open, as on real registries)."""
        self._token = token

    def fail_next(self, n: int = 1, status: int = 503, path: str = "") -> None:
        """Answer ``status`` to the next ``n`` requests (only those whose path matches the regex ``path``)."""
        with self._lock:
            self._failures.extend([(status, path)] * n)

    # -- answering ---------------------------------------------------------------------------------

    def _serve(self, handler: _Handler) -> None:
        if self._offline:
            handler.close_connection = True
            _reset(handler.connection)
            return
        with self._lock:
            self.requests.append((handler.command, handler.path))
            failure = self._take_failure(handler.path)
        if failure is not None:
            handler.send_json(failure, {"errors": [f"injected failure {failure}"]})
            return
        try:
            self._route(handler, urlsplit(handler.path).path)
        except Exception as exc:
            self.errors.append(f"{handler.command} {handler.path}: {exc!r}")
            handler.send_json(500, {"errors": [repr(exc)]})

    def _take_failure(self, path: str) -> int | None:
        for i, (status, pattern) in enumerate(self._failures):
            if re.search(pattern, path):
                del self._failures[i]
                return status
        return None

    def _releases_of(self, namespace: str, type_name: str) -> list[Release]:
        return [r for r in self.releases if (r.namespace, r.type) == (namespace, type_name)]

    def _route(self, handler: _Handler, path: str) -> None:
        if not path.startswith("/files/"):
            sent = handler.headers.get("Authorization")
            self.authorizations.append(sent)
            if self._token is not None and sent != f"Bearer {self._token}":
                return handler.send_json(401, {"errors": ["Unauthorized"]})
        if path == "/.well-known/terraform.json":
            return handler.send_json(200, {"providers.v1": "/v1/providers/"})
        if m := re.fullmatch(r"/v1/providers/([^/]+)/([^/]+)/versions", path):
            found = self._releases_of(*m.groups())
            if found:
                return handler.send_json(200, {"versions": [self._version_entry(r) for r in found]})
        elif m := re.fullmatch(r"/v1/providers/([^/]+)/([^/]+)/([^/]+)/download/([^/]+)/([^/]+)", path):
            namespace, type_name, version, os_name, arch = m.groups()
            found = [r for r in self._releases_of(namespace, type_name) if r.version == version]
            if found and f"{os_name}_{arch}" in found[0].platforms:
                return handler.send_json(200, self._download(found[0], os_name, arch))
        elif m := re.fullmatch(r"/files/([^/]+)", path):
            return self._send_file(handler, m.group(1))
        elif m := re.fullmatch(r"/mirror/([^/]+)/([^/]+)/([^/]+)/([^/]+)", path):
            hostname, namespace, type_name, leaf = m.groups()
            served = unquote(hostname) == self.mirror_hostname  # one registry hostname per mirror
            found = self._releases_of(namespace, type_name) if served else []
            if found and leaf == "index.json":
                return handler.send_json(200, {"versions": {r.version: {} for r in found}})
            for r in found:
                if leaf == f"{r.version}.json":
                    return handler.send_json(200, self._mirror_archives(r))
                if leaf in map(r.zip_name, r.platforms):
                    return self._send_file(handler, leaf)
        handler.send_json(404, {"errors": ["Not Found"]})

    @staticmethod
    def _version_entry(r: Release) -> dict[str, Any]:
        platforms = [dict(zip(("os", "arch"), p.split("_", 1), strict=True)) for p in r.platforms]
        return {"version": r.version, "protocols": list(r.protocols), "platforms": platforms}

    def _download(self, r: Release, os_name: str, arch: str) -> dict[str, Any]:
        filename = r.zip_name(f"{os_name}_{arch}")
        return {
            "protocols": list(r.protocols),
            "os": os_name,
            "arch": arch,
            "filename": filename,
            "download_url": f"{self.url}/files/{filename}",
            "shasums_url": f"{self.url}/files/{r.sums_name}",
            "shasums_signature_url": f"{self.url}/files/{r.sig_name}",
            "shasum": sha256_hex((self.files_dir / filename).read_bytes()),
            "signing_keys": {
                "gpg_public_keys": [
                    {
                        "key_id": self.key_id,
                        "ascii_armor": self.public_key_armor,
                        "trust_signature": "",
                        "source": NAMESPACE,
                        "source_url": None,
                    }
                ]
            },
        }

    def _mirror_archives(self, r: Release) -> dict[str, Any]:
        archives = {}
        for os_arch in r.platforms:
            data = (self.files_dir / r.zip_name(os_arch)).read_bytes()
            archives[os_arch] = {"url": r.zip_name(os_arch), "hashes": [zh_hash(data)]}
        return {"archives": archives}

    def _file_bytes(self, name: str) -> bytes | None:
        for r in self.releases:
            if name == r.sig_name and self._bad_signature:
                return signing_key("impostor").sign((self.files_dir / r.sums_name).read_bytes())
            if name in map(r.zip_name, r.platforms) and (r.type, r.version) in self._tampered:
                data = bytearray((self.files_dir / name).read_bytes())
                data[len(data) // 2] ^= 0xFF
                return bytes(data)
        path = self.files_dir / name
        return path.read_bytes() if path.is_file() else None

    def _send_file(self, handler: _Handler, name: str) -> None:
        data = self._file_bytes(name)
        if data is None:
            return handler.send_json(404, {"errors": ["Not Found"]})
        kind = "application/zip" if name.endswith(".zip") else "application/octet-stream"
        headers = {"Accept-Ranges": "bytes"}
        wanted = re.fullmatch(r"bytes=(\d+)-(\d*)", handler.headers.get("Range", "").strip())
        if wanted is None:
            return handler.send(200, data, kind, headers)
        start = int(wanted.group(1))
        end = min(int(wanted.group(2) or len(data) - 1), len(data) - 1)
        if start >= len(data) or start > end:
            headers["Content-Range"] = f"bytes */{len(data)}"
            return handler.send(416, b"", kind, headers)
        headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
        handler.send(206, data[start : end + 1], kind, headers)


@pytest.fixture
def provider_registry() -> Iterator[ProviderRegistry]:
    """A running registry + mirror over ``default_releases()`` (fwtest 1.0.0 … 2.1.0-beta1, sdktest 1.x)."""
    with ProviderRegistry(default_releases()) as registry:
        yield registry
