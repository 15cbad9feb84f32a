"""JSON text exactly as Terraform's ``jsonencode`` writes it (also used by ``format("%#v")``).

Compact separators, object keys in lexical order, non-ASCII characters kept as UTF-8, and
``<``, ``>``, ``&``, U+2028, U+2029 escaped as ``\\u003c`` etc. Numbers never use an exponent
(``1e21`` is written in full), which Python's encoder would otherwise do. The fast C encoder is
used whenever no number needs that special spelling, which is the common case.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from engine.lang.functions._args import num_to_str

_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
# Built once: ``json.dumps`` with any option but the defaults builds a new encoder on every call,
# and a configuration may call ``jsonencode`` once per resource.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode
_TEXT = json.JSONEncoder(ensure_ascii=False).encode


def _needs_slow_path(v: Any) -> bool:
    """True when a float inside ``v`` would be spelled with an exponent by Python."""
    if isinstance(v, float):
        text = repr(v)
        return "e" in text or "n" in text or text.endswith(".0")
    if isinstance(v, list):
        return any(_needs_slow_path(x) for x in v)
    if isinstance(v, dict):
        return any(_needs_slow_path(x) for x in v.values())
    return False


def _encode_slow(v: Any) -> str:
    if v is None or isinstance(v, bool | str):
        return _TEXT(v)
    if isinstance(v, int | float):
        return num_to_str(v)
    if isinstance(v, list):
        return "[" + ",".join(_encode_slow(x) for x in v) + "]"
    if isinstance(v, dict):
        items = sorted(v.items())
        return (
            "{" + ",".join(_TEXT(k) + ":" + _encode_slow(x) for k, x in items) + "}"
        )
    raise TypeError(f"cannot encode {type(v).__name__} as JSON")


def encode(v: Any) -> str:
    """Terraform-compatible minified JSON for a plain (unmarked, known) value."""
    if _needs_slow_path(v):
        text = _encode_slow(v)
    else:
        text = _COMPACT(v)
    return text.translate(_ESCAPES)


def encode_indented(v: Any) -> str:
    """As ``encode``, laid out two spaces per level: Terraform's ``output -json`` of every output."""
    return json.dumps(v, ensure_ascii=False, indent=2, sort_keys=True).translate(_ESCAPES)


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def nesting(text: str) -> int:
    """How deeply the lists and objects of JSON ``text`` nest, found without parsing it.

    Checked before ``json.loads``, whose C parser recurses once per level: a value deep enough to
    be refused is refused before it costs a deep recursion, and never ends in a ``RecursionError``.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(1 if c in "[{" else -1 for c in brackets), default=0)
