"""Cache entries written by a forked child: every one written, nothing of the command held open,
and written here instead when a child could not be made safely.

Each case runs in a fresh interpreter, as a command does: the test process has threads of its own
(servers other tests started), and with other threads running the writer rightly does not fork.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")

_PRELUDE = """
import json, os, select, sys, threading, time
from pathlib import Path
from engine.config import cache_writer
from engine.config.cache_writer import wait_for_writers, write_in_child

folder = Path(sys.argv[1])

def writer(pause=0.0, fail_at=None):
    def write(name):
        time.sleep(pause)
        if name == fail_at:
            return False
        (folder / name).write_text(str(os.getpid()))
        return True
    return write

def written():
    return {p.name: p.read_text() for p in folder.iterdir()}
"""


def _run(tmp_path: Path, body: str) -> Any:
    script = _PRELUDE + textwrap.dedent(body)
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_child_writes_every_entry_and_is_reaped(tmp_path: Path) -> None:
    out = _run(tmp_path, """
        write_in_child(["a", "b", "c"], writer())
        (child,) = cache_writer._children
        wait_for_writers()
        try:
            os.waitpid(child, os.WNOHANG)
            reaped = False
        except ChildProcessError:
            reaped = True
        print(json.dumps({"me": os.getpid(), "child": child, "written": written(), "reaped": reaped}))
    """)
    assert out["written"] == dict.fromkeys(["a", "b", "c"], str(out["child"]))  # the child wrote them
    assert out["child"] != out["me"] and out["reaped"]


def test_the_child_stops_at_the_first_entry_it_cannot_write(tmp_path: Path) -> None:
    out = _run(tmp_path, """
        write_in_child(["a", "b", "c"], writer(fail_at="b"))
        wait_for_writers()
        print(json.dumps(sorted(written())))
    """)
    assert out == ["a"]


def test_the_child_holds_nothing_the_command_opened(tmp_path: Path) -> None:
    """A pipe the command writes (its caller reading to the end) closes when the command closes it,
    not when the child is done: the child keeps none of the command's descriptors."""
    out = _run(tmp_path, """
        read_end, write_end = os.pipe()
        write_in_child(["slow"], writer(pause=3.0))
        os.close(write_end)
        started = time.monotonic()
        ready, _, _ = select.select([read_end], [], [], 10.0)
        eof = bool(ready) and os.read(read_end, 1) == b""
        waited = time.monotonic() - started
        wait_for_writers()
        print(json.dumps({"eof": eof, "waited": waited, "written": sorted(written())}))
    """)
    assert out["eof"] and out["waited"] < 2.0  # end of file at once: nobody else held the write end
    assert out["written"] == ["slow"]


def test_with_another_thread_running_the_entries_are_written_here(tmp_path: Path) -> None:
    out = _run(tmp_path, """
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        write_in_child(["a", "b"], writer())
        children = list(cache_writer._children)
        stop.set()
        other.join()
        print(json.dumps({"me": os.getpid(), "children": children, "written": written()}))
    """)
    assert out["children"] == []
    assert out["written"] == {"a": str(out["me"]), "b": str(out["me"])}  # before it returned, by itself


def test_a_child_still_writing_after_the_timeout_is_killed_and_reaped(tmp_path: Path) -> None:
    out = _run(tmp_path, """
        write_in_child(["stalled"], writer(pause=30.0))
        (child,) = cache_writer._children
        started = time.monotonic()
        wait_for_writers(timeout=0.5)
        waited = time.monotonic() - started
        try:
            os.waitpid(child, os.WNOHANG)
            reaped = False
        except ChildProcessError:
            reaped = True
        print(json.dumps({"waited": waited, "reaped": reaped, "left": cache_writer._children,
                          "written": sorted(written())}))
    """)
    assert 0.5 <= out["waited"] < 5.0 and out["reaped"] and out["left"] == []
    assert out["written"] == []  # killed before it wrote: the entry is missed, never half there
