"""Hypothesis strategies that damage valid inputs the ways real files get damaged.

A fuzz input starts from one of the seed files (``tests/fuzz/seeds``) and goes through a few
mutations: bytes flipped, inserted or deleted, a chunk duplicated or dropped, a line cut short,
another seed spliced in, hostile fragments (deep nesting, huge numbers, control characters,
invalid UTF-8) dropped at random places. Structured inputs keep most of their shape, so the
parsers get past their first byte and the deeper code is reached.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

SEEDS = Path(__file__).resolve().parent / "seeds"

# Fragments that broke parsers and evaluators before, or plausibly could.
HOSTILE = [
    b"(" * 400, b"[" * 400, b"{" * 300, b"\x00", b"\xff\xfe", b"\xed\xa0\x80", b"\r", b"\t", b"\x1b[31m",
    b"${", b"%{", b"$${", b"<<EOT\n", b"<<-X\n", b"\nEOT\n", b"\\u", b"\\ud800", b'"', b"'", b"#", b"//", b"/*",
    b"1e400", b"9" * 5000, b"-0", b".inf", b".nan", b"NaN", b"*", b"[*]", b"...", b"=>", b"?", b":",
    b"null", b"true", b"&anchor [*anchor]", b"!!binary", b"---\n", b"\x85", "\u2028".encode(),
    b"\xf0\x9f\x92\xa9", b"e\xcc\x81",
]


def seed(name: str) -> bytes:
    return (SEEDS / name).read_bytes()


def damaged(names: tuple[str, ...]) -> st.SearchStrategy[bytes]:
    """One seed file (of ``names``) after one to six mutations."""
    return damaged_bytes(tuple(seed(name) for name in names))


@st.composite
def damaged_bytes(draw: st.DrawFn, originals: tuple[bytes, ...]) -> bytes:
    """One of ``originals`` (seeds built in memory, e.g. a zip) after one to six mutations."""
    data = bytearray(draw(st.sampled_from(originals)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(("flip", "insert", "delete", "duplicate", "truncate", "hostile", "splice")))
        if kind == "flip" and data:
            data[min(at, len(data) - 1)] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del data[at:at + draw(st.integers(1, 40))]
        elif kind == "duplicate":
            end = min(len(data), at + draw(st.integers(1, 80)))
            data[end:end] = data[at:end]
        elif kind == "truncate":
            del data[at:]
        elif kind == "hostile":
            data[at:at] = draw(st.sampled_from(HOSTILE))
        else:
            other = draw(st.sampled_from(originals))
            start = draw(st.integers(0, len(other)))
            data[at:at] = other[start:start + draw(st.integers(1, 120))]
    return bytes(data)
