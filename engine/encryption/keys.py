"""Key providers: where the 256-bit data keys come from.

``pbkdf2`` derives the key from a passphrase (PBKDF2-HMAC-SHA512, a fresh random salt per run,
the salt, iteration count, hash and key length stored with the data so the key can be derived
again: the metadata OpenTofu's key provider of the same name stores, field for field). ``aws_kms`` asks
KMS for a data key and stores its encrypted form; decrypting that needs the KMS key again.
``external`` asks a program, in OpenTofu's protocol (``program``). A ``pbkdf2`` key provider may take
its passphrase from another key provider (``chain``), as in OpenTofu: the upstream key's bytes are the
passphrase, and both store their metadata. A run derives or fetches its write key once and caches the
keys it read with, so the journal's many entries cost one derivation (or one program run), not one each.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
from typing import Any

from engine.encryption.config import KeyProviderConfig
from engine.encryption.errors import EncryptionError
from engine.encryption.program import command_of, run

KEY_BYTES = 32  # AES-256
MIN_PASSPHRASE = 16
DEFAULT_ITERATIONS = 600_000  # OWASP's figure for PBKDF2-HMAC-SHA512 at the time of writing
MIN_ITERATIONS = 200_000
# The most iterations a key is derived with, written or read. The count is stored beside the data and
# read before the data is authenticated, so without a cap anyone who can write the file decides how
# long every later command spends deriving a key. Over three times the default leaves room to raise it.
MAX_ITERATIONS = 2_000_000
SALT_BYTES = 32
# Bytes a pbkdf2 key may have. aes_gcm takes 16, 24 or 32 (checked where the key is used), but a key
# that is another key provider's passphrase (``chain``) may be longer, as OpenTofu allows.
MAX_KEY_LENGTH = 1024
_HASHES = ("sha512", "sha256")


Metas = dict[str, dict[str, Any]]  # each key provider's stored metadata, by storage key


class KeyProvider:
    """One configured key provider: a key to write with, and the key for stored metadata.

    A key provider may be chained from another (``chain = key_provider.T.N``): the upstream's key is
    its passphrase. Both store their metadata, each under its own storage key, as OpenTofu does, so
    ``write_key`` and ``read_key`` deal in the metadata of the whole chain.
    """

    def __init__(self, config: KeyProviderConfig) -> None:
        self.config = config
        self.upstream = key_provider(config.chain) if config.chain is not None else None
        self._lock = threading.Lock()
        self._write: tuple[bytes, Metas] | None = None
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

    def write_key(self) -> tuple[bytes, Metas]:
        """The key this run encrypts with and the metadata to store beside the data (this key
        provider's and, for a chain, every upstream one's)."""
        with self._lock:
            if self._write is None:
                upstream, metas = self.upstream.write_key() if self.upstream is not None else (None, {})
                key, meta = self._new_key(upstream)
                if self.storage_key in metas:
                    raise EncryptionError(
                        f"key_provider.{self.ref} and the key provider it is chained from store their metadata "
                        f"under the same name, {self.storage_key}",
                        hint="Give one of them another encrypted_metadata_alias.")
                self._write = key, {**metas, self.storage_key: meta}
                self._read[_cache_key(meta, upstream)] = key
            return self._write

    def read_key(self, metas: Metas) -> bytes:
        """The key that ``metas`` (as stored by ``write_key``) describe.

        Keys of different metadata are derived side by side (``ctl state history`` opens a version
        sealed by each run), each one once: a lock per metadata, not one for the provider.
        """
        meta = metas.get(self.storage_key)
        if meta is None:
            raise EncryptionError(f"the stored metadata has nothing under {self.storage_key}, which "
                                  f"key_provider.{self.ref} reads",
                                  hint="The file was written with another chain of key providers: configure "
                                       "the ones its metadata names (the keys of \"meta\"), with the same names.")
        upstream = self.upstream.read_key(metas) if self.upstream is not None else None
        cache = _cache_key(meta, upstream)
        with self._lock:
            found = self._read.get(cache)
            if found is not None:
                return found
            deriving = self._deriving.setdefault(cache, threading.Lock())
        with deriving:
            with self._lock:
                found = self._read.get(cache)
            if found is None:
                found = self._key_from(meta, upstream)
                with self._lock:
                    self._read[cache] = found
            return found

    def check(self) -> int:
        """The length in bytes of the key this run writes with, found out when encryption is set up.

        OpenTofu asks every key provider of a target's method for its key when it sets encryption
        up, before it plans: a key program or a KMS that fails stops the command there, not at the
        first write after a plan was shown. Here the write key is fetched now and kept for that write,
        so the program still runs once (``Pbkdf2`` checks its settings and its upstream, and derives
        the key only when it writes: deriving costs a fraction of a second and cannot fail).
        """
        return len(self.write_key()[0])

    def _new_key(self, upstream: bytes | None) -> tuple[bytes, dict[str, Any]]:
        """A fresh key and its metadata; ``upstream`` is the chained key provider's key, if any."""
        raise NotImplementedError

    def _key_from(self, meta: dict[str, Any], upstream: bytes | None) -> bytes:
        raise NotImplementedError


class Pbkdf2(KeyProvider):
    def _settings(self) -> tuple[str, int, str, int, int]:
        s = self.config.settings
        passphrase = s.get("passphrase")
        if self.upstream is not None:
            if passphrase is not None:
                raise EncryptionError(f"key_provider.{self.ref}: passphrase and chain are mutually exclusive",
                                      hint="Keep chain to take the passphrase from the other key provider.")
            passphrase = ""
        elif not isinstance(passphrase, str) or len(passphrase) < MIN_PASSPHRASE:
            raise EncryptionError(f"key_provider.{self.ref}: the passphrase must be at least {MIN_PASSPHRASE} "
                                  "characters long", hint="Or take it from another key provider: chain = "
                                                          "key_provider.TYPE.NAME.")
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
        if not _whole(key_length) or not 1 <= key_length <= MAX_KEY_LENGTH:
            raise EncryptionError(f"key_provider.{self.ref}: key_length must be a whole number of bytes from 1 to "
                                  f"{MAX_KEY_LENGTH} (16, 24 or 32 for aes_gcm)")
        salt_length = s.get("salt_length", SALT_BYTES)
        if not _whole(salt_length) or not 1 <= salt_length <= 1024:
            raise EncryptionError(f"key_provider.{self.ref}: salt_length must be a whole number of bytes from 1 "
                                  "to 1024")
        return passphrase, iterations, hash_name, key_length, salt_length

    def check(self) -> int:
        settings = self._settings()
        if self.upstream is not None:
            self._upstream_fits(self.upstream, self.upstream.check())
        return settings[3]

    def _upstream_fits(self, upstream: KeyProvider, length: int) -> None:
        """Refuse a chained key too short to be a passphrase."""
        if length < MIN_PASSPHRASE:
            raise EncryptionError(f"key_provider.{self.ref}: the key of key_provider.{upstream.ref}, which it "
                                  f"is chained from, is {length} bytes; a passphrase takes at least "
                                  f"{MIN_PASSPHRASE}")

    def _passphrase(self, upstream: bytes | None, settings: tuple[str, int, str, int, int]) -> bytes:
        """The configured passphrase, or the key of the key provider this one is chained from (its raw
        bytes, as OpenTofu takes them, at least as long as a passphrase must be)."""
        if upstream is None or self.upstream is None:
            return settings[0].encode()
        self._upstream_fits(self.upstream, len(upstream))
        return upstream

    def _new_key(self, upstream: bytes | None) -> tuple[bytes, dict[str, Any]]:
        settings = self._settings()
        passphrase = self._passphrase(upstream, settings)
        _, iterations, hash_name, key_length, salt_length = settings
        salt = os.urandom(salt_length)
        key = hashlib.pbkdf2_hmac(hash_name, passphrase, salt, iterations, key_length)
        return key, {"salt": _b64(salt), "iterations": iterations, "hash_function": hash_name,
                     "key_length": key_length}

    def _key_from(self, meta: dict[str, Any], upstream: bytes | None) -> bytes:
        passphrase = self._passphrase(upstream, self._settings())
        try:
            salt = base64.b64decode(meta["salt"], validate=True)
            iterations, hash_name = meta["iterations"], meta["hash_function"]
            key_length = meta.get("key_length", KEY_BYTES)  # ctl's earlier layout stored no length: 32
        except (KeyError, TypeError, ValueError):
            raise EncryptionError(f"the stored metadata of key_provider.{self.ref} is damaged") from None
        if hash_name not in _HASHES or not _whole(iterations) or not salt or not _whole(key_length) \
                or not 1 <= key_length <= MAX_KEY_LENGTH:
            raise EncryptionError(f"the stored metadata of key_provider.{self.ref} is damaged")
        if not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
            raise EncryptionError(
                f"the stored metadata of key_provider.{self.ref} asks for {iterations:,} PBKDF2 iterations; "
                f"ctl derives keys with {MIN_ITERATIONS:,} to {MAX_ITERATIONS:,}",
                hint="ctl never writes such a count: the file was changed or written by another tool. Restore "
                     "it from the history (`ctl state history`) or a backup.")
        return hashlib.pbkdf2_hmac(hash_name, passphrase, salt, iterations, key_length)


class AwsKms(KeyProvider):
    def _client(self) -> Any:
        import boto3

        s = self.config.settings
        if not isinstance(s.get("kms_key_id"), str):
            raise EncryptionError(f"key_provider.{self.ref}: kms_key_id is required")
        return boto3.client("kms", region_name=s.get("region") or os.environ.get("AWS_REGION") or "us-east-1",
                            endpoint_url=s.get("endpoint") or os.environ.get("AWS_ENDPOINT_URL_KMS") or None)

    def _new_key(self, upstream: bytes | None) -> tuple[bytes, dict[str, Any]]:
        key_id = self.config.settings.get("kms_key_id")
        answer = self._call("GenerateDataKey", lambda c: c.generate_data_key(KeyId=key_id, KeySpec="AES_256"))
        return answer["Plaintext"], {"key_id": answer.get("KeyId", key_id),
                                     "ciphertext_blob": _b64(answer["CiphertextBlob"])}

    def _key_from(self, meta: dict[str, Any], upstream: bytes | None) -> bytes:
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


class External(KeyProvider):
    """OpenTofu's ``external`` key provider: a program (``command = [...]``) gives the keys.

    Encrypting, the program is given ``null`` and answers an ``encryption_key`` and the metadata to
    store (``{"external_data": {...}}``); decrypting, it is given that stored metadata and answers a
    ``decryption_key`` too. Keys travel in base64; the answer's shape is checked as strictly as
    OpenTofu checks it (no unknown fields), so a program that works with one works with the other.
    """

    MAGIC = "OpenTofu-External-Key-Provider"

    def _ask(self, given: Any) -> tuple[dict[str, bytes], dict[str, Any]]:
        who = f"key_provider.{self.ref}"
        command = command_of(self.config.settings.get("command"), who)
        answer, stderr = run(command, json.dumps(given).encode(), magic=self.MAGIC, who=who)
        keys, meta = (answer.get("keys"), answer.get("meta")) if isinstance(answer, dict) else (None, None)
        if not isinstance(answer, dict) or not set(answer) <= {"keys", "meta"} or not isinstance(keys, dict) \
                or not set(keys) <= {"encryption_key", "decryption_key"} \
                or not isinstance(meta, (dict, type(None))) or not set(meta or {}) <= {"external_data"} \
                or not isinstance((meta or {}).get("external_data"), (dict, type(None))):
            raise EncryptionError(f"{who}: {command[0]} answered a document of another shape than "
                                  '{"keys": {"encryption_key": …, "decryption_key": …}, "meta": {"external_data": '
                                  "{…}}}", detail=stderr, hint="See OpenTofu's output schema of the external key provider.")
        decoded: dict[str, bytes] = {}
        for name, value in keys.items():
            if value is None:
                continue
            try:
                decoded[name] = base64.b64decode(value, validate=True) if isinstance(value, str) else b""
            except ValueError:
                decoded[name] = b""
            if not decoded[name]:
                raise EncryptionError(f"{who}: {command[0]} answered a {name} that is not base64 of a key",
                                      detail=stderr)
        return decoded, {"external_data": (meta or {}).get("external_data")}

    def _new_key(self, upstream: bytes | None) -> tuple[bytes, dict[str, Any]]:
        keys, meta = self._ask(None)
        if "encryption_key" not in keys:
            raise EncryptionError(f"key_provider.{self.ref}: the program answered no encryption_key")
        return keys["encryption_key"], meta

    def _key_from(self, meta: dict[str, Any], upstream: bytes | None) -> bytes:
        data = meta.get("external_data")
        if not isinstance(data, (dict, type(None))):
            raise EncryptionError(f"the stored metadata of key_provider.{self.ref} is damaged")
        # As OpenTofu: stored metadata without external_data is passed on as null, "nothing stored".
        keys, _ = self._ask(None if data is None else {"external_data": data})
        if "decryption_key" not in keys:
            given = "the stored metadata" if data is not None else "null (the file stores no external_data for it)"
            raise EncryptionError(f"key_provider.{self.ref}: given {given}, the program answered no "
                                  "decryption_key", hint="A program gives decryption_key whenever its input is not "
                                                         "null: that is the key the data was encrypted with.")
        return keys["decryption_key"]


def key_provider(config: KeyProviderConfig) -> KeyProvider:
    kinds: dict[str, type[KeyProvider]] = {"pbkdf2": Pbkdf2, "aws_kms": AwsKms, "external": External}
    return kinds[config.kind](config)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _whole(value: Any) -> bool:
    """An integer that is not a boolean (a stored count may be a float, even Infinity, in JSON)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _cache_key(meta: dict[str, Any], upstream: bytes | None) -> str:
    return repr((sorted(meta.items()), upstream))
