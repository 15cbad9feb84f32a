"""An encrypted apply killed mid-way: its sealed journal is never skipped, read without its key; a sealed
state damaged on purpose is one clear error through every command."""

from __future__ import annotations

import base64
import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, background, wait_until

PASSPHRASE = "correct-horse-battery"
ENCRYPTION = f"""
key_provider "pbkdf2" "main" {{
  passphrase = "{PASSPHRASE}"
  iterations = 200000
}}
method "aes_gcm" "main" {{
  keys = key_provider.pbkdf2.main
}}
state {{
  method = method.aes_gcm.main
}}
"""
CONFIG = """
resource "time_sleep" "fast" {
  count           = 2
  create_duration = "0s"
}
resource "time_sleep" "slow" {
  count           = 2
  create_duration = "60s"
}
"""
KEY = {"CTL_ENCRYPTION": ENCRYPTION}


def journal_lines(project: Project) -> int:
    try:
        return project.journal_file.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_a_sealed_journal_without_its_key_stops_the_run_and_keeps_everything(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(CONFIG)
    with background(project.start("apply", "--auto-approve", env=KEY)) as proc:
        # Four intents, then the results of the two fast sleeps; the slow ones run for a minute.
        wait_until(lambda: journal_lines(project) >= 6, timeout=40, what="the fast sleeps to be journaled")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not project.state_file.exists()  # killed before its first state write
    journal = project.journal_file.read_bytes()
    assert b'"encrypted_data"' in journal and b"time_sleep" not in journal

    for command in (["plan"], ["apply", "--auto-approve", "--lock=false"], ["state", "list"]):
        res = project.ctl(*command)
        assert res.code == 1, res
        assert "the apply journal of the state at" in res.stderr and "is encrypted" in res.stderr, res
        assert "CTL_ENCRYPTION" in res.stderr and "Traceback" not in res.stderr and "unreadable" not in res.stderr
        assert not project.state_file.exists()
        assert project.journal_file.read_bytes() == journal

    # One damaged entry (the first, an intent) is skipped with a warning; the rest are recovered.
    first, rest = journal.split(b"\n", 1)
    sealed = json.loads(first)
    sealed["encrypted_data"] = sealed["encrypted_data"][::-1]
    project.journal_file.write_bytes(json.dumps(sealed).encode() + b"\n" + rest)
    recovered = project.ctl("plan", env=KEY)
    assert recovered.code == 0, recovered
    assert "the apply journal has 1 unreadable entry (line 1), skipped" in recovered.stderr
    assert "Recovered the results of an interrupted apply" in recovered.stderr
    assert "Plan: 2 to add, 0 to change, 0 to destroy." in recovered.stdout  # the fast ones are kept


def test_state_history_counts_sealed_versions_with_the_key_and_says_sealed_without(tmp_path: Path) -> None:
    project = Project(tmp_path)
    for count in (1, 3, 2):  # three runs, each sealing with a key of its own (a fresh salt)
        project.write("".join(f'resource "terraform_data" "d{n}" {{\n  input = "x"\n}}\n' for n in range(count)))
        assert project.ctl("apply", "--auto-approve", env=KEY).code == 0

    rows = json.loads(project.ok("state", "history", "--json", env=KEY).stdout)
    assert [(r["serial"], r["resources"]) for r in rows] == [(1, 1), (2, 3), (3, 2)]
    table = project.ok("state", "history", env=KEY).stdout.splitlines()
    assert [line.split()[-1] if "(current)" not in line else line.split()[-2] for line in table[1:]] == \
        ["1", "3", "2"]

    blind = project.ok("state", "history", "--json")
    assert [(r["serial"], r["resources"]) for r in json.loads(blind.stdout)] == [(1, None), (2, None), (3, None)]
    shown = project.ok("state", "history")
    assert all("sealed" in line for line in shown.stdout.splitlines()[1:])
    assert "no configured key opens them" in shown.stderr


def _damaged(text: bytes, how: str) -> bytes:
    """The sealed state ``text`` damaged as ``how`` says: a stored iteration count, or a cut."""
    if how == "truncated":
        return text[: len(text) // 2]
    doc = json.loads(text)
    (name, meta), = doc["meta"].items()
    stored = base64.b64decode(meta).replace(b'"iterations":200000', b'"iterations":' + how.encode())
    doc["meta"][name] = base64.b64encode(stored).decode()
    return json.dumps(doc).encode()


@pytest.mark.parametrize(("how", "said"), [
    ("Infinity", "the stored metadata of key_provider.pbkdf2.main is damaged"),
    ("59999999", "asks for 59,999,999 PBKDF2 iterations; ctl derives keys with 200,000 to 2,000,000"),
    ("truncated", "is encrypted but damaged: it is truncated or was changed, and cannot be read"),
])
def test_a_damaged_sealed_state_is_one_clear_error_at_once(tmp_path: Path, how: str, said: str) -> None:
    """Each command a user runs next says what is wrong with the file, at once, and writes nothing."""
    project = Project(tmp_path)
    project.write('resource "terraform_data" "d" {\n  input = "x"\n}\n')
    assert project.ctl("apply", "--auto-approve", env=KEY).code == 0
    damaged = _damaged(project.state_file.read_bytes(), how)
    project.state_file.write_bytes(damaged)
    for command in (["plan"], ["apply", "--auto-approve"], ["state", "list"]):
        started = time.monotonic()
        res = project.ctl(*command, env=KEY)
        assert time.monotonic() - started < 20, command  # no key derived with a count an attacker chose
        assert res.code == 1, res
        assert said in res.stderr, res
        assert "internal error" not in res.output and "Traceback" not in res.output, res
        assert "not encrypted" not in res.stderr and "fallback" not in res.stderr, res
        assert project.state_file.read_bytes() == damaged
