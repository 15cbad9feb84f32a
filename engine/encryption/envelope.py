"""One sealed document, in OpenTofu's layout; ctl's earlier layout is still read.

What ctl writes is what OpenTofu writes (its ``encryption_version`` "v0")::

    {"serial": 7, "lineage": "…",                           # a state's facts, readable without the key
     "meta": {"key_provider.pbkdf2.main": "…base64 of the key provider's JSON metadata…"},
     "encrypted_data": "…base64 of nonce ‖ AES-GCM ciphertext ‖ tag…",
     "encryption_version": "v0"}

so a team moving between the two tools keeps one encrypted state. Nothing outside ``encrypted_data``
is authenticated in this layout; it does not need to be: the key metadata only decides how the key
is derived (changed, it derives a wrong key and the tag fails), and the facts are compared with the
decrypted document after opening (``store``), so a header moved onto another body is still caught.

ctl's own earlier layout (``"encryption": {"format": "ctl-aes-gcm-v1", …}``, the header bound as the
cipher's associated data) is read for states, history versions, backups and journals written before,
and replaced by the next write.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from dataclasses import dataclass
from typing import Any

from engine.encryption.errors import EncryptionError

VERSION = "v0"  # OpenTofu's encryption_version: the only one it writes or reads
LEGACY_FORMAT = "ctl-aes-gcm-v1"
NONCE_BYTES = 12
KEY_PROVIDER_PREFIX = "key_provider."


@dataclass(frozen=True)
class Sealed:
    """A sealed document, parsed: its top-level fields and each key provider's stored metadata."""

    doc: dict[str, Any]
    metas: dict[str, dict[str, Any]]  # "key_provider.pbkdf2.main" (or its alias) -> what it stored
    legacy: bool  # ctl's earlier layout


def is_encrypted(data: bytes) -> bool:
    """Whether ``data`` is a whole sealed document, in either layout (cheap: no key needed)."""
    head = data.lstrip()[:1]
    if head != b"{" or b'"encrypted_data"' not in data:
        return False
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(doc, dict) and _sealed_doc(doc)


def _sealed_doc(doc: dict[str, Any]) -> bool:
    if "encrypted_data" not in doc:
        return False
    version = doc.get("encryption_version")
    return (isinstance(version, str) and version != "") or isinstance(doc.get("encryption"), dict)


# How a sealed document begins (the facts, then the key metadata, in either layout; compact as ctl
# writes it or indented as OpenTofu's local backend does) and how its header begins: a damaged copy
# that no longer parses is still recognised by them. A parsable document is never taken for a
# damaged sealed one.
_FIRST_KEY = re.compile(rb'\{\s*"(serial|lineage|ctl_version|terraform_version|encryption|meta|encrypted_data)"\s*:')
_HEADER = re.compile(rb'"encryption"\s*:\s*\{\s*"method"\s*:\s*"|"meta"\s*:\s*\{\s*"key_provider\.')
_LOOK_AHEAD = 4096


def looks_sealed(data: bytes) -> bool:
    """Whether ``data`` is, or was before it was damaged or cut short, a sealed document.

    A truncated sealed file is not JSON any more; taken for plaintext, it would be reported as "not
    encrypted" with advice to accept plaintext, which is the wrong remedy for a damaged file.
    """
    if is_encrypted(data):
        return True
    head = data.lstrip()[:_LOOK_AHEAD]
    if not (_FIRST_KEY.match(head) or (head[:1] == b"{" and _HEADER.search(head))):
        return False
    try:
        json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return True
    return False


def damaged(where: str) -> EncryptionError:
    """The error for a sealed document that no longer parses (cut short, or changed by hand)."""
    return EncryptionError(
        f"{where} is encrypted but damaged: it is truncated or was changed, and cannot be read",
        hint="Restore it from the history (`ctl state history`, `ctl state rollback`) or a backup.",
    )


def seal(plaintext: bytes, key: bytes, metas: dict[str, dict[str, Any]], facts: dict[str, Any]) -> bytes:
    """Encrypt ``plaintext`` with AES-GCM in OpenTofu's layout; ``metas`` (by storage key,
    ``key_provider.pbkdf2.main``) are what the key is derived again from, ``facts`` (a state's serial
    and lineage) stay readable beside it."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(NONCE_BYTES)  # fresh per write: GCM must never reuse a nonce with a key
    return wrap(nonce + AESGCM(key).encrypt(nonce, plaintext, None), metas, facts)


def wrap(encrypted: bytes, metas: dict[str, dict[str, Any]], facts: dict[str, Any]) -> bytes:
    """A method's output (``encrypted``) as the sealed document OpenTofu writes around it."""
    doc: dict[str, Any] = {
        **facts,
        # The metadata is stored as OpenTofu's Go code stores a byte slice: base64 of its JSON.
        "meta": {name: _b64(json.dumps(meta, separators=(",", ":")).encode()) for name, meta in metas.items()},
        "encrypted_data": _b64(encrypted),
        "encryption_version": VERSION,
    }
    return json.dumps(doc, separators=(",", ":")).encode()


def encrypted_data(sealed: Sealed, where: str) -> bytes:
    """What the method wrote (for the external method: what its program answered)."""
    try:
        return base64.b64decode(sealed.doc["encrypted_data"], validate=True)
    except (KeyError, TypeError, ValueError, binascii.Error):
        raise damaged(where) from None


def header_of(data: bytes, where: str) -> Sealed:
    """The parsed sealed ``data`` (fields and key metadata), checked for shape."""
    try:
        doc = json.loads(data)
        if not isinstance(doc, dict) or not _sealed_doc(doc) or not isinstance(doc["encrypted_data"], str):
            raise ValueError
        sealed = _legacy(doc) if isinstance(doc.get("encryption"), dict) else _opentofu(doc, where)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        if looks_sealed(data) and not is_encrypted(data):
            raise damaged(where) from None
        raise EncryptionError(f"{where} is encrypted in a form ctl does not read (damaged or foreign)") from None
    return sealed


def _opentofu(doc: dict[str, Any], where: str) -> Sealed:
    version = doc["encryption_version"]
    if version != VERSION:
        raise EncryptionError(
            f'{where} is encrypted with encryption_version "{version}"; ctl reads "{VERSION}", the version '
            "OpenTofu writes",
            hint="Decrypt it with the tool that wrote it (an unencrypted method with this key as the fallback), "
                 "then encrypt it again with ctl.")
    raw = doc.get("meta") or {}
    if not isinstance(raw, dict):
        raise ValueError
    metas: dict[str, dict[str, Any]] = {}
    for name, value in raw.items():
        meta = json.loads(base64.b64decode(value, validate=True)) if isinstance(value, str) else None
        if not isinstance(meta, dict):
            raise ValueError
        metas[name] = meta
    return Sealed(doc, metas, legacy=False)


def _legacy(doc: dict[str, Any]) -> Sealed:
    header = doc["encryption"]
    if header.get("format") != LEGACY_FORMAT:
        raise ValueError
    ref, meta = header.get("key_provider"), header.get("key_meta")
    metas = {KEY_PROVIDER_PREFIX + ref: meta if isinstance(meta, dict) else {}} if isinstance(ref, str) else {}
    return Sealed(doc, metas, legacy=True)


def unseal(sealed: Sealed, key: bytes, where: str) -> bytes:
    """Decrypt a document from ``header_of``; a wrong key or any changed byte is one clear error."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    doc = sealed.doc
    try:
        data = base64.b64decode(doc["encrypted_data"], validate=True)
        if sealed.legacy:
            nonce, aad = base64.b64decode(doc["encryption"]["nonce"], validate=True), _legacy_aad(doc)
        else:
            nonce, data, aad = data[:NONCE_BYTES], data[NONCE_BYTES:], None
        plaintext: bytes = AESGCM(key).decrypt(nonce, data, aad)
    except (InvalidTag, KeyError, TypeError, ValueError, binascii.Error):
        raise EncryptionError(
            f"cannot decrypt {where}: the key is wrong, or the file was changed or truncated",
            hint="Check the passphrase or KMS key (and any fallback); a damaged file must be restored "
                 "from history or a backup.",
        ) from None
    return plaintext


def _legacy_aad(doc: dict[str, Any]) -> bytes:
    """ctl's earlier layout authenticated every field but the ciphertext, as canonical JSON."""
    return json.dumps({k: v for k, v in doc.items() if k != "encrypted_data"}, sort_keys=True,
                      separators=(",", ":")).encode()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
