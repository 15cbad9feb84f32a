"""A release's ``SHA256SUMS`` and its detached OpenPGP signature, checked against the registry's keys.

The registry names the keys that sign a provider's releases; the signature over ``SHA256SUMS``
proves the checksums came from the provider's publisher, and the checksums then prove the zip.
OpenPGP itself is Sequoia's (``pysequoia``): parsing keys and signature packets is exactly the kind
of code not to write again.
"""

from __future__ import annotations

import re

from vocab.errors import CtlError

_LINE = re.compile(r"^([0-9a-fA-F]{64})\s+\*?(\S+)$")


class SignatureError(CtlError):
    """A release whose checksums are not signed by the keys its registry names."""


def parse_sums(text: str, where: str) -> dict[str, str]:
    """``{filename: hex sha256}`` from a SHA256SUMS document."""
    sums: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        found = _LINE.match(line.strip())
        if not found:
            raise SignatureError(f"{where} line {number} is not a SHA-256 checksum line",
                                 hint="The provider's release files are damaged; ask its publisher.")
        sums[found.group(2)] = found.group(1).lower()
    return sums


def verify_signature(sums: bytes, signature: bytes, armored_keys: list[str], provider: str) -> str:
    """The fingerprint of the key that signed ``sums``; raises ``SignatureError`` otherwise."""
    import pysequoia

    certs = []
    for armored in armored_keys:
        try:
            certs.append(pysequoia.Cert.from_bytes(armored.encode()))
        except (RuntimeError, ValueError) as exc:
            raise SignatureError(f"the registry gave a signing key for {provider} that cannot be read: "
                                 f"{_first_line(exc)}") from None
    if not certs:
        raise SignatureError(f"the registry gave no signing keys for {provider}",
                             hint="A registry must publish the keys its providers are signed with.")
    try:
        sig = pysequoia.Sig.from_bytes(signature)
        pysequoia.verify(bytes=sums, store=lambda _ids: certs, signature=sig)
    except (RuntimeError, ValueError) as exc:
        raise SignatureError(
            f"the checksums of provider {provider} are not signed by its registry's keys ({_first_line(exc)})",
            hint="The release may have been tampered with; nothing was installed. Tell the provider's publisher.",
        ) from None
    return sig.issuer_fingerprint or sig.issuer_key_id or ""


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
