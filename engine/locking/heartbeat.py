"""Keeping a held state lock visibly alive, and learning that it was broken.

While a command holds the lock, a daemon thread rewrites the lock's ``Heartbeat`` time every 30 s
(``CTL_LOCK_HEARTBEAT_SECONDS``) with the store's compare-and-swap ``renew_lock``, so whoever finds the
lock held can tell a live run from a crashed one (``engine.locking.liveness``).

The renewal is also how a run learns that its lock was broken: ``renew_lock`` raises ``LockLost``
when the lock is gone or carries another ID. The heartbeat then sets the run's ``stop`` event (the
apply starts nothing new, lets running operations finish and persists) and keeps the error for
``engine.locking.hold.locked`` to raise once the command's body is done, so the command exits 1 saying
who broke the lock. A failed renewal for any other reason (the network, throttling) is only logged and
retried at the next beat: a missed beat or two is far from the stale threshold, while stopping an
apply for a transient error would leave work half done for nothing.
"""

from __future__ import annotations

import logging
import threading

from backends.base import LockLost, StateStore
from engine.locking.options import heartbeat_interval
from vocab.errors import CtlError
from vocab.locks import LockInfo

_JOIN_TIMEOUT_S = 60.0  # a renewal in flight when the run ends: wait for it before the lock is released

# The records keep the channel name they have always been published under (``@module`` in CTL_LOG
# output), so log filters and alerts set up for them keep working.
_log = logging.getLogger("engine.heartbeat")
_log.addHandler(logging.NullHandler())  # a library's records: shown only when CTL_LOG asks


class Heartbeat:
    """A daemon thread renewing one held lock every ``interval`` seconds until ``close``.

    ``lost`` is set (and ``stop``, when given, too) the first time a renewal finds the lock gone or
    replaced; the thread ends then, since renewing somebody else's lock is exactly what must not
    happen. Use it as a context manager, or ``start`` and ``close`` it.
    """

    def __init__(self, store: StateStore, workspace: str, info: LockInfo, *,
                 interval: float | None = None, stop: threading.Event | None = None) -> None:
        self.store = store
        self.workspace = workspace
        self.info = info  # the lock as last renewed
        self.interval = heartbeat_interval() if interval is None else interval
        self.stop = stop
        self.renewals = 0
        self._lost: LockLost | None = None
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"ctl-lock-heartbeat-{info.ID[:8]}",
                                        daemon=True)

    @property
    def lost(self) -> LockLost | None:
        """The error of the renewal that found the lock broken, if one did."""
        return self._lost

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop renewing; waits for a renewal in flight so it cannot land after the lock is released."""
        self._closing.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(_JOIN_TIMEOUT_S)

    def __enter__(self) -> Heartbeat:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def error_after(self, failure: CtlError) -> LockLost:
        """The lost-lock error for a body that also failed: the lock news first, the failure's hint kept.

        The failure is often a consequence (a state write refused because whoever broke the lock wrote
        the state since), and its hint is the actionable part — for a refused write it names the
        ``errored.tfstate`` saved and the ``ctl state push`` that uploads it.
        """
        lost = self._lost or LockLost("the state lock was lost")
        detail = f"Then: {failure.summary}" + (f"\n{failure.detail}" if failure.detail else "")
        return LockLost(lost.summary, detail=detail, hint=failure.hint or lost.hint)

    def beat(self) -> bool:
        """Renew once now; False (with ``lost`` set) when the lock is no longer ours."""
        if self._lost is not None:
            return False
        try:
            self.info = self.store.renew_lock(self.workspace, self.info)
        except LockLost as exc:
            self._lost = exc
            _log.warning("state lock lost: %s", exc.summary,
                         extra={"lock_id": self.info.ID, "workspace": self.workspace})
            if self.stop is not None:
                self.stop.set()
            return False
        self.renewals += 1
        _log.debug("renewed state lock %s", self.info.ID,
                   extra={"lock_id": self.info.ID, "heartbeat": self.info.Heartbeat})
        return True

    def _run(self) -> None:
        while not self._closing.wait(self.interval):
            try:
                if not self.beat():
                    return
            except Exception as exc:  # a network blip must not kill the thread: try at the next beat
                _log.warning("could not renew the state lock %s (will retry in %gs): %s",
                             self.info.ID, self.interval, getattr(exc, "summary", exc),
                             extra={"lock_id": self.info.ID, "workspace": self.workspace})


__all__ = ["Heartbeat"]
