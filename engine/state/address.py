"""Resource-instance addresses in Terraform's spelling: ``module.net["a"].data.local_file.x[0]``.

State, journal entries, plan JSON and the ``ctl state`` commands all name instances by these strings,
so formatting and parsing must be exact inverses (``parse(str(a)) == a``). The parser is a small
hand-written scanner rather than a regular expression because string keys may contain dots,
brackets and escaped quotes (``random_id.a["x.y[\\"z\\"]"]``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from vocab.errors import CtlError

# ``json.dumps(key, ensure_ascii=False)`` without building an encoder per call: addresses are
# formatted for every instance of every command.
_quoted = json.encoder.encode_basestring

Key = int | str | None
ModulePath = tuple[tuple[str, Key], ...]

# The common case, parsed in one step as the scanner would: a root-module resource, maybe data,
# with no key or a count index (names in ASCII; anything else takes the scanner).
_SIMPLE = re.compile(r"(data\.)?([A-Za-z_][A-Za-z0-9_-]*)\.([A-Za-z_][A-Za-z0-9_-]*)(?:\[([0-9]+)\])?")

_EXAMPLES = 'aws_s3_bucket.logs, random_id.a["k"], data.local_file.x or module.net[0].aws_s3_bucket.logs'


class AddressError(CtlError):
    """A resource address typed by the user (or found in a state file) is malformed."""


@dataclass(frozen=True, slots=True)
class InstanceAddress:
    """One resource instance: its module path, mode (``managed``/``data``), type, name and key."""

    module: ModulePath
    mode: str
    type: str
    name: str
    key: Key = None

    def __str__(self) -> str:
        mod = self.module_str
        res = f"{'data.' if self.mode == 'data' else ''}{self.type}.{self.name}{format_key(self.key)}"
        return f"{mod}.{res}" if mod else res

    @property
    def module_str(self) -> str:
        """The module part as written in a state file's ``module`` field (``""`` for the root)."""
        return format_module(self.module)

    @property
    def resource_str(self) -> str:
        """The address of the whole resource, without the instance key."""
        return str(InstanceAddress(self.module, self.mode, self.type, self.name, None))

    @property
    def resource_key(self) -> tuple[str, str, str, str]:
        """(module, mode, type, name): the identity of the resource this instance belongs to."""
        return (self.module_str, self.mode, self.type, self.name)

    @classmethod
    def parse(cls, text: str) -> InstanceAddress:
        """Parse an address string; raises ``AddressError`` naming what is wrong."""
        simple = _SIMPLE.fullmatch(text)
        if simple is not None and (simple[1] or simple[2] not in ("module", "data")):
            index = simple[4]
            return cls((), "data" if simple[1] else "managed", simple[2], simple[3],
                       None if index is None else int(index))
        parts = _Scanner(text).parts()
        module, rest = _split_module(text, parts)
        mode = "managed"
        if rest and rest[0] == ("data", None):
            mode, rest = "data", rest[1:]
        if len(rest) != 2:
            raise _error(text, "expected a resource type and name")
        (rtype, type_key), (name, key) = rest
        if type_key is not None:
            raise _error(text, f"the resource type {rtype!r} cannot have an index")
        return cls(module, mode, rtype, name, key)


def format_key(key: Key) -> str:
    """``[0]`` for a count index, ``["a"]`` for a for_each key, nothing for a single instance."""
    if key is None:
        return ""
    if isinstance(key, bool) or not isinstance(key, int | str):
        raise TypeError(f"instance key must be int or str, not {type(key).__name__}")
    if isinstance(key, int):
        return f"[{key}]"
    return "[" + _quoted(key) + "]"


def format_module(module: ModulePath) -> str:
    """``module.a.module.b["x"]`` for a module path; ``""`` for the root module."""
    return ".".join(f"module.{name}{format_key(key)}" for name, key in module)


def parse_module(text: str) -> ModulePath:
    """Parse a module path such as a state file's ``module`` field (``""`` is the root module)."""
    if not text:
        return ()
    module, rest = _split_module(text, _Scanner(text).parts())
    if rest:
        raise _error(text, 'expected only module steps such as module.net or module.net["a"]')
    return module


def _split_module(text: str, parts: list[tuple[str, Key]]) -> tuple[ModulePath, list[tuple[str, Key]]]:
    module: list[tuple[str, Key]] = []
    i = 0
    while i < len(parts) and parts[i][0] == "module":
        if parts[i][1] is not None:
            raise _error(text, "an index belongs after the module name: module.NAME[KEY]")
        if i + 1 >= len(parts):
            raise _error(text, 'expected a module name after "module."')
        module.append(parts[i + 1])
        i += 2
    return tuple(module), parts[i:]


def _error(text: str, reason: str) -> AddressError:
    return AddressError(
        f"invalid resource address {text!r}: {reason}", hint=f"Addresses look like {_EXAMPLES}."
    )


class _Scanner:
    """Splits ``a.b[0].c["k"]`` into ``[("a", None), ("b", 0), ("c", "k")]``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def parts(self) -> list[tuple[str, Key]]:
        if not self.text:
            raise _error(self.text, "the address is empty")
        out: list[tuple[str, Key]] = []
        while True:
            name = self._ident()
            key = self._key() if self._peek() == "[" else None
            out.append((name, key))
            if self.pos == len(self.text):
                return out
            if self._peek() != ".":
                raise _error(self.text, f"unexpected {self._peek()!r} at position {self.pos + 1}")
            self.pos += 1

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _ident(self) -> str:
        start = self.pos
        text = self.text
        if self.pos < len(text) and (text[self.pos].isalpha() or text[self.pos] == "_"):
            self.pos += 1
            while self.pos < len(text) and (text[self.pos].isalnum() or text[self.pos] in "_-"):
                self.pos += 1
        if self.pos == start:
            where = f"{text[start]!r} at position {start + 1}" if start < len(text) else "the end"
            raise _error(text, f"expected a name but found {where}")
        return text[start : self.pos]

    def _key(self) -> int | str:
        text = self.text
        self.pos += 1  # "["
        if self._peek() == '"':
            end = self.pos + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                raise _error(text, "unterminated string key")
            try:
                key: int | str = json.loads(text[self.pos : end + 1])
            except json.JSONDecodeError as exc:
                raise _error(text, f"bad string key: {exc.msg}") from None
            self.pos = end + 1
        else:
            start = self.pos
            while self.pos < len(text) and text[self.pos] in "0123456789":
                self.pos += 1
            if self.pos == start:
                raise _error(text, 'an index must be a number like [0] or a quoted string like ["a"]')
            key = int(text[start : self.pos])
        if self._peek() != "]":
            raise _error(text, f'expected "]" at position {self.pos + 1}')
        self.pos += 1
        return key


def parse_any(text: str) -> InstanceAddress | ModulePath:
    """A resource/instance address, else a module path (``module.net``); the resource error wins."""
    try:
        return InstanceAddress.parse(text)
    except AddressError as first:
        try:
            module = parse_module(text)
        except AddressError:
            raise first from None
        if not module:
            raise first from None
        return module
