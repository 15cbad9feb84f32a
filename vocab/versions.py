"""Provider versions and version constraints with Terraform's semantics.

A constraint string is a comma-separated list, all of which must hold: ``=`` (or no operator),
``!=``, ``>``, ``>=``, ``<``, ``<=`` and ``~>``. Missing parts count as zero (``>= 1.2`` is
``>= 1.2.0``). ``~> 1.2.3`` allows patch releases only (``>= 1.2.3, < 1.3.0``); ``~> 1.2`` and
``~> 1`` allow minor releases (``>= 1.2.0, < 2.0.0``). A pre-release (``2.0.0-beta1``) is
chosen only when some ``=`` constraint names it exactly and the others allow it; build metadata
(``+abc``) does not take part in comparisons.

Constraints also have Terraform's normalized text, the form ``.terraform.lock.hcl`` must hold (Terraform
refuses a lock file whose ``constraints`` are written any other way) and the form init shows: every
version written in full (``>= 3.0`` is ``>= 3.0.0``), ``=`` left out, ``~>`` keeping the precision
that gives it its meaning (``~> 9`` and ``~> 9.0`` are ``~> 9.0``, ``~> 9.0.0`` stays), duplicates
dropped and the terms sorted by version, then by operator.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import total_ordering

from vocab.provider_errors import VersionConstraintError

_VERSION = re.compile(
    r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)
_CONSTRAINT = re.compile(r"^(~>|>=|<=|!=|=|>|<)?\s?(\S.*)$")
# A pre-release or build label's sort key: a leading rank, then one (kind, number, word) per identifier.
_LabelKey = tuple[int | tuple[int, int, str], ...]


@total_ordering
@dataclass(frozen=True, slots=True)
class Version:
    major: int
    minor: int
    patch: int
    prerelease: str = ""
    metadata: str = ""

    @classmethod
    def parse(cls, text: str) -> Version:
        """``1.2.3``, ``1.2`` (= 1.2.0), ``2.0.0-beta1+build``; raises ``ValueError``."""
        found = _VERSION.match(text.strip())
        if not found:
            raise ValueError(f"{text!r} is not a version number")
        major, minor, patch, pre, meta = found.groups()
        return cls(int(major), int(minor or 0), int(patch or 0), pre or "", meta or "")

    def _key(self) -> tuple[int, int, int, _LabelKey]:
        # Semantic versioning precedence: a pre-release sorts before its release; numeric
        # identifiers compare as numbers and before alphanumeric ones.
        if not self.prerelease:
            pre: _LabelKey = (1,)
        else:
            pre = (0, *((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.prerelease.split(".")))
        return (self.major, self.minor, self.patch, pre)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += f"-{self.prerelease}"
        return text + (f"+{self.metadata}" if self.metadata else "")


@dataclass(frozen=True, slots=True)
class Constraint:
    operator: str
    version: Version
    parts: int  # how many of major.minor.patch were written: ``~>`` depends on it

    def allows(self, v: Version) -> bool:
        b = self.version
        match self.operator:
            case "=":
                return v == b
            case "!=":
                return v != b
            case ">":
                return v > b
            case ">=":
                return v >= b
            case "<":
                return v < b
            case "<=":
                return v <= b
        upper = Version(b.major, b.minor + 1, 0) if self.parts == 3 else Version(b.major + 1, 0, 0)
        return b <= v < upper

    def __str__(self) -> str:
        """Terraform's normalized text of this one term (``>= 3.0.0``, ``3.9.0``, ``~> 9.0``)."""
        v = self.version
        if self.operator == "~>" and self.parts < 3:
            number = f"{v.major}.{v.minor}" + (f"-{v.prerelease}" if v.prerelease else "")
            number += f"+{v.metadata}" if v.metadata else ""
        else:
            number = str(v)
        return number if self.operator == "=" else f"{self.operator} {number}"

    def sort_key(self) -> tuple[int, int, int, _LabelKey, _LabelKey, int]:
        """The place of this term in the normalized text: by version (metadata included), then operator."""
        v = self.version
        pre = (1,) if not v.prerelease else (0, *_identifiers(v.prerelease))
        meta = (0,) if not v.metadata else (1, *_identifiers(v.metadata))
        operator = "~>" + ("3" if self.parts == 3 else "2") if self.operator == "~>" else self.operator
        return (v.major, v.minor, v.patch, pre, meta, _OPERATOR_ORDER[operator])


@dataclass(frozen=True, slots=True)
class Constraints:
    items: tuple[Constraint, ...] = ()

    @classmethod
    def parse(cls, text: str | Iterable[str] | None) -> Constraints:
        """One string (``">= 1.0, < 2.0"``) or several (each module's ``version``), all required."""
        if text is None:
            return cls()
        texts = [text] if isinstance(text, str) else list(text)
        items = []
        for whole in texts:
            for piece in whole.split(","):
                if not piece.strip():
                    if whole.strip():
                        raise VersionConstraintError(
                            f"Invalid version constraint {whole!r}: an empty item between commas",
                            hint='Write constraints like ">= 1.2.0, < 2.0.0".',
                        )
                    continue
                items.append(_parse_one(piece.strip(), whole))
        return cls(tuple(items))

    def allows(self, v: Version) -> bool:
        if not all(c.allows(v) for c in self.items):
            return False
        if v.prerelease:
            return any(c.operator == "=" and c.version == v for c in self.items)
        return True

    def newest(self, versions: Iterable[Version]) -> Version | None:
        allowed = [v for v in versions if self.allows(v)]
        return max(allowed) if allowed else None

    def normalized(self) -> str:
        """Terraform's normalized text: what ``.terraform.lock.hcl`` records; empty for no constraint."""
        terms = {str(c): c for c in sorted(self.items, key=Constraint.sort_key)}
        return ", ".join(terms)

    def __str__(self) -> str:
        return self.normalized() or "any version"


# Terraform's order of the operators between terms on the same version: ``~>3`` is ``~>`` written
# with three parts (patch releases only), ``~>2`` with one or two (minor releases).
_OPERATOR_ORDER = {">": 0, ">=": 1, "=": 2, "~>3": 3, "~>2": 4, "<=": 5, "<": 6, "!=": 7}


def _identifiers(text: str) -> _LabelKey:
    """A pre-release or build label's sort key as Terraform orders the terms of a constraint.

    Fewer dot-separated identifiers come first; then identifier by identifier, numbers (compared as
    numbers) before words (compared byte by byte).
    """
    parts = text.split(".")
    return (len(parts), *((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts))


def normalize_constraints(text: str | Iterable[str] | None) -> str:
    """Terraform's normalized text of one constraint string or several combined; raises on a bad one."""
    return Constraints.parse(text).normalized()


def _parse_one(piece: str, whole: str) -> Constraint:
    found = _CONSTRAINT.match(piece)
    number = found.group(2).strip() if found else ""
    hint = 'Write constraints like "~> 1.2", ">= 1.2.0, < 2.0.0" or "= 1.2.3" (no "v" prefix).'
    if not found or number.startswith("v") or " " in number:
        raise VersionConstraintError(f"Invalid version constraint {whole!r}: cannot read {piece!r}", hint=hint)
    try:
        version = Version.parse(number)
    except ValueError:
        raise VersionConstraintError(
            f"Invalid version constraint {whole!r}: {number!r} is not a version number", hint=hint
        ) from None
    parts = len(number.split("-", 1)[0].split("+", 1)[0].split("."))
    return Constraint(found.group(1) or "=", version, parts)
