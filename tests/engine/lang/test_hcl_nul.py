"""A NUL byte in a ``.tf`` file, judged as Terraform 1.0.3 judges it, side by side.

Inside a string, a heredoc or a comment it is kept (Terraform accepts it); anywhere else it is
"Invalid character" at the NUL's own line and column, where ctl used to refuse every NUL and name
the start of the block or the file.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from engine.lang.hcl import parse_hcl_file
from tests.e2e.helpers import CTL, clean_env
from tests.plugin.terraform_cli import terraform_executable
from vocab.errors import DiagnosticsError

ACCEPTED = {
    "string": b'locals {\n  a = "x\0y"\n}\n',
    "after_interpolation": b'locals {\n  a = "${"x"}\0"\n}\n',
    "heredoc": b"locals {\n  a = <<EOT\nx\0y\nEOT\n}\n",
    "comment": b"locals {\n  # c\0mment\n  a = 1\n}\n",
    "block_comment": b"/* \0 */\nlocals {\n  a = 1\n}\n",
}
REFUSED = {
    "after_number": b"locals {\n  a = 1\0\n}\n",
    "in_a_name": b"locals {\n  a\0b = 1\n}\n",
}


def _terraform(tmp_path: Path, src: bytes) -> list[tuple[str, int, int]]:
    work = tmp_path / "terraform"
    work.mkdir()
    (work / "main.tf").write_bytes(src)
    done = subprocess.run([str(terraform_executable()), "validate", "-json"], cwd=work, env=clean_env(),
                          capture_output=True, text=True, timeout=60)
    return [(d["summary"], d["range"]["start"]["line"], d["range"]["start"]["column"])
            for d in json.loads(done.stdout)["diagnostics"] if d["severity"] == "error"]


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_nul_inside_text_is_accepted_as_by_terraform(tmp_path: Path, name: str) -> None:
    src = ACCEPTED[name]
    assert _terraform(tmp_path, src) == []
    parse_hcl_file(src, "main.tf")
    work = tmp_path / "ctl"
    work.mkdir()
    (work / "main.tf").write_bytes(src)
    done = subprocess.run([CTL, "validate"], cwd=work, env=clean_env(), capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr


def test_nul_in_a_string_keeps_its_value() -> None:
    body = parse_hcl_file(ACCEPTED["string"], "main.tf")
    assert body.blocks[0].body.attributes["a"].expr.value == "x\0y"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_stray_nul_is_an_invalid_character_where_terraform_says(tmp_path: Path, name: str) -> None:
    src = REFUSED[name]
    summary, line, column = _terraform(tmp_path, src)[0]
    with pytest.raises(DiagnosticsError) as caught:
        parse_hcl_file(src, "main.tf")
    first = caught.value.diagnostics()[0]
    assert first.range is not None
    assert (first.summary, first.range.start.line, first.range.start.column) == (summary, line, column)
