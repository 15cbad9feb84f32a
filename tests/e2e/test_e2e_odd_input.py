"""Odd bytes and numbers in configuration files end in one positioned error, never a traceback.

(``1e400`` is a number, as in Terraform and OpenTofu; past 10^4300 ctl holds none.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import Project

BIG = "9" * 5000

CASES = [
    # (file name, content, "file:line:col", words the message must contain)
    ("main.tf.json", b'{"locals": {"a": 1e5000}}', "main.tf.json:1:18", "beyond what ctl holds"),
    ("main.tf.json", b'{"locals": {"a": NaN}}', "main.tf.json:1:18", "NaN is not a JSON number"),
    ("main.tf.json", b'{"locals": {"a": -Infinity}}', "main.tf.json:1:18", "-Infinity"),
    ("main.tf.json", b'{"locals": {"a": ' + BIG.encode() + b"}}", "main.tf.json:1:18", "5000 digits"),
    ("main.tf.json", b'{"locals": {"a": "${}"}}', "main.tf.json:1:19", "missing an expression"),
    ("main.tf.json", b'{"locals": {"a": "\xff\xfe"}}', "main.tf.json:1:19", "Invalid UTF-8"),
    ("main.tf.json", b'{"locals": {"a": "\\ud800"}}', "main.tf.json:1:", "Unicode"),
    ("main.tf.yaml", b"locals:\n  a: .inf\n", "main.tf.yaml:2:6", "infinity"),
    ("main.tf.yaml", b"locals:\n  a: .nan\n", "main.tf.yaml:2:6", "not-a-number"),
    ("main.tf.yaml", b"locals:\n  a: 1e5000\n", "main.tf.yaml:2:6", "beyond what ctl holds"),
    ("main.tf.yaml", b"locals:\n  a: " + BIG.encode() + b"\n", "main.tf.yaml:2:6", "MAX_NUMBER_DIGITS"),
    ("main.tf.yaml", b'locals:\n  a: "x\x01y"\n', "main.tf.yaml:2:8", "U+0001 is not allowed"),
    ("main.tf.yaml", b"locals:\n  a: caf\xe9\n", "main.tf.yaml:2:9", "Invalid UTF-8"),
    ("main.tf", b'locals {\n  a = "${}"\n}\n', "main.tf:2:8", "missing an expression"),
    ("main.tf", b'locals {\n  a = "x${ }y"\n}\n', "main.tf:2:9", "missing an expression"),
    ("main.tf", b"locals {\n  a = " + BIG.encode() + b"\n}\n", "main.tf:2:7", "5000 digits"),
    ("main.tf", b"locals {\n  a = 1.5e5000\n}\n", "main.tf:2:7", "beyond what ctl holds"),
    ("main.tf", b'locals {\n  a = "x\\ud800"\n}\n', "main.tf:2:9", "surrogate"),
    ("main.tf", b'locals {\n  a = "\\U00110000"\n}\n', "main.tf:2:8", "beyond the last Unicode"),
    ("main.tf", b'locals {\n  a = "x\xffy"\n}\n', "main.tf:2:9", "Invalid UTF-8"),
]


@pytest.mark.parametrize(("name", "content", "where", "words"), CASES, ids=[f"{c[0]}-{i}" for i, c in
                                                                         enumerate(CASES)])
@pytest.mark.parametrize("command", ["validate", "plan"])
def test_odd_input_is_a_positioned_error(tmp_path: Path, name: str, content: bytes, where: str, words: str,
                                         command: str) -> None:
    project = Project(tmp_path)
    project.path(name).write_bytes(content)
    res = project.ctl(command)
    assert res.code == 1, res
    assert "Traceback" not in res.output and "internal error" not in res.output, res
    assert f"Error: {where}" in res.stderr, res
    assert words in res.stderr, res


@pytest.mark.parametrize("path", ["/", ".", "sub/.."])
def test_a_local_backend_path_that_is_a_directory_is_refused(tmp_path: Path, path: str) -> None:
    project = Project(tmp_path)
    (tmp_path / "sub").mkdir()
    project.write(f'terraform {{\n  backend "local" {{\n    path = "{path}"\n  }}\n}}\n')
    result = project.ctl("init")
    assert result.code == 1, result
    assert "must name a state file, not a directory" in result.stderr
    assert "internal error" not in result.output
