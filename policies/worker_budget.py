"""The Rego worker's budget of memory and time, kept from ctl's side.

A policy is code its author controls, and Rego can build collections without bound. A thread of
ctl reads the worker's resident size and the clock, and kills the worker's process group when it
passes either budget (``CTL_POLICY_MEMORY_MB``, ``CTL_POLICY_TIMEOUT``). An address-space limit
set in the worker cannot do it: rego-cpp's allocator reserves hundreds of gigabytes of address
space when it is loaded and grows inside that reservation. The worker reports each rule before
evaluating it, so the error names the rule and the files that define it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from typing import Any

from policies.model import PolicyError, range_for
from policies.rego_module import RegoModule

TIMEOUT_SECONDS = 600.0
# Without CTL_POLICY_MEMORY_MB the memory budget grows with the plan: rego-cpp's form of the input
# takes a couple of hundred times the size of its JSON, so a fixed budget would refuse the largest
# plans, not just runaway rules (bench/README.md has the measurement).
MEMORY_MB = 2048
MEMORY_PER_INPUT_BYTE = 256
TIMEOUT_ENV = "CTL_POLICY_TIMEOUT"
MEMORY_ENV = "CTL_POLICY_MEMORY_MB"
_POLL_SECONDS = 0.02  # how often the budget is checked; what a rule allocates between looks is the overshoot


def budget() -> tuple[float, int | None]:
    """The worker's time (seconds) and memory (MB) budgets from the environment; the time's default,
    and None for memory without a setting (``memory_budget`` sizes it by the request)."""
    def number(name: str, default: float) -> float:
        text = os.environ.get(name, "").strip()
        if not text:
            return default
        try:
            value = float(text)
        except ValueError:
            value = 0.0
        if not value > 0 or value == float("inf"):
            raise PolicyError(f"{name}={text!r} is not a positive number",
                              hint=f"Give {'seconds' if name == TIMEOUT_ENV else 'megabytes'}, e.g. "
                                   f"{name}={int(default)}, or leave it unset for the default ({int(default)}).")
        return value

    memory = number(MEMORY_ENV, 0.0) if os.environ.get(MEMORY_ENV, "").strip() else None
    return number(TIMEOUT_ENV, TIMEOUT_SECONDS), None if memory is None else max(int(memory), 1)


def memory_budget(setting: int | None, request_bytes: int) -> int:
    """The memory budget in MB: the setting, else a base plus room in proportion to the input."""
    if setting is not None:
        return setting
    return MEMORY_MB + request_bytes * MEMORY_PER_INPUT_BYTE // (1024 * 1024)


class Watch(threading.Thread):
    """Keeps a running worker within its budget: kills its group when it passes either, and
    remembers which rule it was evaluating (the last line it reported)."""

    def __init__(self, proc: subprocess.Popen[bytes], progress: int, seconds: float, megabytes: int) -> None:
        super().__init__(name="policy-budget", daemon=True)
        self.proc, self.progress = proc, progress
        self.deadline = time.monotonic() + seconds
        self.limit = megabytes * 1024 * 1024
        self.exceeded = ""  # "time" | "memory"
        self.peak = 0  # bytes resident, the most seen
        self.rule: list[Any] = []  # [rule id, file, line] of the rule being evaluated
        self._pending = b""
        self._done = threading.Event()
        os.set_blocking(progress, False)
        self.start()

    def stop(self) -> None:
        self._done.set()
        self.join()
        self._read_progress()

    def run(self) -> None:
        statm = f"/proc/{self.proc.pid}/statm"
        page = os.sysconf("SC_PAGE_SIZE")
        while not self._done.wait(_POLL_SECONDS):
            self._read_progress()
            try:
                with open(statm, "rb") as f:
                    resident = int(f.read().split()[1]) * page
            except (OSError, ValueError, IndexError):
                resident = 0  # gone, or no /proc: the clock still holds
            self.peak = max(self.peak, resident)
            if resident > self.limit:
                self.exceeded = "memory"
            elif time.monotonic() > self.deadline:
                self.exceeded = "time"
            if self.exceeded:
                self._read_progress()
                with contextlib.suppress(OSError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                return

    def _read_progress(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            while chunk := os.read(self.progress, 65536):
                self._pending += chunk
        *lines, self._pending = self._pending.split(b"\n")
        for line in lines[-1:]:
            with contextlib.suppress(ValueError):
                self.rule = json.loads(line)


def budget_error(watch: Watch, modules: list[RegoModule], seconds: float, megabytes: int) -> PolicyError:
    """The rule that was running when the budget ran out, named with its file and line."""
    what = (f"its memory budget of {megabytes} MB" if watch.exceeded == "memory"
            else f"its time budget of {seconds:g} seconds")
    setting = MEMORY_ENV if watch.exceeded == "memory" else TIMEOUT_ENV
    if len(watch.rule) == 3:
        rule, file, line = watch.rule
        package, _, name = str(rule).rpartition(".")
        defining = [m.display for m in modules if m.info.package == package and name in m.info.rule_names()]
        shown = ", ".join(dict.fromkeys([str(file), *defining])) if file else ", ".join(defining)
        summary = f"policy {shown} exceeded {what}, in rule data.{rule}"
        where = range_for(str(file), int(line)) if file else None
    else:
        summary = f"policy {', '.join(m.display for m in modules)} exceeded {what} while being compiled"
        where = range_for(modules[0].display, 1) if len(modules) == 1 else None
    return PolicyError(
        summary, range=where,
        detail="The policy was stopped and gave no result, so the check stops rather than pass.",
        hint="Look for a rule that builds a very large collection or iterates over one without end; "
             f"if the plan really needs more, raise {setting}.",
    )


__all__ = ["MEMORY_ENV", "TIMEOUT_ENV", "Watch", "budget", "budget_error", "memory_budget"]
