"""Fetching a package from a source and proving it is the one the source vouches for.

A registry package is proven by its publisher's signature over ``SHA256SUMS`` and the zip's
SHA-256 in it; a network mirror's by the hashes the mirror states; a filesystem mirror is trusted
as configured. The lock file's hashes are checked by the installer afterwards, for every kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.install import fetch
from engine.install.hashes import ZH, archive_hash, sha256_file
from engine.install.signatures import SignatureError, parse_sums, verify_signature
from engine.install.sources import InstallError, Package


def local_name(package: Package) -> str:
    """The name a downloaded zip gets on disk: the release's usual name, made only of what ctl knows
    itself (the type from the configuration, the parsed version, the platform asked for)."""
    return f"terraform-provider-{package.provider.type}_{package.version}_{package.os_arch}.zip"


@dataclass(frozen=True)
class Fetched:
    """A release zip on local disk with what proved it, and the hashes the source vouched for."""

    archive: Path
    vouched: tuple[str, ...]  # hashes (zh:/h1:) to record in the lock file besides the package's own
    signed_by: str = ""


def fetch_package(package: Package, scratch: Path, progress: fetch.Progress | None = None) -> Fetched:
    """The package's zip in ``scratch`` (downloaded when remote), authenticated as its source demands."""
    if package.kind == "zip":
        return Fetched(Path(package.location), ())
    if package.kind != "url":
        raise ValueError(f"not an archive: {package.kind}")
    signed: tuple[str, ...] = ()
    signer = ""
    if package.shasums_url:
        signed, signer = _signed_sums(package)
    # The registry's ``filename`` is only a key into SHA256SUMS: a name from the network never
    # becomes a path, so ``../../ctl.tfstate`` or an absolute name cannot place the download.
    archive = scratch / local_name(package)
    fetch.download(package.location, archive, progress)
    digest = sha256_file(archive)
    if package.sha256 and digest != package.sha256:
        raise SignatureError(
            f"the downloaded package of provider {package.provider} v{package.version} has SHA-256 {digest}, "
            f"but its registry lists {package.sha256}",
            hint="The download was altered or damaged; nothing was installed. Run `ctl init` again, and if it "
                 "persists tell the registry's operator.",
        )
    if package.mirror_hashes:
        mine = {ZH + digest, archive_hash(archive)}
        if not mine & set(package.mirror_hashes):
            raise SignatureError(
                f"the package of provider {package.provider} v{package.version} from {package.origin} matches "
                "none of the hashes the mirror states for it",
                hint="The mirror's copy is damaged or altered; nothing was installed.",
            )
    return Fetched(archive, signed + package.mirror_hashes, signer)


def _signed_sums(package: Package) -> tuple[tuple[str, ...], str]:
    """Every zip's ``zh:`` hash from the release's SHA256SUMS, once its signature checks out."""
    sums_bytes = fetch.get_bytes(package.shasums_url)
    signature = fetch.get_bytes(package.signature_url)
    signer = verify_signature(sums_bytes, signature, list(package.signing_keys), str(package.provider))
    try:
        text = sums_bytes.decode()
    except UnicodeDecodeError:
        raise SignatureError(f"the SHA256SUMS of provider {package.provider} is not text") from None
    sums = parse_sums(text, package.shasums_url)
    if sums.get(package.filename) != package.sha256:
        raise InstallError(
            f"the signed SHA256SUMS of provider {package.provider} v{package.version} does not list "
            f"{package.filename} with the checksum the registry gave",
            hint="The registry's answer and the signed release disagree; nothing was installed.",
        )
    return tuple(ZH + digest for digest in sums.values()), signer
