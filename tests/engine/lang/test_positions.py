"""Ranges as syntax nodes keep them: one packed int per range of a parsed file."""

from __future__ import annotations

import sys

import orjson

from engine.lang.hcl import parse_hcl_file
from engine.lang.syntax_codec import decode_body, encode_body
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


def test_a_range_of_a_file_under_256_mib_is_an_int_of_two_digits() -> None:
    """Millions of ranges in a large configuration: each one 32 bytes, not the 48 of a third digit."""
    src = b"# padding\n" * 1_000_000 + b'locals {\n  a = "x"\n}\n'  # ten megabytes in
    attr = parse_hcl_file(src, "big.tf").blocks[0].body.attributes["a"]
    assert type(attr.expr._rng) is int and sys.getsizeof(attr.expr._rng) <= 32
    assert str(attr.expr.rng) == "big.tf:1000002:7" and attr.expr.rng.byte_span() == (10_000_015, 10_000_018)


def test_a_range_longer_than_the_packed_length_is_kept_whole_and_comes_back_through_the_cache() -> None:
    text = "x" * 70_000
    src = f'locals {{\n  long = "{text}"\n}}\n'.encode()
    body = parse_hcl_file(src, "long.tf")
    attr = body.blocks[0].body.attributes["long"]
    assert attr.expr.rng.byte_span() == (18, 18 + 70_002) and str(attr.rng) == "long.tf:2:3"
    assert attr.rng.end.column == 70_012
    data = orjson.loads(orjson.dumps(encode_body(body, "long.tf")))
    assert decode_body(data, SourceText("long.tf", src)) == body


def test_an_objects_literal_keys_are_kept_as_names_and_still_read_as_nodes_with_their_ranges() -> None:
    src = b'locals {\n  o = { name = 1, "quoted" = 2, (var.k) = 3 }\n}\n'
    obj = parse_hcl_file(src, "keys.tf").blocks[0].body.attributes["o"].expr
    names = [item.name for item in obj.items]
    assert names == ["name", "quoted", None]
    assert [str(item.key.rng) for item in obj.items] == ["keys.tf:2:9", "keys.tf:2:19", "keys.tf:2:33"]
    assert obj.items[0].key.value == "name" and type(obj.items[2].key).__name__ == "Parens"
