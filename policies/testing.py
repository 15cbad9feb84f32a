"""``ctl policy test``: run the ``test_*`` rules of Rego policies, like ``opa test``.

rego-cpp 1.5 crashes when ``with input as …`` replaces the whole input of a rule that calls a
built-in function, and test rules do exactly that. ctl therefore runs tests on a copy of the
modules in which ``input`` reads ``data.__ctl_input`` instead (``with input as X`` becomes
``with data.__ctl_input as X``); replacing part of ``data`` works. Lines stay where they are, so
errors point at the original source. The tests run in the policy worker process
(``policies.isolation``), so a test that crashes the engine is reported, not fatal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from policies import isolation
from policies.loader import PolicySource, read_dir
from policies.model import PolicyError
from policies.rego_module import RegoModule
from policies.rego_source import mask

INPUT_STAND_IN = "data.__ctl_input"
_INPUT = re.compile(r"(?<![\w.])input(?![\w])")


@dataclass
class TestResult:
    name: str  # data.<package>.<rule>
    file: str
    line: int
    passed: bool
    error: str = ""
    seconds: float = 0.0


@dataclass
class TestRun:
    results: list[TestResult] = field(default_factory=list)

    @property
    def failed(self) -> list[TestResult]:
        return [r for r in self.results if not r.passed]


def rewrite_input(source: str) -> str:
    """``source`` with each reference to ``input`` (outside strings and comments) renamed."""
    masked = mask(source)
    out: list[str] = []
    last = 0
    for m in _INPUT.finditer(masked):
        out.append(source[last:m.start()])
        out.append(INPUT_STAND_IN)
        last = m.end()
    out.append(source[last:])
    return "".join(out)


def _test_modules(src: PolicySource) -> list[RegoModule]:
    return [RegoModule(m.path, m.display, rewrite_input(m.source), m.info) for m in [*src.rego, *src.tests]]


def run_tests(directory: Path, *, name: str, builtin: bool = False, run_filter: str | None = None) -> TestRun:
    """Every ``test_*`` rule under ``directory``, each evaluated on its own."""
    src = read_dir(directory, name=name, builtin=builtin, with_tests=True)
    modules = _test_modules(src)
    tests = [(m, r) for m in modules for r in m.info.rule_names() if r.startswith("test_")]
    if run_filter:
        tests = [(m, r) for m, r in tests if re.search(run_filter, f"{m.info.package}.{r}")]
    if not tests:
        raise PolicyError(f"no tests found in {name}",
                          hint="Tests are rules named test_* (usually in *_test.rego files).")
    run = TestRun()
    worker = isolation.start()  # a test that crashes the engine is an error, not the end of ctl
    try:
        answers = worker.evaluate_each(modules, [(m.info.package, r) for m, r in tests], {})
    finally:
        worker.close()
    for (m, rule), (_pkg, _rule, value, error, seconds) in zip(tests, answers, strict=True):
        run.results.append(TestResult(f"data.{m.info.package}.{rule}", m.display, m.info.rule_line(rule),
                                      error is None and value is True, error or "", seconds))
    return run


__all__ = ["INPUT_STAND_IN", "TestResult", "TestRun", "rewrite_input", "run_tests"]
