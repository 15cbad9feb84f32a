"""The parse cache: a second load reads unchanged files from ``.ctl/cache/parse``, and never a stale one."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.main import run
from engine.config.loader import load_config
from engine.config.parse_cache import CACHE_DIR

MakeConfig = Callable[[dict[str, str]], Path]

MAIN = 'locals {\n  greeting = "hello"\n}\n\noutput "o" {\n  value = local.greeting\n}\n'


def entries(root: Path) -> list[str]:
    folder = root / CACHE_DIR
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_an_unchanged_file_is_read_from_the_cache_and_gives_the_same_module(
    make_config: MakeConfig, parses: list[str]
) -> None:
    root = make_config({"main.tf": MAIN, "other.tf": 'variable "v" {\n  default = 1\n}\n'})
    first, _ = load_config(root)
    assert parses == ["main.tf", "other.tf"] and len(entries(root)) == 2
    second, diags = load_config(root)
    assert parses == ["main.tf", "other.tf"]  # nothing parsed the second time
    assert not diags.has_errors
    assert second.outputs["o"].expr == first.outputs["o"].expr  # the same tree, positions included
    assert str(second.outputs["o"].expr.rng) == "main.tf:6:11"


def test_an_edited_file_is_parsed_again_and_its_errors_point_at_the_new_text(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": MAIN})
    assert run(["-C", str(root), "validate"]) == 0
    (root / "main.tf").write_text(MAIN.replace("local.greeting", "local.greting"))
    assert run(["-C", str(root), "validate", "--json"]) == 1
    _, diags = load_config(root)
    assert diags.has_errors is False  # loading is fine; the reference is what is wrong
    module, _ = load_config(root)
    assert str(module.outputs["o"].expr.rng) == "main.tf:6:11"
    assert module.outputs["o"].expr.steps[0].name == "greting"


def test_a_damaged_entry_is_parsed_afresh_and_rewritten(make_config: MakeConfig, parses: list[str]) -> None:
    root = make_config({"main.tf": MAIN})
    load_config(root)
    (entry,) = entries(root)
    good = (root / CACHE_DIR / entry).read_bytes()
    moved = re.sub(rb"-(\d+)", lambda m: b"-" + str(int(m.group(1)) + (1 << 32)).encode(), good[8:], count=1)
    damages = [b"\x00garbage", b'[2, {"not": "a body"}]', b"[" * 5000, b"",
               good[:8] + moved,  # a range moved: it looks fine, but the checksum is of the original
               good[:-1],  # cut short
               *[b"%08x" % zlib.crc32(data) + data for data in (b'[2, {"not": "a body"}]', b"[" * 5000)]]
    for damage in damages:
        (root / CACHE_DIR / entry).write_bytes(damage)
        module, diags = load_config(root)
        assert not diags.has_errors and str(module.outputs["o"].expr.rng) == "main.tf:6:11"
        assert (root / CACHE_DIR / entry).read_bytes() == good
    assert parses == ["main.tf"] * (len(damages) + 1)


def test_a_cache_that_cannot_be_written_is_simply_not_used(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": MAIN})
    (root / ".ctl").write_text("a file where the data directory would be")
    for _ in range(2):
        module, diags = load_config(root)
        assert not diags.has_errors and str(module.outputs["o"].expr.rng) == "main.tf:6:11"
    assert (root / ".ctl").is_file()


def test_the_cache_can_be_turned_off(make_config: MakeConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_config({"main.tf": MAIN})
    monkeypatch.setenv("CTL_PARSE_CACHE", "0")
    assert run(["-C", str(root), "validate"]) == 0
    assert not (root / ".ctl").exists()


def test_files_with_errors_are_reported_every_time(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": 'locals {\n  a = 1\n  a = 2\n}\n', "broken.tf": "locals {\n  b = \n"})
    for _ in range(2):
        _, diags = load_config(root)
        summaries = sorted(f"{d.range}: {d.summary}" for d in diags.items if d.severity == "error")
        assert len(summaries) == 2 and any(s.startswith("main.tf:3:") for s in summaries)
        assert any(s.startswith("broken.tf:") for s in summaries)
    assert entries(root) == []  # neither file is in the cache


def test_local_modules_share_the_roots_cache(make_config: MakeConfig, parses: list[str]) -> None:
    root = make_config({
        "main.tf": 'module "m" {\n  source = "./m"\n}\n',
        "m/main.tf": 'output "x" {\n  value = 1\n}\n',
    })
    load_config(root)
    load_config(root)
    assert parses == ["main.tf", "m/main.tf"]
    assert not (root / "m" / ".ctl").exists()


def test_old_entries_are_removed_once_they_outnumber_the_used_ones(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": MAIN})
    for i in range(40):  # forty edits, each leaving an entry behind
        (root / "main.tf").write_text(MAIN.replace("hello", f"hello {i}"))
        load_config(root)
    assert len(entries(root)) <= 2 + 32 + 1
    (root / "main.tf").write_text(MAIN)
    load_config(root)
    load_config(root)
    assert len(entries(root)) <= 2 * 1 + 32 + 1


def test_without_the_parsers_own_sources_nothing_is_cached(
    make_config: MakeConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installation without its .py files cannot key an entry by the parser's code: it parses."""
    import engine.config.parse_cache as parse_cache

    def unreadable() -> bytes:
        raise FileNotFoundError("hcl.py")

    monkeypatch.setattr(parse_cache, "_fingerprint_of_sources", unreadable)  # read again by each load
    root = make_config({"main.tf": MAIN})
    for _ in range(2):
        module, diags = load_config(root)
        assert not diags.has_errors and str(module.outputs["o"].expr.rng) == "main.tf:6:11"
    assert entries(root) == []
