"""Provider processes never outlive ctl, however ctl ends (``kill -9`` included).

A provider leads its own process group, so a terminal's Ctrl-C stays ctl's to handle; but then
nothing stops it when ctl dies without running its finalisers. The first provider started in a
run also starts a small watcher process in a session of its own. ctl tells it, over the watcher's
stdin, each provider group it starts (``+PID DIR``) and stops (``-PID``); when that pipe reaches
end of file (ctl has exited, however) the watcher kills every group still listed and removes
their socket directories. A normal run has stopped them all by then, so the watcher kills nothing.
"""

from __future__ import annotations

import atexit
import contextlib
import subprocess
import sys
import threading

# The watcher's program: standard library only, so it starts fast whatever the working directory.
WATCHER = """
import os, shutil, signal, sys
groups = {}
for line in sys.stdin:
    sign, _, rest = line.rstrip("\\n").partition(" ")
    if sign.startswith("+"):
        groups[int(sign[1:])] = rest
    elif sign.startswith("-"):
        groups.pop(int(sign[1:]), None)
for pgid, private_dir in groups.items():
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
    if private_dir:
        shutil.rmtree(private_dir, ignore_errors=True)
"""

_lock = threading.Lock()
_watcher: subprocess.Popen[bytes] | None = None


def prepare() -> None:
    """Start the watcher before a provider starts, so ``guard`` is one write to a pipe.

    Started on demand instead, the watcher's own start (tens of milliseconds on a busy machine)
    would leave a window after a provider exists in which a ``kill -9`` of ctl orphans it.
    """
    with _lock:
        _running_watcher()


def guard(pid: int, private_dir: str) -> None:
    """Have process group ``pid`` (and ``private_dir``) cleaned up should ctl die before stopping it."""
    _send(f"+{pid} {private_dir}\n", start=True)


def release(pid: int) -> None:
    """Group ``pid`` has been stopped by ctl itself: the watcher forgets it."""
    _send(f"-{pid}\n", start=False)


def _running_watcher() -> subprocess.Popen[bytes]:
    """The watcher, started now if it is not running (call with ``_lock`` held)."""
    global _watcher
    if _watcher is None or _watcher.poll() is not None:
        _watcher = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", WATCHER],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,  # never holds ctl's output pipes open
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # outlives a kill of ctl's process group
            close_fds=True,
        )
        atexit.register(_close, _watcher)
    return _watcher


def _send(line: str, *, start: bool) -> None:
    with _lock:
        if not start and (_watcher is None or _watcher.poll() is not None):
            return
        watcher = _running_watcher()
        assert watcher.stdin is not None
        with contextlib.suppress(OSError, ValueError):  # ValueError: closed at exit (see _close)
            watcher.stdin.write(line.encode())
            watcher.stdin.flush()


def _close(watcher: subprocess.Popen[bytes]) -> None:
    """At a normal exit: end of file for the watcher (which then exits), and reap it."""
    with contextlib.suppress(OSError):
        assert watcher.stdin is not None
        watcher.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        watcher.wait(timeout=2)


def watcher_pid() -> int | None:
    """The watcher's process id while it runs (a child of ctl that is not a provider)."""
    with _lock:
        return _watcher.pid if _watcher is not None and _watcher.poll() is None else None
