"""HTTP(S) for installation: JSON documents and resumable downloads, retried on transient faults.

Registries and mirrors are reached with the standard library's ``urllib`` and the system's trust
store (``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` name extra authorities, as for Terraform). A download
that breaks off is resumed from where it stopped (``Range``) and a 5xx, a reset or a timeout is
retried with backoff, so a flaky network costs time, not a failed ``init``.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.errors import CtlError
from engine.version import VERSION

TIMEOUT = 30.0
ATTEMPTS = 4
_BACKOFF = (0.2, 0.5, 1.0)
_CHUNK = 1 << 16
Progress = Callable[[int, int | None], None]


class FetchError(CtlError):
    """A registry or mirror could not be reached, or answered with an error."""

    def __init__(self, summary: str, *, status: int | None = None, hint: str = "") -> None:
        super().__init__(summary, hint=hint or "Check the network and the address, then run `ctl init` again.")
        self.status = status


def _request(url: str, headers: dict[str, str] | None = None) -> urllib.request.Request:
    return urllib.request.Request(url, headers={"User-Agent": f"ctl/{VERSION}", **(headers or {})})


def _retrying(url: str, action: Callable[[int], Any]) -> Any:
    """Run ``action(attempt)``, retrying connection faults and 5xx/429 answers; 4xx fail at once."""
    last = ""
    for attempt in range(ATTEMPTS):
        try:
            return action(attempt)
        except urllib.error.HTTPError as exc:
            if exc.code < 500 and exc.code != 429:
                raise FetchError(f"{url} answered {exc.code} {exc.reason}", status=exc.code) from None
            last = f"{exc.code} {exc.reason}"
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            last = str(reason) or type(exc).__name__
        if attempt < ATTEMPTS - 1:
            time.sleep(_BACKOFF[min(attempt, len(_BACKOFF) - 1)])
    raise FetchError(f"cannot reach {url}: {last} (tried {ATTEMPTS} times)")


def get_json(url: str, token: str | None = None) -> Any:
    """A JSON document (sent with ``token`` as a bearer token); an answer that is not JSON is an error."""
    headers = {"Accept": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}

    def once(_: int) -> bytes:
        with urllib.request.urlopen(_request(url, headers), timeout=TIMEOUT) as answer:
            return bytes(answer.read())

    raw = _retrying(url, once)
    try:
        return json.loads(raw)
    except ValueError:
        raise FetchError(f"{url} did not answer with JSON", hint="Check that the address is a provider "
                         "registry or mirror.") from None


def get_bytes(url: str) -> bytes:
    def once(_: int) -> bytes:
        with urllib.request.urlopen(_request(url), timeout=TIMEOUT) as answer:
            return bytes(answer.read())

    return bytes(_retrying(url, once))


def download(url: str, target: Path, progress: Progress | None = None) -> None:
    """Download ``url`` into ``target``, resuming a broken transfer where it stopped."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"")

    def once(_: int) -> None:
        have = target.stat().st_size
        headers = {"Range": f"bytes={have}-"} if have else {}
        with urllib.request.urlopen(_request(url, headers), timeout=TIMEOUT) as answer:
            resumed = answer.status == 206
            length = answer.headers.get("Content-Length")
            total = (int(length) + (have if resumed else 0)) if length and length.isdigit() else None
            with target.open("ab" if resumed else "wb") as out:
                done = have if resumed else 0
                while chunk := answer.read(_CHUNK):
                    out.write(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total)
            if total is not None and done < total:
                raise OSError(f"the transfer stopped after {done} of {total} bytes")

    _retrying(url, once)
