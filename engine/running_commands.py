"""The local-exec commands under way, so that an interrupt can reach them wherever it is handled.

The apply's provisioners start the commands; the provider set (``engine.providers``) handles the first
interrupt. Both import this registry, so neither imports the other.

A ``kill -9`` of ctl runs none of its exit handlers, so each command's group is also handed to the
lifeline watcher (``vocab.lifeline``) that guards provider processes: when ctl dies, however, the
watcher kills the group, and a command never outlives ctl as an orphan of init.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading

from vocab import lifeline


class RunningCommands:
    """The commands under way, each the leader of a process group of its own.

    A command's group holds everything it starts (``sh -c "sleep 600 & wait"``), so one signal to
    the group reaches them all. The first interrupt cancels the provisioners as Terraform does:
    each group gets SIGTERM, so the command can clean up, and the provisioner fails as cancelled.
    Whatever is still running when ctl exits (a second interrupt stops waiting for it) is killed,
    so no command outlives ctl as an orphan of init.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: dict[int, bool] = {}  # process group -> cancelled

    def prepare(self) -> None:
        """Call before starting a command: the lifeline watcher runs before the command exists, so no
        moment passes in which a ``kill -9`` of ctl would orphan it."""
        lifeline.prepare()

    def add(self, pid: int) -> None:
        lifeline.guard(pid, "")
        with self._lock:
            self._groups[pid] = False
        # Registered again at each start, so it is the last registered and runs first at exit, before
        # any exit handler that waits (for a provider's calls to settle) while the command runs on.
        atexit.unregister(self.kill_all)
        atexit.register(self.kill_all)

    def remove(self, pid: int) -> bool:
        """Forget a command that ended; whether it was cancelled."""
        lifeline.release(pid)
        with self._lock:
            return self._groups.pop(pid, False)

    def cancel_all(self) -> None:
        """SIGTERM to every running command's group (safe from a signal handler's thread)."""
        with self._lock:
            groups = list(self._groups)
            self._groups.update(dict.fromkeys(groups, True))
        for group in groups:
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGTERM)

    def kill_all(self) -> None:
        """SIGKILL to every group still running: ctl is exiting."""
        with self._lock:
            groups = list(self._groups)
        for group in groups:
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)


RUNNING = RunningCommands()


def cancel_running() -> None:
    """The first interrupt: cancel every local-exec command under way (SIGTERM to its group)."""
    RUNNING.cancel_all()
