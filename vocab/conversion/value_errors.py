"""The errors a provider value or type can cause, and how a value path is spelled in them.

A value crossing the plugin boundary can be wrong deep inside an object (``rule[2].port``), so the
error names the attribute path the way Terraform prints it; the caller adds the resource address.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from vocab.errors import CtlError

PathSteps = Sequence[str | int]


def format_path(path: PathSteps) -> str:
    """``("rule", 0, "port")`` as ``rule[0].port``; keys that are not identifiers as ``["a b"]``.

    A plain path cannot tell an attribute from a map key, so identifiers read as attributes.
    """
    out: list[str] = []
    for step in path:
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif step.replace("-", "_").isidentifier():
            out.append(f".{step}" if out else step)
        else:
            out.append(f"[{json.dumps(step, ensure_ascii=False)}]")
    return "".join(out)


class PluginValueError(CtlError):
    """A value that does not fit its type, or a wire payload that is not what its type says."""

    def __init__(self, message: str, path: PathSteps = (), *, hint: str = "") -> None:
        where = format_path(path)
        super().__init__(f"{where}: {message}" if where else message, hint=hint)
        self.message = message
        self.path = tuple(path)


class Misfit(Exception):
    """Internal to the codecs: a value that does not fit; each container on the way out adds its
    path step, so the path costs nothing unless there is an error. Becomes a ``PluginValueError``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.reversed_path: list[str | int] = []

    def error(self, hint: str = "") -> PluginValueError:
        return PluginValueError(self.message, list(reversed(self.reversed_path)), hint=hint)


ENCODE_HINT = "Check the value given here: the provider's schema says what this attribute must be."
DECODE_HINT = (
    "The provider sent a value that does not match its own schema, which is a bug in the provider; "
    "a newer or older version of it may not have it."
)
