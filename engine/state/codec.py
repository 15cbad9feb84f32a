"""State bytes <-> ``State``: Terraform's version 4 JSON, written for stable diffs, read defensively.

Writing follows Terraform's own layout (key order, ``omitempty`` fields, resources sorted by module,
mode, type and name, instances by key) so a state file diffs cleanly in review and tools that read
Terraform state read ours. Reading refuses anything that is not a version 4 state with a message
that names the file — a corrupt or foreign state must stop a run before it can be overwritten.
"""

from __future__ import annotations

import io
import json
import math
import re
import secrets
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import orjson

from backends.base import BackendError
from engine.lang.values import Path
from engine.state import dynamic_attrs, piecewise
from engine.state.address import AddressError, parse_module
from engine.state.gc_pause import gc_paused
from engine.state.model import (
    InstanceState,
    OutputValue,
    ResourceState,
    State,
    instance_sort_key,
    output_type,
)

STATE_VERSION = 4
_TOP_KEYS = (
    "version",
    "terraform_version",
    "ctl_version",
    "serial",
    "lineage",
    "outputs",
    "resources",
    "check_results",
)
_INSTANCE_KEYS = (
    "index_key",
    "status",
    "deposed",
    "schema_version",
    "attributes",
    "sensitive_attributes",
    "private",
    "dependencies",
    "create_before_destroy",
)
_OLDER_HINT = "ctl reads state format version 4 (Terraform 0.12 and later); upgrade it with Terraform first."
_NEWER_HINT = "This state was written by a newer tool; use that tool, or a ctl release that reads it."
_RESTORE_HINT = (
    "Restore the previous copy (ctl.tfstate.backup for a local state, an earlier object "
    "version for a remote one) or fix the file by hand."
)


@lru_cache(maxsize=1)
def ctl_version() -> str:
    """The installed ctl version, written as ``ctl_version`` so a state tells who wrote it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ctl")
    except PackageNotFoundError:
        return "0.0.0"


# -- sensitive paths ------------------------------------------------------------------------------


def paths_to_json(paths: list[Path]) -> list[list[dict[str, Any]]]:
    """``[("result",), ("tags", 0)]`` -> Terraform's ``sensitive_attributes`` steps."""
    out = []
    for path in paths:
        steps: list[dict[str, Any]] = []
        for step in path:
            if isinstance(step, int) and not isinstance(step, bool):
                steps.append({"type": "index", "value": {"value": step, "type": "number"}})
            else:
                steps.append({"type": "get_attr", "value": str(step)})
        out.append(steps)
    return out


def paths_from_json(raw: Any) -> list[Path]:
    """Terraform's ``sensitive_attributes`` steps -> ``values.Path`` tuples; ValueError if malformed."""
    if not isinstance(raw, list):
        raise ValueError("sensitive_attributes is not a list")
    paths: list[Path] = []
    for raw_path in raw:
        if not isinstance(raw_path, list):
            raise ValueError("a sensitive attribute path is not a list of steps")
        paths.append(tuple(_step_from_json(step) for step in raw_path))
    return paths


def _step_from_json(step: Any) -> str | int:
    if not isinstance(step, dict):
        raise ValueError("a path step is not an object")
    kind, value = step.get("type"), step.get("value")
    if kind == "get_attr" and isinstance(value, str):
        return value
    if kind == "index" and isinstance(value, dict):
        key = value.get("value")
        if value.get("type") == "number" and isinstance(key, int | float) and not isinstance(key, bool):
            return int(key)
        if value.get("type") == "string" and isinstance(key, str):
            return key
    raise ValueError(f"unsupported path step {json.dumps(step)}")


# -- encoding -------------------------------------------------------------------------------------


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
    cannot touch its strings), but only one resource's document exists at a time: at 50,000
    resources that was about 80 MB more at every write.
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

    Python's encoder indents only in pure Python (0.7 s for a 20 MB state, written several times
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
        doc["attributes"] = _sorted_keys(dynamic_attrs.wrap(type_name, inst.attributes, inst._tf_dynamic, types_seen))
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


def _sorted_keys(value: Any) -> Any:
    """Object and map keys in order at every level, as Terraform writes attributes (Go sorts map keys).

    Runs over every attribute of every instance at each state write. A dict whose keys are already
    in order and whose children needed nothing is returned as it is, and so is such a list: values
    read from a state file are sorted already, and copying them all made each write hold a second
    state in memory. Scalar leaves, most of the values, are taken as they are without a call; a
    float gets one, to refuse NaN and infinity, which JSON cannot spell.
    """
    if isinstance(value, dict):
        in_order, previous, changed = True, None, None
        for k, v in value.items():
            if previous is not None and k < previous:
                in_order = False
            previous = k
            if type(v) not in _LEAVES:
                s = _sorted_keys(v)
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


# -- decoding -------------------------------------------------------------------------------------


# An escaped or raw-encoded UTF-16 surrogate (json.loads lets both through): a cheap test before
# walking the document.
SURROGATE_HINT = re.compile(rb"\\[uU][dD][89a-fA-F]|\xed[\xa0-\xbf]")


def _may_hold_surrogate(data: bytes) -> bool:
    """``SURROGATE_HINT`` over ``data``, after two plain searches that clear every state without a
    ``\\u`` escape (JSON has no ``\\U``) or a 0xED byte in less than half the time the pattern takes
    (0.24 s over 100 MB): most states written by ctl have neither."""
    if b"\\u" not in data and b"\xed" not in data:
        return False
    return SURROGATE_HINT.search(data) is not None


def holds_lone_surrogate(value: Any) -> bool:
    """Whether any string (key or value) is not valid Unicode text, so could never be written back."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


@gc_paused
def decode_state(data: bytes, source: str) -> State:
    """Parse state bytes; raises ``BackendError`` naming ``source`` for corrupt or foreign data.

    A state in the usual layout is read one resource at a time (``piecewise``); when that cannot
    be done exactly, or finds the state corrupt, the whole document is parsed, so what is accepted
    and every error message are the whole parse's.
    """
    pieces = piecewise.split(data)
    if pieces is not None:
        try:
            return _state_of(pieces[0], source, pieces[1])
        except (piecewise.NotPiecewise, BackendError):
            pass
    return _state_of(_parse_whole(data, source), source)


def _parse_whole(data: bytes, source: str) -> Any:
    try:
        doc = json.loads(data)
    except json.JSONDecodeError as exc:
        raise BackendError(
            f"state at {source} is corrupt: {exc.msg} at line {exc.lineno} column {exc.colno}",
            hint=_RESTORE_HINT,
        ) from None
    except UnicodeDecodeError as exc:
        raise BackendError(
            f"state at {source} is corrupt: not UTF-8 text ({exc.reason})", hint=_RESTORE_HINT
        ) from None
    except ValueError as exc:  # a number of more digits than Python converts, and the like
        raise BackendError(f"state at {source} is corrupt: {exc}", hint=_RESTORE_HINT) from None
    if _may_hold_surrogate(data) and holds_lone_surrogate(doc):
        raise BackendError(
            f"state at {source} is corrupt: a string holds half of a UTF-16 surrogate pair "
            "(a \\uD800-\\uDFFF escape without its partner), which no state writer produces",
            hint=_RESTORE_HINT,
        )
    return doc


def _state_of(doc: Any, source: str, resources: Iterator[Any] | None = None) -> State:
    """The state of a parsed document; ``resources``, when given, are its resources one at a time."""
    if isinstance(doc, dict) and "encrypted_data" in doc and "version" not in doc:
        raise BackendError(
            f"the state at {source} is encrypted",
            hint="Configure the same encryption as the configuration that wrote it: an encryption block "
                 "in terraform {}, or CTL_ENCRYPTION.",
        )
    if not isinstance(doc, dict) or "version" not in doc:
        raise BackendError(
            f'{source} is not a state file: it has no "version" field',
            hint="Point ctl at a state written by ctl or Terraform 0.12 or later.",
        )
    version = doc["version"]
    if version != STATE_VERSION:
        older = isinstance(version, int) and version < STATE_VERSION
        raise BackendError(
            f"state format version {json.dumps(version)} in {source} is not supported",
            hint=_OLDER_HINT if older else _NEWER_HINT,
        )
    reader = _Reader(source)
    if not doc.get("lineage"):
        raise BackendError(f"{source} is not a state file: it has no lineage", hint=_RESTORE_HINT)
    lineage = reader.need(doc, "lineage", str, "")
    serial = reader.need(doc, "serial", int, "")
    if serial < 0:
        raise reader.corrupt("serial", "is negative")
    outputs_raw = reader.opt(doc, "outputs", dict, "", {})
    if resources is None:
        resources = iter(reader.opt(doc, "resources", list, "", []))
    return State(
        serial=serial,
        lineage=lineage,
        outputs={name: reader.output(name, o) for name, o in outputs_raw.items()},
        resources=[reader.resource(i, r) for i, r in enumerate(resources)],
        terraform_version=reader.opt(doc, "terraform_version", str, "", "") or "",
        check_results=doc.get("check_results"),
        extra={k: v for k, v in doc.items() if k not in _TOP_KEYS},
    )


class _Reader:
    """Field access with errors that say where in the document the problem is."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.types_seen: dict[bytes, Any] = {}  # see dynamic_attrs.unwrap

    def corrupt(self, where: str, what: str) -> BackendError:
        return BackendError(f"state at {self.source} is corrupt: {where} {what}", hint=_RESTORE_HINT)

    def need(self, obj: dict[str, Any], key: str, typ: type | tuple[type, ...], where: str) -> Any:
        if key not in obj:
            raise self.corrupt(f"{where}{key}", "is missing")
        return self._check(obj[key], typ, where, key)

    def opt(self, obj: dict[str, Any], key: str, typ: type | tuple[type, ...], where: str, default: Any) -> Any:
        value = obj.get(key)
        return default if value is None else self._check(value, typ, where, key)

    def _check(self, value: Any, typ: type | tuple[type, ...], where: str, key: str = "") -> Any:
        """``value``, when it is a ``typ``; the place is ``where`` + ``key``, joined only for the error
        (a large state has hundreds of thousands of fields, nearly all of them fine)."""
        if type(value) is typ and typ is not bool:  # the usual case, in one test
            return value
        bad_bool = isinstance(value, bool) and typ in (int, str, dict, list)
        if bad_bool or not isinstance(value, typ):
            names = {dict: "an object", list: "a list", str: "a string", int: "a whole number"}
            expected = names.get(typ, "valid") if isinstance(typ, type) else "valid"
            raise self.corrupt(f"{where}{key}", f"is not {expected}")
        return value

    def output(self, name: str, raw: Any) -> OutputValue:
        where = f"outputs.{name}."
        self._check(raw, dict, where.rstrip("."))
        if "value" not in raw:
            raise self.corrupt(f"{where}value", "is missing")
        return OutputValue(raw["value"], raw.get("type"), bool(raw.get("sensitive", False)))

    def resource(self, i: int, raw: Any) -> ResourceState:
        where = f"resources[{i}]."
        self._check(raw, dict, f"resources[{i}]")
        module = self.opt(raw, "module", str, where, None)
        if module:
            try:
                parse_module(module)
            except AddressError:
                raise self.corrupt(f"{where}module", f"{module!r} is not a module address") from None
        each = self.opt(raw, "each", str, where, None)
        if each not in (None, "list", "map"):
            raise self.corrupt(f"{where}each", f'is {each!r}, expected "list" or "map"')
        instances = self.opt(raw, "instances", list, where, [])
        rtype = self.need(raw, "type", str, where)
        res = ResourceState(
            mode=self.need(raw, "mode", str, where),
            type=rtype,
            name=self.need(raw, "name", str, where),
            provider=self.need(raw, "provider", str, where),
            module=module or None,
            each=each,
            instances=[self.instance(f"{where}instances[{j}].", inst, rtype) for j, inst in enumerate(instances)],
        )
        if res.mode not in ("managed", "data"):
            raise self.corrupt(f"{where}mode", f'is {res.mode!r}, expected "managed" or "data"')
        return res

    def instance(self, where: str, raw: Any, type_name: str) -> InstanceState:
        self._check(raw, dict, where.rstrip("."))
        key = raw.get("index_key")
        if key is not None and (isinstance(key, bool) or not isinstance(key, int | str)):
            raise self.corrupt(f"{where}index_key", "is neither a number nor a string")
        raw_paths = raw.get("sensitive_attributes")
        try:
            paths = paths_from_json(raw_paths) if raw_paths is not None else []
        except ValueError as exc:
            raise self.corrupt(f"{where}sensitive_attributes", f"is invalid: {exc}") from None
        deps = self.opt(raw, "dependencies", list, where, [])
        if not all(isinstance(d, str) for d in deps):
            raise self.corrupt(f"{where}dependencies", "is not a list of addresses")
        attributes, wrappers = dynamic_attrs.unwrap(
            type_name, self.opt(raw, "attributes", dict, where, {}), self.types_seen)
        return InstanceState(
            index_key=key,
            schema_version=self.opt(raw, "schema_version", int, where, 0),
            attributes=attributes,
            sensitive_attributes=paths,
            dependencies=deps,
            create_before_destroy=bool(raw.get("create_before_destroy", False)),
            status=self.opt(raw, "status", str, where, None),
            private=self.opt(raw, "private", str, where, None),
            deposed=self.opt(raw, "deposed", str, where, None),
            extra={k: v for k, v in raw.items() if k not in _INSTANCE_KEYS},
            _tf_paths=(tuple(paths), raw_paths) if raw_paths is not None else None,
            _tf_dynamic=wrappers,
        )
