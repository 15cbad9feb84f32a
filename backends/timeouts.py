"""How long a backend waits for a storage service that does not answer.

A request that gets no reply at all (a black-holed endpoint, a proxy that swallows it) is the one
failure retries cannot fix quickly: each attempt waits the whole read timeout. The timeout is
therefore short (S3, GCS and Azure answer in well under a second; a large state streams, and
the timeout counts silence, not transfer time) and one number for every backend, so that the
worst case of an operation is about (attempts x timeout) and is said in the error. Reachable
services that are merely slow keep working; ``CTL_BACKEND_TIMEOUT`` raises it for a slow link.
"""

from __future__ import annotations

import os

from backends.base import BackendError

DEFAULT_REPLY_TIMEOUT_S = 20.0
CONNECT_TIMEOUT_S = 10.0
ENV = "CTL_BACKEND_TIMEOUT"


def reply_timeout() -> float:
    """Seconds to wait for a reply (between bytes) before the attempt counts as failed."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return DEFAULT_REPLY_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value <= 3600:
        raise BackendError(f"{ENV}={raw!r} is not a number of seconds between 0 and 3600",
                           hint=f"Set {ENV} to, for example, 60 for a slow link, or unset it ({DEFAULT_REPLY_TIMEOUT_S:g} s).")
    return value


def connect_timeout() -> float:
    return min(CONNECT_TIMEOUT_S, reply_timeout())
