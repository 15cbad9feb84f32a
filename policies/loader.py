"""Where policies come from: the built-in pack, ``<configuration>/policies/`` and ``--policy-dir``.

Each source is a directory read recursively (hidden directories skipped): ``*.rego`` files are
Rego modules (``*_test.rego`` only for ``ctl policy test``), ``*.yaml``/``*.yml`` files are simple
policies, and ``policy-set.yaml`` at the top sets levels and data.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from policies import policy_set, simple
from policies.model import PolicyError
from policies.policy_set import PolicySet
from policies.rego_module import RegoModule
from policies.unattended import UnattendedRule

BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
BUILTIN = "builtin"
CONFIG_DIR_NAME = "policies"


@dataclass
class PolicySource:
    name: str  # "builtin" or the directory as shown to the user
    path: Path
    builtin: bool = False
    explicit: bool = False  # named with --policy-dir (an empty one is an error)
    rego: list[RegoModule] = field(default_factory=list)
    tests: list[RegoModule] = field(default_factory=list)
    simple: list[simple.SimplePolicy] = field(default_factory=list)
    policy_set: PolicySet | None = None

    @property
    def has_policies(self) -> bool:
        return bool(self.rego or self.simple)


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when inside it, else absolute."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return rel if not rel.startswith("..") else str(path)


def read_dir(path: Path, *, name: str, builtin: bool = False, explicit: bool = False,
             with_tests: bool = False) -> PolicySource:
    """Every policy file under ``path``."""
    src = PolicySource(name=name, path=path, builtin=builtin, explicit=explicit)
    if not path.is_dir():
        raise PolicyError(f"the policy directory {name} does not exist",
                          hint="Pass an existing directory to --policy-dir.")
    files: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        files.extend(Path(dirpath) / f for f in sorted(filenames) if not f.startswith("."))
    for f in files:
        display = f"{BUILTIN}/{f.relative_to(path).as_posix()}" if builtin else display_path(f)
        if f.suffix == ".rego":
            text = _read(f, display)
            module = RegoModule.read(display, display, text)
            if f.name.endswith("_test.rego"):
                if with_tests:
                    src.tests.append(module)
            else:
                src.rego.append(module)
        elif f.suffix in (".yaml", ".yml"):
            if f.parent == path and f.name in (policy_set.FILE_NAME, "policy-set.yml"):
                src.policy_set = policy_set.load(f, display)
            else:
                src.simple.extend(simple.load(_read(f, display), display))
    return src


def _read(path: Path, display: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"cannot read the policy file {display}: {exc}") from None


def load_sources(root_dir: Path, policy_dirs: list[Path], *, builtin: bool = True,
                 with_tests: bool = False) -> list[PolicySource]:
    """The built-in pack (unless turned off), the configuration's ``policies/``, then ``--policy-dir``s."""
    sources: list[PolicySource] = []
    if builtin:
        sources.append(read_dir(BUILTIN_DIR, name=BUILTIN, builtin=True, with_tests=with_tests))
    seen: set[Path] = set()
    config_dir = (root_dir / CONFIG_DIR_NAME).resolve()
    if config_dir.is_dir():
        sources.append(read_dir(config_dir, name=display_path(config_dir), with_tests=with_tests))
        seen.add(config_dir)
    for d in policy_dirs:
        resolved = (d if d.is_absolute() else Path.cwd() / d).resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        sources.append(read_dir(resolved, name=display_path(resolved), explicit=True,
                                with_tests=with_tests))
    return sources


def merged_policy_set(sources: list[PolicySource]) -> PolicySet:
    merged = PolicySet()
    for s in sources:
        if s.policy_set is not None:
            merged = merged.merge(s.policy_set)
    return merged


def unattended_rules(root_dir: Path, policy_dirs: list[Path]) -> list[UnattendedRule]:
    """What ``ctl reconcile`` may apply unattended: the merged policy sets' ``unattended`` rules
    (none when no policy set has any; the built-in pack never allows anything on its own)."""
    sources = load_sources(root_dir, policy_dirs, builtin=False)
    return list(merged_policy_set(sources).unattended or [])


__all__ = ["BUILTIN", "BUILTIN_DIR", "PolicySource", "display_path", "load_sources", "merged_policy_set",
           "read_dir", "unattended_rules"]
