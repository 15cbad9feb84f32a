"""An external program that answers in OpenTofu's external protocol (version 1).

OpenTofu's ``external`` key provider and ``external`` method run a program given as a list
(``command = ["./keys", "--vault", "prod"]``), write one JSON document to its stdin and read, from
its stdout, a header line (``{"magic": "OpenTofu-External-Key-Provider", "version": 1}``) followed by
one JSON document. ctl runs the same programs the same way, so one program serves both tools:

- never through a shell: the list is the program and its arguments, exactly;
- with a deadline (OpenTofu's minute, ``CTL_ENCRYPTION_COMMAND_TIMEOUT`` seconds when set), after
  which the program and anything it started in its session are killed;
- a program that cannot start, exits non-zero, dies, misses the deadline, writes no or a foreign
  header, or prints something other than the JSON document is one error naming it, with the tail of
  its stderr; its stdout is never shown, since that is where the keys are.

As in OpenTofu, the document is the first JSON value after the header line (what follows it is not
read), and its shape is checked by the caller.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from typing import Any

from engine.encryption.errors import EncryptionError

TIMEOUT_ENV = "CTL_ENCRYPTION_COMMAND_TIMEOUT"
DEFAULT_TIMEOUT = 60.0  # OpenTofu's
PROTOCOL_VERSION = 1
STDERR_SHOWN = 2000  # characters of the program's stderr shown with an error: its last ones


def command_of(value: Any, who: str, setting: str = "command") -> list[str]:
    """A ``command`` setting, checked: a non-empty list of strings whose first names the program."""
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value) \
            or not value[0]:
        raise EncryptionError(f"{who}: {setting} must be a list of strings, the program first",
                              hint=f'For example: {setting} = ["./fetch-key", "--env", "prod"]')
    return [str(v) for v in value]


def timeout() -> float:
    """``CTL_ENCRYPTION_COMMAND_TIMEOUT`` when it is a positive number of seconds, else a minute."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        seconds = float(raw)
    except ValueError:
        return DEFAULT_TIMEOUT
    return seconds if 0 < seconds < float("inf") else DEFAULT_TIMEOUT


def run(command: list[str], stdin: bytes, *, magic: str, who: str) -> tuple[Any, str]:
    """The JSON document ``command`` answers to ``stdin`` after a valid header, and the end of its stderr
    (for the caller's error when the document has the wrong shape); any other failure is one error."""
    name = command[0]
    try:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as exc:
        reason = "no such program" if isinstance(exc, FileNotFoundError) else \
            "it is not executable" if isinstance(exc, PermissionError) else exc.strerror or str(exc)
        raise EncryptionError(f"{who}: cannot run {name}: {reason}",
                              hint="The command is run as given, without a shell: give the program's path "
                                   "(relative to the working directory) or a name on PATH.") from None
    limit = timeout()
    try:
        out, err = proc.communicate(stdin, timeout=limit)
    except subprocess.TimeoutExpired:
        err = _stop(proc)
        raise EncryptionError(f"{who}: {name} did not answer within {limit:g} seconds and was stopped",
                              detail=_tail(err),
                              hint=f"Set {TIMEOUT_ENV} (seconds) if it needs longer.") from None
    if proc.returncode != 0:
        how = f"was killed by signal {_signal_name(-proc.returncode)}" if proc.returncode < 0 \
            else f"exited with status {proc.returncode}"
        raise EncryptionError(f"{who}: {name} {how}", detail=_tail(err))
    header, newline, body = out.partition(b"\n")
    found = _json(header) if newline else None
    if not isinstance(found, dict) or found.get("magic") != magic:
        raise EncryptionError(f"{who}: {name} is not a program of OpenTofu's external protocol: its first line "
                              f'is not the header {{"magic": "{magic}", "version": {PROTOCOL_VERSION}}}',
                              detail=_tail(err))
    version = found.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version != PROTOCOL_VERSION:
        raise EncryptionError(f"{who}: {name} speaks version {version!r} of the protocol; ctl and "
                              f"OpenTofu speak version {PROTOCOL_VERSION}", detail=_tail(err))
    try:
        text = body.decode()
        document, _ = json.JSONDecoder().raw_decode(text, len(text) - len(text.lstrip()))
    except (UnicodeDecodeError, ValueError):
        raise EncryptionError(f"{who}: {name} did not answer with a JSON document after its header",
                              detail=_tail(err)) from None
    return document, _tail(err)


def _stop(proc: subprocess.Popen[bytes]) -> bytes:
    """Kill the program and what it started (it leads its own session), and collect its stderr."""
    killpg = getattr(os, "killpg", None)  # POSIX; elsewhere the program alone is stopped
    try:
        if killpg is None:
            raise OSError
        killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    try:
        _, err = proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:  # a descendant left the session and holds the pipes: stop waiting
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait()
        return b""
    return err


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (UnicodeDecodeError, ValueError):
        return None


def _tail(err: bytes) -> str:
    """The end of the program's stderr, for the error's detail (empty when it wrote nothing)."""
    text = err.decode(errors="replace").strip()
    if not text:
        return ""
    if len(text) > STDERR_SHOWN:
        text = "…" + text[-STDERR_SHOWN:]
    return "Its stderr:\n" + text


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
