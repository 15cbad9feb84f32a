"""Reading rego-cpp's answers: compile errors with their file and line, and each rule's value."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from policies.model import PolicyError, range_for

if TYPE_CHECKING:
    from policies.rego_module import RegoModule

_ERR_AT = re.compile(r"\(error \d+:([^|\s]+)\|(\d+)\|\d+")
_ERR_MSG = re.compile(r"\(errormsg \d+:([^\n)]*)")
_PRETTY_AT = re.compile(r"^-- (\S+?):(\d+):(\d+)\s*$", re.M)


def compile_error(exc: Exception, captured: str, modules: list[RegoModule]) -> PolicyError:
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



def rule_value(ok: bool, text: str, package: str, rule: str, where: tuple[str, int]) -> Any:
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


__all__ = ["compile_error", "rule_value"]
