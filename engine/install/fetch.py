"""HTTP(S) for installation: JSON documents and resumable downloads, retried on transient faults.

Registries and mirrors are reached with the standard library's ``urllib`` and the system's trust
store (``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` name extra authorities, as for Terraform). A download
that breaks off is resumed from where it stopped (``Range``) and a 5xx, a reset or a timeout is
retried with backoff, so a flaky network costs time, not a failed ``init``.

Every address comes from a remote party (a registry names its download URLs, a mirror its archives),
so what is followed is narrow: only ``https://`` URLs, never ``file://`` or any other scheme, not even
through a redirect (Terraform too requires https of network mirrors, and registries are found over
https); a redirect never takes a bearer token to another host. Every document and
download has a size cap and an overall deadline (``engine/install/constants.py``): a watchdog cuts
the connection when the deadline passes, whatever the transfer is blocked in, so a server that drips
a byte every few seconds ends the run as surely as one that sends for ever.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import os
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from engine.install.constants import (
    MAX_DOCUMENT_BYTES,
    document_deadline,
    download_deadline,
    max_download_bytes,
)
from vocab.errors import CtlError
from vocab.version import VERSION

TIMEOUT = 30.0
ATTEMPTS = 4
_BACKOFF = (0.2, 0.5, 1.0)
_CHUNK = 1 << 16
Progress = Callable[[int, int | None], None]


class FetchError(CtlError):
    """A registry or mirror could not be reached, or answered with an error."""

    def __init__(self, summary: str, *, status: int | None = None, hint: str = "", unreachable: bool = False) -> None:
        super().__init__(summary, hint=hint or "Check the network and the address, then run `ctl init` again.")
        self.status = status
        self.unreachable = unreachable  # no answer at all (as opposed to a refused or misbehaving one)


class _Deadline:
    """The overall time one fetch may take: when it passes, every connection the fetch opened is shut
    down, which wakes a read blocked on a server that sends too slowly to trip the socket timeout."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            held, self._sockets = self._sockets, []
        for sock in held:
            sock.close()

    def remaining(self) -> float:
        return max(0.0, self.ends - time.monotonic())

    def watch(self, sock: socket.socket) -> None:
        """Keep a duplicate of ``sock``'s descriptor: shutting it down ends the TLS connection on top too."""
        duplicate = sock.dup()
        with self._lock:
            self._sockets.append(duplicate)
            if self.expired:
                _shut(duplicate)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _Request(urllib.request.Request):
    """A request that carries its fetch's deadline."""

    deadline: _Deadline


def _watched(base: type[http.client.HTTPConnection], deadline: _Deadline) -> Callable[..., Any]:
    """A connection class of ``base`` whose sockets ``deadline`` watches."""

    def make(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
        kwargs["timeout"] = max(0.1, min(TIMEOUT, deadline.remaining()))
        connection = base(*args, **kwargs)

        def create(address: tuple[str, int], timeout: float, source: Any = None) -> socket.socket:
            sock = socket.create_connection(address, timeout, source)
            deadline.watch(sock)
            return sock

        connection._create_connection = create  # type: ignore[attr-defined]  # http.client's socket hook, not in its stubs
        return connection

    return make


class _Https(urllib.request.HTTPSHandler):
    def __init__(self, context: ssl.SSLContext) -> None:
        super().__init__(context=context)
        self.tls_context = context

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        deadline = getattr(req, "deadline", None)
        if deadline is None:
            return super().https_open(req)
        return self.do_open(_watched(http.client.HTTPSConnection, deadline), req, context=self.tls_context)


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Redirects as Terraform follows them, minus the risks: the token stays with its host, and a
    redirect may not leave https (nor lead to ``file://`` or any other scheme)."""

    def http_error_302(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                       headers: http.client.HTTPMessage) -> urllib.request.Request | None:
        # The standard library refuses a file:// or ftp:// Location before redirect_request sees it,
        # with a message about the answer; the refusal is ctl's own, so its message is too.
        location = headers.get("location") or headers.get("uri")
        if location:
            _https_only(req.full_url, urllib.parse.urljoin(req.full_url, location))
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: http.client.HTTPMessage, newurl: str) -> urllib.request.Request | None:
        old, new = urllib.parse.urlsplit(req.full_url), urllib.parse.urlsplit(newurl)
        _https_only(req.full_url, newurl)
        redirected = super().redirect_request(req, fp, code, msg, headers, newurl)
        if redirected is None:
            return None
        if (old.hostname, old.port) != (new.hostname, new.port):
            redirected.remove_header("Authorization")  # a bearer token is for the host it was given for
        redirected.deadline = getattr(req, "deadline", None)  # type: ignore[attr-defined]  # rides on the stdlib's Request
        return redirected


def _https_only(url: str, newurl: str) -> None:
    """A redirect from ``url`` to ``newurl`` is followed only to https."""
    if urllib.parse.urlsplit(newurl).scheme != "https":
        raise FetchError(
            f"{_shown(url)} redirected to {_shown(newurl)}, which ctl does not follow",
            hint="Only https:// redirects are followed (never from https to plain http, never to a "
                 "file); tell the registry's or mirror's operator.",
        )


@functools.cache
def _context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """The default verifying TLS context (it reads ``SSL_CERT_FILE``/``SSL_CERT_DIR``), made once per pair."""
    return ssl.create_default_context()


def _opener() -> urllib.request.OpenerDirector:
    """An opener for https alone: no http, file, ftp or data handlers, so no other scheme is ever opened."""
    context = _context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.UnknownHandler(),
                    _Https(context=context), urllib.request.HTTPDefaultErrorHandler(), _Redirects(),
                    urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


def _shown(url: str) -> str:
    """``url`` for a message: without any user:password part, and shortened when very long."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        return url if len(url) <= 300 else url[:300] + "…"
    if parts.username is not None or parts.password is not None:
        parts = parts._replace(netloc=(parts.hostname or "") + (f":{parts.port}" if parts.port else ""))
    text = urllib.parse.urlunsplit(parts)
    return text if len(text) <= 300 else text[:300] + "…"


def _checked(url: str) -> str:
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError as exc:
        raise FetchError(f"{_shown(url)} is not a valid URL ({exc})",
                         hint="A registry or mirror named this address; tell its operator. Nothing was installed.") from None
    if parts.scheme.lower() == "https":
        return url
    raise FetchError(f"ctl follows only https:// URLs, not {_shown(url)}",
                     hint="A registry or mirror named this address; tell its operator. Nothing was installed.")


@contextlib.contextmanager
def _open(url: str, headers: dict[str, str], deadline: _Deadline) -> Iterator[Any]:
    request = _Request(url, headers={"User-Agent": f"ctl/{VERSION}", **headers})
    request.deadline = deadline
    with _opener().open(request, timeout=max(0.1, min(TIMEOUT, deadline.remaining()))) as answer:
        yield answer


def _retrying(url: str, deadline: _Deadline, action: Callable[[int], Any]) -> Any:
    """Run ``action(attempt)``, retrying connection faults and 5xx/429 answers; 4xx fail at once.

    The deadline covers every attempt and the pauses between them."""
    last = ""
    for attempt in range(ATTEMPTS):
        try:
            result = action(attempt)
            if deadline.expired:  # the watchdog cut a transfer whose end looked like a clean close
                break
            return result
        except urllib.error.HTTPError as exc:
            if deadline.expired:
                break
            if exc.code < 500 and exc.code != 429:
                raise FetchError(f"{_shown(url)} answered {exc.code} {exc.reason}", status=exc.code) from None
            last = f"{exc.code} {exc.reason}"
        except (urllib.error.URLError, OSError, TimeoutError, http.client.HTTPException) as exc:
            if deadline.expired:
                break
            reason = getattr(exc, "reason", exc)
            last = str(reason) or type(exc).__name__
        if attempt == ATTEMPTS - 1:
            raise FetchError(f"cannot reach {_shown(url)}: {last} (tried {ATTEMPTS} times)", unreachable=True)
        pause = _BACKOFF[min(attempt, len(_BACKOFF) - 1)]
        if deadline.remaining() <= pause:
            break
        time.sleep(pause)
    raise FetchError(
        f"{_shown(url)} did not finish within {deadline.seconds:g} s",
        hint="The server is too slow or stalled; nothing was installed. Try again later, or raise the "
             "limit with the environment variables in docs/limits.md.",
    )


def _too_large(url: str, limit: int, what: str) -> FetchError:
    return FetchError(f"{_shown(url)} sent more than {limit // (1024 * 1024)} MiB for {what}",
                      hint="No registry or mirror sends that much; nothing was installed. Tell its operator.")


def _read_capped(answer: Any, url: str, limit: int, what: str) -> bytes:
    length = answer.headers.get("Content-Length")
    if length and length.strip().isdigit() and int(length) > limit:
        raise _too_large(url, limit, what)
    body = bytearray()
    while chunk := answer.read(min(_CHUNK, limit + 1 - len(body))):
        body += chunk
        if len(body) > limit:
            raise _too_large(url, limit, what)
    return bytes(body)


def get_json(url: str, token: str | None = None) -> Any:
    """A JSON document (sent with ``token`` as a bearer token); an answer that is not JSON is an error."""
    headers = {"Accept": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    raw = _document(url, headers, "a document")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise FetchError(f"{_shown(url)} did not answer with JSON", hint="Check that the address is a provider "
                         "registry or mirror.") from None


def get_bytes(url: str) -> bytes:
    """A small file (SHA256SUMS, a signature), capped as documents are."""
    return _document(url, {}, "a checksum or signature file")


def _document(url: str, headers: dict[str, str], what: str) -> bytes:
    _checked(url)
    with _Deadline(document_deadline()) as deadline:

        def once(_: int) -> bytes:
            with _open(url, headers, deadline) as answer:
                return _read_capped(answer, url, MAX_DOCUMENT_BYTES, what)

        return bytes(_retrying(url, deadline, once))


def download(url: str, target: Path, progress: Progress | None = None) -> None:
    """Download ``url`` into ``target``, resuming a broken transfer where it stopped."""
    _checked(url)
    limit = max_download_bytes()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"")

    def once(_: int) -> None:
        have = target.stat().st_size
        headers = {"Range": f"bytes={have}-"} if have else {}
        with _open(url, headers, deadline) as answer:
            resumed = answer.status == 206
            length = answer.headers.get("Content-Length")
            total = (int(length) + (have if resumed else 0)) if length and length.isdigit() else None
            if total is not None and total > limit:
                raise _too_large(url, limit, "a provider package")
            with target.open("ab" if resumed else "wb") as out:
                done = have if resumed else 0
                while chunk := answer.read(_CHUNK):
                    done += len(chunk)
                    if done > limit:
                        raise _too_large(url, limit, "a provider package")
                    out.write(chunk)
                    if progress is not None:
                        progress(done, total)
            if total is not None and done < total:
                raise OSError(f"the transfer stopped after {done} of {total} bytes")

    with _Deadline(download_deadline()) as deadline:
        _retrying(url, deadline, once)
