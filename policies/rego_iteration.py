"""Iteration inside a function call's arguments: refused before rego-cpp sees it.

``startswith(input.resource_changes[_].type, "aws_")`` is ordinary Rego (OPA iterates and the rule
fires), but rego-cpp 1.5 crashes on it with a segmentation fault, and with a ``some i`` variable
that is first bound inside the call (``some i; startswith(input.resource_changes[i].type, …)``) it
quietly finds nothing, so a ``deny`` would never fire. Binding the value in its own expression
first (``t := input.resource_changes[_].type``) works in both engines, so ctl points at the call
and says how to write it, rather than crash or pass.

Comprehensions in an argument (``concat(",", [t | t := x[_]])``) iterate on their own and are fine.
"""

from __future__ import annotations

import re

from policies.model import PolicyError, range_for
from policies.rego_module import RegoModule
from policies.rego_source import mask

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_CALL = re.compile(rf"(?<![\w.\]\)])({_IDENT}(?:\.{_IDENT})*)[ \t]*\(")
_NOT_CALLS = frozenset({"if", "not", "some", "every", "in", "with", "as", "contains", "else"})
# A ref step ``x[_]`` / ``x[i]`` (after a name, ``]`` or ``)``), not an array literal ``[x]``.
_ITERATION = re.compile(rf"(?<=[\w\])])\[\s*({_IDENT})\s*\]")
_SOME = re.compile(r"(?<![\w.])some[ \t]+([^\n;]*)")


def check_iteration_in_calls(modules: list[RegoModule]) -> None:
    """Raise for the first call whose arguments iterate with ``_`` or a not yet bound ``some`` variable."""
    for m in modules:
        found = _first_iterating_call(m)
        if found is None:
            continue
        name, var, line = found
        example = ("t := input.resource_changes[_].type\n    startswith(t, \"aws_\")" if var == "_" else
                   f"some {var}\n    t := input.resource_changes[{var}].type\n    startswith(t, \"aws_\")")
        raise PolicyError(
            f"{name}(…) iterates inside its arguments ([{var}]), which ctl's Rego "
            "engine cannot evaluate",
            range=range_for(m.display, line),
            detail="rego-cpp crashes on [_] inside a call's arguments and finds nothing for a 'some' "
                   "variable first bound there, so the rule would never fire; the check stops instead.",
            hint=f"Bind the value in its own expression first, then call the function:\n    {example}",
        )


def _first_iterating_call(m: RegoModule) -> tuple[str, str, int] | None:
    masked = mask(m.source)
    for name, var, at in iterating_calls(masked, m):
        return name, var, masked.count("\n", 0, at) + 1
    return None


def iterating_calls(masked: str, m: RegoModule) -> list[tuple[str, str, int]]:
    """Each call argument that iterates: (function name, variable, offset of the ``[`` step)."""
    function_heads = {(r.name, r.line) for r in m.info.rules if r.is_function}
    found = []
    for call in _CALL.finditer(masked):
        name = call.group(1)
        if name in _NOT_CALLS:
            continue
        line = masked.count("\n", 0, call.start()) + 1
        if (name, line) in function_heads and masked[masked.rfind("\n", 0, call.start()) + 1:call.start()].strip() == "":
            continue  # a function definition, not a call
        close = _matching(masked, call.end() - 1)
        args = _without_comprehensions(masked[call.end():close])
        for it in _ITERATION.finditer(args):
            var = it.group(1)
            if var == "_" or _first_bound_here(masked, call.start(), var):
                found.append((name, var, call.end() + it.start()))
    return found


def _first_bound_here(masked: str, at: int, var: str) -> bool:
    """``var`` was declared by ``some var`` (no ``in``) and is not used between there and ``at``."""
    declared = None
    for s in _SOME.finditer(masked, 0, at):
        names = s.group(1)
        if re.search(r"\bin\b", names) is None and var in re.split(r"[\s,]+", names.strip()):
            declared = s
    if declared is None:
        return False
    return re.search(rf"(?<![\w.]){re.escape(var)}(?!\w)", masked[declared.end():at]) is None


def _matching(text: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _without_comprehensions(text: str) -> str:
    """``text`` with every bracketed group that holds a ``|`` at its own level blanked out."""
    chars = list(text)
    stack: list[tuple[int, bool]] = []
    for i, c in enumerate(text):
        if c in "([{":
            stack.append((i, False))
        elif c == "|" and stack:
            stack[-1] = (stack[-1][0], True)
        elif c in ")]}" and stack:
            start, has_bar = stack.pop()
            if has_bar:
                chars[start:i + 1] = " " * (i + 1 - start)
    return "".join(chars)


__all__ = ["check_iteration_in_calls", "iterating_calls"]
