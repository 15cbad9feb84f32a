"""Hash and identifier functions: base64gzip base64sha256 base64sha512 bcrypt md5 sha1 sha256 sha512
uuid uuidv5, and the file variants filemd5 filesha1 filesha256 filesha512 filebase64sha256
filebase64sha512.

Strings are hashed as their UTF-8 bytes; the file variants hash the raw file bytes, so they also
work for binary files that ``file()`` would refuse. ``uuid()`` and ``bcrypt()`` are unknown during plan because
their values (a random identifier, a random salt) are only chosen when applying, as Terraform's are.
"""

from __future__ import annotations

import base64
import hashlib
import struct
import uuid as _uuid
import zlib
from collections.abc import Callable

import bcrypt as _bcrypt

from engine.lang.functions import _paths
from engine.lang.functions._args import want_int, want_str
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


# Go's golang.org/x/crypto/bcrypt, which Terraform and OpenTofu call: a cost under the minimum is
# silently the default, one over the maximum is an error, and the hash says "2a".
_BCRYPT_MIN_COST, _BCRYPT_DEFAULT_COST, _BCRYPT_MAX_COST = 4, 10, 31
_BCRYPT_MAX_BYTES = 72


def _bcrypt_hash(a: Args, ctx: FunctionContext) -> object:
    """A salted bcrypt hash of the string, as the newest Terraform and OpenTofu compute it.

    Passwords longer than 72 bytes are refused (Terraform 1.0.3 silently hashed only their first
    72 bytes, so two different long passwords verified against each other's hash).
    """
    password = want_str(a[0], 0).encode("utf-8")
    cost = want_int(a[1], 1) if len(a) > 1 else _BCRYPT_DEFAULT_COST
    if cost > _BCRYPT_MAX_COST:
        raise ArgError(1, f"crypto/bcrypt: cost {cost} is outside allowed range "
                          f"({_BCRYPT_MIN_COST},{_BCRYPT_MAX_COST})")
    if len(password) > _BCRYPT_MAX_BYTES:
        raise ArgError(0, f"error occurred generating password bcrypt: password length exceeds "
                          f"{_BCRYPT_MAX_BYTES} bytes")
    if ctx.plan_mode:
        return UNKNOWN
    rounds = cost if cost >= _BCRYPT_MIN_COST else _BCRYPT_DEFAULT_COST
    return _bcrypt.hashpw(password, _bcrypt.gensalt(rounds, prefix=b"2a")).decode("ascii")


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
    "bcrypt": fn(_bcrypt_hash, "str", optional=("cost",)),
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
