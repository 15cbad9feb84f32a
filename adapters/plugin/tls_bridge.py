"""Mutual TLS to a provider through Python's ``ssl``, for a plain gRPC channel on a private socket.

go-plugin's servers sign the TLS handshake with their P-521 key. The TLS library inside grpcio
(BoringSSL) does not offer the P-521 signature scheme in TLS 1.3 and has no setting to add it, so a
gRPC channel cannot complete go-plugin's mutual TLS by itself (the plugin answers with a
handshake_failure alert). OpenSSL, which Python's ``ssl`` module uses, can. So ctl keeps
Terraform's security model this way: gRPC speaks plain HTTP/2 to a unix socket in a directory
only the current user can enter, and this bridge carries each connection over mutual TLS to the
provider. One event-loop thread serves the bridges of every provider in the process; the cost is
measured in tests/adapters/plugin/test_plugin_client.py (tens of microseconds per call).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import threading
from pathlib import Path

from adapters.plugin.tls import TLS_SERVER_NAME, ClientCertificate

_log = logging.getLogger("ctl.plugin")
_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_CHUNK = 256 * 1024


def _bridge_loop() -> asyncio.AbstractEventLoop:
    """The one event loop all bridges run on, started on first use (a daemon thread)."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="ctl-plugin-tls", daemon=True).start()
            _loop = loop
        return _loop


def client_ssl_context(cert: ClientCertificate, server_cert_pem: bytes, key_dir: Path) -> ssl.SSLContext:
    """Trust only the provider's certificate; present ours. ``key_dir`` must be private (0700)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_verify_locations(cadata=server_cert_pem.decode("ascii"))
    # ssl reads a key pair only from files: write them briefly inside the private directory.
    cert_file, key_file = key_dir / "client.crt", key_dir / "client.key"
    cert_file.write_bytes(cert.cert_pem)
    key_file.touch(mode=0o600)
    key_file.write_bytes(cert.key_pem)
    try:
        context.load_cert_chain(cert_file, key_file)
    finally:
        cert_file.unlink()
        key_file.unlink()
    context.set_alpn_protocols(["h2"])  # gRPC servers refuse TLS connections without it
    return context


class TlsBridge:
    """Listens on ``listen_path``; each connection is relayed over mutual TLS to the provider."""

    def __init__(self, listen_path: Path, network: str, address: str, context: ssl.SSLContext) -> None:
        self.listen_path = listen_path
        self._network, self._address, self._context = network, address, context
        self._loop = _bridge_loop()
        self._server: asyncio.AbstractServer | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    def start(self) -> None:
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_unix_server(self._relay, path=str(self.listen_path)), self._loop
        ).result(timeout=10)

    def close(self) -> None:
        """Stop listening and drop open connections; safe to call twice."""
        server, self._server = self._server, None
        if server is None:
            return

        async def shut() -> None:
            # Closing both ends of every relayed connection ends its pumps without cancelling.
            server.close()
            for writer in list(self._writers):
                writer.close()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(shut(), self._loop).result(timeout=5)

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._network == "unix":
            return await asyncio.open_unix_connection(
                self._address, ssl=self._context, server_hostname=TLS_SERVER_NAME, limit=_CHUNK
            )
        host, _, port = self._address.rpartition(":")
        return await asyncio.open_connection(
            host.strip("[]"), int(port), ssl=self._context, server_hostname=TLS_SERVER_NAME, limit=_CHUNK
        )

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            remote_reader, remote_writer = await self._connect()
        except (OSError, ssl.SSLError) as exc:
            _log.warning("TLS connection to the provider at %s failed: %s", self._address, exc)
            writer.close()
            return
        pair = {writer, remote_writer}
        self._writers |= pair
        try:
            await asyncio.gather(_pump(reader, remote_writer), _pump(remote_reader, writer))
        finally:
            self._writers -= pair


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy bytes one way until EOF, then close the far side so the other direction ends too."""
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
    except (OSError, ssl.SSLError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()
