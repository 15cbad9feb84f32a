"""h1: is the same over a package's zip and over its unpacked files, and changes with any byte."""

from __future__ import annotations

import zipfile
from pathlib import Path

from engine.install.hashes import archive_hash, directory_hash, sha256_file, zip_hash


def _package(tmp_path: Path, files: dict[str, bytes]) -> tuple[Path, Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    unpacked = tmp_path / "unpacked"
    archive = tmp_path / "package.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for name, data in files.items():
            zipped.writestr(name, data)
            (unpacked / name).parent.mkdir(parents=True, exist_ok=True)
            (unpacked / name).write_bytes(data)
    return unpacked, archive


def test_h1_of_the_zip_equals_h1_of_its_unpacked_files(tmp_path: Path) -> None:
    unpacked, archive = _package(tmp_path, {"terraform-provider-x_v1.0.0": b"\x7fELF...", "docs/README": b"hi"})
    assert archive_hash(archive) == directory_hash(unpacked)
    assert directory_hash(unpacked).startswith("h1:") and len(directory_hash(unpacked)) == 3 + 44


def test_any_changed_byte_or_name_changes_h1(tmp_path: Path) -> None:
    first, _ = _package(tmp_path / "a", {"bin": b"one"})
    second, _ = _package(tmp_path / "b", {"bin": b"onf"})
    renamed, _ = _package(tmp_path / "c", {"bin2": b"one"})
    assert len({directory_hash(first), directory_hash(second), directory_hash(renamed)}) == 3


def test_zh_is_the_hex_sha256_of_the_zip(tmp_path: Path) -> None:
    _, archive = _package(tmp_path, {"bin": b"x"})
    assert zip_hash(archive) == "zh:" + sha256_file(archive)
    assert len(zip_hash(archive)) == 3 + 64
