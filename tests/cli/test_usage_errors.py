"""Usage errors through the real executable: one suggestion, user text printed as typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import Project


@pytest.mark.parametrize(("args", "suggestion", "usage"), [
    (["plna"], "Did you mean 'plan'?", "ctl --help"),
    (["state", "lsit"], "Did you mean 'list'?", "ctl state --help"),
    (["workspace", "slect"], "Did you mean 'select'?", "ctl workspace --help"),
    (["policy", "chek"], "Did you mean 'check'?", "ctl policy --help"),
])
def test_a_mistyped_command_gets_one_suggestion(tmp_path: Path, args: list[str], suggestion: str,
                                                usage: str) -> None:
    result = Project(tmp_path).ctl(*args)
    assert result.code == 64, result
    assert result.stderr.count(suggestion) == 1, result
    assert f"Run '{usage}' for usage." in result.stderr


def test_user_text_in_a_usage_error_is_not_read_as_markup(tmp_path: Path) -> None:
    result = Project(tmp_path).ctl("plan", "--bo[bold]gus")
    assert result.code == 64, result
    assert "No such option '--bo[bold]gus'" in result.stderr, result
