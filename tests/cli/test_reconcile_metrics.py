"""``--metrics-addr``: the address forms it takes, and prometheus-client loaded only when it is given."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cli.views.metrics import parse_address
from vocab.errors import UsageError

REPO = Path(__file__).resolve().parents[2]


def test_addresses_a_user_writes() -> None:
    assert parse_address("127.0.0.1:9100") == ("127.0.0.1", 9100)
    assert parse_address(":9100") == ("0.0.0.0", 9100)
    assert parse_address("[::1]:9100") == ("::1", 9100)
    assert parse_address("localhost:0") == ("localhost", 0)
    for bad in ("9100", "host:", "host:port", "host:70000"):
        with pytest.raises(UsageError):
            parse_address(bad)


def test_a_round_without_metrics_never_imports_prometheus_client(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('resource "terraform_data" "t" {\n  input = "x"\n}\n')
    script = ("import sys\nfrom cli.main import run\n"
              f"code = run(['-C', {str(tmp_path)!r}, 'reconcile', '--once'])\n"
              "print(code, 'prometheus_client' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "NO_COLOR": "1"}, check=False)
    last = proc.stdout.strip().splitlines()[-1]
    assert last == "2 False", proc.stdout + proc.stderr  # one change reported, the library never loaded
