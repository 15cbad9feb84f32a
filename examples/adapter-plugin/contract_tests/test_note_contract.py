"""The shared adapter contract, run against ``example_note`` (run with ctl's checkout on PYTHONPATH)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctl_example_note import PROVIDER

from tests.adapters.contract import ResourceContract


class TestNoteContract(ResourceContract):
    provider = PROVIDER
    type_name = "example_note"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [{"filename": "note.txt", "text": "hello"}, {"filename": "sub/dir/other.md", "text": ""}]
