"""YAML in and out the way Terraform's ``yamldecode``/``yamlencode`` do it, on top of PyYAML.

Decoding resolves plain scalars as Terraform's library does: YAML 1.1's booleans (``y``, ``yes``,
``on``, ``n``, ``no``, ``off`` in their three spellings, besides ``true`` and ``false``), ``0o17``
octal while ``017`` is decimal, and timestamps as RFC 3339 strings without fractional seconds
(``2001-12-14t21:59:43.10-05:00`` is ``"2001-12-14T21:59:43-05:00"``). Cyclic aliases, tags outside
the core set and multiple documents are errors. Encoding writes block style with keys sorted and
strings double-quoted, or as literal blocks when they span lines, byte-for-byte like Terraform.
"""

from __future__ import annotations

import base64
import datetime as _dt
import re
from typing import Any

import yaml

from engine.lang import numbers
from engine.lang.functions._args import num_to_str
from engine.lang.numbers import BigFloat
from vocab.limits import MAX_ALIAS_EXPANSION, MAX_DECODED_NESTING
from vocab.values import normalize_number

_TRUE = ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")
_FALSE = ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")
_BOOL = re.compile("^(?:" + "|".join(_TRUE + _FALSE) + ")$")
_TIMESTAMP = re.compile(
    r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$"
)
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


_TOO_DEEP = f"lists and mappings nest more than {MAX_DECODED_NESTING:,} levels deep (MAX_DECODED_NESTING)"


class YamlError(ValueError):
    """The text is not YAML this language can represent."""


class _Loader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type information
    """SafeLoader with the YAML 1.2 core schema's implicit types instead of YAML 1.1's, refusing a
    document that nests too deeply as soon as the nesting is read.

    PyYAML's scanner costs time quadratic in the depth of the open flow collections (each token
    looks at a possible key per open level), and its composer recurses once per level: a hundred
    thousand ``[`` kept a CPU busy for seconds before the recursion limit ended it. Counting the
    open collections while composing stops at the first level past the limit, having read only that
    far. Aliases are not expanded here, so the converted value is checked again (``_plain``).
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.open_collections = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        collection = bool(self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent))
        if collection and self.open_collections >= MAX_DECODED_NESTING:
            raise YamlError(_TOO_DEEP)
        self.open_collections += collection
        try:
            return super().compose_node(parent, index)
        finally:
            self.open_collections -= collection


_Loader.yaml_implicit_resolvers = {}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL, list("yYnNtTfFoO"))
_Loader.add_implicit_resolver("tag:yaml.org,2002:timestamp", _TIMESTAMP, list("0123456789"))
_Loader.add_implicit_resolver("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""])
_Loader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
_Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))
_Loader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])


def _construct_bool(loader: yaml.SafeLoader, node: yaml.Node) -> bool:
    return loader.construct_scalar(node) in _TRUE


def _construct_int(loader: yaml.SafeLoader, node: yaml.Node) -> int | float:
    text = str(loader.construct_scalar(node))
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return numbers.signed(text, int(text))


def _construct_float(loader: yaml.SafeLoader, node: yaml.Node) -> int | float:
    text = str(loader.construct_scalar(node)).lower()
    if "inf" in text or "nan" in text:
        raise YamlError(f"cannot represent {text!r}: numbers must be finite")
    return normalize_number(float(text))


def _construct_binary(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    raw = yaml.SafeLoader.construct_yaml_binary(loader, node)
    return base64.b64encode(raw).decode("ascii")


def _construct_timestamp(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    value = yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    if not isinstance(value, _dt.datetime):
        return f"{value.isoformat()}T00:00:00Z"
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.UTC)
    offset = value.strftime("%z")  # +hhmm
    zone = "Z" if offset in ("+0000", "") else f"{offset[:3]}:{offset[3:]}"
    return value.strftime("%Y-%m-%dT%H:%M:%S") + zone


def _unsupported(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    raise YamlError(f'unsupported tag "{node.tag}"')


_Loader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
_Loader.add_constructor("tag:yaml.org,2002:binary", _construct_binary)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)
_Loader.add_constructor(None, _unsupported)


def _key_text(k: Any) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    if k is None:
        return "null"
    if isinstance(k, int | float):
        return num_to_str(k)
    raise YamlError("mapping keys must be strings, numbers, booleans or null")


class AliasBudget:
    """What converting one document has cost in values that aliases copied.

    A YAML parser shares one object for an anchor and its aliases, so the parsed document is small
    however often its aliases repeat; the converted value copies each repetition. Eight levels of
    ten aliases copy a hundred million values, so every value copied through an alias is counted
    and the conversion stops past ``MAX_ALIAS_EXPANSION``; a document without aliases is never
    limited by this.
    """

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.inside_alias = 0
        self.copied = 0

    def enter(self, value: object, *, collection: bool) -> bool:
        """Count ``value`` if an alias copies it; whether it is a collection met before (an alias)."""
        if self.inside_alias:
            self.copied += 1
            if self.copied > MAX_ALIAS_EXPANSION:
                raise YamlError(
                    f"aliases expand to more than {MAX_ALIAS_EXPANSION:,} values (MAX_ALIAS_EXPANSION); "
                    "anchors built from aliases of other anchors grow exponentially"
                )
        if not collection:
            return False
        repeated = id(value) in self.seen
        self.seen.add(id(value))
        self.inside_alias += repeated
        return repeated

    def leave(self, repeated: bool) -> None:
        """Done with a value ``enter`` was told of."""
        self.inside_alias -= repeated


def _plain(v: Any, active: set[int], budget: AliasBudget) -> Any:
    """Convert PyYAML's result to the value model, refusing self-referencing structures."""
    collection = isinstance(v, list | dict)
    if collection and id(v) in active:
        raise YamlError("cannot refer to an anchor from inside its own definition")
    if collection and len(active) >= MAX_DECODED_NESTING:
        raise YamlError(_TOO_DEEP)
    repeated = budget.enter(v, collection=collection)
    if not collection:
        return v
    active.add(id(v))
    try:
        if isinstance(v, list):
            return [_plain(x, active, budget) for x in v]
        return {_key_text(k): _plain(x, active, budget) for k, x in v.items()}
    finally:
        active.discard(id(v))
        budget.leave(repeated)


def decode(text: str) -> Any:
    """Parse one YAML document into plain values."""
    try:
        docs = list(yaml.load_all(text, Loader=_Loader))
    except YamlError:
        raise
    except yaml.YAMLError as exc:
        raise YamlError(str(exc).replace("\n", " ")) from exc
    except RecursionError:  # should any other part of the parser recurse past the limit
        raise YamlError(_TOO_DEEP) from None
    if len(docs) > 1:
        raise YamlError("only one YAML document is allowed")
    if not docs:  # nothing but blanks and comments: both references refuse it
        raise YamlError("on line 1, column 1: missing start of document")
    return _plain(docs[0], set(), AliasBudget())


class _Dumper(yaml.SafeDumper):  # type: ignore[misc]  # PyYAML ships no type information
    """Block style, double-quoted strings, no anchors/aliases for repeated objects."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    """Double-quoted, or a literal block (``|-``) for text of several lines, as Terraform writes.

    The emitter falls back to double quotes where a block cannot hold the text exactly (a tab,
    spaces before a line break), which is the same rule Terraform's emitter applies.
    """
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|" if "\n" in data else '"')


def _represent_float(dumper: yaml.SafeDumper, data: float) -> yaml.Node:
    # The negative zero is written "-0", as Terraform writes it: a plain integer to a YAML reader.
    tag = "tag:yaml.org,2002:int" if numbers.is_negative_zero(data) else "tag:yaml.org,2002:float"
    return dumper.represent_scalar(tag, num_to_str(data))


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(float, _represent_float)
_Dumper.add_representer(BigFloat, _represent_float)  # representers are looked up by exact type


def encode(v: Any) -> str:
    """YAML text for a plain value, ending with a newline.

    A plain scalar document (a number, a bool, null) ends with the end marker ``...``, as Terraform's
    and OpenTofu's emitter ends it; a quoted string, a block and a collection do not need one.
    """
    text: str = yaml.dump(
        v,
        Dumper=_Dumper,
        default_flow_style=False,
        sort_keys=True,
        allow_unicode=True,
        width=1 << 30,
    )
    return text
