"""A large directory is parsed on two cores: a helper process takes the files from the end.

These run the real helper process on a configuration past ``MIN_BYTES`` of uncached HCL, and check
what a user would notice: the same configuration, the same errors at the same places, and nothing
lost when the helper dies.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import engine.config.parse_ahead as parse_ahead
from engine.config.cache_writer import wait_for_writers
from engine.config.loader import config_files, load_config
from engine.config.parse_ahead import MIN_BYTES, ParseAhead, Unit
from engine.config.parse_cache import CACHE_DIR, ParseCache

FILES = 30
PER_FILE = 250


def _resource(i: int) -> str:
    previous = f"\n    previous = terraform_data.r{i - 1:05d}.output.name" if i % 10 == 9 else ""
    return (f'resource "terraform_data" "r{i:05d}" {{\n  input = {{\n    name  = "${{local.prefix}}-{i}"\n'
            f'    tags  = {{ team = var.team, idx = "{i}" }}\n    ports = [80, 443]{previous}\n  }}\n}}\n\n')


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "main.tf").write_text('variable "team" {\n  default = "a"\n}\n\nlocals {\n  prefix = "r"\n}\n')
    for f in range(FILES):
        text = "".join(_resource(f * PER_FILE + i) for i in range(PER_FILE))
        (tmp_path / f"r{f:03d}.tf").write_text(text)
    assert sum(p.stat().st_size for p in tmp_path.glob("r*.tf")) > MIN_BYTES  # large enough for a helper
    return tmp_path


def _shape(root: Path, monkeypatch: pytest.MonkeyPatch, cache: str) -> list[tuple[str, str, str]]:
    monkeypatch.setenv("CTL_PARSE_CACHE", cache)
    module, diags = load_config(root)
    assert not diags.has_errors, diags.items
    return [(addr, str(res.rng), repr(res.body.attributes["input"].expr)) for addr, res in module.resources.items()]


def test_the_helper_parses_from_the_end_and_writes_what_it_parsed_to_the_cache(root: Path) -> None:
    cache = ParseCache(root)
    files = [(p, p.name, p.read_bytes(), None) for p in config_files(root)]
    helper = ParseAhead.start(cache, files)
    assert helper is not None
    assert helper.process.wait(timeout=120) == 0  # never claimed from: it does every file, last first
    assert len(list((root / CACHE_DIR).glob("*.json"))) == FILES + 1


def test_a_file_the_helper_has_finished_is_in_the_cache_when_it_is_handed_over(root: Path) -> None:
    """Both sides name entries by the parser's sources as this load read them (``ParseCache.key``),
    so every file the helper finished is found where this process looks, never parsed twice."""
    cache = ParseCache(root)
    files = [(p, p.name, p.read_bytes(), None) for p in config_files(root)]
    helper = ParseAhead.start(cache, files)
    assert helper is not None
    handed: list[int] = []
    deadline = time.monotonic() + 120
    while not helper.done and time.monotonic() < deadline:
        for index in helper.finished():  # what this process would read back while the helper goes on
            _, display, src, _ = files[index]
            name = cache.entry(src, display)
            assert name is not None and cache.holds(name), f"{display} handed over before it was written"
            handed.append(index)
        time.sleep(0.005)
    assert handed == list(reversed(range(len(files))))  # every file, the last first, each once


def test_a_helper_that_names_entries_otherwise_starts_no_file(root: Path) -> None:
    """ctl's parser sources changed between this process's start and the helper's (an upgrade, or
    a test session while they are edited): the helper's entries would be under names this process
    never looks up, so it writes none, and no file is handed over as if it were cached."""
    cache = ParseCache(root)
    assert cache.key is not None
    cache.key = bytes(len(cache.key))  # what this process read of the sources, unlike the helper's
    files = [(p, p.name, p.read_bytes(), None) for p in config_files(root)]
    helper = ParseAhead.start(cache, files)
    assert helper is not None
    assert helper.process.wait(timeout=120) == 0
    assert helper.finished() == [] and helper.done
    assert not (root / CACHE_DIR).exists()


def test_a_large_directory_loads_as_it_does_without_the_helper(
    root: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_helper = _shape(root, monkeypatch, "1")
    assert parses[0] == "main.tf"  # this process starts from the first file (the helper from the last)
    wait_for_writers()  # this process's own entries are written by a child while the command goes on
    assert len(list((root / CACHE_DIR).glob("*.json"))) == FILES + 1  # every file cached, by one side or the other
    parsed = len(parses)
    assert _shape(root, monkeypatch, "1") == with_helper and len(parses) == parsed  # all read back
    assert with_helper == _shape(root, monkeypatch, "0")  # the same resources, positions and expressions
    assert len(with_helper) == FILES * PER_FILE


def test_a_syntax_error_in_a_file_the_helper_takes_is_reported_where_it_is(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    last = root / f"r{FILES - 1:03d}.tf"
    text = last.read_text()
    last.write_text(text + 'resource "terraform_data" "broken" {\n  input = [1, 2\n}\n')
    _, diags = load_config(root)
    errors = [(d.summary, str(d.range)) for d in diags.items if d.severity == "error"]
    assert errors == [('Invalid syntax: missing "]"', f"{last.name}:{text.count(chr(10)) + 3}:1")]
    monkeypatch.setenv("CTL_PARSE_CACHE", "0")
    _, alone = load_config(root)
    assert errors == [(d.summary, str(d.range)) for d in alone.items if d.severity == "error"]


def test_a_helper_that_dies_loses_nothing(
    root: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_start = ParseAhead.start

    def start_then_kill(cache: ParseCache, files: list[Unit]) -> ParseAhead | None:
        helper = real_start(cache, files)
        assert helper is not None
        helper.process.kill()  # as if it crashed before writing anything
        return helper

    monkeypatch.setattr(parse_ahead.ParseAhead, "start", staticmethod(start_then_kill))
    module, diags = load_config(root)
    assert not diags.has_errors and len(module.resources) == FILES * PER_FILE
    assert len(parses) == FILES + 1  # this process parsed every file itself
