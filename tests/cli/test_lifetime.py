"""What a command keeps until the process exits: alive until then, never freed object by object at
exit, and let go of when the next command in the same process starts."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import weakref
from pathlib import Path

from cli import lifetime
from cli.main import run

ROOT = Path(__file__).resolve().parents[2]


class _Built:
    """Stands for a command's result: something a weak reference can watch."""


def test_kept_objects_live_until_the_next_command_lets_go() -> None:
    built = _Built()
    watch = weakref.ref(built)
    lifetime.keep_until_exit(built)
    del built
    assert watch() is not None
    lifetime.let_go()
    assert watch() is None


def test_a_command_run_in_process_lets_go_of_what_the_previous_one_kept(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('locals {\n  a = "x"\n}\n')
    built = _Built()
    watch = weakref.ref(built)
    lifetime.keep_until_exit(built)
    del built
    assert run(["-C", str(tmp_path), "validate"]) == 0
    assert watch() is None


def test_what_a_command_kept_is_not_freed_one_by_one_at_exit() -> None:
    """A finalizer of a kept object never runs at exit: the system takes the memory back whole.
    Without the holder's cycle the interpreter clears the module and frees it (the control line)."""
    script = textwrap.dedent("""
        import gc, sys
        from cli import lifetime

        class Noisy:
            def __init__(self, name):
                self.name = name
            def __del__(self):
                sys.stdout.write(f"freed {self.name}\\n")

        lifetime.keep_until_exit(Noisy("kept"))
        plain = [Noisy("plain")]
        sys.modules["cli.lifetime"].plain = plain
        del plain
        gc.freeze()
    """)
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "freed plain" in result.stdout
    assert "freed kept" not in result.stdout
