"""What ``terraform fmt`` changes besides whitespace (Terraform 1.0.3's ``formatBody``).

* An attribute whose whole value is one interpolation, ``"${var.x}"``, becomes ``var.x`` (wrapped
  in parentheses when it spans lines and is not already parenthesised). Only attributes of block
  bodies, not keys of object constructors, and not ``"${a}${b}"`` or ``"x${a}"``.
* The ``type`` of a top-level ``variable`` block: ``list``/``map``/``set`` become ``list(any)``
  and so on; the 0.11 spellings ``"string"``, ``"list"``, ``"map"`` become ``string``,
  ``list(string)``, ``map(string)``.
* Block labels are written as quoted strings in one canonical spelling (``resource aws_s3_bucket
  b`` becomes ``resource "aws_s3_bucket" "b"``; escapes are decoded, the text put in NFC and
  re-escaped); comments before or between the labels are dropped.

One deliberate difference: Terraform 1.0.3 drops, without a word, a label whose text contains a
``$`` or ``%`` that starts no template sequence (``"a$b"``), a bug in its hclwrite. Losing a label
changes what the file means, so here such a label is kept, spelled canonically like any other.
"""

from __future__ import annotations

import unicodedata

from engine.fmt import tokens as t
from engine.fmt.strings import decode_quoted, quoted_tokens
from engine.fmt.structure import AttributeAt, BlockAt, walk
from engine.fmt.tokens import Token


def rewrite(tokens: list[Token]) -> list[Token]:
    """``tokens`` with attribute values, variable types and block labels rewritten."""
    attributes, blocks = walk(tokens)
    edits: list[tuple[int, int, list[Token]]] = []
    for attr in attributes:
        value = tokens[attr.start:attr.end]
        new = _type_expr(value) if _is_variable_type(attr) else _value_expr(value)
        if new is not value:
            edits.append((attr.start, attr.end, new))
    for block in blocks:
        edits.extend(_label_edits(tokens, block))
    out: list[Token] = []
    pos = 0
    for start, end, new in sorted(edits, key=lambda e: e[0]):
        out.extend(tokens[pos:start])
        out.extend(new)
        pos = end
    out.extend(tokens[pos:])
    return out


def _is_variable_type(attr: AttributeAt) -> bool:
    return attr.blocks == ("variable",) and attr.name == "type"


def _value_expr(toks: list[Token]) -> list[Token]:
    """``"${x}"`` unwrapped to ``x``; anything else returned as it is (the same list)."""
    if len(toks) < 5 or [toks[0].kind, toks[1].kind, toks[-2].kind, toks[-1].kind] != [
            t.O_QUOTE, t.INTERP, t.SEQ_END, t.C_QUOTE]:
        return toks
    inside = toks[2:-2]
    quotes = 0
    for tok in inside:
        if tok.kind in (t.O_QUOTE, t.C_QUOTE):
            quotes += 1 if tok.kind == t.O_QUOTE else -1
        elif quotes <= 0 and tok.kind in (t.INTERP, t.SEQ_END, t.QUOTED_LIT):
            return toks  # "${a}${b}" or "x${a}": more than one interpolation
    start, end = 0, len(inside)
    while start < end and inside[start].kind == t.NEWLINE:
        start += 1
    while end > start and inside[end - 1].kind == t.NEWLINE:
        end -= 1
    trimmed = inside[start:end]
    multi_line = any(tok.kind == t.NEWLINE for tok in trimmed)
    parenthesised = len(trimmed) > 1 and trimmed[0].kind == t.O_PAREN and trimmed[-1].kind == t.C_PAREN
    if multi_line and not parenthesised:
        return [Token(t.O_PAREN, "("), *trimmed, Token(t.C_PAREN, ")")]
    return trimmed


def _type_expr(toks: list[Token]) -> list[Token]:
    """A variable's ``type`` in today's spelling; anything else returned as it is."""
    if len(toks) == 1 and toks[0].kind == t.IDENT and toks[0].text in ("list", "map", "set"):
        return [toks[0], *_call_tokens("any")]
    if len(toks) == 3 and [tok.kind for tok in toks] == [t.O_QUOTE, t.QUOTED_LIT, t.C_QUOTE]:
        legacy = toks[1].text
        if legacy == "string":
            return [Token(t.IDENT, "string")]
        if legacy in ("list", "map"):
            return [Token(t.IDENT, legacy), *_call_tokens("string")]
    return toks


def _call_tokens(arg: str) -> list[Token]:
    return [Token(t.O_PAREN, "("), Token(t.IDENT, arg), Token(t.C_PAREN, ")")]


def _label_edits(tokens: list[Token], block: BlockAt) -> list[tuple[int, int, list[Token]]]:
    edits: list[tuple[int, int, list[Token]]] = [(i, i + 1, []) for i in block.dropped]
    for start, end in block.labels:
        value = label_value(tokens[start:end])
        if value is not None:
            edits.append((start, end, quoted_tokens(value)))
    return edits


def label_value(toks: list[Token]) -> str | None:
    """The text a label stands for; None when an escape in it is invalid (left as written)."""
    if len(toks) == 1:
        return toks[0].text
    try:
        return unicodedata.normalize("NFC", decode_quoted("".join(tok.text for tok in toks[1:-1])))
    except ValueError:
        return None
