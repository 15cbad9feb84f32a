"""A fault-injecting HTTP proxy on loopback, between ctl and a cloud emulator (moto, fake-gcs-server).

Requests are forwarded to the emulator unchanged unless a fault is armed for them: an HTTP error
status (503 or 429, with ``Retry-After``), a connection reset, a delay, or a response cut short.
Each fault applies to the next N requests that match its method and path pattern, so a test can
say "the next two state writes are throttled" and watch ctl retry, give up, or converge. Every
request is recorded (method, path, and what was done to it) for the test to assert on.
"""

from __future__ import annotations

import http.client
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.servers import free_port


class _Server(ThreadingHTTPServer):
    """A listen backlog for a walker's worth of clients connecting at once (the default is 5)."""

    request_queue_size = 128


@dataclass
class Fault:
    """What to do to the next ``times`` requests matching ``method`` and the ``path`` regex."""

    kind: str  # "status" | "reset" | "delay" | "truncate" | "lose_reply" (forwarded, then the reply lost)
    times: int
    method: str = ".*"
    path: str = ".*"
    status: int = 503
    retry_after: str | None = "0"
    delay_s: float = 0.0

    def matches(self, method: str, path: str) -> bool:
        return self.times > 0 and re.fullmatch(self.method, method) is not None and re.search(self.path, path) is not None


@dataclass
class Seen:
    method: str
    path: str
    fault: str  # "" when forwarded untouched


@dataclass
class FaultProxy:
    """``with FaultProxy(target_url) as proxy:`` — point the client at ``proxy.url``."""

    target: str
    faults: list[Fault] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        target = urlsplit(self.target)
        self._host, self._target_port = target.hostname or "127.0.0.1", target.port or 80
        self._server = _Server(("127.0.0.1", self.port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def arm(self, kind: str, times: int = 1, **how: Any) -> Fault:
        fault = Fault(kind, times, **how)
        with self._lock:
            self.faults.append(fault)
        return fault

    def faulted(self, kind: str | None = None) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.fault and (kind is None or s.fault == kind)]

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _take(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(method, path):
                    fault.times -= 1
                    self.seen.append(Seen(method, path, fault.kind))
                    return fault
            self.seen.append(Seen(method, path, ""))
            return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _relay(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                fault = proxy._take(self.command, self.path)
                if fault is not None and fault.kind == "reset":
                    self._reset()
                    return
                if fault is not None and fault.kind == "status":
                    payload = b"<Error><Code>SlowDown</Code><Message>injected</Message></Error>"
                    self.send_response(fault.status)
                    if fault.retry_after is not None:
                        self.send_header("Retry-After", fault.retry_after)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    if self.command != "HEAD":  # a body after HEAD would corrupt the kept-alive stream
                        self.wfile.write(payload)
                    return
                if fault is not None and fault.kind == "delay":
                    time.sleep(fault.delay_s)
                upstream = http.client.HTTPConnection(proxy._host, proxy._target_port, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
                upstream.request(self.command, self.path, body=body, headers=headers)
                reply = upstream.getresponse()
                data = reply.read()
                upstream.close()
                if fault is not None and fault.kind == "lose_reply":  # done upstream, never told
                    self._reset()
                    return
                self.send_response(reply.status, reply.reason)
                for key, value in reply.getheaders():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if fault is not None and fault.kind == "truncate" and data:
                    self.wfile.write(data[: len(data) // 2])
                    self.connection.close()
                    self.close_connection = True
                    return
                self.wfile.write(data)

            def _reset(self) -> None:
                """Close with a TCP reset (SO_LINGER 0), as a dropped connection looks to the client."""
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _relay

        return Handler
