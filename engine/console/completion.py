"""Tab completion for the console: names in scope, their attributes, and function names.

A word with no dot completes to the names the root module sees (``var.``, ``local.``, ``module.``,
``data.``, ``path.``, ``terraform.``, resource types), the functions (``cidrsubnet(``; ``type(``,
the console's own, too) and the literals. After a dot, the part before it is evaluated by the engine (it is a plain reference, so
this is cheap and has no effect) and the names in the object it yields are offered: variable
names after ``var.``, outputs after ``module.net.``, attributes after ``aws_s3_bucket.logs.``.
Resources the state holds but the configuration no longer declares are offered too, since the
state is what the console reads. A sensitive object's attribute names are not offered.
"""

from __future__ import annotations

import functools
import re

from engine.console.scope import ConsoleScope
from engine.console.types import TYPE_FUNCTION
from engine.lang.eval import evaluate
from engine.lang.hcl import parse_expression
from vocab.errors import CtlError

_IDENT = r"[A-Za-z_][\w-]*"
# A reference followed by a dot and the start of a name: ``module.net["eu"].vpc_``.
_MEMBER = re.compile(rf"({_IDENT}(?:\.{_IDENT}|\.\d+|\[[^\[\]]*\])*)\.([\w-]*)$")
_WORD = re.compile(rf"{_IDENT}$|$")
_LITERALS = ("true", "false", "null")
_COMMANDS = ("exit", "help")


@functools.cache
def _function_names() -> tuple[str, ...]:
    from engine.lang.functions import function_names

    return tuple(sorted(function_names() | {TYPE_FUNCTION}))


def candidates(scope: ConsoleScope, text: str) -> list[str]:
    """Every completion of ``text`` (the line up to the cursor, or its last word), sorted."""
    member = _MEMBER.search(text)
    if member is not None:
        head, partial = member.group(1), member.group(2)
        before = text[: member.start()]
        members = sorted(_members(scope, head))
        return [f"{before}{head}.{name}" for name in members if name.startswith(partial)]
    word = _WORD.search(text)
    assert word is not None
    before, partial = text[: word.start()], word.group(0)
    if before[-1:].isalnum() or before[-1:] in (".", "]", '"'):  # inside a number, string or index
        return []
    names = {f"{name}." for name in scope.ctx.variables}
    names |= {f"{address.split('.')[0]}." for address in scope.state_resources}
    names |= {f"{name}(" for name in _function_names()}
    names |= set(_LITERALS)
    if not before.strip():
        names |= set(_COMMANDS)
    return [f"{before}{name}" for name in sorted(names) if name.startswith(partial)]


def _members(scope: ConsoleScope, head: str) -> set[str]:
    """The attribute names of what ``head`` refers to, plus resources only the state knows."""
    names = {address[len(head) + 1:].split(".")[0] for address in scope.state_resources
             if address.startswith(head + ".")}
    try:
        value = evaluate(parse_expression(head, "<completion>"), scope.ctx)
    except CtlError:
        return names
    if isinstance(value, dict):  # a Marked (sensitive) object keeps its attribute names to itself
        names |= {key for key in value if re.fullmatch(_IDENT, key)}
    return names - {""}


__all__ = ["candidates"]
