"""Setting encryption up asks the key providers for their keys, before anything is planned, as OpenTofu does.

Measured with OpenTofu 1.12.6 (a key program that logs each run): ``plan`` and ``apply`` run the key
program of the state's method, and of the plan's, once with ``null`` when they start; the write at
the end of ``apply`` reuses that key; the fallback's key program runs only to read a file it wrote,
and an ``external`` method's own programs only to encrypt or decrypt. ctl does the same through
``set_up`` (what ``engine.session.open_store`` calls).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from engine.config.loader import load_module
from engine.encryption.errors import EncryptionError
from engine.encryption.lookup import plan_target, set_up
from engine.encryption.target import Target
from vocab.errors import Diagnostics

PROGRAM = Path(__file__).parent / "data" / "key_program.py"
LOGGED = ("import runpy, sys; open(sys.argv[1], 'a').write('run\\n'); "
          "sys.argv = [sys.argv[2], *sys.argv[3:]]; runpy.run_path(sys.argv[0], run_name='__main__')")


@pytest.fixture(autouse=True)
def master(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEY_PROGRAM_MASTER", "17" * 32)
    monkeypatch.delenv("CTL_ENCRYPTION_COMMAND_TIMEOUT", raising=False)


def logged_program(log: Path, mode: str = "ok") -> str:
    """The test key program, run through a line that counts its runs in ``log``."""
    return json.dumps([sys.executable, "-c", LOGGED, str(log), str(PROGRAM), mode])


def runs(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def configure(root: Path, body: str) -> None:
    (root / "main.tf").write_text("terraform {\n  encryption {\n" + body + "\n  }\n}\n")


def set_up_in(root: Path) -> Target | None:
    return set_up(load_module(root, root, Diagnostics()))


def two_targets(tmp_path: Path, state_mode: str = "ok", plan_mode: str = "ok", fallback_mode: str = "ok") -> None:
    configure(tmp_path, f"""
    key_provider "external" "state" {{
      command = {logged_program(tmp_path / "state.log", state_mode)}
    }}
    key_provider "external" "plan" {{
      command = {logged_program(tmp_path / "plan.log", plan_mode)}
    }}
    key_provider "external" "old" {{
      command = {logged_program(tmp_path / "old.log", fallback_mode)}
    }}
    method "aes_gcm" "state" {{
      keys = key_provider.external.state
    }}
    method "aes_gcm" "plan" {{
      keys = key_provider.external.plan
    }}
    method "aes_gcm" "old" {{
      keys = key_provider.external.old
    }}
    state {{
      method = method.aes_gcm.state
      fallback {{
        method = method.aes_gcm.old
      }}
    }}
    plan {{
      method = method.aes_gcm.plan
    }}""")


def test_the_state_and_plan_key_programs_run_once_at_set_up_and_their_keys_serve_the_writes(tmp_path: Path) -> None:
    two_targets(tmp_path)
    state = set_up_in(tmp_path)
    assert (runs(tmp_path / "state.log"), runs(tmp_path / "plan.log"), runs(tmp_path / "old.log")) == (1, 1, 0)

    assert state is not None
    sealed = state.encrypt(b'{"serial": 1}')
    planned = plan_target(tmp_path)
    assert planned is not None
    planned.encrypt(b"{}")  # what `plan --out` writes, after the plan was made
    assert (runs(tmp_path / "state.log"), runs(tmp_path / "plan.log")) == (1, 1)
    assert set(json.loads(sealed)["meta"]) == {"key_provider.external.state"}

    set_up_in(tmp_path)  # opened again in the same run: the keys are not fetched again
    assert (runs(tmp_path / "state.log"), runs(tmp_path / "plan.log")) == (1, 1)


@pytest.mark.parametrize(("which", "words"), [
    ("state", "key_provider.external.state: "),
    ("plan", "key_provider.external.plan: "),
])
def test_a_failing_key_program_of_either_target_stops_the_set_up(tmp_path: Path, which: str, words: str) -> None:
    two_targets(tmp_path, **{f"{which}_mode": "crash"})
    with pytest.raises(EncryptionError) as err:
        set_up_in(tmp_path)
    assert err.value.summary.startswith(words) and "exited with status 3" in err.value.summary
    assert "key service unreachable: connection refused" in err.value.detail


def test_the_fallbacks_key_program_is_not_asked_at_set_up(tmp_path: Path) -> None:
    two_targets(tmp_path, fallback_mode="crash")  # it runs only to read what it wrote, as in OpenTofu
    assert set_up_in(tmp_path) is not None
    assert runs(tmp_path / "old.log") == 0


def test_a_key_aes_gcm_cannot_take_is_refused_at_set_up(tmp_path: Path) -> None:
    two_targets(tmp_path, state_mode="odd-key")
    with pytest.raises(EncryptionError, match="gave a 20-byte encryption key; aes_gcm takes 16, 24 or 32 bytes"):
        set_up_in(tmp_path)


def test_pbkdf2_settings_are_checked_at_set_up_and_its_upstream_asked(tmp_path: Path) -> None:
    configure(tmp_path, """
    key_provider "pbkdf2" "main" {
      passphrase = "too short"
    }
    method "aes_gcm" "main" {
      keys = key_provider.pbkdf2.main
    }
    state {
      method = method.aes_gcm.main
    }""")
    with pytest.raises(EncryptionError, match="the passphrase must be at least 16 characters long"):
        set_up_in(tmp_path)
    configure(tmp_path, f"""
    key_provider "external" "up" {{
      command = {logged_program(tmp_path / "up.log", "bad-header")}
    }}
    key_provider "pbkdf2" "main" {{
      chain      = key_provider.external.up
      iterations = 200000
    }}
    method "aes_gcm" "main" {{
      keys = key_provider.pbkdf2.main
    }}
    state {{
      method = method.aes_gcm.main
    }}""")
    with pytest.raises(EncryptionError, match=r"key_provider\.external\.up: .* is not a program of OpenTofu's external"):
        set_up_in(tmp_path)


def test_an_external_methods_own_programs_are_not_run_at_set_up(tmp_path: Path) -> None:
    configure(tmp_path, """
    method "external" "main" {
      encrypt_command = ["./no-such-encrypter"]
      decrypt_command = ["./no-such-decrypter"]
    }
    state {
      method = method.external.main
    }""")
    assert set_up_in(tmp_path) is not None  # OpenTofu too plans with them, and fails when it writes
