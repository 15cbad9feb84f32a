"""A real OpenTelemetry Collector receiver for the trace tests, built from Go under tests/otelcol/.

``tests/otelcol`` is a small Go program around the collector's own ``otlpreceiver`` (OTLP over HTTP
and gRPC, as ``otelcol`` serves it) that appends every trace it receives to a file as a line of OTLP
JSON, what the collector's file exporter writes. Its modules come from the Go module proxy; the
binary is built into ``tests/otelcol/.build`` when a source is newer than it, like the test providers
(``tests/plugin_providers.py``). Without Go the tests that need it are skipped, except under CI, where
that is a failure.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.plugin_providers import find_go

SOURCE = Path(__file__).resolve().parent / "otelcol"
BUILD_DIR = SOURCE / ".build"
BINARY = BUILD_DIR / "otelcol-test"


class CollectorBuildError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build() -> Path:
    """The collector's binary, built first when its sources changed."""
    go = find_go()
    if go is None:
        reason = "Go is not installed, so the OpenTelemetry Collector under tests/otelcol cannot be built"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            raise CollectorBuildError(reason)
        pytest.skip(reason)
    assert go is not None
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    newest = max(p.stat().st_mtime for p in SOURCE.iterdir() if p.suffix == ".go" or p.name in ("go.mod", "go.sum"))
    with open(BUILD_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not BINARY.exists() or BINARY.stat().st_mtime <= newest:
            partial = BINARY.with_name(BINARY.name + ".partial")
            result = subprocess.run([go, "build", "-trimpath", "-o", str(partial), "."], cwd=SOURCE,
                                    capture_output=True, text=True)
            if result.returncode != 0:
                raise CollectorBuildError(f"go build in tests/otelcol failed:\n{result.stdout}{result.stderr}")
            partial.replace(BINARY)
    return BINARY


@dataclass
class Collector:
    """A running collector: its OTLP endpoints and the spans it wrote to its file."""

    http_endpoint: str
    grpc_endpoint: str
    out: Path
    raw: list[str] = field(default_factory=list)

    def spans(self) -> list[dict[str, Any]]:
        """Every span received so far: name, ids (hex), parent, status code and message, attributes
        and events (each its name and attributes)."""
        if not self.out.exists():
            return []
        found = []
        for line in self.out.read_text().splitlines():
            self.raw.append(line)
            doc = json.loads(line)
            for rs in doc.get("resourceSpans", []):
                service = {a["key"]: a["value"].get("stringValue") for a in rs.get("resource", {}).get("attributes", [])}
                for ss in rs.get("scopeSpans", []):
                    for span in ss.get("spans", []):
                        found.append({
                            "name": span["name"], "id": span["spanId"], "parent": span.get("parentSpanId", ""),
                            "trace": span["traceId"], "status": span.get("status", {}).get("code", 0),
                            "message": span.get("status", {}).get("message", ""),
                            "service": service.get("service.name"),
                            "attrs": _attributes(span.get("attributes", [])),
                            "events": [{"name": e["name"], "attrs": _attributes(e.get("attributes", []))}
                                       for e in span.get("events", [])]})
        return found

    def wait_for(self, name: str, timeout: float = 10, count: int = 1) -> list[dict[str, Any]]:
        """The spans once ``count`` called ``name`` arrived (the file is written as requests are handled)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            spans = self.spans()
            if sum(s["name"] == name for s in spans) >= count:
                return spans
            time.sleep(0.1)
        raise AssertionError(f"no span {name!r} reached the collector within {timeout}s")


def _attributes(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """OTLP JSON's key/value list as a dict (integers arrive as strings, as OTLP JSON writes them)."""
    return {a["key"]: next(iter(a["value"].values()), None) for a in pairs}


@contextlib.contextmanager
def running(tmp: Path) -> Iterator[Collector]:
    """Start the collector on two free loopback ports; stopped when the block ends."""
    binary = build()
    http_port, grpc_port = _free_port(), _free_port()
    out = tmp / "traces.jsonl"
    proc = subprocess.Popen([str(binary), "-http", f"127.0.0.1:{http_port}", "-grpc", f"127.0.0.1:{grpc_port}",
                             "-out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != "ready":
            proc.kill()
            raise CollectorBuildError(f"the collector did not start: {line}{proc.stderr.read() if proc.stderr else ''}")
        yield Collector(f"http://127.0.0.1:{http_port}", f"http://127.0.0.1:{grpc_port}", out)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
