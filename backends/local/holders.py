"""Whether the holder of a local lock file still runs: a lock taken on this host names its process.

A crashed run leaves its lock behind; the lock's ``Who`` (user@host) and ``PID`` tell, on the same
host, a holder that no longer runs from a slow one, so the message can say the lock was left behind.
"""

from __future__ import annotations

import os
import socket

from vocab.locks import LockInfo


def process_alive(pid: int) -> bool:
    """Whether a process with this PID runs on this host (to tell a crashed lock holder)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, it is just not ours
        return True
    return True


def holder_is_gone(info: LockInfo) -> bool:
    """True when the lock was taken on this host by a process that no longer runs."""
    host = info.Who.rpartition("@")[2]
    return bool(info.PID) and host == socket.gethostname() and not process_alive(info.PID)
