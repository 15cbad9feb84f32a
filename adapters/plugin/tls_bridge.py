"""Mutual TLS to a provider through Python's ``ssl``, for a plain gRPC channel on a private socket.

go-plugin's servers sign the TLS handshake with their P-521 key. The TLS library inside grpcio
(BoringSSL) does not offer the P-521 signature scheme in TLS 1.3 and has no setting to add it, so a
gRPC channel cannot complete go-plugin's mutual TLS by itself (the plugin answers with a
handshake_failure alert). OpenSSL, which Python's ``ssl`` module uses, can. So ctl keeps
Terraform's security model this way: gRPC speaks plain HTTP/2 to a unix socket in a directory
only the current user can enter, and this bridge carries each connection over mutual TLS to the
provider.

Each bridge is one thread around one selector: it accepts gRPC's connection and relays it through
an ``ssl.SSLObject`` over memory buffers, so TLS never blocks on a half-arrived record and one
thread serves both directions without sharing an SSL object between threads. Every RPC crosses the
bridge both ways, so each chunk costs only a few system calls: less CPU per RPC than an asyncio
relay with streams (``bench/plugin_scale.py`` reports ctl's CPU per resource).
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import ssl
import threading
from pathlib import Path

from adapters.plugin.tls import TLS_SERVER_NAME, ClientCertificate

_log = logging.getLogger("ctl.plugin")
_CHUNK = 256 * 1024
_CONNECT_TIMEOUT = 10.0


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


class _TlsLink:
    """The provider's end of one relayed connection: a socket plus TLS state in memory buffers."""

    def __init__(self, sock: socket.socket, context: ssl.SSLContext) -> None:
        self.sock = sock
        self._incoming, self._outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self._incoming, self._outgoing, server_hostname=TLS_SERVER_NAME)

    def handshake(self) -> None:
        """Complete the TLS handshake (the socket is still blocking, with a timeout)."""
        while True:
            try:
                self.tls.do_handshake()
                self.flush()
                return
            except ssl.SSLWantReadError:
                self.flush()
                self._receive()

    def _receive(self) -> bool:
        data = self.sock.recv(_CHUNK)
        if not data:
            self._incoming.write_eof()
            return False
        self._incoming.write(data)
        return True

    def flush(self) -> None:
        """Send whatever TLS produced (records, alerts, session or key-update replies)."""
        pending = self._outgoing.read()
        if pending:
            self.sock.sendall(pending)

    def send(self, data: bytes) -> None:
        self.tls.write(data)
        self.flush()

    def receive(self) -> list[bytes] | None:
        """The plaintext the socket's new bytes complete; None once the provider closed."""
        open_ = self._receive()
        out: list[bytes] = []
        while True:
            try:
                chunk = self.tls.read(_CHUNK)
            except ssl.SSLWantReadError:
                break
            except ssl.SSLZeroReturnError:
                return None
            if not chunk:
                return None
            out.append(chunk)
        self.flush()
        return out if open_ or out else None


class TlsBridge:
    """Listens on ``listen_path``; each connection is relayed over mutual TLS to the provider."""

    def __init__(self, listen_path: Path, network: str, address: str, context: ssl.SSLContext) -> None:
        self.listen_path = listen_path
        self._network, self._address, self._context = network, address, context
        self._selector = selectors.DefaultSelector()
        self._listener: socket.socket | None = None
        self._wake_r, self._wake_w = socket.socketpair()
        self._thread: threading.Thread | None = None
        self._closing = False

    def start(self) -> None:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.listen_path))
        listener.listen(4)
        listener.setblocking(False)
        self._listener = listener
        self._selector.register(listener, selectors.EVENT_READ, None)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._thread = threading.Thread(target=self._serve, name="ctl-plugin-tls", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop listening and drop open connections; safe to call twice."""
        if self._closing:
            return
        self._closing = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _serve(self) -> None:
        peers: dict[socket.socket, tuple[socket.socket, _TlsLink]] = {}
        try:
            while not self._closing:
                for key, _ in self._selector.select():
                    sock = key.fileobj
                    assert isinstance(sock, socket.socket)
                    if sock is self._wake_r:
                        return
                    if sock is self._listener:
                        self._accept(peers)
                    elif sock in peers and not self._relay(sock, peers):  # not dropped earlier in this round
                        self._drop(sock, peers)
        finally:
            for connected in list(peers):
                self._drop(connected, peers)
            for own in (self._listener, self._wake_r, self._wake_w):
                if own is not None:
                    own.close()
            self._selector.close()

    def _accept(self, peers: dict[socket.socket, tuple[socket.socket, _TlsLink]]) -> None:
        assert self._listener is not None
        try:
            local, _ = self._listener.accept()
        except BlockingIOError:
            return
        try:
            link = _TlsLink(self._connect(), self._context)
            link.handshake()
        except (OSError, ssl.SSLError) as exc:
            _log.warning("TLS connection to the provider at %s failed: %s", self._address, exc)
            local.close()
            return
        local.setblocking(True)
        link.sock.settimeout(None)
        peers[local] = (local, link)
        peers[link.sock] = (local, link)
        self._selector.register(local, selectors.EVENT_READ, None)
        self._selector.register(link.sock, selectors.EVENT_READ, None)

    def _connect(self) -> socket.socket:
        if self._network == "unix":
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(_CONNECT_TIMEOUT)
            sock.connect(self._address)
            return sock
        host, _, port = self._address.rpartition(":")
        return socket.create_connection((host.strip("[]"), int(port)), timeout=_CONNECT_TIMEOUT)

    @staticmethod
    def _relay(sock: socket.socket, peers: dict[socket.socket, tuple[socket.socket, _TlsLink]]) -> bool:
        """Move what arrived on ``sock`` to the other end; False once either end is finished."""
        local, link = peers[sock]
        try:
            if sock is local:
                data = local.recv(_CHUNK)
                if not data:
                    return False
                link.send(data)
                return True
            chunks = link.receive()
            if chunks is None:
                return False
            for chunk in chunks:
                local.sendall(chunk)
            return True
        except (OSError, ssl.SSLError):
            return False

    def _drop(self, sock: socket.socket, peers: dict[socket.socket, tuple[socket.socket, _TlsLink]]) -> None:
        """Close both ends of the connection ``sock`` belongs to."""
        pair = peers.get(sock)
        if pair is None:
            return
        local, link = pair
        for end in (local, link.sock):
            peers.pop(end, None)
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(end)
            end.close()
