"""A Rego policy file and the checks made before the engine sees it.

The checks catch what rego-cpp would silently accept: rules in the pre-v1 style, calls to
functions that are not built in (they evaluate to *undefined*, so a ``deny`` would never fire), and
iteration inside a built-in call's arguments (see ``policies.rego_iteration``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policies.model import PolicyError, range_for
from policies.rego_source import ModuleInfo, RegoSyntaxError, parse_module

# Works in rego-cpp although the interpreter does not list it as a built-in.
_ALWAYS_AVAILABLE = frozenset({"print"})


@dataclass
class RegoModule:
    """One ``.rego`` file: where it is, how to show its name, its text and what it defines."""

    path: str
    display: str
    source: str
    info: ModuleInfo

    @classmethod
    def read(cls, path: str, display: str, source: str) -> RegoModule:
        try:
            info = parse_module(display, source)
        except RegoSyntaxError as exc:
            raise PolicyError(f"cannot read the policy {display}: {exc}",
                              range=range_for(display, exc.line)) from None
        return cls(path, display, source, info)



def check_v1(modules: list[RegoModule]) -> None:
    """Reject pre-v1 rule heads (``deny[msg] { … }``): Rego v1 needs ``contains`` and ``if``."""
    for m in modules:
        for rule in m.info.rules:
            if rule.old_style:
                example = (f"{rule.name} contains msg if {{ … }}" if not rule.is_function
                           else f"{rule.name}(x) := y if {{ … }}")
                raise PolicyError(
                    f"{m.display}: rule '{rule.name}' is written in the old Rego syntax",
                    range=range_for(m.display, rule.line),
                    detail="ctl evaluates Rego v1, where a rule body needs 'if' and a multi-value "
                           "rule needs 'contains'.",
                    hint=f"Use Rego v1: {example} (see https://www.openpolicyagent.org/docs/latest/v0-upgrade/).",
                )


def check_calls(modules: list[RegoModule], interp: Any) -> None:
    """Every function called is a built-in the interpreter has, or a function the policies define."""
    defined = {r.name for m in modules for r in m.info.rules if r.is_function}
    defined |= {f"{m.info.package}.{r.name}" for m in modules for r in m.info.rules if r.is_function}
    problems: list[tuple[RegoModule, str, int]] = []
    for m in modules:
        aliases = set(m.info.imports)
        for name, line in m.info.calls:
            first = name.split(".", 1)[0]
            if first in ("data", "input") or first in aliases or name in defined:
                continue
            if name in _ALWAYS_AVAILABLE or interp.is_builtin(name):
                continue
            problems.append((m, name, line))
    if problems:
        m, name, line = problems[0]
        others = "".join(f"\n{pm.display}:{pl}: {pn}" for pm, pn, pl in problems[1:])
        raise PolicyError(
            f"{m.display}:{line}: '{name}' is not a built-in function this Rego engine supports",
            range=range_for(m.display, line),
            detail="The call would evaluate to undefined and the rule would never fire, so the check "
                   "stops instead of passing." + (f"\nAlso unsupported:{others}" if others else ""),
            hint="Rewrite the rule without it (ctl's Rego engine is rego-cpp; network and "
                 "runtime built-ins such as http.send are not available).",
        )



__all__ = ["RegoModule", "check_calls", "check_v1"]
