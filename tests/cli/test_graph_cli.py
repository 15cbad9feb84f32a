"""``ctl graph``: the instance graph as DOT and Mermaid."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.main import run

MakeConfig = Callable[[dict[str, str]], Path]
CTL = Path(sys.executable).parent / "ctl"

CONFIG = {
    "main.tf": """
        variable "n" {
          default = 2
        }
        locals {
          prefix = "app"
        }
        resource "terraform_data" "a" {
          input = local.prefix
        }
        resource "terraform_data" "b" {
          count = var.n
          input = terraform_data.a.output
        }
        module "m" {
          source   = "./m"
          for_each = toset(["x"])
          name     = each.key
        }
        output "out" {
          value = module.m["x"].id
        }
    """,
    "m/main.tf": """
        variable "name" {}
        resource "terraform_data" "t" {
          input = var.name
        }
        output "id" {
          value = terraform_data.t.id
        }
    """,
}


def graph(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> tuple[int, str, str]:
    code = run(["-C", str(root), "graph", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def dot_edges(text: str) -> set[tuple[str, str]]:
    return {(a.replace('\\"', '"'), b.replace('\\"', '"'))
            for a, b in re.findall(r'^  "((?:[^"\\]|\\.)*)" -> "((?:[^"\\]|\\.)*)"$', text, re.M)}


def dot_nodes(text: str) -> dict[str, str]:
    return {name.replace('\\"', '"'): shape
            for name, shape in re.findall(r'^  "((?:[^"\\]|\\.)*)" \[label=".*", shape="(\w+)"\]$', text, re.M)}


def test_dot_output(make_config: MakeConfig, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = graph(capsys, make_config(CONFIG))
    assert (code, err) == (0, "")
    assert out.startswith("digraph {\n") and out.endswith("}\n")
    assert dot_nodes(out) == {
        "var.n": "ellipse",
        "local.prefix": "note",
        "terraform_data.a": "box",
        "terraform_data.b[0]": "box",
        "terraform_data.b[1]": "box",
        "module.m (expand)": "folder",
        "module.m (close)": "folder",
        'module.m["x"].var.name': "ellipse",
        'module.m["x"].terraform_data.t': "box",
        'module.m["x"].output.id': "ellipse",
        "output.out": "ellipse",
    }
    assert dot_edges(out) == {
        ("terraform_data.a", "local.prefix"),
        ("terraform_data.b[0]", "terraform_data.a"),
        ("terraform_data.b[1]", "terraform_data.a"),
        ("terraform_data.b[0]", "var.n"),
        ("terraform_data.b[1]", "var.n"),
        ('module.m["x"].var.name', "module.m (expand)"),
        ('module.m["x"].terraform_data.t', 'module.m["x"].var.name'),
        ('module.m["x"].output.id', 'module.m["x"].terraform_data.t'),
        ('module.m["x"].terraform_data.t', "module.m (expand)"),  # everything in an instance waits for it
        ('module.m["x"].output.id', "module.m (expand)"),
        ("module.m (close)", "module.m (expand)"),
        ("module.m (close)", 'module.m["x"].output.id'),
        ("output.out", 'module.m["x"].output.id'),  # module.m["x"].id waits for that output only
    }


def test_mermaid_output(make_config: MakeConfig, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = graph(capsys, make_config(CONFIG), "--format", "mermaid")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "flowchart RL"
    ids: dict[str, str] = {}
    for node_id, label in re.findall(r'^  (n\d+)[\[(]"(.*)"[\])]$', out, re.M):
        ids[node_id] = label.replace("#quot;", '"')
    assert sorted(ids.values()) == sorted([
        "var.n", "local.prefix", "terraform_data.a", "terraform_data.b[0]", "terraform_data.b[1]",
        "module.m (expand)", "module.m (close)", 'module.m["x"].var.name', 'module.m["x"].terraform_data.t',
        'module.m["x"].output.id', "output.out",
    ])
    assert '  n7["terraform_data.a"]' in lines  # resources are boxes
    assert '  n0("local.prefix")' in lines  # everything else is rounded
    edges = {(ids[a], ids[b]) for a, b in re.findall(r"^  (n\d+) --> (n\d+)$", out, re.M)}
    assert ("terraform_data.b[1]", "terraform_data.a") in edges
    assert ("output.out", 'module.m["x"].output.id') in edges
    assert len(edges) == 13


def test_variables_change_the_instances(make_config: MakeConfig, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = graph(capsys, make_config(CONFIG), "--var", "n=3")
    assert "terraform_data.b[2]" in dot_nodes(out)


def test_an_invalid_configuration_prints_no_graph(make_config: MakeConfig, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_config({"main.tf": "locals {\n  a = local.b\n  b = local.a\n}\n"})
    code, out, err = graph(capsys, root)
    assert (code, out) == (1, "")
    assert "Error: main.tf:2:7: Cycle: local.a -> local.b -> local.a" in err
    assert "Traceback" not in err


def test_the_ctl_executable_prints_a_graph(make_config: MakeConfig) -> None:
    root = make_config(CONFIG)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_VAR_", "CTL_VAR_"))}
    proc = subprocess.run([str(CTL), "-C", str(root), "graph", "--format", "mermaid"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("flowchart RL\n")
    assert '["terraform_data.b[1]"]' in proc.stdout
    dot = subprocess.run([str(CTL), "--chdir", str(root), "graph"], capture_output=True, text=True, env=env,
                         timeout=60)
    assert dot.returncode == 0, dot.stderr
    assert ("terraform_data.b[0]", "terraform_data.a") in dot_edges(dot.stdout)
