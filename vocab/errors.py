"""One error model for everything a user can cause.

Every failure a user can trigger (bad configuration, a held lock, a stale plan, a cloud error) is a
``CtlError``. It carries what the CLI needs to print one short, useful message — a summary, optional
detail and hint, where it happened (a source range or a resource address) and the process exit
code — so the CLI has exactly one error boundary and never shows a traceback by accident.
Several problems found in one run travel together as a ``DiagnosticsError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from vocab.positions import Pos as Pos  # re-exported: every error speaks in these
from vocab.positions import SourceRange as SourceRange
from vocab.positions import SourceText as SourceText

if TYPE_CHECKING:  # only for the annotation: at run time this module imports only vocab.positions
    from vocab.locks import LockInfo
class ExitCode(IntEnum):
    """The process exit codes: public API that CI scripts depend on."""

    OK = 0
    ERROR = 1
    CHANGES_PRESENT = 2
    POLICY_DENIED = 3
    LOCK_HELD = 4
    USAGE = 64
    INTERRUPTED = 130


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem (or warning) found in a run, in the shape ``validate --json`` reports."""

    severity: str  # "error" | "warning"
    summary: str
    detail: str = ""
    range: SourceRange | None = None
    address: str | None = None
    hint: str = ""
    snippet: str | None = None
    # What the source snippet shows around ``range`` (a whole function call around its bad argument).
    context: SourceRange | None = None

    def sort_key(self) -> tuple[int, str, int, int, str]:
        if self.range is not None:
            return (0, *self.range.sort_key(), self.summary)
        return (1, self.address or "", 0, 0, self.summary)

    def location(self) -> str:
        """``file:line:col`` or the resource address, whichever is known."""
        if self.range is not None:
            return str(self.range)
        return self.address or ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"severity": self.severity, "summary": self.summary, "detail": self.detail}
        if self.address:
            out["address"] = self.address
        if self.range is not None:
            out["range"] = self.range.to_json()
        return out


class DiagnosticFields(TypedDict, total=False):
    """What a diagnostic may say beside its severity and summary: ``Diagnostics.error(..., **fields)``."""

    detail: str
    range: SourceRange | None
    address: str | None
    hint: str
    snippet: str | None
    context: SourceRange | None


class ErrorFields(DiagnosticFields, total=False):
    """The keyword arguments of ``CtlError``, so subclasses can pass them on checked."""

    exit_code: ExitCode | None


class CtlError(Exception):
    """Base of every error a user can cause; carries its own message, location and exit code."""

    exit_code: ExitCode = ExitCode.ERROR

    def __init__(
        self,
        summary: str,
        *,
        detail: str = "",
        hint: str = "",
        range: SourceRange | None = None,
        address: str | None = None,
        snippet: str | None = None,
        context: SourceRange | None = None,
        exit_code: ExitCode | None = None,
    ) -> None:
        super().__init__(summary)
        self.summary = summary
        self.detail = detail
        self.hint = hint
        self.range = range
        self.address = address
        self.snippet = snippet
        self.context = context
        if exit_code is not None:
            self.exit_code = exit_code

    def __copy__(self) -> CtlError:
        """The same error, raised again later (a provider that failed to configure fails every later
        resource with it). A subclass's ``__init__`` may take other arguments than the summary, so
        the copy is made without calling it."""
        twin = type(self).__new__(type(self), *self.args)
        twin.__dict__.update(self.__dict__)
        return twin

    def __str__(self) -> str:
        where = str(self.range) if self.range else (self.address or "")
        return f"{where}: {self.summary}" if where else self.summary

    def diagnostics(self) -> list[Diagnostic]:
        return [
            Diagnostic(
                severity="error",
                summary=self.summary,
                detail=self.detail,
                range=self.range,
                address=self.address,
                hint=self.hint,
                snippet=self.snippet,
                context=self.context,
            )
        ]


class DiagnosticsError(CtlError):
    """Several problems found in one run, reported together, sorted by position."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        diags = sorted(diagnostics, key=lambda d: d.sort_key())
        first = next((d for d in diags if d.severity == "error"), diags[0] if diags else None)
        super().__init__(
            first.summary if first else "invalid configuration",
            detail=first.detail if first else "",
            hint=first.hint if first else "",
            range=first.range if first else None,
            address=first.address if first else None,
        )
        self._diagnostics = diags

    def diagnostics(self) -> list[Diagnostic]:
        return list(self._diagnostics)


class UsageError(CtlError):
    """The command line itself is wrong (exit 64, never click's 2, which means 'changes present')."""

    exit_code = ExitCode.USAGE


class LockHeld(CtlError):
    """Somebody else holds the state lock; ``holder`` is that lock as stored, when it could be read.

    The holder travels with the error so whoever reports it can say who holds the lock, since when
    and how to release it, in the words of the command that was refused.
    """

    exit_code = ExitCode.LOCK_HELD

    def __init__(self, summary: str, *, holder: LockInfo | None = None, **kwargs: Unpack[ErrorFields]) -> None:
        super().__init__(summary, **kwargs)
        self.holder = holder


class PolicyDenied(CtlError):
    """A mandatory policy failed."""

    exit_code = ExitCode.POLICY_DENIED


class Interrupted(CtlError):
    """The run was stopped by SIGINT/SIGTERM after persisting what it had."""

    exit_code = ExitCode.INTERRUPTED


@dataclass
class Diagnostics:
    """Collects problems so a run can report all of them at once instead of stopping at the first."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, summary: str, **kw: Unpack[DiagnosticFields]) -> None:
        self.items.append(Diagnostic("error", summary, **kw))

    def warning(self, summary: str, **kw: Unpack[DiagnosticFields]) -> None:
        self.items.append(Diagnostic("warning", summary, **kw))

    def add(self, err: CtlError) -> None:
        self.items.extend(err.diagnostics())

    def extend(self, diags: Iterable[Diagnostic]) -> None:
        self.items.extend(diags)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)

    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "warning"]


    def sorted(self) -> list[Diagnostic]:
        return sorted(self.items, key=lambda d: d.sort_key())
