"""python-hcl2 as an independent oracle: both parsers must see the same structure in every .tf file
of the fixture corpus (block types, labels, start lines, attribute names, nesting)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hcl2
import pytest

from engine.lang.hcl import parse_hcl_file
from engine.lang.syntax import Body
from vocab.errors import DiagnosticsError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS_FILES = sorted(FIXTURES.glob("corpus/**/*.tf"))
META = ("__start_line__", "__end_line__")

Shape = tuple[tuple[str, ...], tuple[Any, ...]]


def ours(body: Body) -> Shape:
    """(attribute names, blocks as (type, labels, start line, shape of body)), both sorted."""
    blocks = tuple(sorted((b.type, tuple(b.labels), b.rng.start.line, ours(b.body)) for b in body.blocks))
    return tuple(sorted(body.attributes)), blocks


def theirs(data: dict[str, Any]) -> Shape:
    """The same shape from python-hcl2's ``with_meta`` output, where a block body carries its lines."""
    attrs: list[str] = []
    blocks: list[Any] = []
    for key, value in data.items():
        if key in META:
            continue
        found = [_block(v) for v in value] if isinstance(value, list) and value else []
        if found and all(f is not None for f in found):
            for labels, body in found:
                blocks.append((key, tuple(labels), body["__start_line__"], theirs(body)))
        else:
            attrs.append(key)
    return tuple(sorted(attrs)), tuple(sorted(blocks))


def _block(value: Any, labels: tuple[str, ...] = ()) -> tuple[tuple[str, ...], dict[str, Any]] | None:
    """A block is a body dict with line markers, wrapped in one single-key dict per label."""
    if not isinstance(value, dict):
        return None
    if "__start_line__" in value:
        return labels, value
    if len(value) == 1:
        (key, inner), = value.items()
        return _block(inner, (*labels, key))
    return None


def test_the_corpus_has_files_to_compare() -> None:
    assert len(CORPUS_FILES) >= 12


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: str(p.relative_to(FIXTURES / "corpus")))
def test_same_structure_as_python_hcl2(path: Path) -> None:
    text = path.read_text()
    expected = theirs(hcl2.loads(text, with_meta=True))
    got = ours(parse_hcl_file(text.encode(), path.name))
    assert got == expected


def test_the_oracle_sees_nested_and_dynamic_blocks() -> None:
    # A guard on the comparison itself: it must tell blocks from object-valued attributes.
    src = 'resource "a" "b" {\n  obj = { k = 1 }\n  list = [{ k = 1 }]\n  n {\n    m "l" {}\n  }\n' \
          '  dynamic "d" {\n    for_each = []\n    content {}\n  }\n}\n'
    expected: Shape = ((), (("resource", ("a", "b"), 1, (("list", "obj"), (
        ("dynamic", ("d",), 7, (("for_each",), (("content", (), 9, ((), ())),))),
        ("n", (), 4, ((), (("m", ("l",), 5, ((), ())),))),
    ))),))
    assert theirs(hcl2.loads(src, with_meta=True)) == expected
    assert ours(parse_hcl_file(src.encode(), "main.tf")) == expected


def test_both_parsers_agree_on_the_syntax_error_position() -> None:
    path = FIXTURES / "errors" / "syntax" / "main.tf"
    text = path.read_text()
    with pytest.raises(Exception) as theirs_err:
        hcl2.loads(text)
    with pytest.raises(DiagnosticsError) as ours_err:
        parse_hcl_file(text.encode(), "main.tf")
    where = ours_err.value.diagnostics()[0].range
    assert where is not None
    assert (getattr(theirs_err.value, "line", None), getattr(theirs_err.value, "column", None)) == (
        where.start.line, where.start.column,
    )
