"""Adopting drift into a ``.tf.yaml`` file: the YAML reader's own marks say where each value is.

YAML keeps, for every node it composes, the characters it spans; those become the same ``Node``
tree ``json_edit`` builds for JSON, so the two share the adoption rules. Only scalars are written:
a plain scalar stays plain when the new value reads back the same way, else it is written as a
double-quoted (JSON) string; a key reality added goes on a line of its own in a block mapping.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from engine.drift.json_edit import Node

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str) -> Node:
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc).splitlines()[0]) from None
    if root is None:
        raise ValueError("an empty document")
    return _node(root)


def _node(n: yaml.Node) -> Node:
    start, end = n.start_mark.index, n.end_mark.index
    if isinstance(n, yaml.MappingNode):
        out = Node(start, end, None, kind="object")
        out.flow = bool(n.flow_style)
        for key, value in n.value:
            child = _node(value)
            child.key_column = key.start_mark.column
            out.members[str(key.value)] = child
        out.value = {k: v.value for k, v in out.members.items()}
        return out
    if isinstance(n, yaml.SequenceNode):
        out = Node(start, end, None, kind="array")
        out.items = [_node(v) for v in n.value]
        out.value = [c.value for c in out.items]
        return out
    value = yaml.load(yaml.serialize(n), Loader=_Loader)  # the scalar as YAML resolves it
    node = Node(start, end, value)
    node.plain = not n.style  # None or "", as the two readers give it
    return node


def yaml_literal(node: Node | None, value: Any) -> str:
    """``value`` as a YAML scalar: plain when the node was plain and it reads back the same."""
    if isinstance(value, str) and node is not None and node.plain and value and \
            "\n" not in value and value.strip() == value:
        try:
            if yaml.load(value, Loader=_Loader) == value and not any(c in value for c in ":#{}[],&*!|>'\"%@`"):
                return value
        except yaml.YAMLError:
            pass
    return json.dumps(value, ensure_ascii=False)


def yaml_insertion(text: str, obj: Node, key: str, value: Any) -> tuple[int, str]:
    """Where and what to insert to add ``key: value`` as the last member of a mapping."""
    entry_value = json.dumps(value, ensure_ascii=False)
    key_text = json.dumps(key) if not key.replace("_", "").replace("-", "").isalnum() else key
    if not obj.members:
        return obj.start + 1, f"{key_text}: {entry_value}"
    last = list(obj.members.values())[-1]
    if obj.flow:
        return last.end, f", {key_text}: {entry_value}"
    column = last.key_column
    end = last.end
    while end > 0 and text[end - 1] in " \t\r\n":  # a block value's span may end past its line
        end -= 1
    return end, f"\n{' ' * column}{key_text}: {entry_value}"
