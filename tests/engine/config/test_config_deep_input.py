"""Configurations and states built to exhaust the reader: one positioned error each, quickly.

A ``.tf.json`` nested 100,000 levels deep used to end in a ``RecursionError`` traceback, a
billion-laughs ``.tf.yaml`` ran for minutes growing to gigabytes, and a state whose output is
100,000 arrays deep crashed every command that read it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.e2e.helpers import Project

DEEP = 100_000


def _laughs_yaml() -> str:
    lines = ['  a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"  a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    return "locals:\n" + "\n".join(lines) + "\n"


def test_tf_json_nested_100000_deep_is_one_positioned_error(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('{"locals": {"a": ' + "[" * DEEP + "]" * DEEP + "}}", "main.tf.json")
    result = project.ctl("validate", "-no-color", timeout=60)
    assert result.code == 1, str(result)
    assert "main.tf.json:1:" in result.stderr and "nested too deeply" in result.stderr, str(result)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_billion_laughs_tf_yaml_stops_at_the_alias_budget(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(_laughs_yaml(), "main.tf.yaml")
    started = time.monotonic()
    result = project.ctl("validate", "-no-color", timeout=60)
    assert time.monotonic() - started < 30
    assert result.code == 1, str(result)
    assert "main.tf.yaml:" in result.stderr and "MAX_ALIAS_EXPANSION" in result.stderr, str(result)


def test_state_with_an_output_100000_arrays_deep_is_refused_clearly(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write('output "x" { value = 1 }\n')
    state = {"version": 4, "terraform_version": "1.0.3", "serial": 1,
             "lineage": "4b2f9c1e-1c8a-4a2e-9d3a-0f0b5c7e2a11", "outputs": {}, "resources": []}
    text = json.dumps(state).replace('"outputs": {}', '"outputs": {"o": {"value": '
                                     + "[" * DEEP + "]" * DEEP + ', "type": "dynamic"}}')
    project.state_file.write_text(text)
    result = project.ctl("output", "-no-color", timeout=60)
    assert result.code == 1, str(result)
    assert "nested too deeply" in result.stderr, str(result)
    assert "internal error" not in result.stderr
    assert project.state_file.read_text() == text  # never overwritten
