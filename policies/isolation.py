"""User Rego policies are evaluated in a worker process, so a crash of the engine is an error.

rego-cpp is a C++ library: some policies make it crash (a segmentation fault or an abort) rather
than report an error, and in ctl's own process that would end the run with no message — and
``./policies`` is read by every ``plan``. ``evaluate`` hands the modules, data and plan to
``python -m policies.rego_worker`` once per check (not per policy) and reads the values back; a
worker killed by a signal becomes a ``PolicyError`` naming the policy file that crashed it (found
by evaluating each file alone, only after a crash) and what to do.

The built-in pack is ctl's own, tested code and stays in process; the worker (about the start-up
of a Python interpreter plus importing regopy) is paid only when user Rego policies exist.

A policy is code its author controls: the worker runs within a budget of memory and time
(``policies.worker_budget``), and leads a process group of its own, handed to the watcher that
stops providers when ctl dies (``vocab.lifeline``), so a ``kill -9`` of ctl does not
leave it running, nor a Ctrl-C (the group no longer gets the terminal's signal: ``_exchange``
stops it).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

from policies.model import PolicyError, range_for
from policies.rego_module import RegoModule
from policies.rego_worker import PROGRESS_FD_ENV
from policies.rule_errors import RuleFailure
from policies.secrets import mask_text
from policies.worker_budget import Watch, budget, budget_error, memory_budget
from vocab import lifeline

_PROJECT_ROOT = str(Path(__file__).resolve().parent.parent)
class WorkerCrashed(Exception):
    """The worker ended without an answer: killed by a signal, or failed (its last words kept)."""

    def __init__(self, returncode: int, stderr: str = "") -> None:
        super().__init__(returncode)
        self.returncode = returncode
        self.last_words = "\n".join(stderr.strip().splitlines()[-3:])

    def describe(self) -> str:
        try:
            return f"{signal.Signals(-self.returncode).name} (exit {128 - self.returncode})"
        except ValueError:
            return f"exit code {self.returncode}"


class Worker:
    """One worker process, started ahead of time so its start-up overlaps other work.

    ``start`` spawns ``python -m policies.rego_worker``, which imports the engine and then waits
    for the request on standard input; ``evaluate`` sends it and reads the answer. A worker that
    is never used is stopped by ``close``.
    """

    def __init__(self, secrets: Collection[str] = ()) -> None:
        self.secrets = set(secrets)  # cut out of what the policies print
        self.seconds, self.megabytes = budget()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PROJECT_ROOT, env.get("PYTHONPATH", "")) if p)
        self._progress, progress_w = os.pipe()
        env[PROGRESS_FD_ENV] = str(progress_w)
        lifeline.prepare()  # the watcher runs before the worker exists: no moment without a guard
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", "policies.rego_worker"], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                          pass_fds=(progress_w,), process_group=0)
        except BaseException:
            os.close(self._progress)
            raise
        finally:
            os.close(progress_w)
        lifeline.guard(self._proc.pid, "")

    def evaluate(self, modules: list[RegoModule], data: dict[str, Any], rules: list[tuple[str, str]],
                 document: Any) -> dict[tuple[str, str], Any]:
        """Each rule's value for ``document``; a crash of the worker is an error naming the file."""
        try:
            values: dict[tuple[str, str], Any] = self._exchange(modules, data, rules, document)
            return values
        except WorkerCrashed as crash:
            raise _crash_error(crash, modules, data, rules, document) from None

    def evaluate_tolerating(self, modules: list[RegoModule], data: dict[str, Any], rules: list[tuple[str, str]],
                            document: Any, tolerated: set[tuple[str, str]],
                            ) -> tuple[dict[tuple[str, str], Any], dict[tuple[str, str], RuleFailure]]:
        """As ``evaluate``, with the failures of ``tolerated`` rules answered, not raised
        (``policies.rule_errors``): the worker locates the resources they fail on itself."""
        try:
            reply = self._exchange(modules, data, rules, document, tolerated=sorted(tolerated))
        except WorkerCrashed as crash:
            raise _crash_error(crash, modules, data, rules, document) from None
        values = {(p, r): v for p, r, v in reply["values"]}
        failures = {(p, r): RuleFailure.from_json(f) for p, r, f in reply.get("failures", [])}
        return values, failures

    def evaluate_each(self, modules: list[RegoModule], rules: list[tuple[str, str]],
                      document: Any) -> list[tuple[str, str, Any, str | None, float]]:
        """Every rule on its own: (package, rule, value, error summary or None, seconds)."""
        try:
            reply = self._exchange(modules, {}, rules, document, each=True)
        except WorkerCrashed as crash:
            raise _crash_error(crash, modules, {}, rules, document) from None
        return [(p, r, v, e, s) for p, r, v, e, s in reply]

    def _exchange(self, modules: list[RegoModule], data: dict[str, Any], rules: list[tuple[str, str]],
                  document: Any, *, each: bool = False, tolerated: list[tuple[str, str]] | None = None) -> Any:
        request = {"modules": [{"path": m.path, "display": m.display, "source": m.source} for m in modules],
                   "data": data, "rules": [list(r) for r in rules], "input": document, "each": each}
        if tolerated is not None:
            request["tolerated"] = [list(r) for r in tolerated]
        sent = json.dumps(request, default=str).encode()
        megabytes = memory_budget(self.megabytes, len(sent))
        watch = Watch(self._proc, self._progress, self.seconds, megabytes)
        try:
            stdout, stderr = self._proc.communicate(sent)
        except BaseException:  # Ctrl-C, or anything else: the worker leads its own group, stop it here
            watch.stop()
            self.close()
            raise
        watch.stop()
        if watch.exceeded:
            self.close()
            raise budget_error(watch, modules, self.seconds, megabytes)
        text = stderr.decode("utf-8", "replace")
        if self._proc.returncode != 0:  # what it wrote is a native crash report or a traceback
            raise WorkerCrashed(self._proc.returncode, text)
        if text:  # print() output of the policies
            sys.stderr.write(mask_text(text, self.secrets))
        reply = json.loads(stdout)
        if "error" in reply:
            err = reply["error"]
            where = range_for(err["file"], err["line"]) if err.get("file") else None
            raise PolicyError(err["summary"], detail=err.get("detail") or "", hint=err.get("hint") or "",
                              range=where)
        if each:
            return reply["each"]
        if tolerated is not None:
            return reply
        return {(p, r): v for p, r, v in reply["values"]}

    def close(self) -> None:
        if self._proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.communicate()
        lifeline.release(self._proc.pid)
        if self._progress >= 0:
            os.close(self._progress)
            self._progress = -1


def start(secrets: Collection[str] = ()) -> Worker:
    return Worker(secrets)


def evaluate(modules: list[RegoModule], data: dict[str, Any], rules: list[tuple[str, str]],
             document: Any) -> dict[tuple[str, str], Any]:
    """Each rule's value for ``document``, computed in a new worker process."""
    worker = Worker()
    try:
        return worker.evaluate(modules, data, rules, document)
    finally:
        worker.close()


def _run(modules: list[RegoModule], data: dict[str, Any], rules: list[tuple[str, str]],
         document: Any) -> dict[tuple[str, str], Any]:
    worker = Worker()
    try:
        values: dict[tuple[str, str], Any] = worker._exchange(modules, data, rules, document)
    finally:
        worker.close()
    return values


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
               "but the policies gave no result and the check stops rather than pass."
               + (f"\nIts last words: {crash.last_words}" if crash.last_words else ""),
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


__all__ = ["Worker", "evaluate", "start"]
