"""Damaged release zips: hashing and unpacking either succeed or raise ctl's own error, never a crash.

A registry can serve any bytes under a valid signature of its own, so the zip reader sees arbitrary
input. Hypothesis flips, cuts and overwrites bytes of a small release-shaped zip (a directory, a
stored and a deflated member, an executable) and each result goes through what ``ctl init`` does
with a download: the ``h1:`` of the archive, then unpacking into a fresh directory. The explicit
examples are damage that once escaped as the exception named beside each.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.install.archive import extract
from engine.install.hashes import archive_hash, directory_hash
from vocab.errors import CtlError


def _seed() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        zipped.writestr(zipfile.ZipInfo("docs/", (2021, 1, 1, 0, 0, 0)), b"")
        stored = zipfile.ZipInfo("docs/README.md", (2021, 1, 1, 0, 0, 0))
        stored.external_attr = 0o100644 << 16
        zipped.writestr(stored, b"# provider\n" * 20)
        binary = zipfile.ZipInfo("terraform-provider-x_v1.0.0", (2021, 1, 1, 0, 0, 0))
        binary.external_attr = 0o100755 << 16
        binary.compress_type = zipfile.ZIP_DEFLATED
        zipped.writestr(binary, bytes(range(256)) * 64)
    return buffer.getvalue()


SEED = _seed()

edits = st.lists(
    st.one_of(
        st.tuples(st.just("flip"), st.integers(0, len(SEED) - 1), st.integers(1, 255)),
        st.tuples(st.just("cut"), st.integers(0, len(SEED) - 1), st.just(0)),
        st.tuples(st.just("set"), st.integers(0, len(SEED) - 1), st.integers(0, 255)),
    ),
    min_size=1,
    max_size=6,
)


def _damaged(changes: list[tuple[str, int, int]]) -> bytes:
    data = bytearray(SEED)
    for kind, at, value in changes:
        at = min(at, len(data) - 1)
        if kind == "flip":
            data[at] ^= value
        elif kind == "set":
            data[at] = value
        else:
            del data[at:]
            if not data:
                break
    return bytes(data)


@example([('flip', 582, 217), ('flip', 821, 196)])  # was BadZipFile
@example([('flip', 29, 229), ('flip', 855, 100), ('flip', 443, 156), ('flip', 780, 197)])  # was IndexError
@example([('flip', 31, 6), ('flip', 26, 167), ('flip', 554, 3)])  # was zlib.error
@example([('flip', 961, 127), ('flip', 566, 60), ('flip', 353, 60), ('flip', 693, 57)])  # was OSError
@example([('flip', 552, 236), ('flip', 880, 141)])  # was NotImplementedError
@example([('flip', 64, 17), ('flip', 935, 82), ('flip', 615, 249), ('flip', 466, 29)])  # was EOFError
@example([('flip', 817, 7)])  # was RuntimeError
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_a_damaged_zip_is_hashed_and_unpacked_or_refused(changes: list[tuple[str, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        archive = Path(scratch) / "terraform-provider-x_1.0.0_linux_amd64.zip"
        archive.write_bytes(_damaged(changes))
        try:
            h1 = archive_hash(archive)
            extract(archive, Path(scratch) / "unpacked")
        except CtlError as err:
            assert archive.name in err.summary, err.summary
            return
        unpacked = Path(scratch) / "unpacked"
        assert all(p.resolve().is_relative_to(unpacked.resolve()) for p in unpacked.rglob("*"))
        # What was accepted unpacks to exactly what its h1: describes (unless names were merged by
        # normalising "./" or duplicate members, which the reader keeps as the zip lists them).
        names = [i.filename for i in zipfile.ZipFile(archive).infolist() if not i.is_dir()]
        if len(set(names)) == len(names) and all("/./" not in f"/{n}" and "//" not in n for n in names):
            assert directory_hash(unpacked) == h1


def test_the_undamaged_seed_unpacks_to_its_hash(tmp_path: Path) -> None:
    archive = tmp_path / "seed.zip"
    archive.write_bytes(SEED)
    extract(archive, tmp_path / "unpacked")
    assert directory_hash(tmp_path / "unpacked") == archive_hash(archive)
