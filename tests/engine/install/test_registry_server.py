"""The loopback provider registry and network mirror (tests/provider_registry.py) speak the protocols.

Python's urllib walks the registry as a client would, trusting only the test CA; Terraform 1.0.3 is the
oracle that the protocols, the signature and the hashes are right: it installs from the registry, refuses
a tampered zip or a foreign signature, and locks from the network mirror.
"""

from __future__ import annotations

import json
import re
import ssl
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

import pysequoia
import pytest

from tests.plugin.terraform_cli import Result, TerraformDir
from tests.provider_registry import (
    ProviderRegistry,
    default_releases,
    host_os_arch,
    provider_registry,
    release,
)
from tests.provider_release import pack_zip, sha256_hex, signing_key

__all__ = ["provider_registry"]  # the fixture, imported for the tests below


class Client:
    """urllib over HTTPS that trusts the registry's CA and nothing else, and no proxy."""

    def __init__(self, registry: ProviderRegistry) -> None:
        context = ssl.create_default_context(cafile=str(registry.ca_file))
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=context)
        )
        self.base = registry.url

    def fetch(self, url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(url if "://" in url else self.base + url, headers=headers or {})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read()

    def json(self, url: str) -> Any:
        status, headers, body = self.fetch(url)
        assert status == 200, (url, status, body)
        assert headers["Content-Type"] == "application/json"
        return json.loads(body)


def verify(signature: bytes, document: bytes, armored_key: str) -> bool:
    cert = pysequoia.Cert.from_bytes(armored_key.encode())
    try:
        result = pysequoia.verify(
            bytes=document, store=lambda _ids: [cert], signature=pysequoia.Sig.from_bytes(signature)
        )
    except RuntimeError:
        return False
    return bool(result.valid_sigs)


def test_registry_protocol_end_to_end(provider_registry: ProviderRegistry) -> None:
    client = Client(provider_registry)
    services = client.json("/.well-known/terraform.json")
    assert services == {"providers.v1": "/v1/providers/"}
    versions = client.json(services["providers.v1"] + "ctltest/fwtest/versions")["versions"]
    os_name, arch = host_os_arch().split("_")
    assert [v["version"] for v in versions] == ["1.0.0", "1.1.0", "1.2.0", "2.0.0", "2.1.0-beta1"]
    assert all(
        v["protocols"] == ["6.0"] and v["platforms"] == [{"os": os_name, "arch": arch}] for v in versions
    )
    assert client.json("/v1/providers/ctltest/sdktest/versions")["versions"][0]["protocols"] == ["5.0"]
    status, _, body = client.fetch("/v1/providers/ctltest/nosuch/versions")
    assert (status, json.loads(body)) == (404, {"errors": ["Not Found"]})

    meta = client.json(f"/v1/providers/ctltest/fwtest/1.2.0/download/{os_name}/{arch}")
    assert meta["filename"] == f"terraform-provider-fwtest_1.2.0_{os_name}_{arch}.zip"
    assert meta["download_url"].startswith(f"https://localhost:{provider_registry.port}/")
    (key,) = meta["signing_keys"]["gpg_public_keys"]
    assert key["key_id"] == provider_registry.key_id
    assert key["ascii_armor"] == provider_registry.public_key_armor
    status, _, zipped = client.fetch(meta["download_url"])
    assert status == 200 and sha256_hex(zipped) == meta["shasum"]
    sums = client.fetch(meta["shasums_url"])[2]
    assert f"{meta['shasum']}  {meta['filename']}\n".encode() in sums
    assert sums == provider_registry.sha256sums("fwtest", "1.2.0")
    assert verify(client.fetch(meta["shasums_signature_url"])[2], sums, key["ascii_armor"])

    provider_registry.bad_signature(True)
    assert not verify(client.fetch(meta["shasums_signature_url"])[2], sums, key["ascii_armor"])
    provider_registry.tamper("fwtest", "1.2.0")
    assert sha256_hex(client.fetch(meta["download_url"])[2]) != meta["shasum"]
    assert provider_registry.errors == []


def test_zips_are_deterministic_and_executable(provider_registry: ProviderRegistry) -> None:
    release = provider_registry.find("fwtest", "1.0.0")
    assert pack_zip(release, host_os_arch()) == provider_registry.zip_path("fwtest", "1.0.0").read_bytes()
    with zipfile.ZipFile(provider_registry.zip_path("fwtest", "1.0.0")) as archive:
        (info,) = archive.infolist()
    assert info.filename == "terraform-provider-fwtest_v1.0.0"
    assert (info.external_attr >> 16) & 0o777 == 0o755


def test_network_mirror(provider_registry: ProviderRegistry) -> None:
    client = Client(provider_registry)
    base = f"{provider_registry.mirror_url}{provider_registry.host}/ctltest/fwtest/"
    index = client.json(base + "index.json")
    assert index == {"versions": {v: {} for v in ("1.0.0", "1.1.0", "1.2.0", "2.0.0", "2.1.0-beta1")}}
    archives = client.json(base + "1.1.0.json")["archives"]
    assert list(archives) == [host_os_arch()]
    archive = archives[host_os_arch()]
    status, _, zipped = client.fetch(urllib.parse.urljoin(base + "1.1.0.json", archive["url"]))
    assert status == 200
    assert archive["hashes"] == ["zh:" + sha256_hex(zipped)] == [provider_registry.zh_hash("fwtest", "1.1.0")]
    assert (
        client.fetch(f"{provider_registry.mirror_url}registry.terraform.io/ctltest/fwtest/index.json")[0]
        == 404
    )
    provider_registry.mirror_hostname = "registry.terraform.io"
    assert (
        client.json(f"{provider_registry.mirror_url}registry.terraform.io/ctltest/fwtest/index.json") == index
    )


def test_range_requests_and_injected_failures(provider_registry: ProviderRegistry) -> None:
    client = Client(provider_registry)
    path = provider_registry.zip_path("sdktest", "1.0.0")
    whole = path.read_bytes()
    url = f"/files/{path.name}"
    status, headers, tail = client.fetch(url, {"Range": "bytes=1000-"})
    assert status == 206 and tail == whole[1000:]
    assert headers["Content-Range"] == f"bytes 1000-{len(whole) - 1}/{len(whole)}"
    assert client.fetch(url, {"Range": f"bytes={len(whole)}-"})[0] == 416

    provider_registry.fail_next(2, status=503)
    assert [client.fetch(url)[0] for _ in range(3)] == [503, 503, 200]
    assert provider_registry.requests[-3:] == [("GET", url)] * 3
    provider_registry.fail_next(1, status=500, path=r"\.zip$")
    assert client.fetch("/.well-known/terraform.json")[0] == 200  # not matched: served
    assert [client.fetch(url)[0] for _ in range(2)] == [500, 200]


def test_offline_resets_connections_until_online(provider_registry: ProviderRegistry) -> None:
    client = Client(provider_registry)
    provider_registry.offline()
    with pytest.raises((urllib.error.URLError, ConnectionError, ssl.SSLError)):
        client.fetch("/.well-known/terraform.json")
    assert provider_registry.requests == []
    provider_registry.online()
    assert client.fetch("/.well-known/terraform.json")[0] == 200


# --- Terraform 1.0.3 as the oracle -------------------------------------------------------------------


def terraform_dir(
    path: Path, registry: ProviderRegistry, source: str, version: str = "~> 1.0"
) -> TerraformDir:
    path.mkdir()
    tf = TerraformDir(path, plugin_dir=path, extra_env=registry.env())  # plugin_dir unused: no -plugin-dir
    tf.write(
        "terraform {\n  required_providers {\n"
        f'    fwtest = {{\n      source  = "{source}"\n      version = "{version}"\n    }}\n'
        "  }\n}\n"
    )
    return tf


def said(result: Result) -> str:
    """Terraform's output as one line of plain words: no colours, box drawing or wrapping."""
    plain = re.sub(r"\x1b\[[0-9;]*m|[╷│╵]", "", result.output)
    return " ".join(plain.split())


def init(tf: TerraformDir, expect: int | None = 0) -> Result:
    return tf.run("init", "-input=false", "-no-color", expect=expect)


def lock_hashes(tf: TerraformDir) -> tuple[str, list[str]]:
    text = (tf.workdir / ".terraform.lock.hcl").read_text()
    version = re.search(r'version\s*=\s*"([^"]+)"', text)
    assert version is not None, text
    return version.group(1), re.findall(r'"((?:h1|zh):[^"]+)"', text)


def test_terraform_installs_from_the_registry(provider_registry: ProviderRegistry, tmp_path: Path) -> None:
    tf = terraform_dir(tmp_path / "ok", provider_registry, f"{provider_registry.host}/ctltest/fwtest")
    result = init(tf)
    assert f"Installed {provider_registry.host}/ctltest/fwtest v1.2.0" in result.output
    assert provider_registry.key_id in result.output  # Terraform names the primary key that signed
    version, hashes = lock_hashes(tf)
    assert version == "1.2.0"
    assert provider_registry.h1_hash("fwtest", "1.2.0") in hashes
    assert provider_registry.zh_hash("fwtest", "1.2.0") in hashes
    fetched = {path for _, path in provider_registry.requests}
    assert "/.well-known/terraform.json" in fetched
    assert f"/files/{provider_registry.zip_path('fwtest', '1.2.0').name}" in fetched
    assert provider_registry.errors == []


def test_terraform_retries_a_registry_request_once(
    provider_registry: ProviderRegistry, tmp_path: Path
) -> None:
    provider_registry.fail_next(1, status=503, path=r"/versions$")
    tf = terraform_dir(tmp_path / "retry", provider_registry, f"{provider_registry.host}/ctltest/fwtest")
    init(tf)
    versions = [path for _, path in provider_registry.requests if path.endswith("/versions")]
    assert versions == ["/v1/providers/ctltest/fwtest/versions"] * 2


def test_terraform_refuses_a_tampered_zip(provider_registry: ProviderRegistry, tmp_path: Path) -> None:
    provider_registry.tamper("fwtest", "1.2.0")
    tf = terraform_dir(tmp_path / "tampered", provider_registry, f"{provider_registry.host}/ctltest/fwtest")
    result = init(tf, expect=1)
    expected = provider_registry.zh_hash("fwtest", "1.2.0")
    assert "archive has incorrect checksum" in said(result), result.output
    assert f"(expected {expected})" in said(result), result.output
    assert not (tf.workdir / ".terraform.lock.hcl").exists()


def test_terraform_refuses_a_foreign_signature(provider_registry: ProviderRegistry, tmp_path: Path) -> None:
    provider_registry.bad_signature(True)
    tf = terraform_dir(tmp_path / "badsig", provider_registry, f"{provider_registry.host}/ctltest/fwtest")
    result = init(tf, expect=1)
    assert "authentication signature from unknown issuer" in said(result), result.output
    assert not (tf.workdir / ".terraform.lock.hcl").exists()


def test_terraform_cannot_reach_an_offline_registry(
    provider_registry: ProviderRegistry, tmp_path: Path
) -> None:
    provider_registry.offline()
    tf = terraform_dir(tmp_path / "offline", provider_registry, f"{provider_registry.host}/ctltest/fwtest")
    result = init(tf, expect=1)
    assert f"could not connect to {provider_registry.host}" in said(result), result.output
    assert provider_registry.requests == []


def test_terraform_locks_the_zh_hashes_of_every_signed_platform(tmp_path: Path) -> None:
    other = "darwin_arm64" if host_os_arch() != "darwin_arm64" else "linux_amd64"
    releases = [release("fwtest", "3.0.0", platforms=(host_os_arch(), other))]
    with ProviderRegistry(releases) as registry:
        tf = terraform_dir(tmp_path / "multi", registry, f"{registry.host}/ctltest/fwtest", version="3.0.0")
        init(tf)
        sums = registry.sha256sums("fwtest", "3.0.0").decode().splitlines()
        assert [line.split("  ")[1] for line in sums] == sorted(
            f"terraform-provider-fwtest_3.0.0_{os_arch}.zip" for os_arch in (host_os_arch(), other)
        )
        _, hashes = lock_hashes(tf)
        assert sorted(hashes) == sorted(
            [
                registry.h1_hash("fwtest", "3.0.0"),
                *(registry.zh_hash("fwtest", "3.0.0", p) for p in (host_os_arch(), other)),
            ]
        )


def test_terraform_locks_from_the_network_mirror(provider_registry: ProviderRegistry, tmp_path: Path) -> None:
    # Terraform 1.0.3 cannot use a network mirror for a HOST:PORT address: it resolves the relative
    # reference "HOST:PORT/NS/TYPE/index.json" against the mirror URL and takes HOST for a URL scheme.
    # So the mirror here answers for registry.terraform.io, and no request may leave for the registry.
    provider_registry.mirror_hostname = "registry.terraform.io"
    lock = ("providers", "lock", f"-net-mirror={provider_registry.mirror_url}", f"-platform={host_os_arch()}")
    tf = terraform_dir(tmp_path / "lock", provider_registry, "ctltest/fwtest", version="~> 2.0.0")
    tf.run(*lock)
    version, hashes = lock_hashes(tf)
    assert version == "2.0.0"
    # From a mirror Terraform records only the h1: hash it computed; the mirror's zh: hash authenticates.
    assert hashes == [provider_registry.h1_hash("fwtest", "2.0.0")]
    assert all(path.startswith("/mirror/registry.terraform.io/") for _, path in provider_registry.requests)

    provider_registry.tamper("fwtest", "2.0.0")
    tampered = terraform_dir(tmp_path / "tampered", provider_registry, "ctltest/fwtest", version="~> 2.0.0")
    result = tampered.run(*lock, expect=1)
    expected = provider_registry.zh_hash("fwtest", "2.0.0")
    assert f'doesn\'t match the expected checksum "{expected}"' in said(result), result.output


def test_releases_are_packed_once_per_session() -> None:
    with ProviderRegistry(default_releases()) as first:
        packed = first.zip_path("fwtest", "1.0.0").stat().st_mtime_ns
        with ProviderRegistry(default_releases()) as second:
            assert first.files_dir == second.files_dir and first.port != second.port
            assert second.zip_path("fwtest", "1.0.0").stat().st_mtime_ns == packed
    assert signing_key() is signing_key()
