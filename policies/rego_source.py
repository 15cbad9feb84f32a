"""A light reading of Rego source: package, imports, rules, annotations and function calls.

The interpreter compiles and evaluates the policies; this module only finds what ctl needs to know
before asking it anything: which ``deny``/``violation``/``warn`` rules (and ``test_*`` rules) each
file defines, the ``# METADATA`` annotations above them, the functions the policy calls (an
unsupported built-in must be an error, not a silent pass) and rules written in the pre-v1 style
(``deny[msg] { … }``), which ctl rejects with a message saying how to write them in Rego v1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# Rule names conftest evaluates: exactly these, or with a ``_suffix`` (``deny_no_tags``).
RULE_KINDS = ("deny", "violation", "warn")
_KEYWORDS = frozenset({
    "package", "import", "default", "if", "else", "not", "some", "every", "in", "with", "as",
    "contains", "true", "false", "null",
})
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_HEAD = re.compile(rf"^[ \t]*(default[ \t]+)?({_IDENT})")
_CALL = re.compile(rf"(?<![\w.\]\)])({_IDENT}(?:\.{_IDENT})*)[ \t]*\(")
_PACKAGE = re.compile(r"^[ \t]*package[ \t]+([^\s#]+)", re.M)
_IMPORT = re.compile(rf"^[ \t]*import[ \t]+([^\s#]+)(?:[ \t]+as[ \t]+({_IDENT}))?", re.M)


@dataclass
class RuleHead:
    """One rule definition at the top level of a module."""

    name: str
    line: int  # 1-based
    is_function: bool = False
    old_style: bool = False
    annotations: dict[str, Any] = field(default_factory=dict)


@dataclass
class ModuleInfo:
    """What ctl needs to know about one ``.rego`` file."""

    path: str
    package: str
    package_line: int
    imports: dict[str, str]  # alias -> imported path
    rules: list[RuleHead]
    calls: list[tuple[str, int]]  # (function name, line) of every call
    package_annotations: dict[str, Any] = field(default_factory=dict)
    uses_v1: bool = False

    def rule_names(self) -> list[str]:
        seen: list[str] = []
        for r in self.rules:
            if not r.is_function and r.name not in seen:
                seen.append(r.name)
        return seen

    def rule_line(self, name: str) -> int:
        return next((r.line for r in self.rules if r.name == name), self.package_line)

    def rule_annotations(self, name: str) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for r in self.rules:
            if r.name == name and r.annotations:
                merged.update(r.annotations)
        return merged


class RegoSyntaxError(ValueError):
    """The source could not be read (an unterminated string, a missing package)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def is_policy_rule(name: str) -> bool:
    """``deny``, ``violation``, ``warn`` and their ``_suffix`` forms."""
    return any(name == k or name.startswith(k + "_") for k in RULE_KINDS)


def rule_kind(name: str) -> str:
    return next(k for k in RULE_KINDS if name == k or name.startswith(k + "_"))


def mask(source: str) -> str:
    """``source`` with comments and string contents blanked out (same length, same lines)."""
    out: list[str] = []
    i, n = 0, len(source)
    line = 1
    while i < n:
        c = source[i]
        if c == "#":
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                if source[j] == "\n":
                    raise RegoSyntaxError("unterminated string", line)
                j += 2 if source[j] == "\\" else 1
            if j >= n:
                raise RegoSyntaxError("unterminated string", line)
            out.append('"' + " " * (j - i - 1) + '"')
            i = j + 1
        elif c == "`":
            j = source.find("`", i + 1)
            if j < 0:
                raise RegoSyntaxError("unterminated raw string", line)
            chunk = source[i + 1 : j]
            out.append("`" + "".join("\n" if ch == "\n" else " " for ch in chunk) + "`")
            line += chunk.count("\n")
            i = j + 1
        else:
            if c == "\n":
                line += 1
            out.append(c)
            i += 1
    return "".join(out)


def _annotation_blocks(lines: list[str]) -> dict[int, dict[str, Any]]:
    """``# METADATA`` comment blocks, keyed by the 1-based line of the statement they precede."""
    blocks: dict[int, dict[str, Any]] = {}
    i = 0
    while i < len(lines):
        if lines[i].strip() == "# METADATA":
            body: list[str] = []
            j = i + 1
            while j < len(lines) and lines[j].lstrip().startswith("#"):
                text = lines[j].lstrip()[1:]
                body.append(text[1:] if text.startswith(" ") else text)
                j += 1
            import yaml  # here, not at the top: the policy worker starts faster without it

            try:
                doc = yaml.safe_load("\n".join(body)) or {}
            except yaml.YAMLError as exc:
                raise RegoSyntaxError(f"the METADATA block is not valid YAML: {exc}", i + 1) from None
            while j < len(lines) and not lines[j].strip():
                j += 1
            if isinstance(doc, dict):
                blocks[j + 1] = doc
            i = j
        else:
            i += 1
    return blocks


def _is_old_style(head: str) -> bool:
    """A pre-v1 rule head: a body in braces without ``if`` (``deny[msg] {``, ``allow {``)."""
    brace = head.find("{")
    if brace < 0:
        return False
    before = head[:brace]
    if re.search(r"\bif\b", before) or ":=" in before:
        return False
    name_part = before.strip()
    # ``p = {…}`` is a value, not a body; ``p = true {`` and ``f(x) = y {`` are v0 bodies.
    if "=" in name_part:
        _lhs, _, rhs = name_part.partition("=")
        return bool(rhs.strip()) and re.fullmatch(r'[\w."]+', rhs.strip()) is not None
    return re.fullmatch(rf"{_IDENT}(\s*\[.*\]|\s*\(.*\)|\s+contains\s+.+)?", name_part, re.S) is not None


def parse_module(path: str, source: str) -> ModuleInfo:
    """Read ``source`` (the text of ``path``) without evaluating it."""
    masked = mask(source)
    lines = source.split("\n")
    mlines = masked.split("\n")
    pkg = _PACKAGE.search(masked)
    if pkg is None:
        raise RegoSyntaxError("no package declaration", 1)
    package_line = masked.count("\n", 0, pkg.start()) + 1
    named = _PACKAGE.search(source[pkg.start():])  # the same declaration, read from the unmasked text
    if named is None:
        raise RegoSyntaxError("no package declaration", package_line)
    package = named.group(1)
    imports: dict[str, str] = {}
    uses_v1 = False
    for m in _IMPORT.finditer(masked):
        target = source[m.start(1):m.end(1)]
        if target in ("rego.v1", "future.keywords") or target.startswith("future.keywords."):
            uses_v1 = uses_v1 or target == "rego.v1"
            continue
        alias = m.group(2) or re.split(r"[.\[]", target)[-1].strip('"]')
        imports[alias] = target
    blocks = _annotation_blocks(lines)
    rules: list[RuleHead] = []
    depth = 0
    pending: RuleHead | None = None
    pending_text = ""
    for idx, mline in enumerate(mlines):
        lineno = idx + 1
        if depth == 0 and lineno > package_line:
            head = _HEAD.match(mline)
            if head and head.group(2) not in ("package", "import") and head.group(2) not in _KEYWORDS:
                rest = mline[head.end():]
                is_fn = rest.lstrip().startswith("(")
                pending = RuleHead(head.group(2), lineno, is_function=is_fn,
                                   annotations=blocks.get(lineno, {}))
                pending_text = mline[head.start(2):]
                rules.append(pending)
            elif pending is not None and mline.strip():
                pending_text += "\n" + mline
        elif pending is not None:
            pending_text += "\n" + mline
        depth += mline.count("{") + mline.count("[") + mline.count("(")
        depth -= mline.count("}") + mline.count("]") + mline.count(")")
        depth = max(depth, 0)
        if pending is not None and ("{" in pending_text or depth == 0):
            pending.old_style = _is_old_style(pending_text)
            pending = None
            pending_text = ""
    calls: list[tuple[str, int]] = []
    for m in _CALL.finditer(masked):
        name = m.group(1)
        if name in _KEYWORDS:
            continue
        line = masked.count("\n", 0, m.start()) + 1
        # a function definition at the start of a top-level line is not a call
        if any(r.is_function and r.line == line and r.name == name for r in rules):
            continue
        calls.append((name, line))
    return ModuleInfo(path=path, package=package, package_line=package_line, imports=imports,
                      rules=rules, calls=calls, package_annotations=blocks.get(package_line, {}),
                      uses_v1=uses_v1)


__all__ = ["RULE_KINDS", "ModuleInfo", "RegoSyntaxError", "RuleHead", "is_policy_rule", "mask",
           "parse_module", "rule_kind"]
