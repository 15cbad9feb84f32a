"""A configuration laid out as code generators write it: one large ``main.tf``, read like many files.

The file is parsed in parts (``engine.lang.file_parts``), on both cores and through the parse cache
as separate files are; every position stays the file's own. The sizes here are just over what one
part holds, so each test is quick: the speed and memory of large files are measured in
``bench/scale.py``.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

import engine.config.loader as loader
from engine.config.loader import load_config
from engine.config.parse_cache import CACHE_DIR, PIECE_BLOCKS
from engine.lang.file_parts import PART_BYTES
from engine.lang.hcl import Part, hcl_parts
from engine.lang.syntax import BlockSchema, Body
from tests.e2e.helpers import Project
from vocab.limits import MAX_NESTING, raise_recursion_limit

MakeConfig = Callable[[dict[str, str]], Path]


def _resource(i: int) -> str:
    return (f'resource "terraform_data" "r{i:05}" {{\n  input = {{\n    name = "${{var.prefix}}-{i}"\n'
            f'    tags = {{ idx = "{i}", team = "platform" }}\n    ports = [80, 443]\n  }}\n}}\n\n')


HEADER = 'variable "prefix" {\n  default = "p"\n}\n\n'


def _main(n: int, literal_bytes: int = 0) -> str:
    literal = ""
    if literal_bytes:
        literal = 'locals {\n  doc = <<EOT\n' + ("x" * 99 + "\n") * (literal_bytes // 100) + "EOT\n}\n\n"
    return HEADER + literal + "".join(_resource(i) for i in range(n))


@pytest.fixture
def part_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The start of every part this process parsed (the rest came from the parse cache or a helper)."""
    parsed: list[int] = []
    real = loader.parse_hcl_part

    def counting(src: bytes, filename: str, part: Part) -> Body:
        parsed.append(part.start)
        return real(src, filename, part)

    monkeypatch.setattr(loader, "parse_hcl_part", counting)
    return parsed


def test_a_file_over_the_old_4_mib_limit_is_read_whole(make_config: MakeConfig) -> None:
    text = _main(1500, literal_bytes=4 * 1024 * 1024)
    assert len(text) > 4 * 1024 * 1024 + 200_000
    root = make_config({"main.tf": text})
    module, diags = load_config(root)
    assert not diags.has_errors, [str(d) for d in diags]
    assert len(module.resources) == 1500
    assert module.locals["doc"].expr.value == ("x" * 99 + "\n") * (4 * 1024 * 1024 // 100)
    last = module.resources["terraform_data.r01499"]
    line = text[: text.index('"r01499"')].count("\n") + 1
    assert str(last.rng) == f"main.tf:{line}:1"


def test_a_large_file_is_parsed_in_parts_and_read_back_from_the_cache(
    make_config: MakeConfig, part_parses: list[int]
) -> None:
    text = _main(3000)
    root = make_config({"main.tf": text})
    parts = hcl_parts(text.encode())
    assert parts is not None and len(parts) >= 2 and len(text) > 1.5 * PART_BYTES
    first, diags = load_config(root)
    assert not diags.has_errors
    assert len(first.resources) == 3000
    assert len(list((root / CACHE_DIR).iterdir())) == len(parts)
    part_parses.clear()
    second, _ = load_config(root)
    assert part_parses == []  # every part came from the cache
    assert second.resources.keys() == first.resources.keys()
    assert str(second.resources["terraform_data.r02999"].rng) == str(
        first.resources["terraform_data.r02999"].rng)
    (root / "main.tf").write_text(text + _resource(3000))  # only the last part changes
    third, _ = load_config(root)
    assert len(third.resources) == 3001
    assert part_parses == [parts[-1].start]


def test_an_error_in_the_second_half_of_a_large_file_names_its_line_and_column(make_config: MakeConfig) -> None:
    lines = _main(900, literal_bytes=4 * 1024 * 1024).split("\n")  # over 4 MiB: never read whole
    target = [i for i, line in enumerate(lines) if line.startswith("    name")][-5]
    lines[target] = "    name = )"
    root = make_config({"main.tf": "\n".join(lines)})
    _, diags = load_config(root)
    errors = diags.errors()
    assert [str(d.range) for d in errors] == [f"main.tf:{target + 1}:12"], [str(d) for d in errors]
    assert 'unexpected ")"' in errors[0].summary


def test_an_expression_nested_too_deeply_late_in_a_large_file_is_one_positioned_error(
    make_config: MakeConfig,
) -> None:
    raise_recursion_limit()  # as the command line does
    text = _main(2000)
    line = text.count("\n") + 2
    deep = "locals {\n  a = " + "[" * 100_000 + "]" * 100_000 + "\n}\n"
    root = make_config({"main.tf": text + deep})
    _, diags = load_config(root)
    errors = diags.errors()
    assert len(errors) == 1 and "nested too deeply" in errors[0].summary
    assert str(errors[0].range) == f"main.tf:{line}:{7 + MAX_NESTING}"


def test_unbalanced_braces_in_a_large_file_end_in_the_parsers_error(make_config: MakeConfig) -> None:
    text = _main(2000)
    line = text.count("\n") + 1
    braces = 80 * MAX_NESTING  # far past any nesting the parser follows, yet a quick file to read
    root = make_config({"main.tf": text + 'resource "terraform_data" "open" {\n' + "{" * braces})
    _, diags = load_config(root)
    errors = diags.errors()
    assert errors and all(d.range is not None and d.range.start.line >= line for d in errors), [str(d) for d in errors]


def test_a_huge_count_late_in_a_large_file_is_refused_at_its_line(tmp_path: Path) -> None:
    """Through the real ``ctl``: the file is parsed in parts, and the count is refused where it is."""
    text = _main(2000)
    line = text.count("\n") + 2
    project = Project(tmp_path)
    project.write(text + 'resource "terraform_data" "x" {\n  count = 1000000000\n}\n')
    result = project.ctl("validate", "-no-color", timeout=300)
    assert result.code == 1, str(result)
    assert f"main.tf:{line}:11: Too many instances for count" in result.stderr, result.stderr[-2000:]
    assert "Traceback" not in result.stderr


# ---- JSON and YAML specs, as cdktf and other generators write them --------------------------


def _main_json(n: int, text_bytes: int = 0) -> str:
    """``n`` resources as one ``main.tf.json``, each with ``text_bytes`` of description."""
    resources = {
        f"r{i:05}": {"input": {"name": f"${{var.prefix}}-{i}", "tags": {"idx": f"{i}", "team": "platform"},
                               "ports": [80, 443], **({"text": "d" * text_bytes} if text_bytes else {})}}
        for i in range(n)
    }
    return json.dumps({"variable": {"prefix": {"default": "p"}}, "resource": {"terraform_data": resources}},
                      indent=2) + "\n"


def _main_yaml(n: int, text_bytes: int = 0) -> str:
    """The same resources as ``_main_json``, as one ``main.tf.yaml``."""
    out = ["variable:", "  prefix:", "    default: p", "resource:", "  terraform_data:"]
    for i in range(n):
        out += [f"    r{i:05}:", "      input:", f'        name: "${{var.prefix}}-{i}"',
                f'        tags: {{idx: "{i}", team: platform}}', "        ports: [80, 443]"]
        if text_bytes:
            out.append("        text: " + "d" * text_bytes)
    return "\n".join(out) + "\n"


def _count_parses(monkeypatch: pytest.MonkeyPatch, parser: str) -> list[str]:
    """The files the loader's ``parser`` parsed in this process (the rest came from the parse cache)."""
    parsed: list[str] = []
    real = getattr(loader, parser)

    def counting(src: bytes, filename: str, schema: BlockSchema) -> Body:
        parsed.append(filename)
        parsed_body: Body = real(src, filename, schema)
        return parsed_body

    monkeypatch.setattr(loader, parser, counting)
    return parsed


@pytest.fixture
def json_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ``.tf.json`` files this process parsed."""
    return _count_parses(monkeypatch, "parse_json_file")


def test_a_large_tf_json_is_read_back_from_the_parse_cache(make_config: MakeConfig, json_parses: list[str]) -> None:
    text = _main_json(3000)
    root = make_config({"main.tf.json": text})
    first, diags = load_config(root)
    assert not diags.has_errors, [str(d) for d in diags]
    assert len(first.resources) == 3000 and json_parses == ["main.tf.json"]
    pieces = -(-3001 // PIECE_BLOCKS)  # the resources and the variable, a piece at a time
    assert pieces >= 2 and len(list((root / CACHE_DIR).iterdir())) == 1 + pieces  # and the file's entry
    second, diags = load_config(root)
    assert not diags.has_errors
    assert json_parses == ["main.tf.json"]  # not parsed again
    assert second.resources.keys() == first.resources.keys()
    last, again = first.resources["terraform_data.r02999"], second.resources["terraform_data.r02999"]
    line = text[: text.index('"r02999"')].count("\n") + 1
    assert str(last.rng) == str(again.rng) == f"main.tf.json:{line}:7"
    assert again.body.attributes["input"].expr == last.body.attributes["input"].expr
    (root / "main.tf.json").write_text(_main_json(3001))  # edited: parsed again
    third, _ = load_config(root)
    assert len(third.resources) == 3001 and json_parses == ["main.tf.json"] * 2


@pytest.fixture
def yaml_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ``.tf.yaml`` files this process parsed."""
    return _count_parses(monkeypatch, "parse_yaml_file")


def test_a_large_tf_yaml_is_read_back_from_the_parse_cache(make_config: MakeConfig, yaml_parses: list[str]) -> None:
    text = _main_yaml(3000) + "locals:\n  ratio: 0.25\n  doc: |\n    line one ${var.prefix}\n    line two\n"
    root = make_config({"main.tf.yaml": text})
    first, diags = load_config(root)
    assert not diags.has_errors, [str(d) for d in diags]
    assert len(first.resources) == 3000 and yaml_parses == ["main.tf.yaml"]
    pieces = -(-3002 // PIECE_BLOCKS)  # the resources, the variable and the locals, a piece at a time
    assert pieces >= 2 and len(list((root / CACHE_DIR).iterdir())) == 1 + pieces  # and the file's entry
    second, diags = load_config(root)
    assert not diags.has_errors
    assert yaml_parses == ["main.tf.yaml"]  # not parsed again: every piece, the float's too, came back
    assert second.resources.keys() == first.resources.keys()
    last, again = first.resources["terraform_data.r02999"], second.resources["terraform_data.r02999"]
    line = text[: text.index("r02999:")].count("\n") + 1
    assert str(last.rng) == str(again.rng) == f"main.tf.yaml:{line}:5"
    assert again.body.attributes["input"].expr == last.body.attributes["input"].expr
    assert second.locals["ratio"].expr.value == 0.25
    assert second.locals["doc"].expr == first.locals["doc"].expr  # a block scalar's template, positions included
    (root / "main.tf.yaml").write_text(_main_yaml(3001))  # edited: parsed again
    third, _ = load_config(root)
    assert len(third.resources) == 3001 and yaml_parses == ["main.tf.yaml"] * 2


def test_a_damaged_piece_of_a_cached_tf_yaml_is_never_trusted(make_config: MakeConfig, yaml_parses: list[str]) -> None:
    """Each way an entry can be damaged: the file is parsed again, every resource and position
    its own, and the entry is rewritten as it was."""
    text = _main_yaml(2500)
    root = make_config({"main.tf.yaml": text})
    load_config(root)
    folder = root / CACHE_DIR
    good = {path.name: path.read_bytes() for path in folder.iterdir()}
    (stem,) = [name[: -len(".json")] for name in good if "-" not in name]
    first, last = folder / f"{stem}-0.json", folder / f"{stem}-{len(good) - 2}.json"
    line = text[: text.index("r02499:")].count("\n") + 1

    def flipped(data: bytes) -> bytes:  # one digit changed: a range moved, the checksum is of the original
        at = data.index(b"-", 8) + 1
        return data[:at] + (b"1" if data[at:at + 1] != b"1" else b"2") + data[at + 1:]

    damages: list[Callable[[], object]] = [
        lambda: first.write_bytes(flipped(good[first.name])),
        lambda: last.write_bytes(good[last.name][:-100]),  # cut short
        lambda: last.unlink(),  # a piece gone
        lambda: (folder / f"{stem}.json").write_bytes(b"00000000{}"),  # the file's entry unreadable
        lambda: first.write_bytes(b"%08x" % zlib.crc32(b'[2, {"not": "a body"}]') + b'[2, {"not": "a body"}]'),
    ]
    for damage in damages:
        damage()
        module, diags = load_config(root)
        assert not diags.has_errors and len(module.resources) == 2500
        assert str(module.resources["terraform_data.r02499"].rng) == f"main.tf.yaml:{line}:5"
        assert {path.name: path.read_bytes() for path in folder.iterdir()} == good  # rewritten whole
    assert yaml_parses == ["main.tf.yaml"] * (len(damages) + 1)


@pytest.mark.parametrize(("name", "make"), [("main.tf.json", _main_json), ("main.tf.yaml", _main_yaml)])
def test_a_spec_over_4_mib_validates_and_plans_every_resource(
    tmp_path: Path, name: str, make: Callable[[int, int], str]
) -> None:
    """Through the real ``ctl``: one generated JSON or YAML file of several megabytes."""
    text = make(2000, 2100)
    assert len(text) > 4 * 1024 * 1024
    project = Project(tmp_path)
    project.write(text, name)
    validated = project.ctl("validate", "-no-color", timeout=300)
    assert validated.code == 0, str(validated)
    planned = project.ctl("plan", "-no-color", timeout=300)
    assert planned.code == 0, str(planned)
    assert "Plan: 2000 to add, 0 to change, 0 to destroy." in planned.stdout, planned.stdout[-2000:]
