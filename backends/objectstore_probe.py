"""Checking that an object store honours conditional requests before ctl trusts it with locks.

Stores that accept the condition headers without honouring them exist (older S3-compatible
servers): with them every lock and every compare-and-swap would silently succeed. ``probe`` shows
on a scratch object that the store refuses a second create and a stale swap.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import TYPE_CHECKING

from backends.base import DEFAULT_WORKSPACE, BackendError
from backends.objectstore import PreconditionFailed

if TYPE_CHECKING:
    from backends.objectstore import ObjectStateStore


def probe(store: ObjectStateStore) -> None:
    """Show on a scratch object that the store refuses a second create and a stale swap.

    Stores that accept the condition headers without honouring them exist (older S3-compatible
    servers): with them every lock and every compare-and-swap would silently succeed.
    """
    key = f"{store._state_key(DEFAULT_WORKSPACE)}.probe-{uuid.uuid4().hex[:12]}"
    where = store._url(key)
    hint = (
        f"Use a store whose {store.backend} API honours conditional requests, or keep the state "
        "elsewhere; ctl will not lock state on this one."
    )
    try:
        first = store._put(key, b"ctl probe 1", if_absent=True)
        try:
            store._put(key, b"ctl probe 2", if_absent=True)
        except PreconditionFailed:
            pass
        else:
            raise BackendError(
                f"{store.backend}: the store does not refuse a second conditional create "
                f"({store.create_condition}) of {where}: two runs could both take the lock",
                hint=hint,
            )
        current = store._get(key)
        token = current.token if current is not None else first
        try:
            store._put(key, b"ctl probe 3", if_match=token)
        except PreconditionFailed:
            raise BackendError(
                f"{store.backend}: the store refuses a compare-and-swap ({store.swap_condition}) of "
                f"{where} against its current version",
                hint=hint,
            ) from None
        try:
            store._put(key, b"ctl probe 4", if_match=token)
        except PreconditionFailed:
            pass
        else:
            raise BackendError(
                f"{store.backend}: the store does not refuse a stale compare-and-swap "
                f"({store.swap_condition}) of {where}: a run could overwrite a newer state",
                hint=hint,
            )
    except PreconditionFailed:
        raise BackendError(
            f"{store.backend}: the store refused to create the probe object {where}", hint=hint
        ) from None
    finally:
        with contextlib.suppress(BackendError, PreconditionFailed):
            store._delete(key)
