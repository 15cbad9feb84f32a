"""State bytes -> ``State``: Terraform's version 4 JSON, read defensively; and what both directions share.

Reading refuses anything that is not a version 4 state with a message that names the file — a
corrupt or foreign state must stop a run before it can be overwritten. Writing is ``encode.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from sys import intern
from typing import Any, BinaryIO

from backends.base import BackendError
from engine.state import dynamic_attrs, piecewise_file
from engine.state.address import AddressError, parse_module
from engine.state.gc_pause import gc_paused
from engine.state.model import (
    InstanceState,
    OutputValue,
    ResourceState,
    State,
)
from vocab import piecewise
from vocab.values import Path

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


# -- decoding -------------------------------------------------------------------------------------


# An escaped or raw-encoded UTF-16 surrogate (json.loads lets both through): a cheap test before
# walking the document.
SURROGATE_HINT = re.compile(rb"\\[uU][dD][89a-fA-F]|\xed[\xa0-\xbf]")


def _may_hold_surrogate(data: bytes) -> bool:
    """``SURROGATE_HINT`` over ``data``, after two plain searches that clear every state without a
    ``\\u`` escape (JSON has no ``\\U``) or a 0xED byte faster than the pattern does: most states
    written by ctl have neither."""
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
    state = _piecewise_state(piecewise.split(data), source)
    return state if state is not None else _state_of(_parse_whole(data, source), source)


@gc_paused
def decode_state_file(f: BinaryIO, source: str) -> State:
    """``decode_state`` of the bytes in the open file ``f``, read from the file a resource at a
    time, so the bytes are never whole in memory (``piecewise_file``); a file in another layout,
    or not decoded exactly so, is read whole and parsed whole, as ``decode_state`` parses it."""
    try:
        state = _piecewise_state(piecewise_file.split_file(f), source)
        if state is not None:
            return state
        f.seek(0)
        data = f.read()
    except OSError as exc:
        raise BackendError(f"cannot read the state at {source}: {exc.strerror or exc}") from None
    return _state_of(_parse_whole(data, source), source)


def _piecewise_state(pieces: tuple[Any, Iterator[Any]] | None, source: str) -> State | None:
    """The state of a document read a resource at a time; None when it is not in that layout or
    was not decoded exactly so, or is corrupt: it is then parsed whole, for the whole parse's errors."""
    if pieces is None:
        return None
    try:
        return _state_of(pieces[0], source, pieces[1])
    except (piecewise.NotPiecewise, BackendError, RecursionError):
        return None


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
    except RecursionError:  # Terraform's JSON reader stops at 10,000 levels; no state it writes nests so
        raise BackendError(
            f"state at {source} is corrupt: its JSON is nested too deeply to be read", hint=_RESTORE_HINT
        ) from None
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
        # The same few types, modes and providers name every resource: one string each, not one
        # per resource (copies that add up in a large state).
        rtype = intern(self.need(raw, "type", str, where))
        res = ResourceState(
            mode=intern(self.need(raw, "mode", str, where)),
            type=rtype,
            name=self.need(raw, "name", str, where),
            provider=intern(self.need(raw, "provider", str, where)),
            module=intern(module) if module else None,
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
