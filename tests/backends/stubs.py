"""A canned-answer HTTP server for the failures real test servers cannot produce on demand.

moto, fake-gcs-server and Azurite accept every credential and never throttle, so "access denied" and
"still throttled after retries" are shown against this stub instead: it answers every request with
one fixed response and counts the requests (to see that the SDK's retry policy really retried).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class StubServer:
    """Answers every request with ``status``, ``headers`` and ``body`` on a free loopback port."""

    def __init__(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = body
        self.headers = dict(headers or {})
        self.requests: list[str] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                stub.requests.append(f"{self.command} {self.path}")
                self.send_response(stub.status)
                for name, value in stub.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(stub.body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(stub.body)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _answer

            def log_message(self, format: str, *args: object) -> None:  # quiet test output
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
