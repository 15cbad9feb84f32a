"""A large HCL file parsed in parts: the same tree as read whole, and every position the file's own.

The parts are made small here (a few hundred bytes) so that each boundary case is a part boundary
in a file of a few kilobytes: text that looks like a block inside a heredoc, a block comment or a
multi-line interpolation must never be cut.
"""

from __future__ import annotations

import pytest

from engine.lang.file_parts import scan
from engine.lang.hcl import Part, hcl_parts, join_parts, parse_hcl_file, parse_hcl_part, parse_hcl_whole
from engine.lang.syntax import Body
from engine.lang.syntax_codec import encode_body
from vocab.errors import DiagnosticsError


def _resource(i: int) -> str:
    return (f'resource "terraform_data" "r{i}" {{\n  input = {{\n    name = "${{local.prefix}}-{i}"\n'
            f'    tags = {{ idx = "{i}" }}\n  }}\n}}\n\n')


LOOKALIKES = (
    'locals {\n  doc = <<EOT\nresource "a" "b" {\n}\n\nEOT\n}\n\n'
    'locals {\n  flush = <<-EOT\n    ${local.prefix} {\n\n    }\n    EOT\n}\n\n'
    '/*\nresource "c" "d" {\n}\n\n*/\n'
    '# resource "e" "f" { "\n\n'
    'locals {\n  s = "${join("}", [\n"{",\n])}"\n  t = "a\\"}{\\\\"\n}\n\n'
)


def _text(n: int) -> bytes:
    return ("".join(_resource(i) for i in range(n // 2)) + LOOKALIKES
            + "".join(_resource(i) for i in range(n // 2, n))).encode()


def _parts_body(src: bytes, part_bytes: int, long_literal: int = 1 << 20) -> tuple[list[Part], Body]:
    parts = hcl_parts(src, part_bytes, long_literal)
    assert parts is not None and len(parts) > 1
    return parts, join_parts([parse_hcl_part(src, "main.tf", p) for p in parts], src, "main.tf")


@pytest.mark.parametrize("part_bytes", [64, 200, 1000])
def test_parts_give_the_tree_the_whole_file_gives(part_bytes: int) -> None:
    src = _text(40)
    parts, body = _parts_body(src, part_bytes)
    for part in parts[1:]:
        assert src[part.start - 1 : part.start] == b"\n"  # cut at line starts only
    assert encode_body(body, "main.tf") == encode_body(parse_hcl_whole(src, "main.tf"), "main.tf")
    assert len(body.blocks) == 40 + 3


def test_no_cut_falls_inside_a_heredoc_comment_or_string() -> None:
    src = _text(4)
    inside = []
    for marker in (b'resource "a"', b"    ${local", b'resource "c"', b'"{",', b"])}"):
        inside.append(src.index(marker))
    cuts = scan(src, part_bytes=1).cuts  # a cut wherever one is allowed
    lookalikes = src.index(b"locals {\n  doc")
    allowed = {i + 1 for i, byte in enumerate(src) if byte == 0x0A}
    assert set(cuts[1:-1]) <= allowed
    assert not set(cuts) & set(inside)
    # every top-level block start after a blank line is a cut; nothing between the lookalikes' blocks
    assert lookalikes in cuts
    assert src.index(b"/*") in cuts and src.index(b"# resource") in cuts


def test_an_error_in_a_late_part_is_reported_at_its_line_and_column_in_the_file() -> None:
    lines = _text(60).decode().split("\n")
    target = len(lines) - 20
    assert lines[target].startswith("    name")
    lines[target] = "    name = )"  # a stray parenthesis where the value should be
    src = "\n".join(lines).encode()
    parts = hcl_parts(src, 256)
    assert parts is not None and len(parts) > 10
    late = next(p for p in parts if p.start <= sum(len(x) + 1 for x in lines[:target]) < p.end)
    assert late is not parts[0]
    with pytest.raises(DiagnosticsError) as part_error:
        parse_hcl_part(src, "main.tf", late)
    with pytest.raises(DiagnosticsError) as whole_error:
        parse_hcl_whole(src, "main.tf")
    assert str(part_error.value.range) == str(whole_error.value.range)
    assert str(part_error.value.range) == f"main.tf:{target + 1}:12"
    assert 'unexpected ")"' in str(part_error.value)


def test_a_long_literal_is_read_from_the_file_not_the_parser() -> None:
    text = 'with \\"quotes\\" and \\u00e9 \\\\ ok\\n' * 4000
    plain = "  plain heredoc text\n" * 4000
    escaped = "  an escaped $${not} interpolation\n" * 100
    src = (f'locals {{\n  s = "{text}"\n  h = <<-EOT\n{plain}  EOT\n  e = <<EOT\n{escaped}EOT\n  after = 1\n}}\n').encode()
    found = scan(src, 1 << 20, 1024)
    assert len(found.skipped) == 2  # the one with "$${" is left to the parser, to be safe
    parts = hcl_parts(src, 1 << 20, 1024)
    assert parts is not None
    joined = join_parts([parse_hcl_part(src, "main.tf", p) for p in parts], src, "main.tf")
    assert encode_body(joined, "main.tf") == encode_body(parse_hcl_whole(src, "main.tf"), "main.tf")
    attributes = joined.blocks[0].body.attributes
    assert attributes["h"].expr.value == "plain heredoc text\n" * 4000
    line = src.count(b"\n", 0, src.index(b"  after")) + 1
    assert str(attributes["after"].rng) == f"main.tf:{line}:3"


@pytest.mark.parametrize("literal", [
    '"' + "x\\q" * 40_000 + '"',  # an escape the grammar refuses
    '"' + "x" * 100_000,  # never closed
    "<<EOT\n" + "x\n" * 50_000,  # never closed
])
def test_a_broken_long_literal_is_still_the_parsers_error(literal: str) -> None:
    src = f'locals {{\n  a = {literal}\n}}\n'.encode()
    with pytest.raises(DiagnosticsError) as whole:
        parse_hcl_whole(src, "main.tf")
    with pytest.raises(DiagnosticsError) as parsed:
        parse_hcl_file(src, "main.tf")
    assert str(parsed.value.range) == str(whole.value.range)
