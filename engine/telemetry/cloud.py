"""Time ctl itself spends waiting on cloud APIs: the ``cloud`` wait of the timing report.

A slow run is often a slow cloud: S3 answering the state backend late, an API throttling the
native AWS adapter. ctl's own requests to clouds, whatever SDK makes them (boto3 for S3 and AWS,
google-cloud-storage, azure-storage-blob, and the HTTP state backends), all go through urllib3's
connection pools, so one wrapper around ``HTTPConnectionPool.urlopen`` times every one of them,
from sending the request until the answer's headers arrived (an SDK reads a body afterwards, which
for the small answers of an API call is little more). Retries inside urllib3 are counted once, as
part of the call that made them. A plugin provider's requests happen in its own process: they are
in the ``providers`` wait instead.

The wrapper is installed the first time a recorder is watched, and stays: with no recorder alive it
costs one test per request. Recorders are held weakly, so a command's recorder goes with it; two
measured commands running at once in one process (never ``ctl`` itself, which runs one) would each
count the other's requests too.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Any

from engine.telemetry.timings import CLOUD, Timings

_recorders: weakref.WeakSet[Timings] = weakref.WeakSet()
_installed = False
_install_lock = threading.Lock()
_depth = threading.local()  # within a request already being timed: a retry or a redirect it makes


def watch(timings: Timings) -> None:
    """Count the time of every cloud request from now on as ``timings``' ``cloud`` wait."""
    _install()
    _recorders.add(timings)


def _install() -> None:
    global _installed
    with _install_lock:
        if _installed:
            return
        try:
            from urllib3.connectionpool import HTTPConnectionPool
        except ImportError:  # no SDK that could reach a cloud is installed either
            _installed = True
            return
        original = HTTPConnectionPool.urlopen

        def urlopen(self: HTTPConnectionPool, *args: Any, **kwargs: Any) -> Any:
            if getattr(_depth, "inside", False) or not _recorders:
                return original(self, *args, **kwargs)
            _depth.inside = True
            started = time.perf_counter()
            try:
                return original(self, *args, **kwargs)
            finally:
                _depth.inside = False
                seconds = time.perf_counter() - started
                for recorder in list(_recorders):
                    recorder.wait(CLOUD, seconds, record_span=False)

        HTTPConnectionPool.urlopen = urlopen  # type: ignore[method-assign]  # wrapped on purpose, to time it
        _installed = True
