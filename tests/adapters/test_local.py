"""The local provider: real files written, read, changed behind ctl's back and deleted."""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from adapters import local
from adapters.base import AdapterContext, AdapterError, ResourceType
from tests.adapters.contract import DataSourceContract, ResourceContract
from vocab.values import Marked, is_unknown

FILE = local.PROVIDER.resources["local_file"]
SENSITIVE_FILE = local.PROVIDER.resources["local_sensitive_file"]
DATA_FILE = local.PROVIDER.data_sources["local_file"]


class TestLocalFileContract(ResourceContract):
    provider = local.PROVIDER
    type_name = "local_file"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        (workdir / "source.bin").write_bytes(b"\x00\x01copied")
        return [
            {"filename": "plain.txt", "content": "hello\n"},
            {"filename": "nested/deeper/b.txt", "content": "", "file_permission": "0640"},
            {"filename": "binary.bin", "content_base64": base64.b64encode(b"\xff\xfe\x00").decode()},
            {"filename": "copy.bin", "source": "source.bin"},
            {"filename": str(workdir / "absolute.txt"), "sensitive_content": "s3cret"},
        ]


class TestLocalSensitiveFileContract(ResourceContract):
    provider = local.PROVIDER
    type_name = "local_sensitive_file"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        return [
            {"filename": "key.pem", "content": "-----BEGIN KEY-----"},
            {"filename": "dir/blob", "content_base64": "AAEC"},
        ]


class TestLocalFileDataContract(DataSourceContract):
    provider = local.PROVIDER
    type_name = "local_file"

    def samples(self, workdir: Path) -> list[dict[str, Any]]:
        (workdir / "in.txt").write_text("data\n")
        (workdir / "empty").write_bytes(b"")
        return [{"filename": "in.txt"}, {"filename": str(workdir / "empty")}]


class TestLocalSensitiveFileDataContract(TestLocalFileDataContract):
    type_name = "local_sensitive_file"


@pytest.fixture
def ctx(tmp_path: Path) -> AdapterContext:
    return AdapterContext(provider_config={}, workdir=tmp_path, address="local_file.test")


@pytest.fixture
def umask() -> Iterator[int]:
    """A known umask for permission tests (restored afterwards)."""
    old = os.umask(0o022)
    try:
        yield 0o022
    finally:
        os.umask(old)


def _apply(rt: ResourceType, ctx: AdapterContext, config: dict[str, Any]) -> dict[str, Any]:
    return rt.create(ctx, rt.plan(ctx, None, config))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_create_writes_the_content_and_records_its_checksums(ctx: AdapterContext, tmp_path: Path) -> None:
    state = _apply(FILE, ctx, {"filename": "out/hello.txt", "content": "héllo\n"})
    data = (tmp_path / "out" / "hello.txt").read_bytes()
    assert data == "héllo\n".encode()
    assert state["id"] == hashlib.sha1(data).hexdigest() == state["content_sha1"]
    assert state["content_md5"] == hashlib.md5(data).hexdigest()
    assert state["content_sha256"] == hashlib.sha256(data).hexdigest()
    assert state["content_base64sha256"] == base64.b64encode(hashlib.sha256(data).digest()).decode()
    assert state["content_sha512"] == hashlib.sha512(data).hexdigest()
    assert state["content_base64sha512"] == base64.b64encode(hashlib.sha512(data).digest()).decode()


def test_relative_filenames_resolve_against_the_configuration_directory(
    ctx: AdapterContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    state = _apply(FILE, ctx, {"filename": "rel.txt", "content": "x"})
    assert (tmp_path / "rel.txt").read_text() == "x"
    assert not (elsewhere / "rel.txt").exists()
    assert state["filename"] == "rel.txt"  # state keeps what the user wrote


def test_binary_and_copied_content(ctx: AdapterContext, tmp_path: Path) -> None:
    blob = bytes(range(256))
    _apply(FILE, ctx, {"filename": "b64.bin", "content_base64": base64.b64encode(blob).decode()})
    assert (tmp_path / "b64.bin").read_bytes() == blob
    (tmp_path / "src.bin").write_bytes(blob[::-1])
    state = _apply(FILE, ctx, {"filename": "copy.bin", "source": "src.bin"})
    assert (tmp_path / "copy.bin").read_bytes() == blob[::-1]
    assert state["id"] == hashlib.sha1(blob[::-1]).hexdigest()


def test_sensitive_content_is_written_in_clear_to_the_file(ctx: AdapterContext, tmp_path: Path) -> None:
    state = _apply(SENSITIVE_FILE, ctx, {"filename": "secret", "content": Marked("hunter2")})
    assert (tmp_path / "secret").read_text() == "hunter2"
    assert state["content"] == Marked("hunter2")  # the mark stays on the value in state
    assert SENSITIVE_FILE.sensitive == {"content", "content_base64"}
    assert FILE.sensitive == {"sensitive_content"}


def test_default_permissions_follow_terraform(ctx: AdapterContext, tmp_path: Path, umask: int) -> None:
    _apply(FILE, ctx, {"filename": "d1/pub.txt", "content": "x"})
    _apply(SENSITIVE_FILE, ctx, {"filename": "d2/priv.txt", "content": "x"})
    assert _mode(tmp_path / "d1" / "pub.txt") == 0o777 & ~umask
    assert _mode(tmp_path / "d1") == 0o777 & ~umask
    assert _mode(tmp_path / "d2" / "priv.txt") == 0o700
    assert _mode(tmp_path / "d2") == 0o700


def test_configured_permissions_apply_to_the_file_and_every_created_directory(
    ctx: AdapterContext, tmp_path: Path, umask: int
) -> None:
    config = {
        "filename": "a/b/c.txt",
        "content": "x",
        "file_permission": "0600",
        "directory_permission": "0750",
    }
    _apply(FILE, ctx, config)
    assert _mode(tmp_path / "a" / "b" / "c.txt") == 0o600
    assert _mode(tmp_path / "a" / "b") == 0o750
    assert _mode(tmp_path / "a") == 0o750


def test_overwriting_an_existing_file_takes_the_configured_permission(
    ctx: AdapterContext, tmp_path: Path, umask: int
) -> None:
    target = tmp_path / "existing.txt"
    target.write_text("old")
    target.chmod(0o644)
    _apply(FILE, ctx, {"filename": "existing.txt", "content": "new", "file_permission": "0600"})
    assert target.read_text() == "new"
    assert _mode(target) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["existing.txt"]  # no temporary file left behind


def test_plan_applies_defaults_and_keeps_checksums_unknown(ctx: AdapterContext) -> None:
    planned = FILE.plan(ctx, None, {"filename": "f", "content": "abc"})
    assert planned["file_permission"] == "0777"
    assert planned["directory_permission"] == "0777"
    assert planned["content_base64"] is None and planned["source"] is None
    for name in ("id", "content_md5", "content_sha256", "content_base64sha512"):
        assert is_unknown(planned[name])
    assert SENSITIVE_FILE.plan(ctx, None, {"filename": "f", "content": "abc"})["file_permission"] == "0700"


def test_every_argument_forces_replacement() -> None:
    arguments = {k for k, v in FILE.schema["properties"].items() if not v.get("readOnly")}
    assert arguments == FILE.replace_on


def test_refresh_reports_a_file_deleted_or_changed_outside_ctl_as_gone(
    ctx: AdapterContext, tmp_path: Path
) -> None:
    state = _apply(FILE, ctx, {"filename": "watched.txt", "content": "v1"})
    assert FILE.read(ctx, state) == state
    (tmp_path / "watched.txt").write_text("edited by hand")
    assert FILE.read(ctx, state) is None
    (tmp_path / "watched.txt").unlink()
    assert FILE.read(ctx, state) is None


def test_delete_removes_the_file_and_tolerates_its_absence(ctx: AdapterContext, tmp_path: Path) -> None:
    state = _apply(FILE, ctx, {"filename": "gone.txt", "content": "x"})
    FILE.delete(ctx, state)
    assert not (tmp_path / "gone.txt").exists()
    FILE.delete(ctx, state)


def test_a_write_killed_before_its_rename_leaves_nothing_once_the_file_is_written_or_deleted(
        ctx: AdapterContext, tmp_path: Path) -> None:
    """A SIGKILL between writing the temporary file and renaming it leaves ``.NAME.ctl-*.tmp``."""
    leftover = tmp_path / ".f.txt.ctl-0123456789ab.tmp"
    other = tmp_path / ".g.txt.ctl-0123456789ab.tmp"  # another file's: not ours to touch
    leftover.write_text("half")
    other.write_text("half")
    state = _apply(FILE, ctx, {"filename": "f.txt", "content": "x"})
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "f.txt"]
    leftover.write_text("half")
    FILE.delete(ctx, state)
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"filename": "f"}, "exactly one of"),
        ({"filename": "f", "content": "a", "source": "b"}, "got content, source"),
        ({"filename": "f", "content_base64": "not base64!"}, "not valid base64"),
        ({"filename": "f", "source": "missing.txt"}, "missing.txt"),
        ({"filename": "f", "content": "a", "file_permission": "999"}, "file_permission"),
    ],
)
def test_user_errors_name_the_resource(ctx: AdapterContext, config: dict[str, Any], message: str) -> None:
    with pytest.raises(AdapterError, match=message) as info:
        _apply(FILE, ctx, config)
    assert info.value.address == "local_file.test"


def test_writing_over_a_directory_is_an_error(ctx: AdapterContext, tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    with pytest.raises(AdapterError, match="cannot write"):
        _apply(FILE, ctx, {"filename": "adir", "content": "x"})


def test_schema_catches_configuration_mistakes_before_apply() -> None:
    validator = Draft202012Validator(FILE.schema)
    assert validator.is_valid({"filename": "f", "content": "x"})
    assert not validator.is_valid({"filename": "f"})  # no content
    assert not validator.is_valid({"filename": "f", "content": "x", "content_base64": "eA=="})
    assert not validator.is_valid({"filename": "f", "content": "x", "file_permission": "0999"})
    assert not validator.is_valid({"filename": "f", "content": "x", "colour": "red"})
    assert not validator.is_valid({"content": "x"})
    sensitive = Draft202012Validator(SENSITIVE_FILE.schema)
    assert not sensitive.is_valid({"filename": "f", "sensitive_content": "x"})


def test_data_source_reads_content_and_checksums(ctx: AdapterContext, tmp_path: Path) -> None:
    (tmp_path / "conf.ini").write_bytes(b"[a]\nb = 1\n")
    got = DATA_FILE.read(ctx, {"filename": "conf.ini"})
    assert got is not None
    assert got["content"] == "[a]\nb = 1\n"
    assert base64.b64decode(got["content_base64"]) == b"[a]\nb = 1\n"
    assert got["id"] == hashlib.sha1(b"[a]\nb = 1\n").hexdigest()
    assert got["filename"] == "conf.ini"


def test_data_source_of_a_missing_file_names_the_path(ctx: AdapterContext, tmp_path: Path) -> None:
    with pytest.raises(AdapterError, match=r"nope\.txt") as info:
        DATA_FILE.read(ctx, {"filename": "nope.txt"})
    assert str(tmp_path) in info.value.summary
    assert info.value.address == "local_file.test"


def test_provider_identity() -> None:
    assert local.PROVIDER.name == "local"
    assert local.PROVIDER.state_name() == 'provider["registry.terraform.io/hashicorp/local"]'
