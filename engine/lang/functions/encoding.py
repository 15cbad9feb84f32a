"""Encoding functions: base64decode base64encode base64gunzip csvdecode jsondecode jsonencode
textdecodebase64 textencodebase64 urldecode urlencode yamldecode yamlencode (base64gunzip and
urldecode are OpenTofu's).

Strings in the language are Unicode text, so every decoder refuses bytes that are not valid UTF-8
instead of producing a string that would break later (state files, JSON plans).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import csv
import gzip
import io
import json
import re
import urllib.parse
import zlib
from typing import Any

from engine.lang import numbers
from engine.lang.functions import _json, _yaml
from engine.lang.functions._args import want_str
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn
from vocab.limits import MAX_DECODED_NESTING
from vocab.values import normalize_number


def _b64decode(text: str, i: int) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
        # The call fails as a whole, quoting the text (a sensitive one is withheld by the registry).
        raise CallError(f"failed to decode base64 data {json.dumps(text, ensure_ascii=False)}") from exc


def _base64decode(a: Args, _c: FunctionContext) -> str:
    raw = _b64decode(want_str(a[0], 0), 0)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArgError(0, "the result of decoding the provided string is not valid UTF-8") from exc


def _base64gunzip(a: Args, _c: FunctionContext) -> str:
    """The text ``base64gzip`` encoded: Base64, then gzip (its checksum checked), then UTF-8."""
    raw = _b64decode(want_str(a[0], 0), 0)
    try:
        data = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise ArgError(0, f"failed to read gunzip raw data: {exc}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArgError(0, "the result of decoding the provided string is not valid UTF-8") from exc


def _base64encode(a: Args, _c: FunctionContext) -> str:
    return base64.b64encode(want_str(a[0], 0).encode("utf-8")).decode("ascii")


def _codec(name: str, i: int) -> str:
    try:
        info = codecs.lookup(name)
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True):
        raise ArgError(i, f'"{name}" is not a supported IANA encoding name or alias')
    return info.name


# "UTF-16" and "UTF-32" without an order are big-endian with a byte order mark in Terraform (the
# IANA definitions); Python's codecs of those names use the machine's order.
_BOM_BIG_ENDIAN = {"utf-16": ("utf-16-be", codecs.BOM_UTF16_BE), "utf-32": ("utf-32-be", codecs.BOM_UTF32_BE)}


def _encode(text: str, codec: str) -> bytes:
    if codec in _BOM_BIG_ENDIAN:
        big_endian, bom = _BOM_BIG_ENDIAN[codec]
        return bom + text.encode(big_endian)
    return text.encode(codec)


def _decode(raw: bytes, codec: str) -> str:
    if codec in _BOM_BIG_ENDIAN and not raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF32_LE)):
        big_endian, bom = _BOM_BIG_ENDIAN[codec]
        return raw.removeprefix(bom).decode(big_endian)
    return raw.decode(codec)


def _textencodebase64(a: Args, _c: FunctionContext) -> str:
    text, name = want_str(a[0], 0), want_str(a[1], 1)
    codec = _codec(name, 1)
    try:
        raw = _encode(text, codec)
    except UnicodeEncodeError as exc:
        raise ArgError(
            0, f"the given string contains characters that cannot be represented in {name}"
        ) from exc
    return base64.b64encode(raw).decode("ascii")


def _textdecodebase64(a: Args, _c: FunctionContext) -> str:
    raw = _b64decode(want_str(a[0], 0), 0)
    name = want_str(a[1], 1)
    codec = _codec(name, 1)
    try:
        return _decode(raw, codec)
    except UnicodeDecodeError as exc:
        raise ArgError(0, f"the given value has an invalid {name} encoding") from exc


def _csvdecode(a: Args, _c: FunctionContext) -> list[dict[str, str]]:
    text = want_str(a[0], 0)
    try:
        rows = [r for r in csv.reader(io.StringIO(text, newline=""), strict=True) if r]
    except csv.Error as exc:
        raise ArgError(0, f"invalid CSV: {exc}") from exc
    if not rows:
        raise ArgError(0, "missing header line")
    header = rows[0]
    out: list[dict[str, str]] = []
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ArgError(0, f"record on line {n}: wrong number of fields")
        out.append(dict(zip(header, row, strict=True)))
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _jsondecode(a: Args, _c: FunctionContext) -> Any:
    text = want_str(a[0], 0)
    if _json.nesting(text) > MAX_DECODED_NESTING:
        raise ArgError(0, f"the JSON nests lists and objects more than {MAX_DECODED_NESTING:,} levels deep "
                          "(MAX_DECODED_NESTING)")
    try:
        return json.loads(
            text,
            parse_float=lambda s: normalize_number(float(s)),
            # "-0" is the negative zero; the integer hook costs a call per number, so only when needed
            parse_int=_signed_int if "-0" in text else None,
            parse_constant=_reject_constant,
        )
    except ValueError as exc:
        raise ArgError(0, f"invalid JSON: {exc}") from exc


def _signed_int(text: str) -> int | float:
    return numbers.signed(text, int(text))


def _jsonencode(a: Args, _c: FunctionContext) -> str:
    try:
        return _json.encode(a[0])
    except (TypeError, ValueError) as exc:
        raise ArgError(0, f"cannot encode as JSON: {exc}") from exc


def _urlencode(a: Args, _c: FunctionContext) -> str:
    return urllib.parse.quote_plus(want_str(a[0], 0), safe="")


_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _urldecode(a: Args, _c: FunctionContext) -> str:
    """What ``urlencode`` escaped, as Go's ``url.QueryUnescape`` reads it: ``+`` is a blank, and a
    ``%`` not followed by two hexadecimal digits is an error rather than kept."""
    text = want_str(a[0], 0)
    bad = _BAD_ESCAPE.search(text)
    if bad:
        raise ArgError(0, f'invalid URL escape "{text[bad.start():bad.start() + 3]}"')
    try:
        return urllib.parse.unquote_plus(text, errors="strict")
    except UnicodeDecodeError as exc:
        raise ArgError(0, "the decoded text is not valid UTF-8") from exc


def _yamldecode(a: Args, _c: FunctionContext) -> Any:
    try:
        return _yaml.decode(want_str(a[0], 0))
    except _yaml.YamlError as exc:
        raise CallError(str(exc)) from exc


def _yamlencode(a: Args, _c: FunctionContext) -> str:
    try:
        return _yaml.encode(a[0])
    except (TypeError, ValueError) as exc:
        raise ArgError(0, f"cannot encode as YAML: {exc}") from exc


FUNCTIONS = {
    "base64decode": fn(_base64decode, "str"),
    "base64encode": fn(_base64encode, "str"),
    "base64gunzip": fn(_base64gunzip, "str"),
    "csvdecode": fn(_csvdecode, "str"),
    "jsondecode": fn(_jsondecode, "str"),
    "jsonencode": fn(_jsonencode, "val"),
    "textdecodebase64": fn(_textdecodebase64, "source", "encoding"),
    "textencodebase64": fn(_textencodebase64, "string", "encoding"),
    "urldecode": fn(_urldecode, "str"),
    "urlencode": fn(_urlencode, "str"),
    "yamldecode": fn(_yamldecode, "src"),
    "yamlencode": fn(_yamlencode, "value"),
}
