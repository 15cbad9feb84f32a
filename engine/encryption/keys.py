"""Key providers: where the 256-bit data keys come from.

``pbkdf2`` derives the key from a passphrase (PBKDF2-HMAC-SHA512, a fresh random salt per run,
the salt, iteration count, hash and key length stored with the data so the key can be derived
again: the metadata OpenTofu's key provider of the same name stores, field for field). ``aws_kms`` asks
KMS for a data key and stores its encrypted form; decrypting that needs the KMS key again. A run
derives or fetches its write key once and caches the keys it read with, so the journal's many
entries cost one derivation, not one each.
"""

from __future__ import annotations

import base64
import hashlib
import os
import threading
from typing import Any

from engine.encryption.config import KeyProviderConfig
from engine.encryption.errors import EncryptionError

KEY_BYTES = 32  # AES-256
MIN_PASSPHRASE = 16
DEFAULT_ITERATIONS = 600_000  # OWASP's figure for PBKDF2-HMAC-SHA512 at the time of writing
MIN_ITERATIONS = 200_000
# The most iterations a key is derived with, written or read. The count is stored beside the data and
# read before the data is authenticated, so without a cap anyone who can write the file decides how
# long every later command spends deriving a key. Over three times the default leaves room to raise it.
MAX_ITERATIONS = 2_000_000
SALT_BYTES = 32
KEY_LENGTHS = (16, 24, 32)  # AES-128, -192, -256: what OpenTofu's ``key_length`` may ask for
_HASHES = ("sha512", "sha256")


class KeyProvider:
    """One configured key provider: a key to write with, and the key for stored metadata."""

    def __init__(self, config: KeyProviderConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._write: tuple[bytes, dict[str, Any]] | None = None
        self._read: dict[str, bytes] = {}
        self._deriving: dict[str, threading.Lock] = {}

    @property
    def ref(self) -> str:
        return self.config.ref

    @property
    def storage_key(self) -> str:
        """The name its metadata is stored under: ``key_provider.TYPE.NAME``, or OpenTofu's
        ``encrypted_metadata_alias`` (which lets a key provider be renamed)."""
        alias = self.config.settings.get("encrypted_metadata_alias")
        return alias if isinstance(alias, str) and alias else f"key_provider.{self.config.ref}"

    def write_key(self) -> tuple[bytes, dict[str, Any]]:
        """The key this run encrypts with and the metadata to store beside the data."""
        with self._lock:
            if self._write is None:
                self._write = self._new_key()
                self._read[_cache_key(self._write[1])] = self._write[0]
            return self._write

    def read_key(self, meta: dict[str, Any]) -> bytes:
        """The key that ``meta`` (as stored by ``write_key``) describes.

        Keys of different metadata are derived side by side (``ctl state history`` opens a version
        sealed by each run), each one once: a lock per metadata, not one for the provider.
        """
        cache = _cache_key(meta)
        with self._lock:
            found = self._read.get(cache)
            if found is not None:
                return found
            deriving = self._deriving.setdefault(cache, threading.Lock())
        with deriving:
            with self._lock:
                found = self._read.get(cache)
            if found is None:
                found = self._key_from(meta)
                with self._lock:
                    self._read[cache] = found
            return found

    def _new_key(self) -> tuple[bytes, dict[str, Any]]:
        raise NotImplementedError

    def _key_from(self, meta: dict[str, Any]) -> bytes:
        raise NotImplementedError


class Pbkdf2(KeyProvider):
    def _settings(self) -> tuple[str, int, str, int, int]:
        s = self.config.settings
        passphrase = s.get("passphrase")
        if not isinstance(passphrase, str) or len(passphrase) < MIN_PASSPHRASE:
            raise EncryptionError(f"key_provider.{self.ref}: the passphrase must be at least {MIN_PASSPHRASE} "
                                  "characters long")
        iterations = s.get("iterations", DEFAULT_ITERATIONS)
        if not _whole(iterations) or not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
            raise EncryptionError(f"key_provider.{self.ref}: iterations must be a whole number from "
                                  f"{MIN_ITERATIONS:,} to {MAX_ITERATIONS:,}",
                                  hint=f"The default, {DEFAULT_ITERATIONS:,}, is what the key provider uses "
                                       "without the setting.")
        hash_name = s.get("hash_function", "sha512")
        if hash_name not in _HASHES:
            raise EncryptionError(f"key_provider.{self.ref}: hash_function must be one of {', '.join(_HASHES)}")
        key_length = s.get("key_length", KEY_BYTES)
        if key_length not in KEY_LENGTHS or not _whole(key_length):
            raise EncryptionError(f"key_provider.{self.ref}: key_length must be 16, 24 or 32 (bytes of an AES key)")
        salt_length = s.get("salt_length", SALT_BYTES)
        if not _whole(salt_length) or not 1 <= salt_length <= 1024:
            raise EncryptionError(f"key_provider.{self.ref}: salt_length must be a whole number of bytes from 1 "
                                  "to 1024")
        return passphrase, iterations, hash_name, key_length, salt_length

    def _new_key(self) -> tuple[bytes, dict[str, Any]]:
        passphrase, iterations, hash_name, key_length, salt_length = self._settings()
        salt = os.urandom(salt_length)
        key = hashlib.pbkdf2_hmac(hash_name, passphrase.encode(), salt, iterations, key_length)
        return key, {"salt": _b64(salt), "iterations": iterations, "hash_function": hash_name,
                     "key_length": key_length}

    def _key_from(self, meta: dict[str, Any]) -> bytes:
        passphrase = self._settings()[0]
        try:
            salt = base64.b64decode(meta["salt"], validate=True)
            iterations, hash_name = meta["iterations"], meta["hash_function"]
            key_length = meta.get("key_length", KEY_BYTES)  # ctl's earlier layout stored no length: 32
        except (KeyError, TypeError, ValueError):
            raise EncryptionError(f"the stored metadata of key_provider.{self.ref} is damaged") from None
        if hash_name not in _HASHES or not _whole(iterations) or not salt or not _whole(key_length) \
                or key_length not in KEY_LENGTHS:
            raise EncryptionError(f"the stored metadata of key_provider.{self.ref} is damaged")
        if not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
            raise EncryptionError(
                f"the stored metadata of key_provider.{self.ref} asks for {iterations:,} PBKDF2 iterations; "
                f"ctl derives keys with {MIN_ITERATIONS:,} to {MAX_ITERATIONS:,}",
                hint="ctl never writes such a count: the file was changed or written by another tool. Restore "
                     "it from the history (`ctl state history`) or a backup.")
        return hashlib.pbkdf2_hmac(hash_name, passphrase.encode(), salt, iterations, key_length)


class AwsKms(KeyProvider):
    def _client(self) -> Any:
        import boto3

        s = self.config.settings
        if not isinstance(s.get("kms_key_id"), str):
            raise EncryptionError(f"key_provider.{self.ref}: kms_key_id is required")
        return boto3.client("kms", region_name=s.get("region") or os.environ.get("AWS_REGION") or "us-east-1",
                            endpoint_url=s.get("endpoint") or os.environ.get("AWS_ENDPOINT_URL_KMS") or None)

    def _new_key(self) -> tuple[bytes, dict[str, Any]]:
        key_id = self.config.settings.get("kms_key_id")
        answer = self._call("GenerateDataKey", lambda c: c.generate_data_key(KeyId=key_id, KeySpec="AES_256"))
        return answer["Plaintext"], {"key_id": answer.get("KeyId", key_id),
                                     "ciphertext_blob": _b64(answer["CiphertextBlob"])}

    def _key_from(self, meta: dict[str, Any]) -> bytes:
        try:
            blob = base64.b64decode(meta["ciphertext_blob"], validate=True)
        except (KeyError, TypeError, ValueError):
            raise EncryptionError(f"the stored metadata of key_provider.{self.ref} is damaged") from None
        context = meta.get("encryption_context")  # OpenTofu stores the context it generated the key with
        extra = {"EncryptionContext": context} if isinstance(context, dict) and context else {}
        answer = self._call("Decrypt", lambda c: c.decrypt(CiphertextBlob=blob, **extra))
        key: bytes = answer["Plaintext"]
        return key

    def _call(self, what: str, request: Any) -> Any:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return request(self._client())
        except ClientError as exc:
            err = exc.response.get("Error", {})
            raise EncryptionError(f"key_provider.{self.ref}: KMS {what} failed: {err.get('Code')}: "
                                  f"{err.get('Message')}") from None
        except BotoCoreError as exc:
            raise EncryptionError(f"key_provider.{self.ref}: KMS {what} failed: {exc}") from None


def key_provider(config: KeyProviderConfig) -> KeyProvider:
    return {"pbkdf2": Pbkdf2, "aws_kms": AwsKms}[config.kind](config)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _whole(value: Any) -> bool:
    """An integer that is not a boolean (a stored count may be a float, even Infinity, in JSON)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _cache_key(meta: dict[str, Any]) -> str:
    return repr(sorted(meta.items()))
