"""Rego evaluation with regopy (rego-cpp): compile once, evaluate each rule once per plan.

``CompiledPolicy`` checks the modules (``policies.rego_module``), then builds one bundle with an
entry point per rule; ``evaluate`` hands the plan to the interpreter once and queries each entry
point. Built-in functions run in strict mode, so an error inside one is an error of the check,
never a quiet pass.

This runs in whichever process calls it: the built-in pack in ctl's own process, user policies in
a worker process (``policies.isolation``) so that a crash inside the C library cannot take ctl down.

regopy is imported here only, and only when a check runs: ``ctl --help`` never loads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from policies.model import PolicyError
from policies.rego_hoist import hoist
from policies.rego_io import build_input, captured_stdout, forward_prints
from policies.rego_iteration import check_iteration_in_calls
from policies.rego_module import RegoModule, check_calls, check_v1
from policies.rego_results import compile_error, rule_value


def _regopy() -> Any:
    try:
        import regopy
    except ImportError:  # pragma: no cover - regopy is a dependency
        raise PolicyError("the Rego engine (regopy) is not installed",
                          hint="Install it with: pip install regopy") from None
    return regopy



def entrypoint(package: str, rule: str) -> str:
    return "/".join([*package.split("."), rule])


class CompiledPolicy:
    """Modules and data compiled into one bundle, with an entry point per rule to evaluate."""

    def __init__(self, modules: list[RegoModule], data: dict[str, Any] | None,
                 rules: list[tuple[str, str]]) -> None:
        check_v1(modules)
        modules = [hoist(m) for m in modules]  # iteration in call arguments, as rego-cpp can run it
        check_iteration_in_calls(modules)  # what could not be rewritten is refused with a hint
        self.modules = modules
        self.rules = list(dict.fromkeys(rules))
        # Told each rule before it is evaluated: the worker reports it, so a rule that runs out of
        # time or memory is named (``policies.isolation``).
        self.on_rule: Callable[[str, str, str, int], None] | None = None
        regopy = _regopy()
        self._interp = regopy.Interpreter()
        self._interp.strict_built_in_errors = True
        check_calls(modules, self._interp)
        self._bundle = None
        with captured_stdout() as out:
            try:
                for m in modules:
                    self._interp.add_module(m.path, m.source)
                if data:
                    self._interp.add_data_json(json.dumps(data, default=str))
                if self.rules:
                    self._bundle = self._interp.build(None, [entrypoint(p, r) for p, r in self.rules])
            except regopy.RegoError as exc:
                failure: Exception | None = exc
            else:
                failure = None
        if failure is not None:
            raise compile_error(failure, out[0] if out else "", modules)

    def evaluate(self, document: Any, only: list[tuple[str, str]] | None = None,
                 errors: dict[tuple[str, str], PolicyError] | None = None) -> dict[tuple[str, str], Any]:
        """Each rule's value for the input ``document``; a rule that is undefined maps to ``None``.

        A rule whose evaluation fails raises its ``PolicyError``, the interpreter's reason in its
        summary; given ``errors``, the failure is recorded there instead and the other rules are
        still evaluated (the caller decides which rules may fail without stopping the check).
        """
        from regopy.rego_shared import (
            rego_bundle_query_entrypoint,
            rego_free_output,
            rego_output_ok,
            rego_output_string,
            rego_set_input,
        )

        results: dict[tuple[str, str], Any] = {}
        if self._bundle is None:
            return results
        handle = build_input(document)
        failure: PolicyError | None = None
        with captured_stdout() as out:
            try:
                rego_set_input(self._interp._impl, handle)
                for package, rule in (self.rules if only is None else only):
                    if self.on_rule is not None:
                        self.on_rule(package, rule, *self._where(package, rule))
                    with captured_stdout() as printed:  # the rule's print() output, or its error
                        raw = rego_bundle_query_entrypoint(self._interp._impl, self._bundle._impl,
                                                           entrypoint(package, rule))
                        try:
                            ok, text = rego_output_ok(raw), rego_output_string(raw)
                        finally:
                            rego_free_output(raw)
                    prints, _, error_text = (printed[0] if printed else "").partition("Errors:\n")
                    forward_prints(prints)
                    try:
                        results[(package, rule)] = rule_value(ok, text, package, rule, self._where(package, rule))
                    except PolicyError as exc:
                        if errors is None:
                            raise with_reason(exc, error_text) from None
                        errors[(package, rule)] = with_reason(exc, error_text)
            except PolicyError as exc:
                failure = exc
            except Exception as exc:  # regopy.RegoError and friends
                failure = PolicyError(f"evaluating the policies failed: {exc}")
            finally:
                from regopy.rego_shared import rego_free_input

                rego_free_input(handle)
        forward_prints(out[0] if out else "")
        if failure is not None:
            raise failure
        return results

    def query(self, document: Any, package: str, rule: str) -> Any:
        return self.evaluate(document, [(package, rule)]).get((package, rule))

    def _where(self, package: str, rule: str) -> tuple[str, int]:
        for m in self.modules:
            if m.info.package == package and rule in m.info.rule_names():
                return m.display, m.info.rule_line(rule)
        return "", 0



def with_reason(exc: PolicyError, output: str) -> PolicyError:
    """``exc`` with the interpreter's own reason (``Invalid JSON``) added to its summary.

    rego-cpp writes the reason of a failing built-in to standard output, apart from the error it
    returns; a warning or error that names the rule is clearer with the reason in the same line.
    """
    reason = ""
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("--") or line.startswith("Pass groups"):
            break
        if line:
            reason = line
            break
    if not reason or reason in exc.summary:
        return exc
    return PolicyError(f"{exc.summary}: {reason}", detail=exc.detail, hint=exc.hint, range=exc.range)


def compile_modules(modules: list[RegoModule], data: dict[str, Any] | None,
                    rules: list[tuple[str, str]]) -> CompiledPolicy:
    return CompiledPolicy(modules, data, rules)


__all__ = ["CompiledPolicy", "RegoModule", "build_input", "check_calls", "check_v1", "compile_modules",
           "entrypoint"]
