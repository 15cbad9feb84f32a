"""Comparing IAM-style policy documents by meaning, not by text.

AWS gives a policy back re-serialised (other whitespace and key order; IAM even URL-encodes it,
which boto3 undoes), and a user may reformat their JSON without changing it. Both must not show up
as a change, so documents are compared after parsing and canonicalising, and the state keeps the
user's own text whenever it is equivalent to what AWS holds (so the plan never shows a diff that
is only formatting).

Canonical form: a lone ``Statement`` object becomes a one-element list, and the values AWS accepts
either as a string or a list (``Action``, ``Resource``, principals, condition values …) become
sorted lists.
"""

from __future__ import annotations

import json
from typing import Any

_LISTY = {"Action", "NotAction", "Resource", "NotResource"}


def parse(document: Any) -> Any:
    """A policy as data: JSON text parsed, a dict (what boto3 returns for IAM) used as is."""
    if isinstance(document, str):
        try:
            return json.loads(document)
        except ValueError:
            return document  # not JSON: compared as text
    return document


def canonical(document: Any) -> Any:
    """The comparable form of a parsed policy document."""
    if not isinstance(document, dict):
        return document
    out = dict(document)
    statements = out.get("Statement")
    if isinstance(statements, dict):
        statements = [statements]
    if isinstance(statements, list):
        out["Statement"] = sorted((_statement(s) for s in statements), key=lambda s: json.dumps(s, sort_keys=True))
    return out


def _statement(statement: Any) -> Any:
    if not isinstance(statement, dict):
        return statement
    out: dict[str, Any] = {}
    for key, value in statement.items():
        if key in _LISTY:
            out[key] = _as_list(value)
        elif key in ("Principal", "NotPrincipal") and isinstance(value, dict):
            out[key] = {k: _as_list(v) for k, v in value.items()}
        elif key == "Condition" and isinstance(value, dict):
            out[key] = {op: {k: _as_list(v) for k, v in body.items()} if isinstance(body, dict) else body
                        for op, body in value.items()}
        else:
            out[key] = value
    return out


def _as_list(value: Any) -> Any:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return sorted(set(value))
    return value


def equivalent(a: Any, b: Any) -> bool:
    """Do two policy documents (text or parsed) mean the same?"""
    if a is None or b is None:
        return a is None and b is None
    return bool(canonical(parse(a)) == canonical(parse(b)))


def keep_text(prior: Any, actual: Any) -> str | None:
    """What state should hold: the prior text when it means what AWS holds, else AWS's document."""
    if actual is None or actual == "":
        return None
    if isinstance(prior, str) and equivalent(prior, actual):
        return prior
    if isinstance(actual, str):
        parsed = parse(actual)
        return json.dumps(parsed, separators=(",", ":")) if isinstance(parsed, dict) else actual
    return json.dumps(actual, separators=(",", ":"))


def plan_text(prior: Any, planned: Any) -> Any:
    """The configured policy, or the prior text when the two are equivalent (no formatting diffs)."""
    if isinstance(prior, str) and isinstance(planned, str) and equivalent(prior, planned):
        return prior
    return planned


def provider_text(prior: Any, actual: Any) -> str:
    """What the provider records of a document it reads back: the prior text while it means the
    same, else the document ``normalized``; ``""`` for none."""
    if isinstance(prior, str) and prior and actual and equivalent(prior, actual):
        return prior
    return normalized(actual) or ""


def normalized(document: Any, *, version_first: bool = False) -> str | None:
    """The provider's spelling of a document it records as it reads it: compact JSON, keys sorted,
    ``<``, ``>`` and ``&`` escaped (Go's ``encoding/json``); with ``version_first``, ``Version``
    leads, as IAM's legacy parser wants and the provider writes inline role policies. None for none."""
    parsed = parse(document)
    if parsed is None or parsed == "":
        return None
    if not isinstance(parsed, (dict, list)):
        return str(document)
    if version_first and isinstance(parsed, dict) and "Version" in parsed:
        parsed = {"Version": parsed["Version"], **{k: v for k, v in sorted(parsed.items()) if k != "Version"}}
        text = json.dumps({k: _sorted(v) for k, v in parsed.items()}, separators=(",", ":"), ensure_ascii=False)
    else:
        text = json.dumps(parsed, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _sorted(value: Any) -> Any:
    """``value`` with the keys of every object in it in order, so it dumps as Go marshals a map."""
    if isinstance(value, dict):
        return {k: _sorted(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value
