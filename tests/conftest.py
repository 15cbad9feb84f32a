"""Shared helpers: write a small configuration directory from a dict of file names to contents."""

from __future__ import annotations

import os
import shutil
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Create ``files`` (relative path -> text, dedented) under ``root``; returns ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.fixture
def make_config(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """``make_config({"main.tf": "..."})`` writes a configuration into a fresh directory."""

    def make(files: dict[str, str]) -> Path:
        return write_tree(tmp_path / "cfg", files)

    return make


def copy_fixture(name: str, into: Path) -> Path:
    """A copy of ``tests/fixtures/NAME`` (a directory) made in ``into``, without any ``.ctl``.

    A command writes its parse cache (and a run its state) beside the configuration: run in place,
    the checkout would change, and a later run would start from an earlier one's cache."""
    source = FIXTURES / name
    return Path(shutil.copytree(source, into / source.name, ignore=shutil.ignore_patterns(".ctl")))


@pytest.fixture
def fixture_copy(tmp_path: Path) -> Callable[[str], Path]:
    """``fixture_copy("corpus/data_lake")``: that fixture directory, copied for this test (``copy_fixture``)."""
    return lambda name: copy_fixture(name, tmp_path)


@pytest.fixture(scope="session", autouse=True)
def _fixtures_stay_as_checked_out() -> Iterator[None]:
    """A command run on a fixture directory in place leaves its ``.ctl`` there: the run ends in an
    error naming it, so the test can be moved to ``fixture_copy``."""
    before = set(FIXTURES.rglob(".ctl"))
    yield
    written = sorted(str(p.relative_to(FIXTURES)) for p in set(FIXTURES.rglob(".ctl")) - before)
    if written:
        pytest.fail(f"tests wrote into tests/fixtures: {', '.join(written)}; run them on a fixture_copy", pytrace=False)


# --- Real servers for backend and cloud-adapter tests (see tests/servers.py) --------------------------
# Session fixtures start a server the first time a test asks for it and stop it at the end of the run;
# the `*_clean` variants reset the server's state before the test. A server that cannot start fails the
# test when CI is set (a missing server is never a silent skip there) and skips it otherwise.

from typing import TypeVar  # noqa: E402

from tests.plugin_providers import plugin_dir  # noqa: E402,F401  (session fixture: provider binaries)
from tests.servers import Azurite, FakeGcsServer, MotoServer, Server, ServerError  # noqa: E402


def running_in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


ServerT = TypeVar("ServerT", bound=Server)


def _serve(server: ServerT) -> Iterator[ServerT]:
    try:
        server.start()
        problem = ""
    except ServerError as exc:
        problem = f"{server.name} could not be started: {exc}"
    if problem:
        if running_in_ci():
            pytest.fail(problem, pytrace=False)
        pytest.skip(problem)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def moto_server() -> Iterator[MotoServer]:
    """moto in server mode: `.url`, `.env` (AWS_* variables), `.client("s3")`, `.reset()`."""
    yield from _serve(MotoServer())


@pytest.fixture
def moto_server_clean(moto_server: MotoServer) -> MotoServer:
    moto_server.reset()
    return moto_server


@pytest.fixture(scope="session")
def fake_gcs() -> Iterator[FakeGcsServer]:
    """fake-gcs-server: `.url`, `.env` (STORAGE_EMULATOR_HOST), `.client()`, `.reset()`."""
    yield from _serve(FakeGcsServer())


@pytest.fixture
def fake_gcs_clean(fake_gcs: FakeGcsServer) -> FakeGcsServer:
    fake_gcs.reset()
    return fake_gcs


@pytest.fixture(scope="session")
def azurite() -> Iterator[Azurite]:
    """Azurite blob + queue: `.connection_string`, `.env`, `.blob_service()`, `.queue_service()`, `.reset()`."""
    yield from _serve(Azurite())


@pytest.fixture
def azurite_clean(azurite: Azurite) -> Azurite:
    azurite.reset()
    return azurite


@pytest.fixture(autouse=True)
def _restore_working_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ctl -chdir DIR`` changes the process's directory (as Terraform's does); in-process runs of
    the CLI must not leave the next test there."""
    monkeypatch.chdir(os.getcwd())


def pytest_unconfigure(config: pytest.Config) -> None:
    """Collect what in-process runs left frozen (``load_and_evaluate`` freezes what it built) while
    every module is intact: the Rego engine's objects fail in __del__ at interpreter teardown,
    printing "Exception ignored" after the summary."""
    import gc

    gc.unfreeze()
    gc.collect()


# What `make check` leaves out (`-m "not servers"`): tests that need a server (moto, fake-gcs-server,
# Azurite, a registry), a provider built from Go, a reference tool (Terraform, OpenTofu, OPA) or the
# installed `ctl` run as a process. The rest is the quick everyday loop; `make test` runs everything.
_SERVER_FIXTURES = frozenset({"moto_server", "moto_server_clean", "fake_gcs", "fake_gcs_clean", "azurite",
                              "azurite_clean"})
_SERVER_FOLDERS = frozenset({("e2e",), ("real_providers",), ("plugin",), ("engine", "install"), ("fuzz",),
                             ("ctyoracle",), ("opa",), ("otelcol",), ("backends",)})
_TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.resolve().relative_to(_TESTS).parts
        folder = any(parts[:len(prefix)] == prefix for prefix in _SERVER_FOLDERS)
        if folder or _SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.servers)
