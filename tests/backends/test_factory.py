"""From backend-block settings to a store: Terraform's setting names, refusals of unknown or missing
settings, and cloud SDKs imported only when their backend is used."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from backends.base import BackendError
from backends.factory import make_store
from backends.local.store import LocalStore

_LOADED_SDKS = (
    "import sys\n"
    "heavy = sorted(m for m in sys.modules if m.split('.')[0] in {'boto3', 'botocore', 'azure'} "
    "or m.startswith(('google.cloud', 'google.auth')))\n"
    "print(heavy)\n"
)


def _loaded_after(code: str, **env: str) -> str:
    """The SDK modules loaded by ``code`` in a fresh interpreter (the project root on the path)."""
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code + "\n" + _LOADED_SDKS],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), **env},
        check=True,
    )
    return result.stdout.strip().splitlines()[-1]


# -- lazy SDK imports -------------------------------------------------------------------------------


def test_ctl_help_and_version_import_no_cloud_sdk() -> None:
    for args in (["--help"], ["--version"], ["state", "--help"]):
        code = (
            "import contextlib, io\n"
            "from cli.main import app\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            f"    app({args!r})\n"
        )
        assert _loaded_after(code) == "[]", args


def test_importing_every_backend_module_imports_no_cloud_sdk() -> None:
    code = "import backends.factory, backends.s3, backends.gcs, backends.azurerm, backends.objectstore.store"
    assert _loaded_after(code) == "[]"


def test_a_local_store_imports_no_cloud_sdk(tmp_path: Path) -> None:
    code = f"from backends.factory import make_store\nmake_store('local', {{}}, __import__('pathlib').Path({str(tmp_path)!r}))"
    assert _loaded_after(code) == "[]"


def test_an_s3_store_imports_boto3_and_nothing_else() -> None:
    code = (
        "from pathlib import Path\nfrom backends.factory import make_store\n"
        "make_store('s3', {'bucket': 'b', 'key': 'k', 'region': 'us-east-1'}, Path('.'))"
    )
    loaded = _loaded_after(code)
    assert "'boto3'" in loaded and "azure" not in loaded and "google" not in loaded


# -- local ------------------------------------------------------------------------------------------


def test_local_is_the_file_next_to_the_configuration(tmp_path: Path) -> None:
    store = make_store("local", {}, tmp_path)
    assert isinstance(store, LocalStore) and store.path == tmp_path / "ctl.tfstate"
    custom = make_store("local", {"path": "states/prod.tfstate"}, tmp_path)
    assert isinstance(custom, LocalStore) and custom.path == tmp_path / "states" / "prod.tfstate"
    absolute = make_store("local", {"path": str(tmp_path / "x.tfstate")}, Path("/elsewhere"))
    assert isinstance(absolute, LocalStore) and absolute.path == tmp_path / "x.tfstate"


# -- refusals ---------------------------------------------------------------------------------------


def test_an_unknown_backend_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match='backend type "consul" is not supported') as err:
        make_store("consul", {}, tmp_path)
    assert "s3" in err.value.hint and "azurerm" in err.value.hint


@pytest.mark.parametrize(
    ("kind", "settings", "bad"),
    [
        ("s3", {"bucket": "b", "key": "k", "bukcet": "typo"}, '"bukcet"'),
        ("gcs", {"bucket": "b", "kms_encryption_key": "k"}, '"kms_encryption_key"'),
        ("azurerm", {"container_name": "c", "key": "k", "use_azuread_auth": True}, '"use_azuread_auth"'),
        ("local", {"workspace_dir": "x"}, '"workspace_dir"'),
    ],
)
def test_unknown_or_unimplemented_settings_are_refused_not_ignored(
    kind: str, settings: dict[str, Any], bad: str, tmp_path: Path
) -> None:
    with pytest.raises(BackendError, match=f"{kind}: unsupported backend setting {bad}") as err:
        make_store(kind, settings, tmp_path)
    assert "supports:" in err.value.hint


@pytest.mark.parametrize(
    ("kind", "settings", "missing"),
    [
        ("s3", {"key": "k"}, '"bucket" is required'),
        ("s3", {}, '"bucket", "key" are required'),
        ("gcs", {"prefix": "p"}, '"bucket" is required'),
        ("azurerm", {"storage_account_name": "a", "key": "k"}, '"container_name" is required'),
    ],
)
def test_missing_required_settings_are_named(
    kind: str, settings: dict[str, Any], missing: str, tmp_path: Path
) -> None:
    with pytest.raises(BackendError, match=missing) as err:
        make_store(kind, settings, tmp_path)
    assert "--backend-config" in err.value.hint


def test_terraform_only_settings_are_accepted(tmp_path: Path) -> None:
    make_store(
        "s3",
        {"bucket": "b", "key": "k", "region": "us-east-1", "dynamodb_table": "locks", "use_lockfile": True},
        tmp_path,
    )


def test_settings_from_the_command_line_arrive_as_text(tmp_path: Path) -> None:
    from backends.s3 import S3Store

    store = make_store(
        "s3",
        {"bucket": "b", "key": "k", "region": "us-east-1", "encrypt": "true", "use_path_style": "false"},
        tmp_path,
    )
    assert isinstance(store, S3Store)
    assert store._encryption == {"ServerSideEncryption": "AES256"}
    with pytest.raises(BackendError, match='"encrypt" must be true or false'):
        make_store("s3", {"bucket": "b", "key": "k", "encrypt": "maybe"}, tmp_path)


def test_s3_endpoints_block_and_kms_key(tmp_path: Path) -> None:
    from backends.s3 import S3Store

    for endpoints in ({"s3": "http://127.0.0.1:9"}, [{"s3": "http://127.0.0.1:9"}]):
        store = make_store(
            "s3",
            {
                "bucket": "b",
                "key": "k",
                "region": "us-east-1",
                "endpoints": endpoints,
                "kms_key_id": "alias/x",
            },
            tmp_path,
        )
        assert isinstance(store, S3Store) and store.endpoint == "http://127.0.0.1:9"
        assert store._encryption == {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": "alias/x"}


def test_s3_key_must_name_an_object(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match='"key" setting must name an object'):
        make_store("s3", {"bucket": "b", "key": "dir/"}, tmp_path)


def test_gcs_prefix_is_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from backends.gcs import GCSStore

    monkeypatch.setenv("STORAGE_EMULATOR_HOST", "http://127.0.0.1:9")
    for prefix, described in (("", "gs://b/default.tfstate"), ("a/b", "gs://b/a/b/default.tfstate"),
                              ("a/b/", "gs://b/a/b/default.tfstate")):  # fmt: skip
        store = make_store("gcs", {"bucket": "b", "prefix": prefix}, tmp_path)
        assert isinstance(store, GCSStore) and store.describe() == described


def test_azurerm_without_a_connection_string_needs_the_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AZURE_STORAGE_CONNECTION_STRING", raising=False)
    with pytest.raises(BackendError, match='"storage_account_name" is required'):
        make_store("azurerm", {"container_name": "c", "key": "k", "access_key": "a2V5"}, tmp_path)
