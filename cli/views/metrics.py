"""``ctl reconcile --metrics-addr``: Prometheus metrics of the loop and a ``/healthz``, over HTTP.

prometheus-client is imported only when the flag is given, so a
reconcile without metrics (and every other command) never loads it. The registry is the loop's
own, not the library's global one: what is scraped is the loop, not the Python process.

``/healthz`` answers 200 while the last round succeeded (or none has finished yet) and 503 with
the error once the last round failed: a readiness probe, which takes a loop that cannot reach its
backend out of rotation without restarting it.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from vocab.errors import CtlError, UsageError

if TYPE_CHECKING:
    from engine.drift.reconcile import RoundReport

OUTCOMES = ("converged", "pending", "error", "interrupted")


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:9100``, ``:9100`` for every interface) -> (host, port)."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise UsageError(f'Invalid --metrics-addr "{text}"', hint="Use HOST:PORT, such as 127.0.0.1:9100 or :9100.")
    host = host.removeprefix("[").removesuffix("]") or "0.0.0.0"
    return host, int(port)


class MetricsServer:
    """The loop's metrics, served on ``address`` from a daemon thread until ``close``."""

    def __init__(self, address: str) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        host, port = parse_address(address)
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.rounds = Counter("ctl_reconcile_rounds", "Reconcile rounds run, by outcome.", ["outcome"], registry=r)
        for outcome in OUTCOMES:
            self.rounds.labels(outcome)  # every outcome shows, at 0, from the start
        self.drifted = Gauge("ctl_reconcile_drifted_objects", "Objects the last round found changed outside ctl.",
                             registry=r)
        self.applied = Counter("ctl_reconcile_applied_changes", "Changes applied unattended.", registry=r)
        self.refused = Counter("ctl_reconcile_refused_changes",
                               "Changes left for a person (counted in every round that leaves them).", registry=r)
        self.pending = Gauge("ctl_reconcile_pending_changes", "Changes the last round left for a person.", registry=r)
        self.duration = Histogram("ctl_reconcile_round_duration_seconds", "How long each round took.",
                                  buckets=(0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800), registry=r)
        self.last_success = Gauge("ctl_reconcile_last_success_timestamp_seconds",
                                  "When the last round that did not fail ended (Unix time).", registry=r)
        self.failures = Gauge("ctl_reconcile_consecutive_failures", "Rounds failed in a row.", registry=r)
        self.unhealthy: str | None = None
        try:
            self._server = ThreadingHTTPServer((host, port), _handler(self))
        except OSError as exc:
            raise CtlError(f"Cannot serve metrics on {address}: {exc.strerror or exc}",
                           hint="Choose a free port with --metrics-addr HOST:PORT.") from None
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, name="metrics", daemon=True)
        self._thread.start()

    def observe(self, report: RoundReport, seconds: float, failures: int) -> None:
        """One finished round."""
        self.rounds.labels(report.outcome).inc()
        self.drifted.set(len(report.drifted))
        self.applied.inc(len(report.applied))
        self.refused.inc(len(report.refused))
        self.pending.set(len(report.refused))
        self.duration.observe(seconds)
        self.failures.set(failures)
        if report.outcome == "error":
            self.unhealthy = str(report.error) if report.error is not None else "an apply failed"
        else:
            self.unhealthy = None
            self.last_success.set(time.time())

    def body(self) -> tuple[bytes, str]:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(server: MetricsServer) -> Any:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                body, kind = server.body()
                self._send(200, body, kind)
            elif path == "/healthz":
                problem = server.unhealthy
                text = "ok\n" if problem is None else f"last round failed: {problem}\n"
                self._send(200 if problem is None else 503, text.encode(), "text/plain; charset=utf-8")
            else:
                self._send(404, b"not found: try /metrics or /healthz\n", "text/plain; charset=utf-8")

        def _send(self, code: int, body: bytes, kind: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Scrapes are not news: stderr stays for the loop's own messages."""

    return Handler


__all__ = ["MetricsServer", "parse_address"]
