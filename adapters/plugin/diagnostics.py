"""Diagnostics from a provider, independent of the protocol's message classes.

A provider reports problems as diagnostics: severity, summary, detail and, when the problem is in
one value, the path to it (attribute names and collection keys). Callers turn the path into a
source position by walking the configuration; here it is only data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adapters.plugin.protocols import AttributePathMessage, DiagnosticMessage


@dataclass(frozen=True, slots=True)
class AttributeStep:
    """``.name``: an attribute of an object or a nested block."""

    name: str


@dataclass(frozen=True, slots=True)
class KeyStep:
    """``[key]``: a map key (str) or a list index (int)."""

    key: str | int


PathStep = AttributeStep | KeyStep
AttributePath = tuple[PathStep, ...]


def path_text(path: AttributePath) -> str:
    """``tags["env"]`` or ``rule[0].port``: the path as written in a configuration."""
    out = ""
    for step in path:
        if isinstance(step, AttributeStep):
            out += f".{step.name}" if out else step.name
        else:
            out += f"[{json.dumps(step.key)}]"
    return out


def path_from_proto(message: AttributePathMessage) -> AttributePath:
    """An ``AttributePath`` message (either protocol version) as plain steps."""
    steps: list[PathStep] = []
    for step in message.steps:
        which = step.WhichOneof("selector")
        if which == "attribute_name":
            steps.append(AttributeStep(step.attribute_name))
        elif which == "element_key_string":
            steps.append(KeyStep(step.element_key_string))
        elif which == "element_key_int":
            steps.append(KeyStep(int(step.element_key_int)))
    return tuple(steps)


@dataclass(frozen=True, slots=True)
class PluginDiagnostic:
    severity: str  # "error" | "warning"
    summary: str
    detail: str = ""
    path: AttributePath | None = None

    def __str__(self) -> str:
        where = f"{path_text(self.path)}: " if self.path else ""
        tail = f": {self.detail}" if self.detail else ""
        return f"{self.severity}: {where}{self.summary}{tail}"


_SEVERITIES = {1: "error", 2: "warning"}


def diagnostics_from_proto(messages: Iterable[DiagnosticMessage]) -> list[PluginDiagnostic]:
    """Convert; an unset severity counts as an error, as Terraform treats it."""
    out = []
    for message in messages:
        path = path_from_proto(message.attribute) if message.HasField("attribute") else None
        out.append(
            PluginDiagnostic(
                severity=_SEVERITIES.get(message.severity, "error"),
                summary=message.summary,
                detail=message.detail,
                path=path or None,
            )
        )
    return out


def has_errors(diagnostics: Iterable[PluginDiagnostic]) -> bool:
    return any(d.severity == "error" for d in diagnostics)
