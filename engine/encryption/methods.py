"""OpenTofu's ``external`` encryption method: programs that encrypt and decrypt the payload themselves.

``method "external" "NAME" { encrypt_command = [...], decrypt_command = [...], keys = … }``: the
program is given ``{"key": base64, "payload": base64}`` (no ``key`` when the method has no key
provider) after writing the header ``{"magic": "OpenTofu-External-Encryption-Method", "version": 1}``,
and answers ``{"payload": base64}``. What it answers when encrypting is the file's ``encrypted_data``,
beside the key providers' metadata, as OpenTofu stores it; the program alone authenticates what it
decrypts. Running it follows ``program``: no shell, a deadline, its stderr and never the keys shown.
"""

from __future__ import annotations

import base64
import binascii
import json

from engine.encryption.config import MethodConfig
from engine.encryption.errors import EncryptionError
from engine.encryption.program import run

MAGIC = "OpenTofu-External-Encryption-Method"


def external_encrypt(method: MethodConfig, key: bytes | None, plaintext: bytes) -> bytes:
    return _call(method, list(method.encrypt_command), key, plaintext, "encrypt")


def external_decrypt(method: MethodConfig, key: bytes | None, data: bytes) -> bytes:
    if not data:
        raise EncryptionError(f"method.{method.ref}: there is no encrypted data to decrypt")
    return _call(method, list(method.decrypt_command), key, data, "decrypt")


def _call(method: MethodConfig, command: list[str], key: bytes | None, payload: bytes, what: str) -> bytes:
    who = f"method.{method.ref} ({what}_command)"
    given = {"key": base64.b64encode(key).decode()} if key else {}
    answer, stderr = run(command, json.dumps({**given, "payload": base64.b64encode(payload).decode()}).encode(),
                         magic=MAGIC, who=who)
    out = answer.get("payload") if isinstance(answer, dict) and set(answer) == {"payload"} else None
    try:
        if not isinstance(out, str):
            raise ValueError
        return base64.b64decode(out, validate=True)
    except (ValueError, binascii.Error):
        raise EncryptionError(f'{who}: {command[0]} answered another document than {{"payload": "…base64…"}}',
                              detail=stderr) from None
