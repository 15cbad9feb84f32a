"""The workspace lock: taking it (with ``--lock-timeout`` waiting), keeping it visibly alive,
describing a lock somebody else holds, and releasing or breaking it.

- ``options``: what a user sets — ``--lock``/``--lock-timeout`` (``LockOptions``), ``CTL_LOCK_ID``,
  and the heartbeat and stale thresholds from the environment.
- ``acquire``: one attempt or retries with backoff until the timeout.
- ``hold``: hold the lock around a command's body (``locked``), renewing it with a ``heartbeat``.
- ``liveness`` and ``describe``: how alive a held lock looks, and the message a blocked user reads.
- ``status`` and ``release``: ``ctl state lock-status`` and ``ctl state unlock [--force]``.
"""
