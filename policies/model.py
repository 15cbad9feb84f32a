"""What a policy check produces: the rules that ran, what they found, and the verdict.

Plain data (JSON-ready through ``to_json``) so the CLI, the report formats and the saved plan all
read the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policies.levels import Level, blocks
from vocab.errors import CtlError, SourceRange


class PolicyError(CtlError):
    """A policy could not be loaded or evaluated (a configuration error, exit code 1)."""


@dataclass(frozen=True)
class RuleRef:
    """One rule that was evaluated: ``data.<namespace>.<rule>`` or a simple policy."""

    rule_id: str  # "main.deny", "ctl.aws.s3_encryption.deny", "simple:require-owner"
    namespace: str
    rule: str
    kind: str  # deny | violation | warn | simple
    source: str  # "builtin", a policy directory
    file: str  # display path of the file that defines it
    line: int
    level: Level
    title: str = ""
    description: str = ""
    policy_id: str = ""  # the policy's own identifier (custom.id in its metadata), if any

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.rule_id, "namespace": self.namespace, "rule": self.rule, "kind": self.kind,
               "source": self.source, "file": self.file, "line": self.line, "level": self.level.value,
               "title": self.title, "description": self.description}
        if self.policy_id:
            out["policy_id"] = self.policy_id
        return out


@dataclass(frozen=True)
class Finding:
    """One message a rule produced for one plan."""

    rule: RuleRef
    message: str
    level: Level
    address: str | None = None  # the resource it concerns, when the policy says
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_json(self, override: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule.rule_id,
            "namespace": self.rule.namespace,
            "kind": self.rule.kind,
            "level": self.level.value,
            "message": self.message,
            "file": self.rule.file,
            "line": self.rule.line,
            "status": status(self.level, override),
        }
        if self.address:
            out["address"] = self.address
        if self.metadata:
            out["metadata"] = self.metadata
        return out


def status(level: Level, override: str | None) -> str:
    """``failed`` (blocks the run), ``overridden`` (soft-mandatory, overridden) or ``advisory``."""
    if level is Level.ADVISORY:
        return "advisory"
    return "failed" if blocks(level, override) else "overridden"


@dataclass
class PolicyOutcome:
    """The verdict of one policy check over one plan."""

    rules: list[RuleRef] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    override: str | None = None
    sources: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # seconds per phase (not saved)
    builtin_mode: str | None = None  # advisory | enforce, when the built-in pack ran

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if blocks(f.level, self.override)]

    @property
    def overridden(self) -> list[Finding]:
        return [f for f in self.findings if f.level is Level.SOFT_MANDATORY and self.override]

    @property
    def advisory(self) -> list[Finding]:
        return [f for f in self.findings if f.level is Level.ADVISORY]

    @property
    def denied(self) -> bool:
        """A mandatory policy failed and no override lifts it: the run must stop (exit 3)."""
        return bool(self.blocking)

    @property
    def override_used(self) -> bool:
        return bool(self.overridden)

    def failed_rule_ids(self) -> set[str]:
        return {f.rule.rule_id for f in self.findings}

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": not self.denied,
            "denied": self.denied,
            "override": self.override,
            "override_used": self.override_used,
            "summary": self.summary(),
            "sources": list(self.sources),
            "builtin_mode": self.builtin_mode,
            "rules": [r.to_json() for r in self.rules],
            "results": self.results_json(),
        }

    def results_json(self) -> list[dict[str, Any]]:
        """The findings as the saved plan records them."""
        return [f.to_json(self.override) for f in self.findings]

    def summary(self) -> dict[str, int]:
        return {
            "rules": len(self.rules),
            "passed": len([r for r in self.rules if r.rule_id not in self.failed_rule_ids()]),
            "failed": len(self.blocking),
            "overridden": len(self.overridden),
            "advisory": len(self.advisory),
        }


def range_for(file: str, line: int) -> SourceRange:
    from vocab.errors import Pos

    return SourceRange(file, Pos(line, 1), Pos(line, 1))


__all__ = ["Finding", "PolicyError", "PolicyOutcome", "RuleRef", "range_for", "status"]
