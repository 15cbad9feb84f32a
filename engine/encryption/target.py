"""A target (``state`` or ``plan``): write with its method, read with its method or its fallback.

Reading follows the document, not a guess: a sealed document names its key providers (the keys of
its metadata), one of which must be the key provider of the target's method or of its fallback, as
OpenTofu requires too; an ``external`` method without a key provider leaves nothing in the file to
name it, so it is simply tried in its turn. A plaintext document is read only when one of the two is
``unencrypted`` (the migration path). Writing uses the method alone, so after one write with a new
key the fallback can be dropped (rotation); which of the two opened a document is remembered, so the
next write replaces what a fallback read. ``enforced`` targets never write plaintext (checked when
the block is read).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from engine.encryption.config import MethodConfig, TargetConfig
from engine.encryption.envelope import (
    damaged,
    encrypted_data,
    header_of,
    is_encrypted,
    looks_sealed,
    seal,
    unseal,
    wrap,
)
from engine.encryption.errors import EncryptionError
from engine.encryption.keys import KeyProvider, key_provider
from engine.encryption.methods import external_decrypt, external_encrypt

_log = logging.getLogger(__name__)


class Target:
    def __init__(self, name: str, config: TargetConfig) -> None:
        self.name = name
        self.config = config
        providers: dict[str, KeyProvider] = {}  # by storage key, shared by method and fallback
        # The method, then its fallback, each with its key provider (None: an external method without one).
        self._sealing: list[tuple[MethodConfig, KeyProvider | None]] = []
        for m in self._methods():
            if m.kind == "unencrypted":
                continue
            provider = None
            if m.keys is not None:
                provider = key_provider(m.keys)
                provider = providers.setdefault(provider.storage_key, provider)
            if (m, provider) not in self._sealing:
                self._sealing.append((m, provider))
        self._by_fallback: dict[bytes, bool] = {}  # by digest of a sealed document opened here

    @property
    def encrypts(self) -> bool:
        return self.config.method.kind != "unencrypted"

    def encrypt(self, plaintext: bytes, facts: dict[str, Any] | None = None) -> bytes:
        if not self.encrypts:
            return plaintext
        method, provider = self._sealing[0]
        key, metas = provider.write_key() if provider is not None else (None, {})
        if method.kind == "external":
            return wrap(external_encrypt(method, key, plaintext), metas, facts or {})
        assert key is not None and provider is not None  # aes_gcm always has keys (checked in config)
        return seal(plaintext, _aes_key(key, provider, "encryption"), metas, facts or {})

    def check(self) -> None:
        """Ask the method's key provider for this run's key now, as OpenTofu does when it sets encryption
        up: a failing key program, or a key aes_gcm cannot take, stops the command before it plans.

        Only the method's key provider is asked, as in OpenTofu: the fallback's is asked when a file
        it wrote is read, and an ``external`` method's own programs run when there is something to
        encrypt or decrypt.
        """
        if not self.encrypts:
            return
        method, provider = self._sealing[0]
        if provider is None:
            return
        length = provider.check()
        if method.kind == "aes_gcm":
            _aes_key_fits(length, provider, "encryption")

    def read_by_fallback(self, data: bytes) -> bool:
        """Whether ``data`` is not what the method itself writes (plaintext, or another key): the
        next write should replace it, completing a migration or a key rotation."""
        method = self.config.method
        if not is_encrypted(data):
            return method.kind != "unencrypted"
        opened = self._by_fallback.get(hashlib.sha256(data).digest())
        if opened is not None:  # decrypted here: by the method itself, or by the fallback
            return opened
        try:
            sealed = header_of(data, "")
        except EncryptionError:
            return False
        # ctl's earlier layout is rewritten in OpenTofu's by the next write, as a rotation would be.
        provider = self._sealing[0][1] if self.encrypts else None
        return not self.encrypts or sealed.legacy or (provider is not None and provider.storage_key not in sealed.metas)

    def decrypt(self, data: bytes, where: str) -> bytes:
        if not is_encrypted(data):
            if looks_sealed(data):
                raise damaged(where)
            if any(m.kind == "unencrypted" for m in self._methods()):
                if self.encrypts:
                    _log.warning("%s is not encrypted yet: it was read through the unencrypted fallback, and "
                                 "the next `ctl apply` writes it encrypted", where)
                return data
            raise EncryptionError(
                f"{where} is not encrypted, and the {self.name} encryption configuration reads only "
                "encrypted data",
                hint=f"To encrypt existing plaintext, add method \"unencrypted\" \"NAME\" {{}} to the encryption "
                     f"block and fallback {{ method = method.unencrypted.NAME }} to its {self.name} block, run "
                     "once, then remove them.",
            )
        sealed = header_of(data, where)
        # A method whose key provider stored metadata in the file, or an external method without one
        # (nothing in the file names it): the method's first, then the fallback's, as OpenTofu tries them.
        usable = [(m, p) for m, p in self._sealing
                  if (p.storage_key in sealed.metas if p is not None else not sealed.legacy)]
        if not usable:
            stored = ", ".join(sealed.metas) or "no key provider"
            configured = ", ".join(p.storage_key for _, p in self._sealing if p is not None) or "none"
            raise EncryptionError(
                f"{where} is encrypted with {stored}, which the {self.name} method and fallback "
                f"do not use (they use: {configured})",
                hint="Name the key provider as the file names it (the same type and name, or its "
                     "encrypted_metadata_alias, with the same passphrase or key). To rotate keys, keep the old key provider as the fallback method until "
                     "the data has been written once with the new one.",
            )
        failures: list[EncryptionError] = []
        for method, provider in usable:
            try:
                key = provider.read_key(sealed.metas) if provider is not None else None
            except EncryptionError as err:
                err.summary = f"{where}: {err.summary}"
                err.args = (err.summary,)
                raise
            try:
                if method.kind == "external":
                    plaintext = external_decrypt(method, key, encrypted_data(sealed, where))
                else:
                    assert key is not None and provider is not None
                    plaintext = unseal(sealed, _aes_key(key, provider, "decryption"), where)
            except EncryptionError as err:
                failures.append(err)
                continue
            # ctl's earlier layout is rewritten in OpenTofu's by the next write, as a rotation would be.
            self._by_fallback[hashlib.sha256(data).digest()] = (method, provider) != self._sealing[0] \
                or not self.encrypts or sealed.legacy
            return plaintext
        raise failures[0]

    def _methods(self) -> list[MethodConfig]:
        return [m for m in (self.config.method, self.config.fallback) if m is not None]


def _aes_key(key: bytes, provider: KeyProvider, use: str) -> bytes:
    """``key``, when AES-GCM can use it: a key provider's own keys always fit, but a chain's or an external
    program's length is whatever it gives."""
    _aes_key_fits(len(key), provider, use)
    return key


def _aes_key_fits(length: int, provider: KeyProvider, use: str) -> None:
    if length not in (16, 24, 32):
        raise EncryptionError(f"key_provider.{provider.ref} gave a {length}-byte {use} key; aes_gcm takes 16, 24 "
                              "or 32 bytes", hint="Set key_length (pbkdf2), or have the program give a key of "
                                                  "one of those lengths.")


def facts_of(doc: dict[str, Any]) -> dict[str, Any]:
    """The facts a sealed state shows without the key (and that are checked after decryption)."""
    return {k: doc[k] for k in ("serial", "lineage", "ctl_version", "terraform_version") if k in doc}
