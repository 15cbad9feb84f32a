"""Adopting drift into a resource written in Terraform's JSON syntax (``.tf.json``) or as YAML
(``.tf.yaml``, the same structure).

The same rules as for native syntax (``engine.drift.adopt``): a literal is replaced where it is
written, a map key reality added is added, a value that is an expression (a string with a template
sequence) is left alone with a note of where it is and what reality has.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.config.model import Module
from engine.drift.detect import MASK, AttributeDrift, ObjectDrift
from engine.drift.edits import Edit, Note, computed_only, display, raw, shown, variable_sources
from engine.drift.json_edit import Node, insertion, is_template, member_line, parse, resource_bodies
from engine.plan.model import ResourceChange

_VAR = re.compile(r"^\$\{\s*var\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}$")


class _Syntax:
    """How one structured syntax is read, and how a value and a new key are written in it."""

    def __init__(self, yaml_file: bool) -> None:
        if yaml_file:
            from engine.drift.yaml_edit import parse_yaml, yaml_insertion, yaml_literal

            self.parse: Callable[[str], Node] = parse_yaml
            self.insertion: Callable[[str, Node, str, Any], tuple[int, str]] = yaml_insertion
            self.literal: Callable[[Node | None, Any], str] = yaml_literal
        else:
            self.parse, self.insertion = parse, insertion
            self.literal = lambda _node, value: json.dumps(value, ensure_ascii=False)


def adopt_json(root_dir: Path, module: Module, file: Path, change: ResourceChange, obj: ObjectDrift,
               allow_sensitive: bool, rt: Any) -> tuple[list[Edit], list[Note]]:
    text = file.read_text(encoding="utf-8")
    where = display(file, root_dir)
    syntax = _Syntax(not file.name.endswith(".tf.json"))
    try:
        bodies = resource_bodies(syntax.parse(text), change.type, change.name)
    except ValueError as exc:
        return [], [Note(obj.address, "", f"its file {where} could not be read: {exc}")]
    if len(bodies) != 1:
        return [], [Note(obj.address, "", f"its block in {where} could not be found")]
    edits: list[Edit] = []
    notes: list[Note] = []
    for a in obj.attributes:
        if a.sensitive and not allow_sensitive:
            notes.append(Note(obj.address, a.name, "is sensitive: not written into a file "
                              "(--allow-sensitive writes it; or set it from a variable)"))
            continue
        found = _one(syntax, root_dir, module, file, text, bodies[0], change, a, rt)
        if isinstance(found, Edit):
            edits.append(found)
        else:
            notes.append(found)
    return edits, notes


def _one(syntax: _Syntax, root_dir: Path, module: Module, file: Path, text: str, body: Node, change: ResourceChange,
         a: AttributeDrift, rt: Any) -> Edit | Note:
    where = display(file, root_dir)
    after = raw(change.after, a.path)
    node, rest = body, list(a.path)
    while rest:
        part = rest[0]
        if node.kind == "object" and isinstance(part, str):
            child = node.members.get(part)
            if child is None:
                if node is body and computed_only(rt, part):
                    return Note(change.address, a.name, "is computed by the provider: nothing to write", remains=False)
                if node is body and part in getattr(rt, "computed", frozenset()):
                    return Note(change.address, a.name, "is not set in the configuration and the provider "
                                "computes it: the plan keeps what it reads", remains=False)
                if len(rest) == 1 and after is not None:
                    at, entry = syntax.insertion(text, node, part, after)
                    return _edit(file, at, at, entry, change, a, member_line(text, node), json.dumps(after))
                return Note(change.address, a.name, f"is not set in {where}; reality has {shown(a)}")
            node, rest = child, rest[1:]
        elif node.kind == "array" and isinstance(part, int) and part < len(node.items):
            node, rest = node.items[part], rest[1:]
        elif node.kind == "object" and part == 0:  # one nested block written as an object
            rest = rest[1:]
        else:
            break
    line = member_line(text, node)
    if rest or is_template(node.value):
        m = _VAR.match(node.value) if isinstance(node.value, str) else None
        if m:
            return Note(change.address, a.name, f"comes from var.{m.group(1)} "
                        f"({variable_sources(module, root_dir, m.group(1))}); reality has {shown(a)}")
        return Note(change.address, a.name, f"is set by the expression at {where}:{line}; reality has {shown(a)}")
    if after is None:
        return Note(change.address, a.name, f"was removed outside ctl; remove it at {where}:{line}")
    value_text = syntax.literal(node, after)
    return _edit(file, node.start, node.end, value_text, change, a, line, value_text)


def _edit(file: Path, start: int, end: int, text: str, change: ResourceChange, a: AttributeDrift, line: int,
          value_text: str) -> Edit:
    masked = text.replace(value_text, json.dumps(MASK)) if a.sensitive else text
    return Edit(file, start, end, text, change.address, a.name, line, MASK if a.sensitive else value_text,
                a.sensitive, masked)
