"""One sealed document: AES-256-GCM ciphertext under a small JSON header that is authenticated too.

    {"encryption": {"format": "ctl-aes-gcm-v1", "method": "aes_gcm.main", "key_provider": "pbkdf2.main",
                    "key_meta": {...}, "nonce": "..."},
     "serial": 7, "lineage": "…", "ctl_version": "…",          # facts readable without the key
     "encrypted_data": "…base64…"}

The header (everything but ``encrypted_data``, as canonical JSON) is the cipher's associated data:
changing a byte of it, or moving a header onto another body, fails authentication. Facts a store
needs without the key (serial, lineage, writer) are in the header; after decryption the caller
checks them against the document itself (``target``), so a swapped body is caught as well.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from typing import Any

from engine.encryption.errors import EncryptionError

FORMAT = "ctl-aes-gcm-v1"
NONCE_BYTES = 12


def is_encrypted(data: bytes) -> bool:
    """Whether ``data`` is a sealed document (cheap: no key needed)."""
    head = data.lstrip()[:1]
    if head != b"{" or b'"encrypted_data"' not in data:
        return False
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(doc, dict) and "encrypted_data" in doc and isinstance(doc.get("encryption"), dict)


# How a sealed document begins (``seal`` writes compact JSON: the facts, then the header) and how its
# header begins: a damaged copy that no longer parses is still recognised by them. Plaintext states
# are written indented, and a parsable document is never taken for a damaged sealed one.
_FIRST_KEYS = tuple(b'{"%s":' % k for k in (b"serial", b"lineage", b"ctl_version", b"terraform_version",
                                               b"encryption"))
_HEADER_START = b'"encryption":{"method":"'
_LOOK_AHEAD = 4096


def looks_sealed(data: bytes) -> bool:
    """Whether ``data`` is, or was before it was damaged or cut short, a sealed document.

    A truncated sealed file is not JSON any more; taken for plaintext, it would be reported as "not
    encrypted" with advice to accept plaintext, which is the wrong remedy for a damaged file.
    """
    if is_encrypted(data):
        return True
    head = data.lstrip()[:_LOOK_AHEAD]
    if not (head.startswith(_FIRST_KEYS) or (head[:1] == b"{" and _HEADER_START in head)):
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


def seal(plaintext: bytes, key: bytes, header: dict[str, Any], facts: dict[str, Any]) -> bytes:
    """Encrypt ``plaintext``; ``header`` names method and key, ``facts`` stay readable beside it."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(NONCE_BYTES)  # fresh per write: GCM must never reuse a nonce with a key
    doc: dict[str, Any] = {**facts, "encryption": {**header, "format": FORMAT, "nonce": _b64(nonce)}}
    ciphertext = AESGCM(key).encrypt(nonce, plaintext, _aad(doc))
    doc["encrypted_data"] = _b64(ciphertext)
    return json.dumps(doc, separators=(",", ":")).encode()


def header_of(data: bytes, where: str) -> dict[str, Any]:
    """The parsed document of a sealed ``data`` (header and facts), checked for shape."""
    try:
        doc = json.loads(data)
        header = doc["encryption"]
        if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(doc["encrypted_data"], str):
            raise ValueError
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        if looks_sealed(data) and not is_encrypted(data):
            raise damaged(where) from None
        raise EncryptionError(f"{where} is encrypted in a form ctl does not read (damaged or foreign)") from None
    result: dict[str, Any] = doc
    return result


def unseal(doc: dict[str, Any], key: bytes, where: str) -> bytes:
    """Decrypt a document from ``header_of``; a wrong key or any changed byte is one clear error."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        nonce = base64.b64decode(doc["encryption"]["nonce"], validate=True)
        ciphertext = base64.b64decode(doc["encrypted_data"], validate=True)
        body = {k: v for k, v in doc.items() if k != "encrypted_data"}
        plaintext: bytes = AESGCM(key).decrypt(nonce, ciphertext, _aad(body))
    except (InvalidTag, KeyError, TypeError, ValueError, binascii.Error):
        raise EncryptionError(
            f"cannot decrypt {where}: the key is wrong, or the file was changed or truncated",
            hint="Check the passphrase or KMS key (and any fallback); a damaged file must be restored "
                 "from history or a backup.",
        ) from None
    return plaintext


def _aad(doc: dict[str, Any]) -> bytes:
    return json.dumps({k: v for k, v in doc.items() if k != "encrypted_data"}, sort_keys=True,
                      separators=(",", ":")).encode()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
