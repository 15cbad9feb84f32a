"""The ``snippet`` of a JSON diagnostic: the lines shown, the highlight in them, the block around it.

The e2e test (tests/e2e/test_e2e_diagnostic_snippets_vs_oracles.py) holds them against Terraform
and OpenTofu; these are the edges a configuration rarely reaches.
"""

from __future__ import annotations

from engine.lang.snippets import json_snippet
from vocab.errors import Diagnostic
from vocab.positions import SourceRange, SourceText

SRC = b'resource "a_b" "x\\"y" {\n  v = f(\n\n    1)\n}\n'


def _range(filename: str, start: int, end: int) -> SourceRange:
    return SourceRange.in_text(SourceText(filename, SRC), start, end)


def test_the_context_lines_are_shown_but_an_empty_one() -> None:
    call = SRC.index(b"f(")
    d = Diagnostic("error", "x", range=_range("main.tf", call, call + 2),
                   context=_range("main.tf", call, SRC.index(b"1)") + 2))
    snippet = json_snippet(d, SRC)
    assert snippet == {"context": 'resource "a_b" "x\\"y"', "code": "  v = f(\n    1)", "start_line": 2,
                       "highlight_start_offset": 6, "highlight_end_offset": 8, "values": []}


def test_an_empty_range_highlights_the_byte_after_it() -> None:
    at = SRC.index(b"1)")
    snippet = json_snippet(Diagnostic("error", "x", range=_range("main.tf", at, at)), SRC)
    assert (snippet["code"], snippet["highlight_start_offset"], snippet["highlight_end_offset"]) == ("    1)", 4, 5)


def test_a_file_that_is_not_hcl_native_syntax_has_no_context() -> None:
    snippet = json_snippet(Diagnostic("error", "x", range=_range("main.tf.json", 0, 8)), SRC)
    assert snippet["context"] is None
    assert snippet["code"] == 'resource "a_b" "x\\"y" {'
