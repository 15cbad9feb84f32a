"""Syntax errors HCL's parser reports and the general parser (tree-sitter) lets through.

``terraform fmt`` refuses a file its parser rejects, so these are refused here too rather than
formatted into something neither tool reads. Each check is a pattern over the token stream:

* a legacy index with two numbers, ``x.0.1`` (the scanner reads ``0.1`` as one number);
* an item of an object constructor that starts its line with a comma (``{ a = 1 \\n , b = 2 }``):
  inside braces a newline already separates items, so the comma starts an empty one;
* an empty template sequence, ``"${}"`` or ``"%{}"``;
* an invalid escape in a quoted string (``"\\q"``, ``"\\ud800"``).
"""

from __future__ import annotations

from engine.fmt import tokens as t
from engine.fmt.layout import bracket_change
from engine.fmt.strings import decode_quoted
from engine.fmt.tokens import Problem, Token


def problems(tokens: list[Token]) -> list[Problem]:
    """What in ``tokens`` HCL rejects for the reasons above, in source order."""
    found: list[Problem] = []
    openers: list[str] = []  # the innermost open bracket last: "object", "for" or another kind
    previous = t.NIL
    for i, tok in enumerate(tokens):
        kind = tok.kind
        if kind == t.NUMBER and previous == t.DOT and "." in tok.text:
            first, _, second = tok.text.partition(".")
            found.append(Problem("Invalid legacy index syntax",
                                 "When using the legacy index syntax, chaining two indexes together is not "
                                 f"permitted. Use the proper index syntax instead, like [{first}][{second}].",
                                 tok.line, tok.col))
        if kind == t.COMMA and openers and openers[-1] == "object" and previous in (t.NEWLINE, t.COMMENT):
            found.append(Problem("Invalid expression", "Expected the start of an expression, but found a comma.",
                                 tok.line, tok.col))
        if kind == t.SEQ_END and previous in (t.INTERP, t.CONTROL):
            found.append(Problem("Invalid expression", "Expected the start of an expression, but found an "
                                 "empty template sequence.", tok.line, tok.col))
        if kind == t.QUOTED_LIT and "\\" in tok.text:
            try:
                decode_quoted(tok.text)
            except ValueError as exc:
                found.append(Problem("Invalid escape sequence", str(exc), tok.line, tok.col))
        change = bracket_change(tok)
        if change > 0:
            openers.append(_opener(tokens, i))
        elif change < 0 and openers:
            openers.pop()
        if kind != t.COMMENT or tok.text.endswith("\n"):
            previous = kind
    return found


def _opener(tokens: list[Token], i: int) -> str:
    if tokens[i].kind != t.O_BRACE:
        return tokens[i].kind
    j = i + 1
    while tokens[j].kind in (t.NEWLINE, t.COMMENT):
        j += 1
    return "for" if tokens[j].kind == t.IDENT and tokens[j].text == "for" else "object"
