"""What a command built, left for the process's exit to give back instead of freed object by object.

A 50,000-resource configuration, its state and its plan are millions of small objects. Freed by
reference counting when the command returns, they took a noticeable part of every large
``validate``, ``plan`` and ``apply``, just before the process ends and the system takes its
memory back at once.

So a command hands what it built to ``keep_until_exit`` as it finishes. The holder is a list that
contains itself: when the interpreter clears the modules at exit, that cycle keeps it alive, and
the collector never looks at it again once frozen (``gc_paused_then_frozen`` freezes what a command
builds; this list is frozen with the first of them). A process that runs many commands (the tests,
through ``cli.main.run``) calls ``let_go`` before each, so it holds only the last one's.
"""

from __future__ import annotations

from typing import Any

_HELD: list[Any] = []
_HELD.append(_HELD)


def keep_until_exit(*objects: Any) -> None:
    """Keep ``objects`` alive until the process exits, or until the next command starts."""
    _HELD.extend(objects)


def let_go() -> None:
    """Free what the previous command kept: freed here, at the start of the next one."""
    del _HELD[1:]
