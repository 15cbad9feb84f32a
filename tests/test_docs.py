"""The user docs cannot drift from the code: the CLI reference is generated, the function list and
the README's command table are checked against the application."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import click
import typer

from cli.main import typer_app
from engine.lang.functions import function_names

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_reference", DOCS / "gen_cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _section(markdown: str, heading: str) -> str:
    """The text under a ``## heading`` up to the next heading of the same level."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", markdown, re.S | re.M)
    assert match, f"no '## {heading}' section"
    return match.group(1)


def _top_level_commands() -> list[str]:
    group = typer.main.get_command(typer_app)
    assert isinstance(group, click.Group)
    ctx = click.Context(group, info_name="ctl")
    return [name for name in group.list_commands(ctx) if not group.get_command(ctx, name).hidden]


def test_cli_reference_is_current() -> None:
    current = (DOCS / "cli.md").read_text()
    assert current == _generator().render(), "docs/cli.md is stale: run `make docs`"


def test_cli_reference_covers_every_command() -> None:
    text = (DOCS / "cli.md").read_text()
    for name in _top_level_commands():
        assert f"\n## ctl {name}\n" in text


def test_configuration_doc_lists_exactly_the_functions_there_are() -> None:
    functions = _section((DOCS / "configuration.md").read_text(), "Functions")
    documented = re.findall(r"^\| `([a-z0-9]+)\(", functions, re.M)
    # `range(end)`, `range(start, end, step)` share a row; list each name once
    assert len(documented) == len(set(documented)), "a function is documented twice"
    missing = sorted(function_names() - set(documented))
    unknown = sorted(set(documented) - function_names())
    assert not missing, f"functions missing from docs/configuration.md: {missing}"
    assert not unknown, f"docs/configuration.md names functions that do not exist: {unknown}"


def test_readme_command_table_mentions_every_command() -> None:
    table = _section((REPO / "README.md").read_text(), "Commands")
    listed = set(re.findall(r"^\| `ctl ([a-z][a-z-]*)", table, re.M))
    missing = [name for name in _top_level_commands() if name not in listed]
    assert not missing, f"README's command table lacks: {missing}"


def test_docs_link_to_files_that_exist() -> None:
    for page in DOCS.glob("*.md"):
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text()):
            assert (page.parent / target).resolve().exists(), f"{page.name} links to missing {target}"
