"""The local journal keeps its file open between lines, and every line still lands where it belongs.

Whatever happens to the file between two appends (cleared by another store object, replaced,
appended to and torn by another process, cut short by a full disk), the next line goes into the
file at the journal's path, on a line of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from backends.base import DEFAULT_WORKSPACE
from backends.local.store import LocalStore

ROOT = Path(__file__).resolve().parents[2]


def _open_on(path: Path) -> int:
    """How many of this process's descriptors are open on ``path``."""
    fds = Path("/proc/self/fd")
    return sum(1 for fd in fds.iterdir() if os.path.realpath(fd) == str(path.resolve()))


def test_one_descriptor_serves_every_line_and_is_closed_when_the_journal_is_cleared(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "ctl.tfstate")
    journal = tmp_path / "ctl.tfstate.journal"
    for seq in range(50):
        store.journal_append(DEFAULT_WORKSPACE, b'{"seq":%d}' % seq, sync=seq % 10 == 0)
    assert _open_on(journal) == 1
    assert store.journal_read(DEFAULT_WORKSPACE) == [b'{"seq":%d}' % seq for seq in range(50)]
    store.journal_sync(DEFAULT_WORKSPACE)
    store.journal_clear(DEFAULT_WORKSPACE)
    assert not journal.exists()
    assert _open_on(journal) == 0 and not any(os.path.realpath(fd).endswith(".journal (deleted)")
                                              for fd in Path("/proc/self/fd").iterdir())


def test_a_journal_cleared_by_another_store_gets_the_next_line(tmp_path: Path) -> None:
    mine, other = LocalStore(tmp_path / "ctl.tfstate"), LocalStore(tmp_path / "ctl.tfstate")
    mine.journal_append(DEFAULT_WORKSPACE, b'{"seq":1}')
    other.journal_clear(DEFAULT_WORKSPACE)
    mine.journal_append(DEFAULT_WORKSPACE, b'{"seq":2}')  # not into the removed file's descriptor
    assert other.journal_read(DEFAULT_WORKSPACE) == [b'{"seq":2}']


def test_a_journal_replaced_behind_the_store_gets_the_next_line(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "ctl.tfstate")
    journal = tmp_path / "ctl.tfstate.journal"
    store.journal_append(DEFAULT_WORKSPACE, b'{"seq":1}')
    replacement = tmp_path / "replacement"
    replacement.write_bytes(b'{"seq":7}\n')
    os.replace(replacement, journal)
    store.journal_append(DEFAULT_WORKSPACE, b'{"seq":8}')
    assert store.journal_read(DEFAULT_WORKSPACE) == [b'{"seq":7}', b'{"seq":8}']


def test_a_line_torn_by_another_writer_between_two_appends_is_cut(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "ctl.tfstate")
    store.journal_append(DEFAULT_WORKSPACE, b'{"seq":1}')
    subprocess.run([sys.executable, "-c", "import sys; open(sys.argv[1], 'ab').write(b'{\"seq\":2,\"ki')",
                    str(tmp_path / "ctl.tfstate.journal")], check=True)
    store.journal_append(DEFAULT_WORKSPACE, b'{"seq":3}')
    assert store.journal_read(DEFAULT_WORKSPACE) == [b'{"seq":1}', b'{"seq":3}']


_FILL_THEN_GROW = """
import resource, signal, sys
from pathlib import Path
from backends.base import DEFAULT_WORKSPACE
from backends.local.store import LocalStore

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing us
store = LocalStore(Path(sys.argv[1]))
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (100, hard))  # the disk is full at 100 bytes
seq = 0
try:
    while True:
        seq += 1
        store.journal_append(DEFAULT_WORKSPACE, b'{"seq":%d,"pad":"xxxxxxxx"}' % seq)
except Exception as exc:  # the store's BackendError
    print(seq, exc)
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # space again
store.journal_append(DEFAULT_WORKSPACE, b'{"seq":%d}' % (seq + 1))
"""


def test_a_line_cut_short_by_a_full_disk_is_cut_before_the_next_one(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", _FILL_THEN_GROW, str(tmp_path / "ctl.tfstate")],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    failed_at, message = done.stdout.split(" ", 1)
    assert int(failed_at) == 4  # three 27-byte lines fit in 100 bytes; the fourth is cut at byte 100
    assert "No space left on device" in message
    lines = LocalStore(tmp_path / "ctl.tfstate").journal_read(DEFAULT_WORKSPACE)
    assert lines == [b'{"seq":%d,"pad":"xxxxxxxx"}' % s for s in (1, 2, 3)] + [b'{"seq":5}']
