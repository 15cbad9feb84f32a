"""User Rego policies are evaluated in a worker process, so a crash of the engine is an error.

rego-cpp is a C++ library: some policies make it crash (a segmentation fault or an abort) rather
than report an error, and in ctl's own process that would end the run with no message — and
``./policies`` is read by every ``plan``. ``evaluate`` hands the modules, data and plan to
``python -m policies.rego_worker`` once per check (not per policy) and reads the values back; a
worker killed by a signal becomes a ``PolicyError`` naming the policy file that crashed it (found
by evaluating each file alone, only after a crash) and what to do.

The built-in pack is ctl's own, tested code and stays in process; the worker (about the start-up
of a Python interpreter plus importing regopy) is paid only when user Rego policies exist.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from policies.model import PolicyError, range_for
from policies.rego_module import RegoModule

_PROJECT_ROOT = str(Path(__file__).resolve().parent.parent)
TIMEOUT_SECONDS = 600.0


class WorkerCrashed(Exception):
    def __init__(self, returncode: int) -> None:
        super().__init__(returncode)
        self.returncode = returncode

    def describe(self) -> str:
        try:
            return f"{signal.Signals(-self.returncode).name} (exit {128 - self.returncode})"
        except ValueError:
            return f"exit code {self.returncode}"


def evaluate(modules: list[RegoModule], data: dict[str, Any], rules: list[tuple[str, str]],
             document: Any) -> dict[tuple[str, str], Any]:
    """Each rule's value for ``document``, computed in a worker process."""
    try:
        return _run(modules, data, rules, document)
    except WorkerCrashed as crash:
        raise _crash_error(crash, modules, data, rules, document) from None


def _run(modules: list[RegoModule], data: dict[str, Any], rules: list[tuple[str, str]],
         document: Any) -> dict[tuple[str, str], Any]:
    request = {"modules": [{"path": m.path, "display": m.display, "source": m.source} for m in modules],
               "data": data, "rules": [list(r) for r in rules], "input": document}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PROJECT_ROOT, env.get("PYTHONPATH", "")) if p)
    try:
        done = subprocess.run([sys.executable, "-m", "policies.rego_worker"],
                              input=json.dumps(request, default=str).encode(), capture_output=True,
                              env=env, timeout=TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise PolicyError(f"evaluating the policies took longer than {TIMEOUT_SECONDS:.0f}s",
                          detail="Policies: " + ", ".join(m.display for m in modules),
                          hint="Look for a rule that iterates over very large collections.") from None
    if done.stderr:  # print() output of the policies
        sys.stderr.write(done.stderr.decode("utf-8", "replace"))
    if done.returncode != 0:
        raise WorkerCrashed(done.returncode)
    reply = json.loads(done.stdout)
    if "error" in reply:
        err = reply["error"]
        where = range_for(err["file"], err["line"]) if err.get("file") else None
        raise PolicyError(err["summary"], detail=err.get("detail") or "", hint=err.get("hint") or "",
                          range=where)
    return {(p, r): v for p, r, v in reply["values"]}


def _crash_error(crash: WorkerCrashed, modules: list[RegoModule], data: dict[str, Any],
                 rules: list[tuple[str, str]], document: Any) -> PolicyError:
    culprits = [m for m in modules if len(modules) > 1 and _crashes_alone(m, data, rules, document)]
    named = culprits or modules
    files = ", ".join(m.display for m in named)
    return PolicyError(
        f"the Rego engine crashed while evaluating {files}",
        range=range_for(named[0].display, 1),
        detail=f"rego-cpp, the Rego engine ctl uses, stopped with {crash.describe()} instead of "
               "reporting an error. ctl ran it in a separate process, so nothing else was affected, "
               "but the policies gave no result and the check stops rather than pass.",
        hint="Simplify the rules of that file until it evaluates (known triggers: `with input as …` "
             "in a rule that calls a function; iteration inside a call's arguments), or move the "
             "file out of the policy directory.",
    )


def _crashes_alone(module: RegoModule, data: dict[str, Any], rules: list[tuple[str, str]],
                   document: Any) -> bool:
    own = [(p, r) for p, r in rules if p == module.info.package and r in module.info.rule_names()]
    try:
        _run([module], data, own, document)
    except WorkerCrashed:
        return True
    except PolicyError:
        return False  # it may need the other files; not the crash
    return False


__all__ = ["evaluate"]
