"""The architecture map cannot go stale: every file or folder it names exists.

``docs/architecture.md`` is where a newcomer starts, and the code layout moves (families become
folders, modules are rejoined); a map that names a path no longer there sends the reader nowhere.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAP = REPO / "docs" / "architecture.md"
DECISIONS = REPO / "docs" / "decisions"

# A path as the map writes one, in backticks: ``engine/plan/`` (a folder) or ``engine/plan/planner.py``.
# A pattern (``*``) or a placeholder (``<key>``) names no single path and is not checked.
_PATH = re.compile(r"`([A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*(?:/|\.py|\.md))`")


# Inside a fenced block (the flow diagram) paths are bare words: a folder or module of a package.
_FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_BARE_PATH = re.compile(r"(?<![\w./-])((?:cli|engine|adapters|backends|policies|vocab)/[\w/]*?(?:/|\.py))(?![\w/])")


def named_paths(markdown: str) -> list[str]:
    """Every path ``markdown`` names: backticked ones with a folder in them or a ``.py`` or ``.md``
    ending, and bare folders and modules of the packages inside fenced blocks."""
    named = {p for p in _PATH.findall(markdown) if "/" in p and not p.startswith(".")}  # not .ctl/…
    for block in _FENCED.findall(markdown):
        named.update(_BARE_PATH.findall(block))
    return sorted(named)


def test_the_map_names_paths() -> None:
    paths = named_paths(MAP.read_text(encoding="utf-8"))
    # The stages of a request each name their folder; a map naming almost nothing checks nothing.
    for folder in ("cli/", "engine/plan/", "engine/apply/", "policies/", "backends/", "adapters/plugin/"):
        assert any(p.startswith(folder) for p in paths), f"the map names nothing under {folder}"


def test_every_path_the_map_names_exists() -> None:
    missing = [p for p in named_paths(MAP.read_text(encoding="utf-8")) if not (REPO / p).exists()]
    assert not missing, f"docs/architecture.md names paths that do not exist: {', '.join(missing)}"


def test_the_map_stays_a_map() -> None:
    lines = MAP.read_text(encoding="utf-8").count("\n")
    assert lines <= 250, f"docs/architecture.md has {lines} lines; decisions belong in docs/decisions/"


def test_every_decision_is_in_the_index() -> None:
    index = (DECISIONS / "README.md").read_text(encoding="utf-8")
    files = sorted(p.name for p in DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert files, "no decision files"
    assert not [name for name in files if f"({name})" not in index], "a decision missing from the index"
    numbers = [name[:4] for name in files]
    assert len(numbers) == len(set(numbers)), "two decisions share a number"


def test_the_pattern_finds_folders_and_modules() -> None:
    text = "see `engine/plan/`, `cli/main.py`, `make lint`, `cli/state_*_cmd.py` and `<state>.tflock`"
    assert named_paths(text) == ["cli/main.py", "engine/plan/"]
    diagram = "```\nctl plan   cli/commands/   parse\n  ├─► graph   engine/graph.py, engine/lang/\n```\n"
    assert named_paths(diagram) == ["cli/commands/", "engine/graph.py", "engine/lang/"]


def test_decisions_link_to_files_that_exist() -> None:
    for page in DECISIONS.glob("*.md"):
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).resolve().exists(), f"{page.name} links to missing {target}"
