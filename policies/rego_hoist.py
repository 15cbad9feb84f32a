"""Iteration inside a call's arguments, rewritten so rego-cpp evaluates it as OPA does.

``startswith(input.resource_changes[_].type, "aws_")`` iterates: OPA tries every element. rego-cpp
1.5 crashes on it (a ``some i`` variable first bound there quietly finds nothing instead). In a
rule body the two spellings below mean the same in Rego, because a statement's iteration variables
belong to the whole body; the second one works in rego-cpp too::

    startswith(input.resource_changes[_].type, "aws_")
    __ctl_iter1 := input.resource_changes[_].type; startswith(__ctl_iter1, "aws_")

So each such argument is bound in a statement of its own, inserted on the same line (line numbers
in errors stay right). Only where that equivalence surely holds: a plain statement line of a rule
body — not negated (``not f(x[_])`` means "for no element"), not a rule head or one-line rule, no
comprehension, ``every`` or ``with`` on the line. Anything else is left to the refusal in
``rego_iteration``, which explains how to write it.
"""

from __future__ import annotations

import re

from policies.rego_iteration import iterating_calls
from policies.rego_module import RegoModule
from policies.rego_source import mask

_UNSAFE_LINE = re.compile(r"(^|[^\w])(not|some|every|with|default|else|import|package)([^\w]|$)|\|")


def hoist(module: RegoModule) -> RegoModule:
    """``module`` with every safely rewritable iterating argument bound first (unchanged if none)."""
    source = module.source
    masked = mask(source)
    edits: dict[int, list[tuple[int, int]]] = {}  # line start -> [(ref start, ref end)]
    for ref_start, ref_end in iterating_refs(masked, module):
        line_start = masked.rfind("\n", 0, ref_start) + 1
        line_end = masked.find("\n", ref_start)
        line = masked[line_start:line_end if line_end >= 0 else len(masked)]
        if _UNSAFE_LINE.search(line) or " if " in f" {line} " or line.rstrip().endswith("{"):
            continue
        edits.setdefault(line_start, []).append((ref_start, ref_end))
    if not edits:
        return module
    counter = 0
    for line_start in sorted(edits, reverse=True):  # from the end, so earlier offsets stay valid
        refs = sorted(set(edits[line_start]))
        bindings = []
        rewritten = source
        for ref_start, ref_end in reversed(refs):
            counter += 1
            name = f"__ctl_iter{counter}"
            bindings.append(f"{name} := {source[ref_start:ref_end]}; ")
            rewritten = rewritten[:ref_start] + name + rewritten[ref_end:]
        indent = len(source[line_start:]) - len(source[line_start:].lstrip(" \t"))
        at = line_start + indent
        source = rewritten[:at] + "".join(reversed(bindings)) + rewritten[at:]
    return RegoModule.read(module.path, module.display, source)


def iterating_refs(masked: str, module: RegoModule) -> list[tuple[int, int]]:
    """Spans of the whole references (``input.xs[_].type``) that iterate inside call arguments."""
    return [(_ref_start(masked, at), _ref_end(masked, at)) for _, _, at in iterating_calls(masked, module)]


def _ref_start(masked: str, at: int) -> int:
    """Back from the ``[`` at ``at`` over names, dots and bracketed steps: where the reference begins."""
    i = at
    while i > 0:
        c = masked[i - 1]
        if c.isalnum() or c in "_.":
            i -= 1
        elif c == "]":
            i = _opening(masked, i - 1)
        else:
            break
    return i


def _ref_end(masked: str, at: int) -> int:
    """From the ``[`` at ``at`` over bracketed steps and ``.name`` steps: where the reference ends."""
    i = _closing(masked, at) + 1
    while i < len(masked):
        if masked[i] == "[":
            i = _closing(masked, i) + 1
        elif (step := re.match(r"\.\w+", masked[i:])) is not None:
            i += step.end()
        else:
            break
    return i


def _opening(masked: str, close: int) -> int:
    depth = 0
    for j in range(close, -1, -1):
        depth += masked[j] == "]"
        depth -= masked[j] == "["
        if depth == 0:
            return j
    return 0


def _closing(masked: str, open_at: int) -> int:
    depth = 0
    for j in range(open_at, len(masked)):
        depth += masked[j] == "["
        depth -= masked[j] == "]"
        if depth == 0:
            return j
    return len(masked) - 1
