"""Writing a large load's parse cache entries in a forked child while the command goes on.

Encoding and writing an entry costs a good fraction of parsing the file (for the half of the files
this process parses while its helper parses the rest: ``engine.config.parse_ahead``), and the
command needs none of it: the entries are for the next
command. So a load that parsed a large directory hands them to a child made with ``fork``, which
has the trees already, shares their memory, and writes them on the second core while the command
builds its graph and walks it on the first.

The child only encodes and writes files: it closes every descriptor it inherited (a lock file's,
a pipe's), so nothing the command holds stays open because of it, ignores the terminal's Ctrl-C
(it is done within a second or two) and leaves with ``os._exit``, never running the command's
own exit. Where there is no ``fork``, or other threads run (a child of a threaded process may
inherit a lock another thread held), the entries are written here, as before. ``wait_for_writers``
reaps the children: the command calls it as it ends, so none outlives it.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

_children: list[int] = []
_WAIT_S = 60.0  # far longer than a child writes for the largest configurations measured


def write_in_child(items: Sequence[T], write: Callable[[T], bool]) -> None:
    """``write(item)`` for each item in a forked child, stopping at the first that returns False;
    here, in this process, when a child cannot be made safely."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        _write_all(items, write)
        return
    try:
        pid = os.fork()
    except OSError:
        _write_all(items, write)
        return
    if pid:
        _children.append(pid)
        return
    status = 1
    try:
        _detach()
        _write_all(items, write)
        status = 0
    finally:
        os._exit(status)


def wait_for_writers(timeout: float = _WAIT_S) -> None:
    """Wait for every child this process started to write entries; one still writing after
    ``timeout`` seconds (a stalled disk) is killed: its entries are only missed, never half written."""
    deadline = time.monotonic() + timeout
    while _children:
        with contextlib.suppress(ChildProcessError, ProcessLookupError):  # already reaped
            _reap(_children[-1], deadline)
        _children.pop()


def _reap(pid: int, deadline: float) -> None:
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return
        time.sleep(0.01)


def _write_all(items: Sequence[T], write: Callable[[T], bool]) -> None:
    for item in items:
        if not write(item):
            return


def _detach() -> None:
    """The child keeps nothing of the command's open: no descriptor, no terminal signal, no collector."""
    gc.disable()  # it only reads what it inherited; a collection would touch (and copy) every page of it
    with contextlib.suppress(ValueError):  # only the main thread may set a handler
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.closerange(3, _max_fd())
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:
        os.close(null)


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (AttributeError, ValueError, OSError):
        return 1 << 16
