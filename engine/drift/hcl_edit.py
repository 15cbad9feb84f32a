"""Finding a value in an HCL file's token stream, and the text that writes a value as a literal.

Adoption edits the user's file the way ``ctl fmt`` reads it: as the scanner's tokens
(``engine.fmt.tokens``), each at its line and column in the text. A value is found by walking the
resource block's body (arguments, nested blocks in order, object constructors' keys) to the tokens
of the expression that sets it; an edit replaces exactly those characters, so every comment, blank
line and spacing elsewhere stays as written.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from engine.fmt import tokens as t
from engine.fmt.layout import bracket_change
from engine.fmt.strings import decode_quoted, quoted_tokens
from engine.fmt.tokens import Token, scan

NOT_LITERAL = object()  # what ``literal_value`` gives for tokens that are an expression


@dataclass
class HclFile:
    """A file's text, its tokens, and the character offset where each line starts."""

    text: str
    tokens: list[Token]
    line_starts: list[int]

    @classmethod
    def parse(cls, text: str) -> HclFile:
        tokens, problems = scan(text)
        if problems:
            raise ValueError(f"{problems[0].line}:{problems[0].column}: {problems[0].summary}")
        starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                starts.append(i + 1)
        return cls(text, tokens, starts)

    def offset(self, i: int) -> int:
        """Where token ``i`` starts in the text; checked, since an edit must replace what it read."""
        tok = self.tokens[i]
        at = self.line_starts[tok.line - 1] + tok.col - 1
        if self.text[at:at + len(tok.text)] != tok.text:
            raise ValueError(f"line {tok.line} could not be located exactly")
        return at

    def end_offset(self, i: int) -> int:
        """Where token ``i`` ends (exclusive)."""
        return self.offset(i) + len(self.tokens[i].text)

    def line_indent(self, i: int) -> str:
        """The whitespace that starts token ``i``'s line."""
        start = self.line_starts[self.tokens[i].line - 1]
        line = self.text[start:]
        return line[:len(line) - len(line.lstrip(" \t"))]

    # -- blocks and bodies ------------------------------------------------------------------------

    def resource_block(self, line: int, rtype: str, name: str) -> int | None:
        """The index of the ``{`` of ``resource "rtype" "name"`` whose header is on ``line``."""
        toks = self.tokens
        for i, tok in enumerate(toks):
            if tok.line != line or tok.kind != t.IDENT or tok.text not in ("resource", "data"):
                continue
            labels: list[str] = []
            j = i + 1
            while j < len(toks) and toks[j].kind != t.O_BRACE:
                if toks[j].kind in (t.QUOTED_LIT, t.IDENT):
                    labels.append(toks[j].text)
                j += 1
            if labels == [rtype, name]:
                return j
        return None

    def closing(self, i: int) -> int:
        """The index of the bracket that closes the one at ``i``."""
        depth = 0
        for j in range(i, len(self.tokens)):
            depth += bracket_change(self.tokens[j])
            if depth == 0:
                return j
        raise ValueError("unbalanced brackets")

    def body_items(self, open_brace: int) -> list[tuple[str, str, int, int]]:
        """A block body's items: ``("attr", name, start, end)`` with the value's tokens
        ``[start:end)``, or ``("block", type, open, close)`` for a nested block."""
        toks, close = self.tokens, self.closing(open_brace)
        items: list[tuple[str, str, int, int]] = []
        i = open_brace + 1
        while i < close:
            tok = toks[i]
            if tok.kind != t.IDENT:
                i += 1
                continue
            j = self._skip_comments(i + 1)
            if toks[j].kind == t.EQUAL:
                start = self._skip_comments(j + 1)
                end = self._value_end(start, close, commas=False)
                items.append(("attr", tok.text, start, end))
                i = end
                continue
            k = j
            while toks[k].kind != t.O_BRACE and k < close:
                k += 1
            inner = self.closing(k)
            items.append(("block", tok.text, k, inner))
            i = inner + 1
        return items

    def object_items(self, open_brace: int) -> list[tuple[str, int, int, int]]:
        """An object constructor's items: ``(key, key_token, start, end)``, the value ``[start:end)``."""
        toks, close = self.tokens, self.closing(open_brace)
        items: list[tuple[str, int, int, int]] = []
        i = open_brace + 1
        while i < close:
            i = self._skip_space(i, close)
            if i >= close:
                break
            key_at = i
            if toks[i].kind == t.IDENT:
                key, i = toks[i].text, i + 1
            elif toks[i].kind == t.O_QUOTE and toks[i + 1].kind == t.QUOTED_LIT and toks[i + 2].kind == t.C_QUOTE:
                key, i = decode_quoted(toks[i + 1].text), i + 3
            elif toks[i].kind == t.O_QUOTE and toks[i + 1].kind == t.C_QUOTE:
                key, i = "", i + 2
            else:
                raise ValueError(f"line {toks[i].line}: a computed key")
            i = self._skip_comments(i)
            if toks[i].kind not in (t.EQUAL, t.COLON):
                raise ValueError(f"line {toks[i].line}: not a key = value item")
            start = self._skip_comments(i + 1)
            end = self._value_end(start, close, commas=True)
            items.append((key, key_at, start, end))
            i = end + 1 if end < close and toks[end].kind == t.COMMA else end
        return items

    def _skip_comments(self, i: int) -> int:
        while self.tokens[i].kind == t.COMMENT and not self.tokens[i].text.endswith("\n"):
            i += 1
        return i

    def _skip_space(self, i: int, close: int) -> int:
        while i < close and self.tokens[i].kind in (t.NEWLINE, t.COMMENT, t.COMMA):
            i += 1
        return i

    def _value_end(self, start: int, close: int, *, commas: bool) -> int:
        toks, depth, i = self.tokens, 0, start
        while i < close:
            tok = toks[i]
            if depth == 0 and (tok.kind == t.NEWLINE or (tok.kind == t.COMMENT and tok.text.endswith("\n"))
                               or (commas and tok.kind == t.COMMA)):
                break
            depth += bracket_change(tok)
            i += 1
        while i > start and toks[i - 1].kind == t.COMMENT:
            i -= 1
        return i

    def source(self, start: int, end: int) -> str:
        return self.text[self.offset(start):self.end_offset(end - 1)]


def literal_value(toks: list[Token]) -> Any:
    """The value of tokens that are a plain literal (a quoted string with no template sequence, a
    number, ``true``/``false``/``null``); ``NOT_LITERAL`` for anything else."""
    kinds = [tok.kind for tok in toks]
    if kinds == [t.NUMBER]:
        return _number(toks[0].text)
    if kinds == [t.MINUS, t.NUMBER]:
        return -_number(toks[1].text)
    if kinds == [t.IDENT] and toks[0].text in ("true", "false", "null"):
        return {"true": True, "false": False, "null": None}[toks[0].text]
    if kinds and kinds[0] == t.O_QUOTE and kinds[-1] == t.C_QUOTE and all(k == t.QUOTED_LIT for k in kinds[1:-1]):
        return decode_quoted("".join(tok.text for tok in toks[1:-1]))
    return NOT_LITERAL


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


def render_literal(value: Any) -> str | None:
    """``value`` written as an HCL literal, or None for a value no literal here should hold."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return str(int(value)) if value.is_integer() else json.dumps(value)
    if isinstance(value, str):
        return "".join(tok.text for tok in quoted_tokens(value))
    if isinstance(value, list):
        parts = [render_literal(v) for v in value]
        return None if any(p is None for p in parts) else "[" + ", ".join(str(p) for p in parts) + "]"
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            r = render_literal(v)
            if r is None:
                return None
            key = k if _identifier(k) else render_literal(str(k))
            items.append(f"{key} = {r}")
        return "{ " + ", ".join(items) + " }" if items else "{}"
    return None


def _identifier(key: str) -> bool:
    return bool(key) and (key[0].isalpha() or key[0] == "_") and all(c.isalnum() or c in "_-" for c in key)


def key_text(key: str) -> str:
    """An object key as written: bare when it is an identifier, else quoted."""
    return key if _identifier(key) else str(render_literal(key))
