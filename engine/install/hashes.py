"""The two package hashes of Terraform's lock file: ``h1:`` (the unpacked files) and ``zh:`` (the zip).

``zh:`` is the hex SHA-256 of a release zip, as the provider's signed ``SHA256SUMS`` lists it.
``h1:`` is Go's ``dirhash`` "Hash1": the SHA-256 of a manifest of ``"<hex sha256>  <name>\\n"`` lines,
one per file with its slash-separated path, sorted by name, base64-encoded. It is the same whether
computed over the unpacked directory or over the zip's members, so a package installed on one machine
can be checked against a hash recorded from the zip on another.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from engine.install.archive import checked_members, opened, read_member

H1 = "h1:"
ZH = "zh:"
_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks (provider binaries run to hundreds of megabytes)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def zip_hash(archive: Path) -> str:
    """``zh:`` of a release zip."""
    return ZH + sha256_file(archive)


def _hash1(entries: Iterable[tuple[str, str]]) -> str:
    manifest = "".join(f"{digest}  {name}\n" for name, digest in sorted(entries))
    return H1 + base64.b64encode(hashlib.sha256(manifest.encode()).digest()).decode()


def directory_hash(directory: Path) -> str:
    """``h1:`` of an unpacked package directory (every regular file under it, symlinks followed)."""
    return digests_hash(file_digests(directory))


def file_digests(directory: Path) -> dict[str, str]:
    """Hex SHA-256 of every regular file under ``directory``, by slash-separated relative path.

    What ``h1:`` is made of; kept by the installer so that the provider binary's own checksum,
    recorded for later commands, needs no second pass over hundreds of megabytes.
    """
    return {p.relative_to(directory).as_posix(): sha256_file(p) for p in directory.rglob("*") if p.is_file()}


def digests_hash(digests: Mapping[str, str]) -> str:
    """``h1:`` from ``file_digests``."""
    return _hash1(digests.items())


def archive_hash(archive: Path) -> str:
    """``h1:`` of a release zip, from its members: equal to ``directory_hash`` of it unpacked.

    The members are checked first (engine/install/archive.py), so a hostile zip is refused here with
    the same clear error as when unpacking, before anything is trusted or written."""
    entries = []
    with opened(archive) as zipped:
        for member in checked_members(zipped, archive):
            if member.is_dir:
                continue
            digest = hashlib.sha256()
            for chunk in read_member(zipped, member, archive):
                digest.update(chunk)
            entries.append((member.info.filename, digest.hexdigest()))
    return _hash1(entries)


def scheme(hash_text: str) -> str:
    """``h1:`` or ``zh:`` (or another scheme, which ctl keeps but cannot check)."""
    prefix, sep, _ = hash_text.partition(":")
    return prefix + sep if sep else ""
