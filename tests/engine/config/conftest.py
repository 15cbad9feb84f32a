"""Fixtures of the configuration loader's tests."""

from __future__ import annotations

import pytest

import engine.config.loader as loader
from engine.lang.syntax import Body


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files this process actually parsed (the rest came from the parse cache)."""
    parsed: list[str] = []
    real = loader.parse_hcl_file

    def counting(src: bytes, filename: str) -> Body:
        parsed.append(filename)
        return real(src, filename)

    monkeypatch.setattr(loader, "parse_hcl_file", counting)
    return parsed
