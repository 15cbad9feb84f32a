"""Adopting drift into a ``.tf.json`` file: each value found at its characters, replaced in place.

Python's JSON reader gives values, not where they are written, so this reader walks the text once
and keeps, for every value, the span of characters it occupies. An edit replaces one span with the
new value as JSON; the keys, their order and the whitespace around them stay as written. A string
that holds a template sequence (``${``, ``%{``) is an expression in Terraform's JSON syntax, never
a literal to overwrite.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


@dataclass
class Node:
    """A JSON value and where it is: ``[start:end)`` of the text; members or items when a container."""

    start: int
    end: int
    value: Any
    members: dict[str, Node] = field(default_factory=dict)
    items: list[Node] = field(default_factory=list)
    kind: str = "scalar"  # "object" | "array" | "scalar"
    # What YAML also says of a node (engine.drift.yaml_edit): written unquoted, a flow mapping, and
    # the column of the key that holds it, so an edit keeps the file's style.
    plain: bool = False
    flow: bool = False
    key_column: int = 0


def parse(text: str) -> Node:
    node, i = _value(text, _skip(text, 0))
    if _skip(text, i) != len(text):
        raise ValueError("text after the JSON value")
    return node


def _skip(text: str, i: int) -> int:
    m = _WS.match(text, i)
    return m.end() if m else i


def _value(text: str, i: int) -> tuple[Node, int]:
    ch = text[i:i + 1]
    if ch == "{":
        node = Node(i, i, None, kind="object")
        i = _skip(text, i + 1)
        if text[i:i + 1] == "}":
            node.end, node.value = i + 1, {}
            return node, i + 1
        while True:
            m = _STRING.match(text, i)
            if not m:
                raise ValueError(f"a key expected at character {i}")
            key = json.loads(m.group())
            i = _skip(text, m.end())
            if text[i:i + 1] != ":":
                raise ValueError(f'":" expected at character {i}')
            child, i = _value(text, _skip(text, i + 1))
            node.members[key] = child
            i = _skip(text, i)
            if text[i:i + 1] == ",":
                i = _skip(text, i + 1)
                continue
            if text[i:i + 1] == "}":
                node.end = i + 1
                node.value = {k: v.value for k, v in node.members.items()}
                return node, i + 1
            raise ValueError(f'"," or "}}" expected at character {i}')
    if ch == "[":
        node = Node(i, i, None, kind="array")
        i = _skip(text, i + 1)
        if text[i:i + 1] == "]":
            node.end, node.value = i + 1, []
            return node, i + 1
        while True:
            child, i = _value(text, i)
            node.items.append(child)
            i = _skip(text, i)
            if text[i:i + 1] == ",":
                i = _skip(text, i + 1)
                continue
            if text[i:i + 1] == "]":
                node.end = i + 1
                node.value = [c.value for c in node.items]
                return node, i + 1
            raise ValueError(f'"," or "]" expected at character {i}')
    m = _STRING.match(text, i) if ch == '"' else _NUMBER.match(text, i)
    if m:
        return Node(i, m.end(), json.loads(m.group())), m.end()
    for word, value in (("true", True), ("false", False), ("null", None)):
        if text.startswith(word, i):
            return Node(i, i + len(word), value), i + len(word)
    raise ValueError(f"a value expected at character {i}")


def resource_bodies(doc: Node, rtype: str, name: str) -> list[Node]:
    """The argument objects of ``resource "rtype" "name"`` in a ``.tf.json`` document (either the
    object form or the array-of-objects form Terraform accepts at each level)."""
    found: list[Node] = []
    for res in _each_object(doc.members.get("resource")):
        for by_type in _each_object(res.members.get(rtype)):
            for body in _each_object(by_type.members.get(name)):
                found.append(body)
    return found


def _each_object(node: Node | None) -> list[Node]:
    if node is None:
        return []
    if node.kind == "object":
        return [node]
    return [n for n in node.items if n.kind == "object"] if node.kind == "array" else []


def is_template(value: Any) -> bool:
    """Whether a JSON value holds an expression (a template sequence inside a string, at any depth)."""
    if isinstance(value, str):
        return "${" in value.replace("$${", "") or "%{" in value.replace("%%{", "")
    if isinstance(value, list):
        return any(is_template(v) for v in value)
    if isinstance(value, dict):
        return any(is_template(v) for v in value.values())
    return False


def member_line(text: str, node: Node) -> int:
    return text.count("\n", 0, node.start) + 1


def insertion(text: str, obj: Node, key: str, value: Any) -> tuple[int, str]:
    """Where and what to insert to add ``"key": value`` as the last member of ``obj``: on a line of
    its own, indented as the member before it, when the object spans lines; else after it."""
    entry = f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
    if not obj.members:
        return obj.start + 1, entry
    last = list(obj.members.values())[-1]
    if "\n" not in text[obj.start:obj.end]:
        return last.end, f", {entry}"
    line_start = text.rfind("\n", 0, last.start) + 1
    line = text[line_start:]
    indent = line[:len(line) - len(line.lstrip(" \t"))]
    return last.end, f",\n{indent}{entry}"
