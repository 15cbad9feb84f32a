"""The worker process that evaluates user Rego policies: ``python -m policies.rego_worker``.

Reads one request as JSON on standard input — the modules (path, display name, source), the data
document, the rules to query and the input document — and writes one answer as JSON on standard
output: each rule's value, or the ``PolicyError`` the evaluation raised. ``print()`` output of the
policies goes to standard error. If rego-cpp crashes, only this process dies; the caller
(``policies.isolation``) turns that into an error naming the policy.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from policies.model import PolicyError

PROGRESS_FD_ENV = "CTL_POLICY_PROGRESS_FD"


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """Compile and evaluate ``request``; a ``PolicyError`` becomes part of the answer.

    With ``"each": true`` (``ctl policy test``) every rule is evaluated on its own, and its value,
    its error and its time are answered separately, so one failing test does not hide the others.
    """
    from policies.evaluation import CompiledPolicy
    from policies.rego_module import RegoModule

    try:
        modules = [RegoModule.read(m["path"], m["display"], m["source"]) for m in request["modules"]]
        rules = [(p, r) for p, r in request["rules"]]
        compiled = CompiledPolicy(modules, request.get("data") or {}, rules)
        compiled.on_rule = _progress()
        if request.get("each"):
            return {"each": [_one(compiled, request["input"], p, r) for p, r in rules]}
        if "tolerated" in request:
            from policies.rule_errors import evaluate_tolerating

            tolerated = {(p, r) for p, r in request["tolerated"]}
            values, failures = evaluate_tolerating(compiled.evaluate, request["input"], rules, tolerated)
            return {"values": [[p, r, v] for (p, r), v in values.items()],
                    "failures": [[p, r, f.to_json()] for (p, r), f in failures.items()]}
        values = compiled.evaluate(request["input"])
    except PolicyError as exc:
        return {"error": _error(exc)}
    return {"values": [[p, r, v] for (p, r), v in values.items()]}


def _progress() -> Any:
    """What tells the parent which rule runs now: a line per rule on the descriptor it passed."""
    fd = os.environ.get(PROGRESS_FD_ENV, "")
    if not fd.isdigit():
        return None
    stream = os.fdopen(int(fd), "w", buffering=1, closefd=False)

    def report(package: str, rule: str, file: str, line: int) -> None:
        stream.write(json.dumps([f"{package}.{rule}", file, line]) + "\n")

    return report


def _one(compiled: Any, document: Any, package: str, rule: str) -> list[Any]:
    started = time.perf_counter()
    try:
        value, error = compiled.query(document, package, rule), None
    except PolicyError as exc:
        value, error = None, exc.summary
    return [package, rule, value, error, time.perf_counter() - started]


def _error(exc: PolicyError) -> dict[str, Any]:
    where = exc.range
    return {"summary": exc.summary, "detail": exc.detail, "hint": exc.hint,
            "file": where.filename if where else None, "line": where.start.line if where else None}


def main() -> int:
    # Imported before the request arrives, so the start-up overlaps the caller's own work.
    import regopy  # noqa: F401

    import policies.evaluation  # noqa: F401

    request = json.loads(sys.stdin.buffer.read())
    reply = answer(request)
    sys.stdout.write(json.dumps(reply))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
