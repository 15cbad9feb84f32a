"""Ranges as syntax nodes keep them: one packed int per range of a parsed file."""

from __future__ import annotations

from engine.lang.hcl import parse_hcl_file
from vocab.positions import SourceRange, SourceText, as_range, packed_in

SRC = b'locals {\n  greeting = "h\xc3\xa9llo ${var.name}"\n}\n'


def test_a_parsed_files_nodes_keep_packed_ranges_that_print_their_line_and_column() -> None:
    body = parse_hcl_file(SRC, "main.tf")
    attr = body.blocks[0].body.attributes["greeting"]
    assert type(attr._rng) is int and type(attr.expr._rng) is int
    assert str(attr.rng) == "main.tf:2:3"
    assert str(attr.expr.rng) == "main.tf:2:14"
    assert attr.expr.rng.end.column == 33  # counted in characters, not bytes: "é" is two bytes
    assert attr.expr.rng == SourceRange.of("main.tf", 2, 14, 22, 2, 33, 42)


def test_the_same_file_parsed_again_names_the_same_text_so_the_register_does_not_grow() -> None:
    first, again = SourceText("same.tf", b"a = 1\n"), SourceText("same.tf", b"a = 1\n")
    assert first.index == again.index
    assert SourceText("same.tf", b"a = 2\n").index != first.index
    assert SourceText("other.tf", b"a = 1\n").index != first.index
    assert parse_hcl_file(b"a = 1\n", "same.tf").attributes["a"] == parse_hcl_file(b"a = 1\n", "same.tf").attributes["a"]


def test_a_packed_range_is_never_zero_and_comes_back_as_the_range_it_packed() -> None:
    text = SourceText("empty.tf", b"")
    packed = packed_in(text, 0, 0)
    assert packed != 0
    rng = as_range(packed)
    assert (str(rng), rng.byte_span(), rng.located()) == ("empty.tf:1:1", (0, 0), packed)
    by_hand = SourceRange.of("x.yaml", 1, 2, 1, 1, 5, 4)
    assert as_range(by_hand) is by_hand and by_hand.located() is by_hand
