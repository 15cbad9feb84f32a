"""Keeping a plan's secrets out of what policies say.

Policies read the plan with its real values, sensitive ones included, as Terraform's JSON plan gives
them to OPA: a rule may need to compare a secret. But a message a rule builds from one (``sprintf("password
%v is weak", [...])``) would then print it in ``ctl plan``, in every report format, in the CI summary
and in the saved plan, where the plan itself shows "(sensitive value)". The plan document says which
values are sensitive (``after_sensitive``, ``sensitive_values``, a sensitive output or variable);
every such text is cut out of the findings and errors of the check, as provider messages are
(``vocab.redact``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from policies.model import Finding, PolicyOutcome
from vocab.redact import redact


def plan_secrets(doc: Any) -> set[str]:
    """Every sensitive scalar of a plan in Terraform's JSON shape, as the text a message would show."""
    out: set[str] = set()
    if not isinstance(doc, dict):
        return out
    for key in ("resource_changes", "resource_drift"):
        for rc in _list(doc.get(key)):
            _change(rc.get("change") if isinstance(rc, dict) else None, out)
    outputs = doc.get("output_changes")
    for change in (outputs.values() if isinstance(outputs, dict) else ()):
        _change(change, out)
    for key in ("planned_values", "prior_state"):
        values = doc.get(key)
        if key == "prior_state" and isinstance(values, dict):
            values = values.get("values")
        _values(values, out)
    _variables(doc, out)
    return out


def masked(outcome: PolicyOutcome, secrets: set[str]) -> PolicyOutcome:
    """``outcome`` with every secret cut out of its findings' messages, addresses and metadata."""
    if secrets:
        outcome.findings = [_finding(f, secrets) for f in outcome.findings]
    return outcome


def mask_text(text: str, secrets: set[str]) -> str:
    return redact(text, secrets) if secrets else text


def _finding(f: Finding, secrets: set[str]) -> Finding:
    address = redact(f.address, secrets) if f.address else f.address
    return dataclasses.replace(f, message=redact(f.message, secrets), address=address,
                               metadata=_deep(f.metadata, secrets))


def _deep(value: Any, secrets: set[str]) -> Any:
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {redact(str(k), secrets): _deep(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep(v, secrets) for v in value]
    if value is not None and not isinstance(value, bool) and str(value) in secrets:
        return redact(str(value), secrets)  # a sensitive number passed on as metadata
    return value


def _change(change: Any, out: set[str]) -> None:
    if isinstance(change, dict):
        _marked(change.get("before"), change.get("before_sensitive"), out)
        _marked(change.get("after"), change.get("after_sensitive"), out)


def _values(module: Any, out: set[str]) -> None:
    """``planned_values``/``prior_state.values``: resources with ``sensitive_values``, and outputs."""
    if not isinstance(module, dict):
        return
    outputs = module.get("outputs")
    for output in (outputs.values() if isinstance(outputs, dict) else ()):
        if isinstance(output, dict) and output.get("sensitive") is True:
            _all(output.get("value"), out)
    root = module.get("root_module")
    stack = [root] if isinstance(root, dict) else []
    while stack:
        current = stack.pop()
        for res in _list(current.get("resources")):
            if isinstance(res, dict):
                _marked(res.get("values"), res.get("sensitive_values"), out)
        stack.extend(c for c in _list(current.get("child_modules")) if isinstance(c, dict))


def _variables(doc: dict[str, Any], out: set[str]) -> None:
    """Root variables the configuration declares sensitive."""
    variables = doc.get("variables")
    config = doc.get("configuration")
    declared = config.get("root_module", {}).get("variables") if isinstance(config, dict) else None
    if not isinstance(variables, dict) or not isinstance(declared, dict):
        return
    for name, spec in declared.items():
        given = variables.get(name)
        if isinstance(spec, dict) and spec.get("sensitive") is True and isinstance(given, dict):
            _all(given.get("value"), out)


def _marked(value: Any, sensitive: Any, out: set[str]) -> None:
    """The scalars of ``value`` where its sensitivity tree (``true`` at a sensitive subtree) says so."""
    if sensitive is True:
        _all(value, out)
    elif isinstance(sensitive, dict) and isinstance(value, dict):
        for key, inner in sensitive.items():
            if key in value:
                _marked(value[key], inner, out)
    elif isinstance(sensitive, list) and isinstance(value, list):
        for item, inner in zip(value, sensitive, strict=False):
            _marked(item, inner, out)


def _all(value: Any, out: set[str]) -> None:
    if isinstance(value, dict):
        for inner in value.values():
            _all(inner, out)
    elif isinstance(value, list):
        for inner in value:
            _all(inner, out)
    elif value is not None and not isinstance(value, bool) and str(value) != "":
        out.add(str(value))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


__all__ = ["mask_text", "masked", "plan_secrets"]
