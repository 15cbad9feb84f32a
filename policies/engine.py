"""Rego evaluation with regopy (rego-cpp): compile once, evaluate each rule once per plan.

``compile_modules`` checks what the interpreter would silently accept — rules in the pre-v1 style,
calls to functions that are not built in (they evaluate to *undefined*, so a ``deny`` would simply
never fire) — then builds one bundle with an entry point per rule. ``CompiledPolicy.evaluate``
hands the plan to the interpreter once and queries each entry point; built-in functions run in
strict mode, so an error inside one is an error of the check, never a quiet pass.

Two things about rego-cpp shape this module:

* It stores strings the way they are spelled in source, escapes included, so input strings are
  handed over JSON-escaped (as the same string written in a policy would be); otherwise ``a"b``
  in a plan would never equal ``"a\\"b"`` in a policy.
* It reports compile errors on the process's standard output. Compilation and evaluation run with
  file descriptor 1 redirected, so machine output (``--format json``) stays clean; the text becomes
  the error's detail and ``print()`` output of policies goes to standard error.

regopy is imported here only, and only when a check runs: ``ctl --help`` never loads it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from policies.model import PolicyError, range_for
from policies.rego_source import ModuleInfo, RegoSyntaxError, parse_module

# Works in rego-cpp although the interpreter does not list it as a built-in.
_ALWAYS_AVAILABLE = frozenset({"print"})
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f\u2028\u2029]')
_INT64 = 2**63


@dataclass
class RegoModule:
    """One ``.rego`` file: where it is, how to show its name, its text and what it defines."""

    path: str
    display: str
    source: str
    info: ModuleInfo

    @classmethod
    def read(cls, path: str, display: str, source: str) -> RegoModule:
        try:
            info = parse_module(display, source)
        except RegoSyntaxError as exc:
            raise PolicyError(f"cannot read the policy {display}: {exc}",
                              range=range_for(display, exc.line)) from None
        return cls(path, display, source, info)


def _regopy() -> Any:
    try:
        import regopy
    except ImportError:  # pragma: no cover - regopy is a dependency
        raise PolicyError("the Rego engine (regopy) is not installed",
                          hint="Install it with: pip install regopy") from None
    return regopy


# -- checks before compiling ---------------------------------------------------------------------


def check_v1(modules: list[RegoModule]) -> None:
    """Reject pre-v1 rule heads (``deny[msg] { … }``): Rego v1 needs ``contains`` and ``if``."""
    for m in modules:
        for rule in m.info.rules:
            if rule.old_style:
                example = (f"{rule.name} contains msg if {{ … }}" if not rule.is_function
                           else f"{rule.name}(x) := y if {{ … }}")
                raise PolicyError(
                    f"{m.display}: rule '{rule.name}' is written in the old Rego syntax",
                    range=range_for(m.display, rule.line),
                    detail="ctl evaluates Rego v1, where a rule body needs 'if' and a multi-value "
                           "rule needs 'contains'.",
                    hint=f"Use Rego v1: {example} (see https://www.openpolicyagent.org/docs/latest/v0-upgrade/).",
                )


def check_calls(modules: list[RegoModule], interp: Any) -> None:
    """Every function called is a built-in the interpreter has, or a function the policies define."""
    defined = {r.name for m in modules for r in m.info.rules if r.is_function}
    defined |= {f"{m.info.package}.{r.name}" for m in modules for r in m.info.rules if r.is_function}
    problems: list[tuple[RegoModule, str, int]] = []
    for m in modules:
        aliases = set(m.info.imports)
        for name, line in m.info.calls:
            first = name.split(".", 1)[0]
            if first in ("data", "input") or first in aliases or name in defined:
                continue
            if name in _ALWAYS_AVAILABLE or interp.is_builtin(name):
                continue
            problems.append((m, name, line))
    if problems:
        m, name, line = problems[0]
        others = "".join(f"\n{pm.display}:{pl}: {pn}" for pm, pn, pl in problems[1:])
        raise PolicyError(
            f"{m.display}:{line}: '{name}' is not a built-in function this Rego engine supports",
            range=range_for(m.display, line),
            detail="The call would evaluate to undefined and the rule would never fire, so the check "
                   "stops instead of passing." + (f"\nAlso unsupported:{others}" if others else ""),
            hint="Rewrite the rule without it (ctl's Rego engine is rego-cpp; network and "
                 "runtime built-ins such as http.send are not available).",
        )


# -- standard output of the C library ------------------------------------------------------------


@contextlib.contextmanager
def _captured_stdout() -> Iterator[list[str]]:
    """Redirect file descriptor 1 (where rego-cpp writes) and hand back what was written."""
    box: list[str] = []
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no standard output at all: nothing to protect
        yield box
        return
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            yield box
        finally:
            _flush_c_stdio()
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            box.append(tmp.read().decode("utf-8", "replace"))


def _flush_c_stdio() -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).fflush(None)


def _forward_prints(text: str) -> None:
    if text.strip():
        sys.stderr.write(text if text.endswith("\n") else text + "\n")


# -- errors --------------------------------------------------------------------------------------

_ERR_AT = re.compile(r"\(error \d+:([^|\s]+)\|(\d+)\|\d+")
_ERR_MSG = re.compile(r"\(errormsg \d+:([^\n)]*)")
_PRETTY_AT = re.compile(r"^-- (\S+?):(\d+):(\d+)\s*$", re.M)


def _compile_error(exc: Exception, captured: str, modules: list[RegoModule]) -> PolicyError:
    text = str(exc)
    msg = _ERR_MSG.search(text)
    summary = msg.group(1).strip() if msg else "the policies could not be compiled"
    by_name = {m.path: m for m in modules}
    where = None
    pretty = _PRETTY_AT.search(captured)
    if pretty and pretty.group(1) in by_name:
        where = range_for(by_name[pretty.group(1)].display, int(pretty.group(2)))
    else:
        at = _ERR_AT.search(text)
        if at and at.group(1) in by_name:
            mod = by_name[at.group(1)]
            line = mod.source.encode()[: int(at.group(2))].count(b"\n") + 1
            where = range_for(mod.display, line)
    detail = captured.strip()
    detail = re.sub(r"^Errors:\s*", "", detail)
    return PolicyError(f"Rego compile error: {summary}", range=where,
                       detail="\n".join(detail.splitlines()[:12]) if detail else "")


# -- input ---------------------------------------------------------------------------------------


def _rego_string(s: str) -> bytes:
    if _NEEDS_ESCAPE.search(s) is None:
        return s.encode("utf-8")
    return json.dumps(s, ensure_ascii=False)[1:-1].encode("utf-8")


def build_input(value: Any) -> Any:
    """A rego-cpp input document built through its C interface (linear in the size of ``value``).

    Faster than regopy's ``Input`` (keys are encoded once, no per-call wrapper) and, unlike parsing
    the JSON text as a term, linear in the length of long arrays.
    """
    from regopy.rego_shared import rego as lib
    from regopy.rego_shared import rego_free_input, rego_new_input

    handle = rego_new_input()
    s_, i_, f_ = lib.regoInputString, lib.regoInputInt, lib.regoInputFloat
    b_, n_, item_ = lib.regoInputBoolean, lib.regoInputNull, lib.regoInputObjectItem
    obj_, arr_ = lib.regoInputObject, lib.regoInputArray
    cache: dict[str, bytes] = {}  # keys and short values repeat across resources
    err = 0

    def enc(x: str) -> bytes:
        b = cache.get(x)
        if b is None:
            b = _rego_string(x)
            if len(x) <= 64:
                cache[x] = b
        return b

    def add(v: Any) -> None:
        nonlocal err
        t = type(v)
        if t is dict:
            for k, x in v.items():
                err |= s_(handle, enc(k) if type(k) is str else enc(str(k)))
                tx = type(x)
                if tx is str:
                    err |= s_(handle, enc(x))
                elif tx is bool:
                    err |= b_(handle, x)
                elif x is None:
                    err |= n_(handle)
                else:
                    add(x)
                err |= item_(handle)
            err |= obj_(handle, len(v))
        elif t is str:
            err |= s_(handle, enc(v))
        elif t is list or t is tuple:
            for x in v:
                add(x)
            err |= arr_(handle, len(v))
        elif v is None:
            err |= n_(handle)
        elif t is bool:
            err |= b_(handle, v)
        elif t is int:
            err |= i_(handle, v) if -_INT64 <= v < _INT64 else f_(handle, float(v))
        elif t is float:
            err |= f_(handle, v)
        elif isinstance(v, Decimal):
            add(int(v) if v == v.to_integral_value() else float(v))
        elif isinstance(v, dict | list | tuple | str | int | float):
            add(json.loads(json.dumps(v)))
        else:
            err |= s_(handle, enc(str(v)))

    try:
        add(value)
    except RecursionError:
        rego_free_input(handle)
        raise PolicyError("the plan is nested too deeply to check") from None
    if err:
        rego_free_input(handle)
        raise PolicyError("the plan could not be handed to the Rego engine")
    return handle


# -- compile and evaluate ------------------------------------------------------------------------


def entrypoint(package: str, rule: str) -> str:
    return "/".join([*package.split("."), rule])


class CompiledPolicy:
    """Modules and data compiled into one bundle, with an entry point per rule to evaluate."""

    def __init__(self, modules: list[RegoModule], data: dict[str, Any] | None,
                 rules: list[tuple[str, str]]) -> None:
        self.modules = modules
        self.rules = list(dict.fromkeys(rules))
        check_v1(modules)
        regopy = _regopy()
        self._interp = regopy.Interpreter()
        self._interp.strict_built_in_errors = True
        check_calls(modules, self._interp)
        self._bundle = None
        with _captured_stdout() as out:
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
            raise _compile_error(failure, out[0] if out else "", modules)

    def evaluate(self, document: Any, only: list[tuple[str, str]] | None = None) -> dict[tuple[str, str], Any]:
        """Each rule's value for the input ``document``; a rule that is undefined maps to ``None``."""
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
        with _captured_stdout() as out:
            try:
                rego_set_input(self._interp._impl, handle)
                for package, rule in (self.rules if only is None else only):
                    raw = rego_bundle_query_entrypoint(self._interp._impl, self._bundle._impl,
                                                       entrypoint(package, rule))
                    try:
                        ok, text = rego_output_ok(raw), rego_output_string(raw)
                    finally:
                        rego_free_output(raw)
                    results[(package, rule)] = _value(ok, text, package, rule, self._where(package, rule))
            except PolicyError as exc:
                failure = exc
            except Exception as exc:  # regopy.RegoError and friends
                failure = PolicyError(f"evaluating the policies failed: {exc}")
            finally:
                from regopy.rego_shared import rego_free_input

                rego_free_input(handle)
        _forward_prints(out[0] if out else "")
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


def _value(ok: bool, text: str, package: str, rule: str, where: tuple[str, int]) -> Any:
    name = f"data.{package}.{rule}"
    loc = range_for(*where) if where[0] else None
    if not ok:
        raise PolicyError(
            f"evaluating {name} failed: a built-in function returned an error",
            range=loc,
            detail="Built-in errors are not ignored (strict mode): a failing call would otherwise "
                   "make the rule undefined and the check pass.",
            hint="Check the arguments the rule passes to built-in functions (types, formats).",
        )
    if text.startswith("(error") or text.startswith("(rego-error"):
        msg = _ERR_MSG.search(text)
        raise PolicyError(f"evaluating {name} failed: {msg.group(1).strip() if msg else text[:200]}",
                          range=loc)
    if text == "undefined":
        return None
    try:
        doc = _lenient_json(text)
    except json.JSONDecodeError as exc:
        raise PolicyError(f"evaluating {name} gave a result ctl cannot read: {exc}: {text[:300]}", range=loc) from None
    exprs = doc.get("expressions") if isinstance(doc, dict) else None
    if not exprs:
        return None
    return exprs[0]


def _lenient_json(text: str) -> Any:
    """Parse the interpreter's JSON output, mending unescaped quotes inside strings.

    rego-cpp's ``sprintf("… %s", [concat(…)])`` quotes a computed string without escaping the
    quotes; a quote inside a string that is not followed by ``,``, ``:``, ``]`` or ``}`` is text.
    """
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        pass
    out: list[str] = []
    i, n, in_str = 0, len(text), False
    while i < n:
        c = text[i]
        if not in_str:
            in_str = c == '"'
            out.append(c)
        elif c == "\\":
            out.append(text[i:i + 2])
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] in " \t\n\r":
                j += 1
            if j >= n or text[j] in ",:]}":
                in_str = False
                out.append(c)
            else:
                out.append('\\"')
        else:
            out.append(c)
        i += 1
    return json.loads("".join(out), strict=False)


def compile_modules(modules: list[RegoModule], data: dict[str, Any] | None,
                    rules: list[tuple[str, str]]) -> CompiledPolicy:
    return CompiledPolicy(modules, data, rules)


__all__ = ["CompiledPolicy", "RegoModule", "build_input", "check_calls", "check_v1", "compile_modules",
           "entrypoint"]
