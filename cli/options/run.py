"""Options shared by plan, apply and destroy, turned into the engine's option objects."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from cli import output
from cli.common import input_enabled, ordered_var_args, prompt_variable
from vocab.errors import UsageError
from vocab.limits import DEFAULT_PARALLELISM

if TYPE_CHECKING:
    from engine.operations import RunOptions

TARGET_HELP = "Limit the operation to this resource or module and what it depends on (repeatable)."
EXCLUDE_HELP = "Leave out this resource or module and everything that depends on it (repeatable)."
REPLACE_HELP = "Force replacement of this resource instance (repeatable)."
PARALLELISM_HELP = "How many operations run at once (default 10, or CTL_PARALLELISM)."
LOCK_TIMEOUT_HELP = "How long to retry a held state lock, e.g. 30s (default 0, or CTL_LOCK_TIMEOUT)."

def parallelism(value: int | None) -> int:
    if value is None:
        env = os.environ.get("CTL_PARALLELISM", "").strip()
        if env and not (env.isdigit() and int(env) >= 1):  # a typo in CI must not silently mean 10
            raise UsageError(f'Invalid CTL_PARALLELISM "{env}"', hint="Use a whole number of at least 1.")
        value = int(env) if env else DEFAULT_PARALLELISM
    if value < 1:
        raise UsageError("--parallelism must be at least 1")
    return value


def lock_timeout(value: str | None) -> float:
    from engine.locking.options import parse_duration

    text = value if value is not None else (os.environ.get("CTL_LOCK_TIMEOUT", "").strip() or "0s")
    try:
        return parse_duration(text)
    except Exception:
        source = "--lock-timeout" if value is not None else "CTL_LOCK_TIMEOUT"
        raise UsageError(f'Invalid {source} "{text}"', hint="Use a duration such as 30s, 5m or 1h.") from None


def build(
    root: Path,
    *,
    mode: str = "normal",
    refresh: bool = True,
    targets: list[str] | None = None,
    excludes: list[str] | None = None,
    replace: list[str] | None = None,
    var: list[str] | None = None,
    var_file: list[str] | None = None,
    input_flag: bool | None = None,
    lock: bool = True,
    lock_timeout_text: str | None = None,
    parallelism_value: int | None = None,
    take_lock: bool = True,
) -> RunOptions:
    from engine.locking.options import LockOptions
    from engine.operations import RunOptions
    from engine.plan.planner import PlanOptions
    from engine.session import selected_workspace

    if not lock and take_lock:
        output.warn("Not locking the state (--lock=false): concurrent runs may overwrite each other's changes.")
    par = parallelism(parallelism_value)
    plan = PlanOptions(
        mode=mode,
        refresh=refresh,
        targets=list(targets or []),
        excludes=list(excludes or []),
        replace=list(replace or []),
        var_args=ordered_var_args(var, var_file),
        prompt=prompt_variable if input_enabled(input_flag) else None,
        workspace=selected_workspace(root),
    )
    return RunOptions(root=root, plan=plan, lock=LockOptions(enabled=lock, timeout=lock_timeout(lock_timeout_text)),
                      take_lock=take_lock, parallelism=par)


