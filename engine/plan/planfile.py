"""Saved plans (``ctl plan --out FILE``): a JSON document that reproduces the Plan exactly.

A saved plan is applied later, maybe on another machine, so it must carry everything the apply
needs — unknown values, secrets with their marks, the state it was made against — and nothing may
change on the way: ``load_plan(save_plan(p))`` equals ``p``. JSON (not pickle) keeps the file
inspectable and safe to load. Secrets are stored in clear because apply needs them, so the file is
written with mode 0600 and replaced atomically (a half-written plan must never be applied).

Value encoding: ``Unknown`` -> ``{"__ctl_unknown__": true}``, a sensitive ``Marked`` value ->
``{"__ctl_sensitive__": value}``; a user object whose keys could be mistaken for these is wrapped
as ``{"__ctl_object__": {...}}``. The prior state is embedded as the state codec writes it, and
Terraform's ``configuration`` object as JSON, both as text (strings) inside the document.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import secrets
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from backends.base import BackendError
from engine.plan.model import ACTIONS_NOOP, OutputChange, Plan, ResourceChange
from engine.state.codec import decode_state
from engine.state.encode import state_pieces
from engine.state.gc_pause import gc_paused, gc_paused_then_frozen
from engine.state.model import OutputValue, State
from vocab.errors import CtlError
from vocab.values import SENSITIVE, UNKNOWN, Marked, Unknown
from vocab.version import VERSION

PLAN_FORMAT = 2  # 2: the configuration and the prior state as JSON text

_UNKNOWN, _SENSITIVE, _MARKS, _OBJECT, _TYPE = (
    "__ctl_unknown__",
    "__ctl_sensitive__",
    "__ctl_marks__",
    "__ctl_object__",
    "__ctl_type__",
)
_RESERVED_PREFIX = "__ctl_"
_LEAVES = frozenset({str, int, float, bool, type(None)})
# The state codec refuses a state without lineage; a plan made before any state existed may hold
# one, so it travels under this stand-in and is restored on load.
_NO_LINEAGE = "__ctl_no_lineage__"


class PlanFileError(CtlError):
    """A saved plan cannot be written or read."""


@gc_paused
def save_plan(plan: Plan, path: Path, root_dir: Path | None = None,
              var_args: list[tuple[str, str]] | None = None) -> None:
    """Write ``plan`` to ``path`` atomically, readable only by its owner (plans may hold secrets).

    With a ``plan`` encryption target in the configuration at ``root_dir`` (default: the working
    directory, which ``-chdir`` sets) the file is sealed; ``var_args`` (the plan's ``--var``s) reach
    encryption settings that name variables.
    """
    from engine.encryption.lookup import plan_target

    target = plan_target(root_dir or Path.cwd(), var_args)
    # Unsealed, the text is written a change at a time and never exists whole: the whole text and
    # the whole encoded document were the top of plan --out's memory.
    # A sealed plan is encrypted whole, as the cipher takes it.
    directory = path.parent if str(path.parent) else Path(".")
    tmp_name: str | None = None
    try:
        chunks: Iterable[bytes] = (
            (piece.encode() for piece in _plan_text(plan)) if target is None
            else [target.encrypt("".join(_plan_text(plan)).encode())]
        )
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as fh:  # mkstemp creates the file with mode 0600
            for chunk in chunks:
                fh.write(chunk)
            fh.write(b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp_name, 0o600)
        os.replace(tmp_name, path)
        tmp_name = None
    except ValueError as exc:  # NaN or infinity: JSON has no spelling for them
        raise PlanFileError(f"cannot save the plan to {path}: {exc}") from None
    except OSError as exc:
        raise PlanFileError(
            f"cannot write the plan file {path}: {exc.strerror or exc}",
            hint="Check that the directory exists and is writable.",
        ) from None
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)


# Compact JSON: the C encoder (an indented document takes Python's own, much slower). One
# encoder for every call: ``json.dumps`` with options builds a new one each time.
_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


def _plan_text(plan: Plan, size: int = 1 << 20) -> Iterator[str]:
    """The plan file's JSON text, in pieces; the text is that of the whole document.

    The two parts that grow with the plan are put in place of stand-ins: the changes, each encoded
    alone, and the prior state's text, escaped a resource at a time as the state codec writes it.
    The rest of the document (with the configuration's text) goes out in slices of ``size``
    characters. So nothing is encoded or copied whole.
    """
    token = secrets.token_hex(16)  # no plan has it: random for each save
    changes_marker, prior_marker = f"changes {token}", f"prior state {token}"
    prior = plan.prior_state if plan.prior_state.lineage else _with_lineage(plan.prior_state, _NO_LINEAGE)
    text = _compact(_encode_plan(plan, [changes_marker] if plan.changes else [], prior_marker))
    fills = [(_compact(prior_marker), _escaped_state(prior))]
    if plan.changes:
        fills.append((_compact(changes_marker), _changes_text(plan.changes)))
    at = 0
    for start, stand_in, pieces in sorted((text.find(s), s, p) for s, p in fills):
        yield from _slices(text, at, start, size)
        yield from pieces
        at = start + len(stand_in)
    yield from _slices(text, at, len(text), size)


def _slices(text: str, start: int, end: int, size: int) -> Iterator[str]:
    for at in range(start, end, size):
        yield text[at:min(at + size, end)]


def _changes_text(changes: list[ResourceChange]) -> Iterator[str]:
    for i, change in enumerate(changes):
        yield ("," if i else "") + _compact(_encode_change(change))


def _escaped_state(state: State) -> Iterator[str]:
    """The state file's text as a JSON string. Each piece of it is whole UTF-8, and JSON escapes a
    character alone, so the pieces are escaped one by one."""
    yield '"'
    for piece in state_pieces(state):
        yield _compact(piece.decode())[1:-1]
    yield '"'


@gc_paused_then_frozen
def load_plan(path: Path, root_dir: Path | None = None, var_args: list[tuple[str, str]] | None = None) -> Plan:
    """Read a plan written by ``save_plan``; refuses missing, corrupt and foreign files clearly.

    ``var_args`` reach encryption settings that name variables: a sealed plan's own values are inside it.
    """
    from engine.encryption import is_encrypted
    from engine.encryption.lookup import plan_target

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise PlanFileError(
            f"the plan file {path} does not exist", hint="Create one with: ctl plan --out FILE"
        ) from None
    except OSError as exc:
        raise PlanFileError(f"cannot read the plan file {path}: {exc.strerror or exc}") from None
    target = plan_target(root_dir or Path.cwd(), var_args)
    if target is not None:
        data = target.decrypt(data, f"the plan file {path}")
    elif is_encrypted(data):
        raise PlanFileError(f"the plan file {path} is encrypted",
                            hint="Run the command with the configuration's encryption settings "
                                 "(the encryption block, or CTL_ENCRYPTION).")
    if data.startswith(b"PK"):
        raise PlanFileError(
            f"{path} is not a ctl plan file (it looks like a Terraform plan)",
            hint="ctl applies only plans saved with: ctl plan --out FILE",
        )
    try:
        doc = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise _corrupt(path, "it is not valid JSON") from None
    if not isinstance(doc, dict) or "ctl_plan_format" not in doc:
        raise PlanFileError(
            f"{path} is not a ctl plan file", hint="ctl applies only plans saved with: ctl plan --out FILE"
        )
    version = doc["ctl_plan_format"]
    if version != PLAN_FORMAT:
        writer = doc.get("ctl_version")
        by = f" (ctl {writer})" if isinstance(writer, str) else ""
        raise PlanFileError(
            f"the plan file {path} was written by another version of ctl{by}: plan format "
            f"{json.dumps(version)}, this ctl reads format {PLAN_FORMAT}",
            hint="Make a new plan with this version of ctl.",
        )
    try:
        return _decode_plan(doc, str(path))
    except BackendError as exc:
        raise _corrupt(path, f"its prior state is unreadable ({exc.summary})") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _corrupt(path, f"a field is missing or malformed ({exc})") from None


def _corrupt(path: Path, why: str) -> PlanFileError:
    return PlanFileError(
        f"the plan file {path} is corrupt: {why}", hint="Make a new plan with: ctl plan --out FILE"
    )


# -- values ---------------------------------------------------------------------------------------


def encode_value(v: Any) -> Any:
    """A JSON-safe form of a value that keeps unknowns and marks (see the module docstring)."""
    if isinstance(v, Unknown):
        unknown: dict[str, Any] = {_UNKNOWN: True}
        if v.type_hint is not None:
            unknown[_TYPE] = v.type_hint
        return unknown
    if isinstance(v, Marked):
        marked: dict[str, Any] = {_SENSITIVE: encode_value(v.value)}
        if v.marks != frozenset({SENSITIVE}):
            marked[_MARKS] = sorted(v.marks)
        return marked
    if isinstance(v, dict | list | tuple):
        enc = _with_children(v, encode_value)
        if isinstance(v, dict) and any(k.startswith(_RESERVED_PREFIX) for k in v):
            return {_OBJECT: enc}
        return enc
    return v


def decode_value(v: Any) -> Any:
    """The inverse of ``encode_value``; a list or object with nothing encoded inside is returned as
    it is (``_with_children``)."""
    if type(v) is dict:
        if v.get(_UNKNOWN) is True:
            hint = v.get(_TYPE)
            return UNKNOWN if hint is None else Unknown(hint)  # one object for every plain unknown
        if _SENSITIVE in v:
            marks = frozenset(v[_MARKS]) if _MARKS in v else frozenset({SENSITIVE})
            return Marked(decode_value(v[_SENSITIVE]), marks)
        if _OBJECT in v and len(v) == 1:
            return {k: decode_value(x) for k, x in v[_OBJECT].items()}
    if type(v) is dict or type(v) is list:
        return _with_children(v, decode_value)
    return v


def _with_children(v: dict[str, Any] | list[Any] | tuple[Any, ...], fn: Callable[[Any], Any]) -> Any:
    """``v`` with ``fn`` applied to every item that is not a scalar, copied at the first item that
    changes: nearly every value of a plan is plain, and a large plan's values are tens of megabytes,
    so a value with nothing to encode or decode inside is used as it is."""
    out: Any = None
    for k, x in v.items() if isinstance(v, dict) else enumerate(v):
        if type(x) in _LEAVES:
            continue
        new = fn(x)
        if new is not x:
            if out is None:
                out = dict(v) if isinstance(v, dict) else list(v)
            out[k] = new
    return v if out is None else out


# -- plan -----------------------------------------------------------------------------------------


def _encode_plan(plan: Plan, changes: list[Any], prior_state: str) -> dict[str, Any]:
    """The plan file's document with ``changes`` and ``prior_state`` put as given (see ``_plan_text``)."""
    prior = plan.prior_state
    return {
        "ctl_plan_format": PLAN_FORMAT,
        "ctl_version": VERSION,
        "workspace": plan.workspace,
        "mode": plan.mode,
        "timestamp": plan.timestamp,
        "lineage": plan.lineage,
        "serial": plan.serial,
        "config_hash": plan.config_hash,
        "errored": plan.errored,
        "targets": list(plan.targets),
        "excludes": list(plan.excludes),
        "variables": {k: encode_value(v) for k, v in plan.variables.items()},
        "changes": changes,
        "drift": [_encode_change(c) for c in plan.drift],
        "outputs": {name: _encode_output(o) for name, o in plan.outputs.items()},
        "policy_results": encode_value(plan.policy_results),
        "policy_override": plan.policy_override,
        # Both as JSON text in a string: the configuration is decoded only if something reads it,
        # and the state keeps the layout the state codec reads one resource at a time.
        "configuration": _compact(encode_value(plan.configuration_json(keep=False))),
        "prior_state": prior_state,
        # The state codec always writes an output's type; remember which had none.
        "prior_state_untyped_outputs": sorted(n for n, o in prior.outputs.items() if o.type is None),
    }


def _with_lineage(state: State, lineage: str) -> State:
    copy = state.copy()
    copy.lineage = lineage
    return copy


def _decode_plan(doc: dict[str, Any], source: str) -> Plan:
    prior = decode_state(_typed(doc["prior_state"], str).encode(), f"{source} (prior state)")
    if prior.lineage == _NO_LINEAGE:
        prior.lineage = ""
    for name in doc.get("prior_state_untyped_outputs", []):
        if name in prior.outputs:
            out = prior.outputs[name]
            prior.outputs[name] = OutputValue(out.value, None, out.sensitive)
    return Plan(
        changes=[_decode_change(c) for c in doc["changes"]],
        drift=[_decode_change(c) for c in doc["drift"]],
        outputs={name: _decode_output(name, o) for name, o in doc["outputs"].items()},
        prior_state=prior,
        lineage=_typed(doc["lineage"], str),
        serial=_typed(doc["serial"], int),
        config_hash=_typed(doc["config_hash"], str),
        variables={k: decode_value(v) for k, v in doc["variables"].items()},
        workspace=_typed(doc["workspace"], str),
        mode=_typed(doc["mode"], str),
        timestamp=_typed(doc["timestamp"], str),
        targets=list(doc["targets"]),
        excludes=list(doc["excludes"]),
        policy_results=decode_value(doc["policy_results"]),
        policy_override=doc["policy_override"],
        errored=bool(doc["errored"]),
        configuration_later=functools.partial(_decode_configuration, _typed(doc["configuration"], str), source),
    )


def _decode_configuration(text: str, source: str) -> dict[str, Any]:
    try:
        configuration = decode_value(json.loads(text))
    except ValueError:
        raise _corrupt(Path(source), "its configuration is not valid JSON") from None
    if not isinstance(configuration, dict):
        raise _corrupt(Path(source), "its configuration is not an object")
    return configuration


def _typed(value: Any, typ: type) -> Any:
    if not isinstance(value, typ) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a {typ.__name__}")
    return value


def _encode_change(c: ResourceChange) -> dict[str, Any]:
    return {
        "address": c.address,
        "module_address": c.module_address,
        "mode": c.mode,
        "type": c.type,
        "name": c.name,
        "index": c.index,
        "provider": c.provider,
        "actions": list(c.actions),
        "before": encode_value(c.before),
        "after": encode_value(c.after),
        "replace_paths": [list(p) for p in c.replace_paths],
        "action_reason": c.action_reason,
        "previous_address": c.previous_address,
        "dependencies": list(c.dependencies),
        "create_before_destroy": c.create_before_destroy,
        "schema_version": c.schema_version,
        "deposed": c.deposed,
        "importing_id": c.importing_id,
    }


def _decode_change(d: dict[str, Any]) -> ResourceChange:
    index = d["index"]
    if index is not None and (isinstance(index, bool) or not isinstance(index, int | str)):
        raise TypeError(f"instance index {index!r} is neither a number nor a string")
    # The words every change repeats are interned: a 50,000-change plan held 50,000 copies of each.
    actions = tuple(sys.intern(_typed(a, str)) for a in d["actions"])
    # A no-op's after is its before (the planner records the one object twice): one object again,
    # not two copies of every unchanged object of a large state.
    before = decode_value(d["before"])
    same = actions == ACTIONS_NOOP and d["after"] == d["before"]
    return ResourceChange(
        address=_typed(d["address"], str),
        module_address=sys.intern(_typed(d["module_address"], str)),
        mode=sys.intern(_typed(d["mode"], str)),
        type=sys.intern(_typed(d["type"], str)),
        name=_typed(d["name"], str),
        index=index,
        provider=sys.intern(_typed(d["provider"], str)),
        actions=actions,
        before=before,
        after=before if same else decode_value(d["after"]),
        replace_paths=[list(p) for p in d["replace_paths"]],
        action_reason=d["action_reason"],
        previous_address=d["previous_address"],
        dependencies=list(d["dependencies"]),
        create_before_destroy=bool(d["create_before_destroy"]),
        schema_version=_typed(d["schema_version"], int),
        deposed=d.get("deposed"),
        importing_id=d.get("importing_id"),
    )


def _encode_output(o: OutputChange) -> dict[str, Any]:
    return {
        "actions": list(o.actions),
        "before": encode_value(o.before),
        "after": encode_value(o.after),
        "sensitive": o.sensitive,
        "type": o.type,
    }


def _decode_output(name: str, d: dict[str, Any]) -> OutputChange:
    return OutputChange(
        name=name,
        actions=tuple(_typed(a, str) for a in d["actions"]),
        before=decode_value(d["before"]),
        after=decode_value(d["after"]),
        sensitive=bool(d["sensitive"]),
        type=d.get("type"),  # absent from a plan file written before plans recorded it
    )


__all__ = ["PLAN_FORMAT", "PlanFileError", "decode_value", "encode_value", "load_plan", "save_plan"]
