"""``State`` -> state bytes: Terraform's version 4 JSON, written for stable diffs.

Writing follows Terraform's own layout (key order, ``omitempty`` fields, resources sorted by module,
mode, type and name, instances by key) so a state file diffs cleanly in review and tools that read
Terraform state read ours.
"""

from __future__ import annotations

import io
import json
import math
import secrets
from collections.abc import Iterator
from typing import Any

import orjson

from engine.state import dynamic_attrs
from engine.state.codec import STATE_VERSION, ctl_version, paths_to_json
from engine.state.gc_pause import gc_paused
from engine.state.model import (
    InstanceState,
    OutputValue,
    ResourceState,
    State,
    instance_sort_key,
    output_type,
)


@gc_paused
def encode_state(state: State) -> bytes:
    """The bytes of a state file (UTF-8, 2-space indent, trailing newline)."""
    out = io.BytesIO()  # its getvalue() hands over its buffer: the bytes are never copied whole
    for piece in state_pieces(state):
        out.write(piece)
    return out.getvalue()


def state_pieces(state: State) -> Iterator[bytes]:
    """The bytes of ``encode_state``, a resource at a time; each piece is whole UTF-8.

    The document without its resources is encoded around a stand-in, and each resource is encoded
    alone, indented to its depth and put in the stand-in's place. The bytes are those of encoding
    the whole document at once (a JSON string holds no raw newline, so indenting a piece's lines
    cannot touch its strings), but only one resource's document exists at a time, where the whole
    document would be held again at every write.
    """
    types_seen: dict[bytes, Any] = {}  # see dynamic_attrs.wrap
    resources = sorted(state.resources, key=lambda r: r.key)
    stand_in = f"resources {secrets.token_hex(16)}"  # no state has it: random for each write
    head: dict[str, Any] = {
        "version": STATE_VERSION,
        "terraform_version": state.terraform_version,
        "ctl_version": ctl_version(),
        "serial": state.serial,
        "lineage": state.lineage,
        "outputs": {name: _encode_output(state.outputs[name]) for name in sorted(state.outputs)},
        "resources": [stand_in] if resources else [],
        "check_results": state.check_results,
    }
    for k, v in state.extra.items():
        head.setdefault(k, v)
    # NaN and infinity must be refused, not written as null (orjson's way). The attribute walk
    # (_sorted_keys) and _encode_instance refuse them in what they pass; the rest of the document
    # is small and goes through the standard encoder's check, which once ran over all of it and
    # cost a second full encoding of the state at every write of a large apply.
    _refuse_nan({k: v for k, v in head.items() if k != "resources"})
    text = _indented(head)
    if not resources:
        yield text
        return
    before, _, after = text.partition(json.dumps(stand_in).encode())
    yield before
    for i, resource in enumerate(resources):
        piece = _indented_piece(_encode_resource(resource, types_seen)).replace(b"\n", b"\n    ")
        yield b",\n    " + piece if i else piece
    yield after


def _refuse_nan(value: Any) -> None:
    json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)  # raises ValueError


def _indented(doc: dict[str, Any]) -> bytes:
    """``doc`` as JSON with a 2-space indent and a final newline, as Terraform's state files are.

    Python's encoder indents only in pure Python (slow for a large state, written several times
    by a large apply); orjson does it in C, and gives way to the standard encoder for what it
    cannot write (integers beyond 64 bits).
    """
    try:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # an integer beyond 64 bits (orjson.JSONEncodeError is a TypeError)
        return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False).encode() + b"\n"


def _indented_piece(doc: dict[str, Any]) -> bytes:
    """One value as ``_indented`` writes it, without the final newline."""
    try:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    except TypeError:  # an integer beyond 64 bits
        return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False).encode()


def _encode_output(out: OutputValue) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "value": out.value,
        "type": out.type if out.type is not None else output_type(out.value),
    }
    if out.sensitive:
        doc["sensitive"] = True
    return doc


def _encode_resource(res: ResourceState, types_seen: dict[bytes, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    if res.module:
        doc["module"] = res.module
    doc.update(mode=res.mode, type=res.type, name=res.name)
    if res.each:
        doc["each"] = res.each
    doc["provider"] = res.provider
    doc["instances"] = [_encode_instance(res.type, i, types_seen)
                        for i in sorted(res.instances, key=instance_sort_key)]
    return doc


def _encode_instance(type_name: str, inst: InstanceState, types_seen: dict[bytes, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    if inst.index_key is not None:
        doc["index_key"] = inst.index_key
    if inst.status:
        doc["status"] = inst.status
    if inst.deposed:
        doc["deposed"] = inst.deposed
    doc["schema_version"] = inst.schema_version
    if inst.attributes or "attributes_flat" not in inst.extra:
        attributes = dynamic_attrs.wrap(type_name, inst.attributes, inst._tf_dynamic, types_seen)
        doc["attributes"] = _sorted_keys(attributes, {})
    raw = inst._tf_paths
    if raw is not None and raw[0] == tuple(inst.sensitive_attributes):
        if raw[1]:
            _refuse_nan(raw[1])  # as read from a file, where json.loads lets NaN through
        doc["sensitive_attributes"] = raw[1]
    else:
        doc["sensitive_attributes"] = paths_to_json(list(inst.sensitive_attributes))
    if inst.extra:
        _refuse_nan(inst.extra)
    for k, v in inst.extra.items():
        doc.setdefault(k, v)
    if inst.private:
        doc["private"] = inst.private
    if inst.dependencies:
        doc["dependencies"] = list(inst.dependencies)
    if inst.create_before_destroy:
        doc["create_before_destroy"] = True
    return doc


_LEAVES = frozenset({str, int, bool, type(None)})  # not float: a float is checked to be finite


def _sorted_keys(value: Any, shared: dict[int, Any] | None = None) -> Any:
    """Object and map keys in order at every level, as Terraform writes attributes (Go sorts map keys).

    Runs over every attribute of every instance at each state write. A dict whose keys are already
    in order and whose children needed nothing is returned as it is, and so is such a list: values
    read from a state file are sorted already, and copying them all made each write hold a second
    state in memory. Scalar leaves, most of the values, are taken as they are without a call; a
    float gets one, to refuse NaN and infinity, which JSON cannot spell. With ``shared`` (given for
    an instance's attributes), a value two of the dict's entries hold is walked once: the wrapper
    of a terraform_data's ``input`` is its ``output``'s (``dynamic_attrs.wrap``).
    """
    if isinstance(value, dict):
        in_order, previous, changed = True, None, None
        for k, v in value.items():
            if previous is not None and k < previous:
                in_order = False
            previous = k
            if type(v) not in _LEAVES:
                if shared is None:
                    s = _sorted_keys(v)
                elif (s := shared.get(id(v))) is None:
                    s = shared[id(v)] = _sorted_keys(v)
                if s is not v:
                    changed = changed or {}
                    changed[k] = s
        if in_order and changed is None:
            return value
        new = changed or {}
        return {k: new.get(k, value[k]) for k in sorted(value)}
    if isinstance(value, list):
        out = None
        for i, v in enumerate(value):
            if type(v) not in _LEAVES:
                s = _sorted_keys(v)
                if s is not v:
                    out = out or list(value)
                    out[i] = s
        return value if out is None else out
    if type(value) is float and not math.isfinite(value):
        raise ValueError(f"Out of range float values are not JSON compliant: {value!r}")
    return value


