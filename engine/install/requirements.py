"""What providers a configuration needs, as Terraform reads it.

A ``required_providers`` entry names a provider's source and version constraints; a provider used
without one (``provider "x" {}`` or a resource type ``x_…``) is ``hashicorp/x``, Terraform's
default. Constraints for the same source from several modules are combined, as Terraform combines
and normalizes them. ``terraform`` (the
built-in provider) never needs a plugin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.config.model import Module
from engine.lang.syntax import Body
from vocab.errors import CtlError, SourceRange
from vocab.providers import ProviderSource
from vocab.versions import Constraints, normalize_constraints

BUILTIN = "terraform"


@dataclass
class Requirement:
    """One provider the configuration uses, under the local name its blocks and types use."""

    local_name: str
    source: ProviderSource
    constraints: list[str] = field(default_factory=list)
    explicit: bool = False  # named in required_providers (not implied by a type prefix)
    types: set[tuple[str, str]] = field(default_factory=set)  # (mode, type) the configuration uses
    arguments: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # the names each type is given

    @property
    def constraint_text(self) -> str:
        """Every module's constraints combined, in Terraform's normalized text (the lock file's form).

        A constraint that cannot be read is passed on as written, so that installing reports it.
        """
        try:
            return normalize_constraints(c for c in self.constraints if c)
        except CtlError:
            return ", ".join(dict.fromkeys(c for c in self.constraints if c))


def requirements(root: Module) -> list[Requirement]:
    """Every provider the configuration and its modules use, sorted by local name."""
    found: dict[str, Requirement] = {}
    for _, module in root.walk():
        for name, rp in module.required_providers.items():
            req = found.get(name)
            source = _source(rp.source, rp.rng)
            if req is None or not req.explicit:
                found[name] = req = Requirement(name, source, list(req.constraints) if req else [], True,
                                                set(req.types) if req else set())
            elif req.source != source:
                raise CtlError(f'Provider "{name}" is required from two sources: {req.source} and {source}',
                               range=rp.rng, hint="Use one source per local name across the modules.")
            _check_constraint(rp.version, rp.rng)
            req.constraints.append(rp.version)
    for _, module in root.walk():
        for res in module.resources.values():
            name = res.provider[0] if res.provider else res.type.partition("_")[0]
            if name == BUILTIN:
                continue
            req = found.setdefault(name, Requirement(name, ProviderSource.parse(f"hashicorp/{name}")))
            req.types.add((res.mode, res.type))
            req.arguments.setdefault((res.mode, res.type), set()).update(argument_names(res.body))
        for key in module.providers:
            name = key.partition(".")[0]
            if name != BUILTIN:
                found.setdefault(name, Requirement(name, ProviderSource.parse(f"hashicorp/{name}")))
    return [found[name] for name in sorted(found)]


def argument_names(body: Body) -> set[str]:
    """The arguments and nested block types a resource body gives (a ``dynamic`` block's by its label)."""
    names = set(body.attributes)
    names.update(b.labels[0] if b.type == "dynamic" and b.labels else b.type for b in body.blocks)
    return names


def _check_constraint(text: str, rng: SourceRange) -> None:
    """A constraint that cannot be read is refused where it is written, as Terraform refuses it."""
    if not text:
        return
    try:
        Constraints.parse(text)
    except CtlError as err:
        err.range = err.range or rng
        raise


def _source(text: str, rng: SourceRange) -> ProviderSource:
    try:
        return ProviderSource.parse(text)
    except CtlError as err:
        err.range = err.range or rng
        raise
