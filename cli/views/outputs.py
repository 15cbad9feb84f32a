"""Outputs as Terraform prints them after apply and in ``ctl output``: ``name = value`` in HCL."""

from __future__ import annotations

import json
from typing import Any


def render_outputs(state: Any, *, show_sensitive: bool = False) -> str:
    """``name = value`` lines, as Terraform prints them after apply."""
    lines = []
    width = max((len(n) for n in state.outputs), default=0)
    for name, o in sorted(state.outputs.items()):
        text = "<sensitive>" if o.sensitive and not show_sensitive else hcl_value(o.value)
        lines.append(f"{name.ljust(width)} = {text}")
    return "\n".join(lines) + "\n"


def hcl_value(value: Any, indent: int = 0) -> str:
    """One value in HCL's literal syntax, nested collections indented as Terraform prints them."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        width = max(len(str(k)) for k in value)
        inner = "\n".join(f"{pad}  {_key(k).ljust(width)} = {hcl_value(v, indent + 1)}" for k, v in value.items())
        return "{\n" + inner + f"\n{pad}}}"
    if isinstance(value, list):
        if not value:
            return "[]"
        inner = "\n".join(f"{pad}  {hcl_value(v, indent + 1)}," for v in value)
        return "[\n" + inner + f"\n{pad}]"
    return json.dumps(value)


def _key(k: str) -> str:
    return k if k.replace("_", "a").replace("-", "a").isalnum() and not k[:1].isdigit() else json.dumps(k)
