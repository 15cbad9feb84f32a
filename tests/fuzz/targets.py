"""What the fuzz tests feed damaged input to, and what each may do with it.

Every target takes one input and must either succeed or raise ctl's own error type (``CtlError``,
which the CLI prints as one positioned line and an exit code), within ``TIME_BOUND_S``. Anything
else (a ``TypeError``, a ``RecursionError``, a hang) is a bug: it would print a traceback or never
return. Syntax errors must also say where they are.
"""

from __future__ import annotations

import contextlib
import json
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from backends.local import LocalStore
from engine.errors import CtlError, DiagnosticsError
from engine.lang.eval import EvalContext, evaluate
from engine.lang.functions import FunctionContext
from engine.lang.hcl import parse_expression, parse_hcl_file
from engine.state.codec import decode_state
from engine.state.encode import encode_state
from engine.state.journal import parse_entries, replay
from engine.state.model import new_state
from engine.validate import validate

TIME_BOUND_S = 10.0  # the bar: no input takes longer


class TookTooLong(BaseException):
    """An input ran past ``TIME_BOUND_S``."""


@contextlib.contextmanager
def bounded(seconds: float = TIME_BOUND_S) -> Iterator[None]:
    """Raise ``TookTooLong`` in this (the main) thread if the body runs longer than ``seconds``."""
    def expire(signum: int, frame: Any) -> None:
        raise TookTooLong(f"over {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def positioned(err: CtlError) -> None:
    """A syntax or evaluation error names its file, line and column."""
    if isinstance(err, DiagnosticsError):
        for d in err.diagnostics():
            assert d.range is not None and d.range.start.line >= 1 and d.range.start.column >= 1, d


def hcl_file(data: bytes) -> None:
    with bounded():
        try:
            parse_hcl_file(data, "main.tf")
        except CtlError as err:
            positioned(err)


def configuration(name: str, data: bytes) -> None:
    """A whole configuration directory holding one damaged file, validated as ``ctl validate`` does."""
    with tempfile.TemporaryDirectory() as tmp, bounded():
        (Path(tmp) / name).write_bytes(data)
        try:
            loaded = validate(Path(tmp), environ={})
        except CtlError:
            return
        for d in loaded.diags.items:
            assert d.summary, d


_HERE = Path(tempfile.gettempdir())
EXPRESSION_SCOPE = {
    "var": {"names": ["a", "b", "c"], "n": 3, "m": {"k": "v", "x": [1, 2]}, "s": "text", "none": None},
    "local": {"objs": [{"name": "x", "port": 80}, {"name": "y", "port": 443}]},
}


def expression(text: str) -> None:
    with bounded():
        try:
            expr = parse_expression(text, "expr.tf")
            value = evaluate(expr, EvalContext(variables=json.loads(json.dumps(EXPRESSION_SCOPE)),
                                               func_ctx=FunctionContext(base_dir=_HERE, module_dir=_HERE)))
        except CtlError as err:
            positioned(err)
            return
        json.dumps(value, default=str)  # whatever it is, it can be shown


def state_file(data: bytes) -> None:
    """A damaged state either loads, and then writes back to something that loads the same, or is refused."""
    with bounded():
        try:
            state = decode_state(data, "ctl.tfstate")
        except CtlError:
            return
        again = decode_state(encode_state(state), "ctl.tfstate")
        assert sorted(str(a) for a, _ in again.instances()) == sorted(str(a) for a, _ in state.instances())


def journal(data: bytes) -> None:
    with bounded():
        entries = parse_entries(data.split(b"\n"))
        try:
            state, _ = replay(new_state(), entries)
        except CtlError:
            return
        decode_state(encode_state(state), "ctl.tfstate")  # what a replay built can be saved and read


def lock_file(data: bytes) -> None:
    """Whatever a lock file holds, asking who holds the lock answers or refuses, never crashes."""
    with tempfile.TemporaryDirectory() as tmp, bounded():
        store = LocalStore(Path(tmp) / "ctl.tfstate")
        store._sibling("default", ".tflock").write_bytes(data)
        with contextlib.suppress(CtlError):
            store.lock_info("default")
