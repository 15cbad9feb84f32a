"""A provider's diagnostics as ctl's errors and warnings, shown as Terraform shows them.

Each error the provider reports is one diagnostic of its own, as in Terraform: the provider's
summary, placed at the argument its attribute path names (or at the resource block when the path
reaches nothing written), with a first detail line naming the resource once, ``with ADDRESS, on
FILE line N, in resource "TYPE" "NAME":``. Warnings are not failures: they go to the run's warnings
through ``warn`` (else the log).

A provider's text is not trusted to be fit for a terminal: control characters (an escape sequence
could set the window title or clear the screen) are shown as escapes, never written raw; and every
text of a sensitive argument the provider echoes is cut out, in warnings as in errors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable
from typing import Any

from adapters.base import AdapterError, PartialResult
from adapters.plugin.diagnostics import AttributeStep, KeyStep, PluginDiagnostic, path_text
from adapters.plugin.locate import argument_range
from vocab.errors import Diagnostic, SourceRange
from vocab.printable import printable
from vocab.values import Marked, Unknown

_log = logging.getLogger("adapters.plugin")  # warnings reach stderr even with logging off

MASK = "(sensitive value)"
HINT = "The provider reported this; check the arguments it names."

def safe_text(text: str, secrets: Collection[str] = ()) -> str:
    """``text`` fit to print: each secret cut out (longest first), each control character escaped."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret and secret in text:
            text = text.replace(secret, MASK)
    return printable(text)


def describe(diag: PluginDiagnostic, secrets: Collection[str] = ()) -> str:
    where = f"{path_text(diag.path)}: " if diag.path else ""
    tail = f": {diag.detail}" if diag.detail else ""
    return safe_text(f"{where}{diag.summary}{tail}", secrets)


class ProviderErrors(AdapterError):
    """The errors of one provider call, each its own diagnostic (built only when asked for)."""

    def __init__(self, what: str, errors: list[PluginDiagnostic], *, address: str | None,
                 resource: Any, secrets: Collection[str]) -> None:
        first = errors[0]
        self._place = place = _Place(resource, address) if address is not None and resource is not None else None
        summary = safe_text(first.summary, secrets)
        if place is None:
            # The error's address is printed before it (``ADDRESS: summary``): not named twice.
            summary = describe(first, secrets) if what == address else f"{what}: {describe(first, secrets)}"
        AdapterError.__init__(self, summary, address=address, hint=HINT)
        self._what = what
        self._errors = errors
        self._secrets = secrets
        if place is not None:
            self.range, self.detail = place.locate(first, secrets)
        elif len(errors) > 1:
            self.detail = "\n".join(describe(d, secrets) for d in errors[1:])

    def diagnostics(self) -> list[Diagnostic]:
        if self._place is None:
            return super().diagnostics()
        out = []
        for diag in self._errors:
            rng, detail = self._place.locate(diag, self._secrets)
            out.append(Diagnostic("error", safe_text(diag.summary, self._secrets), detail=detail, range=rng,
                                  address=self.address, hint=HINT))
        return out


class KeptProviderErrors(ProviderErrors, PartialResult):
    """The same, from a create or update that made (part of) the object: ``result`` is what exists."""

    def __init__(self, what: str, errors: list[PluginDiagnostic], *, address: str | None, resource: Any,
                 secrets: Collection[str], result: dict[str, Any]) -> None:
        ProviderErrors.__init__(self, what, errors, address=address, resource=resource, secrets=secrets)
        self.result = result


class _Place:
    """Where a resource's diagnostics point: the argument a path names, else the block."""

    def __init__(self, resource: Any, address: str) -> None:
        self.resource = resource
        self.address = address
        kind = "data" if getattr(resource, "mode", "managed") == "data" else "resource"
        self.block_text = f'in {kind} "{resource.type}" "{resource.name}"'

    def locate(self, diag: PluginDiagnostic, secrets: Collection[str]) -> tuple[SourceRange | None, str]:
        rng, exact = self._range(diag.path or ())
        detail = safe_text(diag.detail, secrets)
        if diag.path and not exact:
            detail = f"{path_text(diag.path)}: {detail}" if detail else path_text(diag.path)
        where = f", on {rng.filename} line {rng.start.line}, {self.block_text}:" if rng is not None else ""
        return rng, f"with {self.address}{where}" + (f"\n{detail}" if detail else "")

    def _range(self, path: tuple[AttributeStep | KeyStep, ...]) -> tuple[SourceRange | None, bool]:
        """The range of what ``path`` names, and whether it is exactly that (not an enclosing block)."""
        resource = self.resource
        header = _header(resource)
        if not path or not isinstance(path[0], AttributeStep):
            return header, False
        name = path[0].name
        try:
            body = resource.body
            attributes, blocks = body.attributes, body.blocks
        except Exception:  # the syntax was let go of after its last use: found again in the text
            found = argument_range(header, name) if header is not None else None
            if found is None:
                return header, False
            return found[0], found[1] and len(path) == 1
        attr = attributes.get(name)
        if attr is not None:
            return attr.expr.rng, len(path) == 1
        block = next((b for b in blocks if b.type == name), None)
        if block is not None:
            return block.rng, False
        return _header(resource), False


def _header(resource: Any) -> SourceRange | None:
    try:
        rng: SourceRange = resource.rng
    except Exception:
        return None
    return rng


def sensitive_texts(value: Any, sensitive: bool = False) -> frozenset[str]:
    """The text of every marked scalar inside ``value``: what a provider must not be seen to echo."""
    out: set[str] = set()
    _collect(value, sensitive, out)
    return frozenset(out)


def _collect(value: Any, sensitive: bool, out: set[str]) -> None:
    if isinstance(value, Marked):
        _collect(value.value, True, out)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, sensitive, out)
    elif isinstance(value, list):
        for item in value:
            _collect(item, sensitive, out)
    elif sensitive and value is not None and not isinstance(value, (bool, Unknown)) and str(value):
        out.add(str(value))


def raise_for(diagnostics: Iterable[PluginDiagnostic], what: str, *, address: str | None = None,
              warn: Callable[..., None] | None = None, resource: Any = None,
              secrets: Collection[str] = ()) -> None:
    """Raise the errors among ``diagnostics``; report the warnings through ``warn`` (else log them).

    ``resource`` (the configuration's resource block) places each error at its argument;
    ``secrets`` are the texts of sensitive arguments, cut out of everything the provider says.
    """
    errors: list[PluginDiagnostic] = []
    place = _Place(resource, address) if address is not None and resource is not None else None
    for diag in diagnostics:
        if diag.severity == "warning":
            text = describe(diag, secrets)
            if warn is None:
                _log.warning("%s: warning: %s", what, text)
                continue
            _log.debug("%s: warning: %s", what, text)
            if place is not None:
                rng, detail = place.locate(diag, secrets)
                warn(safe_text(diag.summary, secrets), detail, rng)
            else:
                warn(text, "The provider reported this warning.")
        else:
            errors.append(diag)
    if errors:
        raise ProviderErrors(what, errors, address=address, resource=resource, secrets=secrets)
