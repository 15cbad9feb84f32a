"""The policy options every policy-checking command shares (plan, apply, ``policy check``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from vocab.errors import UsageError

if TYPE_CHECKING:  # the policy engine is imported when a command uses it, not at start-up
    from policies.gate import PolicyOptions

POLICY_DIR_HELP = "Also check the policies in this directory (repeatable)."
NO_BUILTIN_HELP = "Do not check the built-in policy pack (the same as --builtin-policies=off)."
BUILTIN_MODE_HELP = ("What the built-in pack does: advisory (the default: findings are warnings), enforce (each "
                     "rule at its own level) or off. Also CTL_BUILTIN_POLICIES, or `builtin:` in "
                     "policies/policy-set.yaml.")
OVERRIDE_HELP = 'Let soft-mandatory failures pass, recording this reason (e.g. "approved in CHG-42").'


def gate_options(policy_dir: list[Path] | None, no_builtin: bool, override: str | None,
                 namespace: list[str] | None = None, all_namespaces: bool = False,
                 builtin_mode: str | None = None) -> PolicyOptions:
    """The ``PolicyOptions`` for the command-line options every policy-checking command shares."""
    from policies.gate import DEFAULT_NAMESPACE, PolicyOptions
    from policies.policy_set import BUILTIN_MODES

    if override is not None and not override.strip():
        raise UsageError("--policy-override needs a reason")
    if builtin_mode is not None and builtin_mode not in BUILTIN_MODES:
        raise UsageError(f"--builtin-policies {builtin_mode!r}", hint=f"Use one of: {', '.join(BUILTIN_MODES)}.")
    return PolicyOptions(policy_dirs=list(policy_dir or []), builtin=not no_builtin, builtin_mode=builtin_mode,
                         namespaces=list(namespace or [DEFAULT_NAMESPACE]), all_namespaces=all_namespaces,
                         override=override.strip() if override else None)
