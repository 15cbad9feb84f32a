"""The ``cloud`` wait: every HTTP request ctl makes through urllib3 (what boto3, google-cloud-storage
and azure-storage-blob send with) is timed for the recorders watching, once however often urllib3
retries it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import urllib3

from engine.telemetry.cloud import watch
from engine.telemetry.timings import CLOUD, Timings

DELAY = 0.3


@pytest.fixture
def slow_server() -> Iterator[tuple[str, list[str]]]:
    """A loopback server that answers after DELAY seconds; the first request to /flaky gets a 503."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            time.sleep(DELAY)
            status = 503 if self.path == "/flaky" and seen.count("/flaky") == 1 else 200
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_a_request_is_time_waiting_on_the_cloud_for_the_recorders_watching(slow_server: tuple[str, list[str]]) -> None:
    url, _ = slow_server
    watched, other = Timings(), Timings()
    watch(watched)
    assert urllib3.PoolManager().request("GET", f"{url}/state").status == 200
    assert DELAY <= watched.waits[CLOUD] < DELAY + 1.0
    assert other.waits[CLOUD] == 0.0  # not watched: nothing counted
    assert not [s for s in watched.spans if s.kind == CLOUD]  # a total only, no span per request
    assert "waiting on cloud" in [what for what, _, _ in watched.report().rows()]


def test_a_retried_request_is_counted_once_with_its_retries(slow_server: tuple[str, list[str]]) -> None:
    url, seen = slow_server
    timings = Timings()
    watch(timings)
    retries = urllib3.Retry(total=2, status_forcelist=[503], backoff_factor=0)
    assert urllib3.PoolManager(retries=retries).request("GET", f"{url}/flaky").status == 200
    assert seen == ["/flaky", "/flaky"]
    assert 2 * DELAY <= timings.waits[CLOUD] < 2 * DELAY + 1.0  # both tries, the outer call timed once
