"""Time functions: formatdate plantimestamp timeadd timecmp timestamp.

Timestamps are RFC 3339 strings. ``timestamp()`` is unknown during plan (its value is the moment
of apply), so a plan never shows a time that apply would then contradict; ``plantimestamp()`` is
the single time recorded for the whole plan. Results drop fractional seconds and keep the input's
UTC offset, as Terraform's do.
"""

from __future__ import annotations

import datetime as _dt
import re
from decimal import Decimal

from engine.lang.functions._args import want_str
from engine.lang.functions._core import ArgError, Args, FunctionContext, fn
from vocab.values import UNKNOWN

# Terraform's and OpenTofu's parser: the introducer "T" and the zone "Z" are capitals only.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:(Z)|([+-])(\d{2}):(\d{2}))"
)
_DURATION_PART = re.compile(r"(\d*\.?\d*)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_NS = {
    "ns": 1,
    "us": 1000,
    "µs": 1000,
    "μs": 1000,
    "ms": 10**6,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"]  # fmt: skip
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def parse_rfc3339(text: str, i: int) -> _dt.datetime:
    """An RFC 3339 timestamp with its offset; anything else is an argument error.

    A leap second (``23:59:60``) is refused, as both references refuse it: their clocks have none.
    """
    m = _RFC3339.fullmatch(text)
    if m is None:
        raise ArgError(i, f'"{text}" is not a valid RFC 3339 timestamp, like "2006-01-02T15:04:05Z" '
                          '(with a capital "T" and "Z")')
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if second == 60:
        raise ArgError(i, f'"{text}" is not a valid RFC 3339 timestamp: cannot use a leap second')
    micro = int((m.group(7)[1:] + "000000")[:6]) if m.group(7) else 0
    if m.group(8):
        tz = _dt.UTC
    else:
        offset = _dt.timedelta(hours=int(m.group(10)), minutes=int(m.group(11)))
        tz = _dt.timezone(-offset if m.group(9) == "-" else offset)
    try:
        return _dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    except ValueError as exc:
        raise ArgError(i, f'"{text}" is not a valid RFC 3339 timestamp: {exc}') from exc


def _offset(t: _dt.datetime, colon: bool) -> str:
    delta = t.utcoffset() or _dt.timedelta(0)
    minutes = int(delta.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hh, mm = divmod(abs(minutes), 60)
    return f"{sign}{hh:02d}:{mm:02d}" if colon else f"{sign}{hh:02d}{mm:02d}"


def format_rfc3339(t: _dt.datetime) -> str:
    """``2006-01-02T15:04:05Z`` (UTC) or ``…+01:00``; fractional seconds are dropped."""
    zone = "Z" if t.utcoffset() == _dt.timedelta(0) else _offset(t, True)
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}{zone}"


def _is_utc(t: _dt.datetime) -> bool:
    return t.utcoffset() == _dt.timedelta(0)


def _token(t: _dt.datetime, tok: str) -> str | None:
    """The text for one run of identical letters in a formatdate spec, or None if unsupported."""
    h12 = t.hour % 12 or 12
    table = {
        "YYYY": f"{t.year:04d}", "YY": f"{t.year % 100:02d}",
        "MMMM": _MONTHS[t.month - 1], "MMM": _MONTHS[t.month - 1][:3], "MM": f"{t.month:02d}", "M": str(t.month),
        "DD": f"{t.day:02d}", "D": str(t.day),
        "EEEE": _DAYS[t.weekday()], "EEE": _DAYS[t.weekday()][:3],
        "hh": f"{t.hour:02d}", "h": str(t.hour), "HH": f"{h12:02d}", "H": str(h12),
        "AA": "AM" if t.hour < 12 else "PM", "aa": "am" if t.hour < 12 else "pm",
        "mm": f"{t.minute:02d}", "m": str(t.minute), "ss": f"{t.second:02d}", "s": str(t.second),
        "ZZZZZ": _offset(t, True), "ZZZZ": _offset(t, False),
        "ZZZ": "UTC" if _is_utc(t) else _offset(t, False), "Z": "Z" if _is_utc(t) else _offset(t, True),
    }  # fmt: skip
    return table.get(tok)


def format_date(spec: str, t: _dt.datetime) -> str:
    """Render ``t`` with formatdate's specification language."""
    out: list[str] = []
    i, n = 0, len(spec)
    while i < n:
        c = spec[i]
        if c == "'":
            if spec.startswith("''", i):
                out.append("'")
                i += 2
                continue
            j = i + 1
            literal: list[str] = []
            while True:
                if j >= n:
                    raise ArgError(0, "unterminated literal in format specification; close it with '")
                if spec[j] == "'":
                    if spec.startswith("''", j):
                        literal.append("'")
                        j += 2
                        continue
                    break
                literal.append(spec[j])
                j += 1
            out.append("".join(literal))
            i = j + 1
            continue
        if c.isalpha():
            j = i
            while j < n and spec[j] == c:
                j += 1
            text = _token(t, spec[i:j])
            if text is None:
                raise ArgError(
                    0, f'invalid date format verb "{spec[i:j]}"; quote letters to include them literally'
                )
            out.append(text)
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def parse_duration(text: str, i: int) -> int:
    """A Go-style duration (``1h30m``, ``-10m``, ``1.5h``) in nanoseconds."""
    body, sign = text, 1
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return 0
    if not body:
        raise ArgError(i, f'invalid duration "{text}"')
    total = Decimal(0)
    pos = 0
    while pos < len(body):
        m = _DURATION_PART.match(body, pos)
        if m is None or m.group(1) in ("", "."):
            raise ArgError(i, f'invalid duration "{text}"; use a number and unit such as "1h30m" or "-10m"')
        total += Decimal(m.group(1)) * _UNIT_NS[m.group(2)]
        pos = m.end()
    return sign * int(total)


def _formatdate(a: Args, _c: FunctionContext) -> str:
    spec = want_str(a[0], 0)
    return format_date(spec, parse_rfc3339(want_str(a[1], 1), 1))


def _timeadd(a: Args, _c: FunctionContext) -> str:
    t = parse_rfc3339(want_str(a[0], 0), 0)
    nanos = parse_duration(want_str(a[1], 1), 1)
    try:
        return format_rfc3339(t + _dt.timedelta(microseconds=nanos // 1000))
    except OverflowError as exc:
        raise ArgError(1, "the resulting time is out of range") from exc


def _timecmp(a: Args, _c: FunctionContext) -> int:
    x, y = parse_rfc3339(want_str(a[0], 0), 0), parse_rfc3339(want_str(a[1], 1), 1)
    return (x > y) - (x < y)


def _now() -> str:
    return format_rfc3339(_dt.datetime.now(_dt.UTC))


def _timestamp(_a: Args, ctx: FunctionContext) -> object:
    return UNKNOWN if ctx.plan_mode else _now()


def _plantimestamp(_a: Args, ctx: FunctionContext) -> object:
    return ctx.plan_timestamp or UNKNOWN


FUNCTIONS = {
    "formatdate": fn(_formatdate, "format", "time"),
    "plantimestamp": fn(_plantimestamp),
    "timeadd": fn(_timeadd, "timestamp", "duration"),
    "timecmp": fn(_timecmp, "timestamp_a", "timestamp_b"),
    "timestamp": fn(_timestamp),
}
