"""Hash and identifier functions: base64gzip base64sha256 base64sha512 md5 sha1 sha256 sha512 uuid
uuidv5, and the file variants filemd5 filesha1 filesha256 filesha512 filebase64sha256
filebase64sha512.

Strings are hashed as their UTF-8 bytes; the file variants hash the raw file bytes, so they also
work for binary files that ``file()`` would refuse. ``uuid()`` is unknown during plan because its
value is only chosen when applying.
"""

from __future__ import annotations

import base64
import hashlib
import struct
import uuid as _uuid
import zlib
from collections.abc import Callable

from engine.lang.functions import _paths
from engine.lang.functions._args import want_str
from engine.lang.functions._core import ArgError, Args, FunctionContext, FunctionSpec, fn
from vocab.values import UNKNOWN

_NAMESPACES = {
    "dns": _uuid.NAMESPACE_DNS,
    "url": _uuid.NAMESPACE_URL,
    "oid": _uuid.NAMESPACE_OID,
    "x500": _uuid.NAMESPACE_X500,
}


def _text_hash(algo: str, b64: bool) -> Callable[[Args, FunctionContext], str]:
    def impl(a: Args, _c: FunctionContext) -> str:
        h = hashlib.new(algo, want_str(a[0], 0).encode("utf-8"), usedforsecurity=False)
        return base64.b64encode(h.digest()).decode("ascii") if b64 else h.hexdigest()

    return impl


def _file_hash(algo: str, b64: bool) -> Callable[[Args, FunctionContext], str]:
    def impl(a: Args, ctx: FunctionContext) -> str:
        h = hashlib.new(algo, _paths.read_bytes(want_str(a[0], 0), 0, ctx), usedforsecurity=False)
        return base64.b64encode(h.digest()).decode("ascii") if b64 else h.hexdigest()

    return impl


# The gzip stream Terraform's (Go's) writer produces: a header with no time, no flags and OS
# "unknown", the data flushed (a sync marker), then an empty final block and the trailer.
_GO_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_GO_FINAL_EMPTY_BLOCK = b"\x01\x00\x00\xff\xff"


def _base64gzip(a: Args, _c: FunctionContext) -> str:
    """Gzip framed as Go's ``gzip.Writer`` after ``Flush`` and ``Close`` frames it.

    Short inputs come out byte for byte as Terraform's; for longer ones the compressed bytes may
    differ (zlib and Go choose matches differently) while decompressing to the same text.
    """
    data = want_str(a[0], 0).encode("utf-8")
    deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflate.compress(data) + deflate.flush(zlib.Z_SYNC_FLUSH)
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return base64.b64encode(_GO_GZIP_HEADER + body + _GO_FINAL_EMPTY_BLOCK + trailer).decode("ascii")


def _uuid4(_a: Args, ctx: FunctionContext) -> object:
    return UNKNOWN if ctx.plan_mode else str(_uuid.uuid4())


def _uuidv5(a: Args, _c: FunctionContext) -> str:
    ns_text, name = want_str(a[0], 0), want_str(a[1], 1)
    namespace = _NAMESPACES.get(ns_text)
    if namespace is None:
        try:
            namespace = _uuid.UUID(ns_text)
        except ValueError as exc:
            raise ArgError(
                0, f'"{ns_text}" is neither a UUID nor one of "dns", "url", "oid", "x500"'
            ) from exc
    return str(_uuid.uuid5(namespace, name))


FUNCTIONS: dict[str, Callable[[str], FunctionSpec]] = {
    "base64gzip": fn(_base64gzip, "str"),
    "base64sha256": fn(_text_hash("sha256", True), "str"),
    "base64sha512": fn(_text_hash("sha512", True), "str"),
    "md5": fn(_text_hash("md5", False), "str"),
    "sha1": fn(_text_hash("sha1", False), "str"),
    "sha256": fn(_text_hash("sha256", False), "str"),
    "sha512": fn(_text_hash("sha512", False), "str"),
    "filemd5": fn(_file_hash("md5", False), "path"),
    "filesha1": fn(_file_hash("sha1", False), "path"),
    "filesha256": fn(_file_hash("sha256", False), "path"),
    "filesha512": fn(_file_hash("sha512", False), "path"),
    "filebase64sha256": fn(_file_hash("sha256", True), "path"),
    "filebase64sha512": fn(_file_hash("sha512", True), "path"),
    "uuid": fn(_uuid4),
    "uuidv5": fn(_uuidv5, "namespace", "name"),
}
