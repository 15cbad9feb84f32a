"""Provider release files as a registry publishes them (zips, a signed SHA256SUMS, their hashes), and the
credentials a test registry needs: the OpenPGP release key and a throwaway TLS CA.

One release is one (namespace, type, version) of a provider, packed for one or more platforms::

    terraform-provider-TYPE_VERSION_OS_ARCH.zip   one member, terraform-provider-TYPE_vVERSION, mode 0755
    terraform-provider-TYPE_VERSION_SHA256SUMS    "<hex sha256>  <zip name>\\n" for every platform zip
    terraform-provider-TYPE_VERSION_SHA256SUMS.sig  detached, binary OpenPGP signature of SHA256SUMS

The zips carry a fixed date, so identical input packs to identical bytes (and hashes) on every run.

Signing key: RSA 3072 (``CipherSuite.RSA3k``) with the RFC 4880 (v4) profile. Terraform 1.0.3 checks
signatures with Go's golang.org/x/crypto/openpgp, which reads RSA, DSA and ECDSA keys but not EdDSA
(sequoia's default Cv25519) nor v6 (RFC 9580) keys; tests/engine/install/test_registry_server.py shows that
Terraform accepts this key. Generating it takes about a second, so there is one key per test session.

Everything is made once per process into one temporary directory, removed at exit: the key, the CA
(EC P-256; its server certificate names ``localhost`` and ``127.0.0.1``), and each distinct set of releases.
"""

from __future__ import annotations

import atexit
import base64
import datetime
import hashlib
import io
import ipaddress
import shutil
import tempfile
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pysequoia
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

ZIP_DATE_TIME = (2021, 1, 1, 0, 0, 0)
ZIP_MODE = 0o100755  # regular file, rwxr-xr-x: the unpacked provider must be executable
CIPHER_SUITE = pysequoia.CipherSuite.RSA3k
KEY_USER_IDS = {
    "ctltest": "ctltest provider releases <releases@ctltest.invalid>",
    "impostor": "someone else <impostor@ctltest.invalid>",
}
CA_NAME = "ctl test registry CA"


@dataclass(frozen=True)
class Release:
    """One provider version to publish: the same test binary may be packed under many version numbers."""

    namespace: str
    type: str
    version: str
    protocols: tuple[str, ...]  # as the registry lists them: ("6.0",)
    binary: Path
    platforms: tuple[str, ...]  # OS_ARCH names: ("linux_amd64",)

    @property
    def member_name(self) -> str:
        return f"terraform-provider-{self.type}_v{self.version}"

    def zip_name(self, os_arch: str) -> str:
        return f"terraform-provider-{self.type}_{self.version}_{os_arch}.zip"

    @property
    def sums_name(self) -> str:
        return f"terraform-provider-{self.type}_{self.version}_SHA256SUMS"

    @property
    def sig_name(self) -> str:
        return self.sums_name + ".sig"


@dataclass(frozen=True)
class SigningKey:
    """An OpenPGP key with secret parts; ``key_id`` is the primary key's, as Terraform prints it."""

    tsk: pysequoia.Tsk

    @property
    def public_key_armor(self) -> str:
        return str(self.tsk.extract_certificate())

    @property
    def key_id(self) -> str:
        return self.tsk.extract_certificate().fingerprint[-16:].upper()

    def sign(self, data: bytes) -> bytes:
        """A detached, binary (unarmored) signature of ``data``."""
        return pysequoia.sign(self.tsk.signer(), data, mode=pysequoia.SignatureMode.DETACHED, armor=False)


_lock = threading.Lock()
_keys: dict[str, SigningKey] = {}
_built: dict[tuple[object, ...], Path] = {}
_root: Path | None = None
_tls: tuple[Path, Path, Path] | None = None


def signing_key(name: str = "ctltest") -> SigningKey:
    """The session's release key (``"ctltest"``) or a second, untrusted one (``"impostor"``)."""
    with _lock:
        if name not in _keys:
            tsk = pysequoia.Tsk.generate(
                KEY_USER_IDS[name], profile=pysequoia.Profile.RFC4880, cipher_suite=CIPHER_SUITE
            )
            _keys[name] = SigningKey(tsk)
        return _keys[name]


def pack_zip(release: Release, os_arch: str) -> bytes:
    """The release zip for one platform.

    Every platform gets the same binary (the tests run only the host's); the zip comment names the
    platform so that each platform's zip, and so its zh: hash, is distinct, as in a real release.
    """
    info = zipfile.ZipInfo(release.member_name, date_time=ZIP_DATE_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # unix, so that readers take the mode from external_attr
    info.external_attr = ZIP_MODE << 16
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.comment = os_arch.encode()
        archive.writestr(info, release.binary.read_bytes(), compresslevel=1)
    return buffer.getvalue()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def zh_hash(zip_bytes: bytes) -> str:
    """The lock file's ``zh:`` hash: the SHA-256 of the zip itself."""
    return "zh:" + sha256_hex(zip_bytes)


def h1_hash(zip_bytes: bytes) -> str:
    """The lock file's ``h1:`` hash (Go's dirhash Hash1 over the zip's members, as Terraform computes it)."""
    summary = hashlib.sha256()
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as archive:
        for name in sorted(archive.namelist()):
            summary.update(f"{sha256_hex(archive.read(name))}  {name}\n".encode())
    return "h1:" + base64.b64encode(summary.digest()).decode()


def sha256sums(entries: dict[str, bytes]) -> bytes:
    """A SHA256SUMS document for ``{zip name: zip bytes}``, sorted by name as release tools write it."""
    return "".join(f"{sha256_hex(data)}  {name}\n" for name, data in sorted(entries.items())).encode()


def write_release(release: Release, directory: Path, key: SigningKey | None = None) -> None:
    """Write the platform zips, SHA256SUMS and its signature of one release into ``directory``."""
    zips = {release.zip_name(os_arch): pack_zip(release, os_arch) for os_arch in release.platforms}
    for name, data in zips.items():
        (directory / name).write_bytes(data)
    sums = sha256sums(zips)
    (directory / release.sums_name).write_bytes(sums)
    (directory / release.sig_name).write_bytes((key or signing_key()).sign(sums))


def _cache_root() -> Path:
    global _root
    if _root is None:
        _root = Path(tempfile.mkdtemp(prefix="ctl-provider-releases-"))
        atexit.register(shutil.rmtree, _root, True)
    return _root


def build_releases(releases: tuple[Release, ...]) -> Path:
    """A directory with the files of all ``releases``, packed once per session for the same input."""
    names = [name for r in releases for name in (r.sums_name, *map(r.zip_name, r.platforms))]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        raise ValueError(f"two releases publish the same file names: {sorted(duplicates)}")
    stamps = tuple((r.binary.stat().st_mtime_ns, r.binary.stat().st_size) for r in releases)
    cache_key = (releases, stamps)
    key = signing_key()
    with _lock:
        directory = _built.get(cache_key)
        if directory is None:
            directory = _cache_root() / f"set{len(_built)}"
            directory.mkdir()
            for release in releases:
                write_release(release, directory, key)
            _built[cache_key] = directory
    return directory


def _certificate(
    common_name: str, key: ec.EllipticCurvePrivateKey, ca_key: ec.EllipticCurvePrivateKey, *, ca: bool
) -> x509.Certificate:
    """A CA certificate, or a server certificate for localhost and 127.0.0.1 signed by ``ca_key``.

    With the key usages and key identifiers strict verifiers (Python 3.13's default) insist on.
    """
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
    )
    usage = dict.fromkeys(
        ("content_commitment", "key_encipherment", "data_encipherment", "key_agreement"), False
    )
    if ca:
        usage.update(digital_signature=False, key_cert_sign=True, crl_sign=True)
    else:
        usage.update(digital_signature=True, key_cert_sign=False, crl_sign=False)
        names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
    builder = builder.add_extension(
        x509.KeyUsage(**usage, encipher_only=False, decipher_only=False), critical=True
    )
    return builder.sign(ca_key, hashes.SHA256())


def tls_files() -> tuple[Path, Path, Path]:
    """(CA certificate, server certificate, server key) PEM files of a throwaway CA, made once per session."""
    global _tls
    with _lock:
        if _tls is None:
            directory = _cache_root() / "tls"
            directory.mkdir()
            ca_key, server_key = (
                ec.generate_private_key(ec.SECP256R1()),
                ec.generate_private_key(ec.SECP256R1()),
            )
            files = directory / "ca.pem", directory / "server.pem", directory / "server-key.pem"
            pem = serialization.Encoding.PEM
            files[0].write_bytes(_certificate(CA_NAME, ca_key, ca_key, ca=True).public_bytes(pem))
            files[1].write_bytes(_certificate("localhost", server_key, ca_key, ca=False).public_bytes(pem))
            files[2].write_bytes(
                server_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
            )
            _tls = files
        return _tls
