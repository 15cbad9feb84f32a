"""A provider's diagnostics as ctl's errors and warnings.

Errors become one ``AdapterError`` naming the resource address and, where the provider gave one,
the attribute path (``rule[0].port``), with every other error of the same call in its detail, so
the user sees all of them at once. Warnings are not failures: they are logged and kept on the
session for the CLI to show.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from adapters.base import AdapterError
from adapters.plugin.diagnostics import PluginDiagnostic, path_text

_log = logging.getLogger("adapters.plugin")  # warnings reach stderr even with logging off


def describe(diag: PluginDiagnostic) -> str:
    where = f"{path_text(diag.path)}: " if diag.path else ""
    tail = f": {diag.detail}" if diag.detail else ""
    return f"{where}{diag.summary}{tail}"


def raise_for(diagnostics: Iterable[PluginDiagnostic], what: str, *, address: str | None = None,
              warn: Callable[[str, str], None] | None = None) -> None:
    """Raise the errors among ``diagnostics``; report the warnings through ``warn`` (else log them)."""
    errors: list[PluginDiagnostic] = []
    for diag in diagnostics:
        if diag.severity == "warning":
            if warn is not None:
                _log.debug("%s: warning: %s", what, describe(diag))
                warn(describe(diag), "The provider reported this warning.")
            else:
                _log.warning("%s: warning: %s", what, describe(diag))
        else:
            errors.append(diag)
    if not errors:
        return
    first, rest = errors[0], errors[1:]
    detail = "\n".join(describe(d) for d in rest)
    raise AdapterError(f"{what}: {describe(first)}", detail=detail, address=address,
                       hint="The provider reported this; check the arguments it names.")
