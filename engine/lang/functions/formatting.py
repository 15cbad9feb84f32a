"""``format`` and ``formatlist``: printf-style formatting with Terraform's verbs and flags.

Verbs: ``%%`` ``%v`` ``%#v`` ``%t`` ``%b`` ``%d`` ``%o`` ``%x`` ``%X`` ``%e`` ``%E`` ``%f`` ``%g``
``%G`` ``%s`` ``%q``; flags space ``+`` ``-`` ``0`` ``#``; width and ``.precision``; ``%[n]v``
picks argument *n* explicitly. Numbers are formatted from their exact decimal value, and ``%g``
without a precision uses the shortest digits that identify the number, with an exponent from
``1e+06`` upward, as Terraform does. Widths count user-perceived characters.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from functools import lru_cache
from typing import Any

from engine.lang import numbers
from engine.lang.functions import _json
from engine.lang.functions._args import parse_number, want_str
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn, returns_list
from engine.lang.functions._text import char_count, graphemes
from engine.lang.operators import format_number
from vocab.limits import MAX_STRING_LENGTH
from vocab.types import STRING
from vocab.values import Unknown, contains_unknown, type_name

_VERB = re.compile(r"%([-+# 0]*)(?:\[([1-9][0-9]*)\])?([1-9][0-9]*)?(?:\.([0-9]*))?([A-Za-z%])?")


class _Verb:
    """One parsed ``%…`` sequence."""

    __slots__ = ("flags", "mode", "prec", "raw", "width")

    def __init__(self, raw: str, flags: str, width: int | None, prec: int | None, mode: str) -> None:
        self.raw, self.flags, self.width, self.prec, self.mode = raw, flags, width, prec, mode


def _sci(d: Decimal, prec: int, upper: bool) -> str:
    """``d`` (non-negative) as ``m.mmmme+XX`` with ``prec`` fraction digits, Go style."""
    if d == 0:
        mant, exp = "0" + ("." + "0" * prec if prec else ""), 0
    else:
        exp = d.adjusted()
        q = d.scaleb(-exp).quantize(Decimal(1).scaleb(-prec), rounding=ROUND_HALF_EVEN)
        if q >= 10:
            exp += 1
            q = d.scaleb(-exp).quantize(Decimal(1).scaleb(-prec), rounding=ROUND_HALF_EVEN)
        mant = format(q, "f")
    sign = "-" if exp < 0 else "+"
    return f"{mant}{'E' if upper else 'e'}{sign}{abs(exp):02d}"


def _fixed(d: Decimal, prec: int) -> str:
    return format(d.quantize(Decimal(1).scaleb(-prec), rounding=ROUND_HALF_EVEN), "f")


def _general(n: int | float, prec: int | None, upper: bool) -> str:
    """``%g``: shortest digits when no precision, else ``prec`` significant digits; no trailing zeros."""
    if prec is None:
        d = Decimal(n) if isinstance(n, int) else Decimal(format_number(n))
        d = abs(d)
        eprec = 6
    else:
        exact = abs(numbers.exact(n))
        d = Decimal(exact.numerator) / Decimal(exact.denominator)
        p = max(prec, 1)
        if d != 0:
            d = (
                d.scaleb(-d.adjusted())
                .quantize(Decimal(1).scaleb(1 - p), rounding=ROUND_HALF_EVEN)
                .scaleb(d.adjusted())
            )
        eprec = p
    if d == 0:
        return "0"
    digits = d.normalize()
    sig = len(digits.as_tuple().digits)
    exp = digits.adjusted()
    if exp < -4 or exp >= eprec:
        return _sci(digits, sig - 1, upper)
    return _fixed(digits, max(sig - 1 - exp, 0))


def _pad(verb: _Verb, text: str) -> str:
    if verb.width is None:
        return text
    missing = verb.width - char_count(text)
    if missing <= 0:
        return text
    if "-" in verb.flags:
        return text + " " * missing
    return ("0" if "0" in verb.flags else " ") * missing + text


def _pad_number(verb: _Verb, sign: str, body: str) -> str:
    """Sign-aware padding: zeros go between the sign and the digits."""
    if verb.width is not None and "0" in verb.flags and "-" not in verb.flags:
        missing = verb.width - len(sign) - len(body)
        if missing > 0:
            return sign + "0" * missing + body
        return sign + body
    return _pad(_Verb(verb.raw, verb.flags.replace("0", ""), verb.width, verb.prec, verb.mode), sign + body)


def _to_number(verb: _Verb, v: Any) -> int | float:
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise CallError(f"unsupported value for {verb.raw!r}: number required, got {_kind(v)}")
    if isinstance(v, str):
        n = parse_number(v)
        if n is None:
            raise CallError(f"unsupported value for {verb.raw!r}: cannot convert {v!r} to number")
        return n
    return v


def _kind(v: Any) -> str:
    return type_name(v)


def _format_number(verb: _Verb, v: Any) -> str:
    n = _to_number(verb, v)
    mode = verb.mode
    # A negative zero keeps its sign where Go formats a float (``%f`` of -0 is "-0.000000"), not
    # where it formats an integer (``%d`` is "0").
    negative = n < 0 or (mode not in "bdoxX" and numbers.is_negative_zero(n))
    sign = "-" if negative else ("+" if "+" in verb.flags else (" " if " " in verb.flags else ""))
    if mode in "bdoxX":
        if isinstance(n, float):
            if not numbers.is_whole(n):
                raise CallError(f"unsupported value for {verb.raw!r}: an integer is required")
            n = int(n)
        elif n.bit_length() > numbers.PRECISION:  # Go writes out the 512-bit value's every digit
            n = int(numbers.exact(n))
        body = format(abs(n), {"b": "b", "d": "d", "o": "o", "x": "x", "X": "X"}[mode])
        if verb.prec is not None and len(body) < verb.prec:
            body = "0" * (verb.prec - len(body)) + body
        if "#" in verb.flags:
            body = {"b": "0b", "o": "0", "x": "0x", "X": "0X", "d": ""}[mode] + body
        return _pad_number(verb, sign, body)
    with localcontext() as ctx:
        ctx.prec = 1100
        exact = abs(numbers.exact(n))
        d = Decimal(exact.numerator) / Decimal(exact.denominator)
        prec = 6 if verb.prec is None else verb.prec
        if mode in "eE":
            body = _sci(d, prec, mode == "E")
        elif mode == "f":
            body = _fixed(d, prec)
        else:
            body = _general(n if n >= 0 else numbers.negate(n), verb.prec, mode == "G")
    return _pad_number(verb, sign, body)


def _format_one(verb: _Verb, v: Any) -> str:
    mode = verb.mode
    if v is None and mode != "v":
        raise CallError(f"unsupported value for {verb.raw!r}: null value cannot be formatted")
    if mode == "v":
        if "#" in verb.flags or not isinstance(v, str | int | float) or isinstance(v, bool):
            return _pad(verb, _json.encode(v))
        if isinstance(v, str):
            return _pad(verb, v)
        with localcontext() as ctx:
            ctx.prec = 1100
            text = ("-" if numbers.is_negative(v) else "") + _general(abs(v), None, False)
        return _pad(verb, text)
    if mode == "t":
        if isinstance(v, bool):
            return "true" if v else "false"
        if v in ("true", "false"):
            return str(v)
        raise CallError(f"unsupported value for {verb.raw!r}: bool required, got {_kind(v)}")
    if mode in "bdoxXeEfgG":
        return _format_number(verb, v)
    if mode in "sq":
        if not isinstance(v, str | int | float):
            raise CallError(f"unsupported value for {verb.raw!r}: string required, got {_kind(v)}")
        text = want_str(v, 0)
        if verb.prec:
            text = "".join(graphemes(text)[: verb.prec])
        return _pad(verb, _json.encode(text) if mode == "q" else text)
    raise CallError(f"unsupported format verb {mode!r} in {verb.raw!r}")


@lru_cache(maxsize=2048)
def _parse(spec: str) -> tuple[tuple[str | tuple[int, _Verb, int], ...], int]:
    """Split ``spec`` into literal text and (argument index, verb, offset); also how many arguments it uses.

    Which argument each verb consumes depends only on the spec, so a spec used for thousands of
    resources is parsed once.
    """
    parts: list[str | tuple[int, _Verb, int]] = []
    pos = next_arg = used = 0
    while True:
        j = spec.find("%", pos)
        if j < 0:
            parts.append(spec[pos:])
            break
        parts.append(spec[pos:j])
        m = _VERB.match(spec, j)
        assert m is not None
        flags, index, width, prec, mode = m.groups()
        if mode is None:
            raise CallError(f"invalid format string starting at offset {j}")
        pos = m.end()
        if mode == "%" and pos == j + 2:
            parts.append("%")
            continue
        if index is not None:
            next_arg = int(index) - 1
        width_n = int(width) if width else None
        prec_n = int(prec or 0) if prec is not None else None
        if max(width_n or 0, prec_n or 0) > MAX_STRING_LENGTH:
            raise CallError(f"the width or precision of {m.group(0)!r} would build a string longer than "
                            f"{MAX_STRING_LENGTH:,} characters (MAX_STRING_LENGTH)")
        parts.append((next_arg, _Verb(m.group(0), flags, width_n, prec_n, mode), j))
        next_arg += 1
        used = max(used, next_arg)
    return tuple(p for p in parts if p != ""), used


def format_string(spec: str, args: list[Any]) -> str:
    """Render ``spec`` with ``args`` (plain, known values)."""
    parts, used = _parse(spec)
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
            continue
        index, verb, offset = part
        if index >= len(args):
            raise CallError(
                f"not enough arguments for {verb.raw!r} at offset {offset}: need {index + 1}, have {len(args)}"
            )
        out.append(_format_one(verb, args[index]))
    if used < len(args):
        if used == 0:
            raise CallError("too many arguments; no verbs in format string")
        raise CallError(f"too many arguments; only {used} used by format string")
    return "".join(out)


def _format(a: Args, _c: FunctionContext) -> str:
    return format_string(want_str(a[0], 0), a[1:])


def _formatlist(a: Args, _c: FunctionContext) -> object:
    if isinstance(a[0], Unknown):
        return a[0]
    spec = want_str(a[0], 0)
    rest = a[1:]
    length = -1
    chooser = -1
    for i, v in enumerate(rest):
        if isinstance(v, Unknown):
            return v
        if isinstance(v, list):
            if length == -1:
                length, chooser = len(v), i
            elif len(v) != length:
                raise ArgError(
                    i + 1,
                    f"argument {i + 2} has length {len(v)}, which is inconsistent with argument {chooser + 2} of length {length}",
                )
    if length == -1:
        length = 1
    out: list[Any] = []
    for n in range(length):
        row = [v[n] if isinstance(v, list) else v for v in rest]
        if any(contains_unknown(x) for x in row):
            out.append(Unknown("string"))
            continue
        try:
            out.append(format_string(spec, row))
        except CallError as exc:
            raise CallError(f"error on format iteration {n}: {exc.message}") from exc
    return out


FUNCTIONS = {
    "format": fn(_format, "format", variadic="args"),
    "formatlist": fn(returns_list(_formatlist, STRING), "format", variadic="args", unknown_ok=True),
}
