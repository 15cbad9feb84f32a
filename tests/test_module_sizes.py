"""Module sizes of the product packages: no module grows past what one reader can hold.

A module that does several things grows until nobody can hold it in their head, so none may pass a
ceiling; below it, modules are cut at real seams, never to reach a size. The measure is the one
``wc -l`` gives (newline characters) over the packages ctl ships, generated protocol code left out.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("cli", "engine", "adapters", "backends", "policies", "vocab")
MAX_LINES = 500


def _module_sizes() -> dict[str, int]:
    sizes: dict[str, int] = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            if "__pycache__" in path.parts or "_pb2" in path.name:
                continue
            sizes[str(path.relative_to(REPO))] = path.read_bytes().count(b"\n")
    return sizes


def _largest(sizes: dict[str, int], n: int = 10) -> str:
    ranked = sorted(sizes.items(), key=lambda item: (-item[1], item[0]))[:n]
    return ", ".join(f"{name} ({lines})" for name, lines in ranked)


def test_no_module_is_over_the_limit() -> None:
    sizes = _module_sizes()
    too_long = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert not too_long, (
        f"modules over {MAX_LINES} lines: {_largest(too_long, len(too_long))}; split them along their seams"
    )
