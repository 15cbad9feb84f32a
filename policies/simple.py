"""Simple policies: YAML files with a JSON Schema, for people who don't write Rego.

```yaml
name: gcs-uniform-access           # optional; defaults to the file name
resource_type: google_storage_bucket   # a type, a list of types, or a glob (aws_s3_*)
when: [create, update]             # actions it applies to (default: create, update)
level: hard-mandatory              # advisory | soft-mandatory (default) | hard-mandatory
message: "{address} must use uniform bucket-level access"
schema:                            # JSON Schema that change.after must satisfy
  required: [uniform_bucket_level_access]
  properties:
    uniform_bucket_level_access: {const: true}
```

A file may hold one policy, several YAML documents, or a list under ``policies:``. ``when`` takes
``create``, ``update``, ``delete``, ``replace``, ``read``, ``no-op`` and ``forget``; a replacement matches
``replace``, ``create`` and ``delete``. For a delete the schema is checked against
``change.before`` (there is no ``after``). ``message`` may use ``{address}``, ``{type}``, ``{name}``
and ``{errors}`` (what the schema check found).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any

import yaml

from policies.levels import LEVEL_NAMES, Level, parse_level
from policies.model import PolicyError, range_for

ACTIONS = ("create", "update", "delete", "replace", "read", "no-op", "forget")
_DEFAULT_WHEN = ("create", "update")
_KEYS = {"name", "resource_type", "when", "schema", "message", "level", "description"}


@dataclass
class SimplePolicy:
    name: str
    file: str
    line: int
    resource_types: list[str]
    when: tuple[str, ...]
    schema: dict[str, Any]
    message: str
    level: Level | None
    description: str = ""
    _validator: Any = field(default=None, repr=False)

    def applies_to(self, rc: dict[str, Any]) -> bool:
        if rc.get("mode", "managed") != "managed":
            return False
        rtype = rc.get("type", "")
        if not any(fnmatch.fnmatchcase(rtype, t) for t in self.resource_types):
            return False
        return bool(_action_names(rc.get("change", {}).get("actions", [])) & set(self.when))

    def check(self, rc: dict[str, Any]) -> str | None:
        """The message for ``rc`` when it breaks the policy, ``None`` when it complies."""
        change = rc.get("change", {})
        value = change.get("after")
        if value is None:
            value = change.get("before")
        errors = sorted(self._validator.iter_errors(value if value is not None else {}),
                        key=lambda e: list(e.absolute_path))
        if not errors:
            return None
        described = "; ".join(_describe(e) for e in errors[:5])
        fields = {"address": rc.get("address", ""), "type": rc.get("type", ""), "name": rc.get("name", ""),
                  "errors": described}
        try:
            text = self.message.format_map(_Missing(fields))
        except (ValueError, IndexError):
            text = self.message
        if "{errors}" not in self.message:
            text = f"{text} ({described})"
        if "{address}" not in self.message:
            text = f"{fields['address']}: {text}"
        return text


class _Missing(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _describe(err: Any) -> str:
    where = ".".join(str(p) for p in err.absolute_path)
    return f"{where}: {err.message}" if where else err.message


def _action_names(actions: list[str]) -> set[str]:
    acts = set(actions)
    if acts == {"delete", "create"}:
        return {"replace", "create", "delete"}
    return acts


def load(text: str, file: str) -> list[SimplePolicy]:
    """The simple policies in one YAML file (``file`` is its display path)."""
    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise PolicyError(f"{file}: not valid YAML: {exc}",
                          range=range_for(file, mark.line + 1 if mark else 1)) from None
    entries: list[tuple[dict[str, Any], int]] = []
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("policies"), list):
            entries.extend((p, 1) for p in doc["policies"])
        else:
            entries.append((doc, 1))
    stem = file.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    out = [_one(p, file, line, stem if len(entries) == 1 else f"{stem}[{i}]")
           for i, (p, line) in enumerate(entries)]
    return out


def _one(doc: Any, file: str, line: int, default_name: str) -> SimplePolicy:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    where = range_for(file, line)
    if not isinstance(doc, dict) or "resource_type" not in doc:
        raise PolicyError(f"{file}: a simple policy needs 'resource_type'", range=where,
                          hint="See docs/policies.md for the format of simple policies.")
    unknown = sorted(set(doc) - _KEYS)
    if unknown:
        raise PolicyError(f"{file}: unknown key(s) in a simple policy: {', '.join(unknown)}", range=where,
                          hint=f"Known keys: {', '.join(sorted(_KEYS))}.")
    types = doc["resource_type"]
    types = [types] if isinstance(types, str) else types
    if not isinstance(types, list) or not types or not all(isinstance(t, str) for t in types):
        raise PolicyError(f"{file}: resource_type must be a type name or a list of them", range=where)
    when = doc.get("when", list(_DEFAULT_WHEN))
    when = [when] if isinstance(when, str) else when
    bad = [w for w in when if w not in ACTIONS] if isinstance(when, list) else [str(when)]
    if bad:
        raise PolicyError(f"{file}: unknown action(s) in 'when': {', '.join(map(str, bad))}", range=where,
                          hint=f"Use any of: {', '.join(ACTIONS)}.")
    schema = doc.get("schema", {})
    if not isinstance(schema, dict):
        raise PolicyError(f"{file}: 'schema' must be a JSON Schema object", range=where)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise PolicyError(f"{file}: 'schema' is not a valid JSON Schema: {exc.message}", range=where) from None
    level = None
    if "level" in doc:
        level = parse_level(doc["level"])
        if level is None:
            raise PolicyError(f"{file}: unknown level {doc['level']!r}", range=where,
                              hint=f"Use one of: {', '.join(LEVEL_NAMES)}.")
    name = str(doc.get("name") or default_name)
    message = str(doc.get("message") or f"does not satisfy the simple policy {name}")
    return SimplePolicy(name=name, file=file, line=line, resource_types=types, when=tuple(when),
                        schema=schema, message=message, level=level,
                        description=str(doc.get("description", "")),
                        _validator=Draft202012Validator(schema))


def evaluate(policies: list[SimplePolicy], doc: dict[str, Any]) -> list[tuple[SimplePolicy, str, str]]:
    """``(policy, address, message)`` for every resource change a policy rejects."""
    found: list[tuple[SimplePolicy, str, str]] = []
    changes = doc.get("resource_changes") or []
    for policy in policies:
        for rc in changes:
            if isinstance(rc, dict) and policy.applies_to(rc):
                msg = policy.check(rc)
                if msg is not None:
                    found.append((policy, str(rc.get("address", "")), msg))
    return found


__all__ = ["ACTIONS", "SimplePolicy", "evaluate", "load"]
