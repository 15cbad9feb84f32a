"""``policy-set.yaml``: levels for policies and data for them, kept next to the policies.

```yaml
levels:                               # by rule id, package or simple policy name
  ctl.aws.iam_no_wildcard: hard-mandatory
  ctl.tags.required.deny: advisory
  main: hard-mandatory
  gcs-uniform-access: advisory
data:                                 # merged into Rego's data document
  ctl:
    required_tags: [owner, cost-center]
builtin: enforce                      # the built-in pack: advisory (default), enforce or off
unattended:                           # what `ctl reconcile` may apply on its own (default: nothing)
  - name: revert-tags
    attributes: [tags, tags_all]
    drift: true
```

The file in ``<configuration>/policies/`` and in each ``--policy-dir`` is read; a later source
wins over an earlier one for the same key. Levels set here win over a policy's own metadata.
``unattended`` rules are described in ``policies.unattended``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from policies.levels import LEVEL_NAMES, Level, parse_level
from policies.model import PolicyError, range_for
from policies.unattended import UnattendedRule, parse_rules

FILE_NAME = "policy-set.yaml"
_KEYS = {"levels", "data", "builtin", "unattended"}
BUILTIN_MODES = ("advisory", "enforce", "off")


@dataclass
class PolicySet:
    levels: dict[str, Level] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    builtin: str | None = None  # what the built-in pack does, when this file says (BUILTIN_MODES)
    # What ``ctl reconcile`` may apply unattended; None when this file does not say (nothing, then).
    unattended: list[UnattendedRule] | None = None

    def level_for(self, *keys: str) -> Level | None:
        """The level for the most specific key given (rule id first, then package)."""
        for k in keys:
            if k in self.levels:
                return self.levels[k]
        return None

    def merge(self, other: PolicySet) -> PolicySet:
        return PolicySet({**self.levels, **other.levels}, _deep_merge(self.data, other.data),
                         other.builtin or self.builtin,
                         other.unattended if other.unattended is not None else self.unattended)


def _deep_merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        out[k] = _deep_merge(out[k], v) if isinstance(out.get(k), dict) and isinstance(v, dict) else v
    return out


def _item_lines(path: Path, key: str) -> list[int]:
    """The line each item of the top-level list ``key`` starts on (1-based), for messages."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return []
    if not isinstance(root, yaml.MappingNode):
        return []
    for k, v in root.value:
        if k.value == key:
            lines = [v.start_mark.line + 1]
            if isinstance(v, yaml.SequenceNode):
                lines = [item.start_mark.line + 1 for item in v.value]
            return lines
    return []


def load(path: Path, display: str) -> PolicySet:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise PolicyError(f"cannot read {display}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise PolicyError(f"{display}: not valid YAML: {exc}",
                          range=range_for(display, mark.line + 1 if mark else 1)) from None
    where = range_for(display, 1)
    if not isinstance(doc, dict):
        raise PolicyError(f"{display}: expected a mapping with 'levels' and 'data'", range=where)
    unknown = sorted(set(doc) - _KEYS)
    if unknown:
        raise PolicyError(f"{display}: unknown key(s): {', '.join(unknown)}", range=where,
                          hint="A policy set has 'levels' (policy -> level), 'data', 'builtin' and 'unattended'.")
    levels: dict[str, Level] = {}
    raw_levels = doc.get("levels") or {}
    if not isinstance(raw_levels, dict):
        raise PolicyError(f"{display}: 'levels' must map policies to levels", range=where)
    for key, value in raw_levels.items():
        if isinstance(value, dict):
            value = value.get("level")
        level = parse_level(value)
        if level is None:
            raise PolicyError(f"{display}: unknown level {value!r} for {key}", range=where,
                              hint=f"Use one of: {', '.join(LEVEL_NAMES)}.")
        levels[str(key)] = level
    data = doc.get("data") or {}
    if not isinstance(data, dict):
        raise PolicyError(f"{display}: 'data' must be a mapping", range=where)
    builtin = doc.get("builtin")
    if builtin is False:
        builtin = "off"  # YAML reads an unquoted off as false
    if builtin is not None and builtin not in BUILTIN_MODES:
        raise PolicyError(f"{display}: builtin must be one of {', '.join(BUILTIN_MODES)}, not {builtin!r}",
                          range=where)
    unattended = parse_rules(doc["unattended"], display, _item_lines(path, "unattended")) \
        if "unattended" in doc else None
    return PolicySet(levels, data, builtin, unattended)


__all__ = ["BUILTIN_MODES", "FILE_NAME", "PolicySet", "load"]
