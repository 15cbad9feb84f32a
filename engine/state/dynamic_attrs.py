"""Attributes a schema types as ``dynamic``, stored in state with their type: ``{"value": …, "type": …}``.

Terraform writes a dynamically typed attribute the way it writes an output, value and type side by
side, because the value alone does not say whether ``["a"]`` is a list, a set or a tuple. In memory
ctl keeps the bare value (what expressions read); the wrapper exists only in the state file. The
type read from a file is kept and written back while the value is unchanged, so a ``tolist()`` input
stays a list; a new value is written with the type a literal of it has (tuples and objects).
"""

from __future__ import annotations

from typing import Any

import orjson

from engine.state.model import output_type

# Resource types whose schema (fixed by Terraform itself) has dynamic top-level attributes.
DYNAMIC_ATTRIBUTES: dict[str, frozenset[str]] = {
    "terraform_data": frozenset({"input", "output", "triggers_replace"}),
}


def unwrap(
    type_name: str, attributes: dict[str, Any], types_seen: dict[bytes, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Bare attribute values, and the wrappers as read (to keep their types on write).

    Two kinds of sharing keep a decoded state small, which is safe because values are never changed
    in place: ``types_seen`` (one dict per decode) makes every equal type description one object,
    and a value an earlier attribute of the same instance holds as well is that object
    (``terraform_data``'s ``output`` is its ``input``). Type descriptions were a large share of the
    objects of each such instance.
    """
    names = DYNAMIC_ATTRIBUTES.get(type_name)
    if not names:
        return attributes, {}
    bare, wrappers = dict(attributes), {}
    values: dict[bytes, Any] = {}
    for name in sorted(names & attributes.keys()):
        raw = attributes[name]
        if isinstance(raw, dict) and raw.keys() == {"value", "type"}:
            value = raw["value"]
            if isinstance(value, dict | list):
                value = _shared(value, values)
            bare[name] = value
            wrappers[name] = {"value": value, "type": _shared(raw["type"], types_seen)}
    return bare, wrappers


def _shared(value: Any, seen: dict[bytes, Any] | None) -> Any:
    """The object in ``seen`` that encodes to the same JSON as ``value`` (compared as text, because
    ``[1] == [True] == [1.0]`` in Python), else ``value``, now in ``seen``."""
    if seen is None:
        return value
    try:
        return seen.setdefault(orjson.dumps(value), value)
    except TypeError:  # not plain JSON, or an integer beyond 64 bits (orjson's errors are TypeErrors)
        return value


def wrap(type_name: str, attributes: dict[str, Any], read: dict[str, Any],
         types_seen: dict[bytes, Any] | None = None) -> dict[str, Any]:
    """Attributes as the state file holds them; ``read`` are the wrappers ``unwrap`` returned.

    A type worked out for a new value is shared through ``types_seen`` (one dict per write): a
    write of 50,000 new instances otherwise built a hundred thousand equal type descriptions
    before encoding any of them. The type read is kept only while the value is the same JSON,
    which Python's ``==`` does not tell (``[1] == [True]``).
    """
    names = DYNAMIC_ATTRIBUTES.get(type_name)
    if not names:
        return attributes
    out = dict(attributes)
    # A new terraform_data's output is its input, and a decoded one's share their value and type
    # (``unwrap``): such attributes get one type worked out and one wrapper, walked once on encoding.
    typed: dict[int, Any] = {}
    made: dict[tuple[int, int], dict[str, Any]] = {}
    for name in names & attributes.keys():
        value = attributes[name]
        if value is None:
            continue
        previous = read.get(name)
        if previous is not None and _same_json(previous["value"], value):
            type_ = previous["type"]
        else:
            type_ = typed.get(id(value))
            if type_ is None:
                type_ = typed[id(value)] = _shared(output_type(value), types_seen)
        wrapper = made.get((id(value), id(type_)))
        if wrapper is None:  # its keys in the order the state file has them
            wrapper = made[id(value), id(type_)] = {"type": type_, "value": value}
        out[name] = wrapper
    return out


def _same_json(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return orjson.dumps(a) == orjson.dumps(b)
    except TypeError:  # an integer beyond 64 bits: Python's comparison, with the numbers' types
        return type(a) is type(b) and a == b
