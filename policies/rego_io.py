"""Talking to rego-cpp's C interface: the input document, and what it writes to standard output.

* rego-cpp stores strings the way they are spelled in source, escapes included, so input strings
  are handed over JSON-escaped (as the same string written in a policy would be); otherwise
  ``a"b`` in a plan would never equal ``"a\\"b"`` in a policy.
* It reports compile errors on the process's standard output. Compilation and evaluation run with
  file descriptor 1 redirected, so machine output (``--format json``) stays clean; the text becomes
  the error's detail and ``print()`` output of policies goes to standard error.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from policies.model import PolicyError

_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f\u2028\u2029]')
_INT64 = 2**63


@contextlib.contextmanager
def captured_stdout() -> Iterator[list[str]]:
    """Redirect file descriptor 1 (where rego-cpp writes) and hand back what was written."""
    box: list[str] = []
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no standard output at all: nothing to protect
        yield box
        return
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            yield box
        finally:
            _flush_c_stdio()
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            box.append(tmp.read().decode("utf-8", "replace"))


def _flush_c_stdio() -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).fflush(None)


def forward_prints(text: str) -> None:
    if text.strip():
        sys.stderr.write(text if text.endswith("\n") else text + "\n")



def _rego_string(s: str) -> bytes:
    if _NEEDS_ESCAPE.search(s) is None:
        return s.encode("utf-8")
    return json.dumps(s, ensure_ascii=False)[1:-1].encode("utf-8")


def build_input(value: Any) -> Any:
    """A rego-cpp input document built through its C interface (linear in the size of ``value``).

    Faster than regopy's ``Input`` (keys are encoded once, no per-call wrapper) and, unlike parsing
    the JSON text as a term, linear in the length of long arrays.
    """
    from regopy.rego_shared import rego as lib
    from regopy.rego_shared import rego_free_input, rego_new_input

    handle = rego_new_input()
    s_, i_, f_ = lib.regoInputString, lib.regoInputInt, lib.regoInputFloat
    b_, n_, item_ = lib.regoInputBoolean, lib.regoInputNull, lib.regoInputObjectItem
    obj_, arr_ = lib.regoInputObject, lib.regoInputArray
    cache: dict[str, bytes] = {}  # keys and short values repeat across resources
    err = 0

    def enc(x: str) -> bytes:
        b = cache.get(x)
        if b is None:
            b = _rego_string(x)
            if len(x) <= 64:
                cache[x] = b
        return b

    def add(v: Any) -> None:
        nonlocal err
        t = type(v)
        if t is dict:
            for k, x in v.items():
                err |= s_(handle, enc(k) if type(k) is str else enc(str(k)))
                tx = type(x)
                if tx is str:
                    err |= s_(handle, enc(x))
                elif tx is bool:
                    err |= b_(handle, x)
                elif x is None:
                    err |= n_(handle)
                else:
                    add(x)
                err |= item_(handle)
            err |= obj_(handle, len(v))
        elif t is str:
            err |= s_(handle, enc(v))
        elif t is list or t is tuple:
            for x in v:
                add(x)
            err |= arr_(handle, len(v))
        elif v is None:
            err |= n_(handle)
        elif t is bool:
            err |= b_(handle, v)
        elif t is int:
            err |= i_(handle, v) if -_INT64 <= v < _INT64 else f_(handle, float(v))
        elif t is float:
            err |= f_(handle, v)
        elif isinstance(v, Decimal):
            add(int(v) if v == v.to_integral_value() else float(v))
        elif isinstance(v, dict | list | tuple | str | int | float):
            add(json.loads(json.dumps(v)))
        else:
            err |= s_(handle, enc(str(v)))

    try:
        add(value)
    except RecursionError:
        rego_free_input(handle)
        raise PolicyError("the plan is nested too deeply to check") from None
    if err:
        rego_free_input(handle)
        raise PolicyError("the plan could not be handed to the Rego engine")
    return handle



__all__ = ["build_input", "captured_stdout", "forward_prints"]
