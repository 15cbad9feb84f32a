"""``ctl taint`` and ``ctl untaint``: mark an object for replacement, or take the mark back.

A tainted object is replaced by the next plan (Terraform's ``status: "tainted"``, the same mark a
create that failed halfway leaves). Only a managed resource instance's current object can be
marked; the address must name exactly one, or nothing changes.
"""

from __future__ import annotations

from pathlib import Path

from engine.locking.options import LockOptions
from engine.state.address import AddressError, InstanceAddress
from engine.state.model import State
from engine.state_tools.access import edit_state
from engine.state_tools.addresses import LIST_HINT, StateAddressNotFound
from vocab.errors import CtlError


def set_tainted(root_dir: Path, address: str, tainted: bool, lock: LockOptions, *,
                allow_missing: bool = False) -> bool:
    """Mark or unmark ``address``; False only when it is missing and ``allow_missing`` is set."""
    operation = "OperationTypeTaint" if tainted else "OperationTypeUntaint"
    return edit_state(root_dir, operation, lock, lambda s: _mark(s, address, tainted, allow_missing))


def _mark(state: State, address: str, tainted: bool, allow_missing: bool) -> bool:
    try:
        addr = InstanceAddress.parse(address)
    except AddressError as exc:
        raise CtlError(f"Invalid resource instance address {address!r}: {exc}",
                       hint='Write it as TYPE.NAME, TYPE.NAME[0] or module.M.TYPE.NAME["key"].') from None
    if addr.mode != "managed":
        raise CtlError(f"{address} is a data source: only managed resources can be tainted")
    instance = state.instance(addr)
    if instance is None:
        if allow_missing:
            return False
        raise StateAddressNotFound(f'No resource instance "{address}" in the state', hint=LIST_HINT)
    if not tainted and instance.status != "tainted":
        raise CtlError(f"{address} is not tainted", hint="Nothing to undo; `ctl state show` shows its status.")
    state.set_instance(addr, instance.replace(status="tainted" if tainted else None))
    return True
