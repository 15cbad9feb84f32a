"""An error kept and raised again later (a provider configuration that failed fails every later
resource with the same error) is copied whole, whatever its subclass's constructor takes."""

from __future__ import annotations

import copy

from vocab.errors import CtlError, Diagnostic, DiagnosticsError, ExitCode


class _Several(CtlError):
    def __init__(self, what: str, problems: list[str]) -> None:
        super().__init__(f"{what}: {problems[0]}", detail="\n".join(problems[1:]), address="x.y")
        self.problems = problems


def test_a_subclass_with_its_own_constructor_is_copied_whole() -> None:
    err = _Several("provider", ["first", "second"])
    err.exit_code = ExitCode.POLICY_DENIED
    twin = copy.copy(err)
    assert type(twin) is _Several and twin is not err
    assert (twin.summary, twin.detail, twin.address, twin.problems, twin.exit_code, str(twin)) == \
        (err.summary, err.detail, err.address, err.problems, err.exit_code, str(err))
    assert twin.diagnostics() == err.diagnostics()


def test_several_diagnostics_are_copied_whole() -> None:
    err = DiagnosticsError([Diagnostic("error", "b"), Diagnostic("warning", "a")])
    assert copy.copy(err).diagnostics() == err.diagnostics()
