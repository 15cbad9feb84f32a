"""Tab completion: answering the shell quickly, and the values only the state knows.

The shell runs ``ctl`` on every Tab press, so this module must stay cheap. Addresses come from the
state file read as plain JSON (plus the journal an interrupted apply left behind), never from
loading the configuration or the state engine, and workspace names come from a directory listing.
The few facts this duplicates from the engine (file names, where the selected workspace is
recorded) are checked against the engine by the tests.

``answer`` serves click's completion protocol under ``_CTL_COMPLETE``. It accepts click's spelling
(``bash_source``, ``bash_complete``), which the generated scripts use, and Typer's older one
(``source_bash``), which the Makefile uses; Typer itself only understands the latter, so the
scripts it would generate could never get an answer.

The Typer ``autocompletion=`` callbacks are in ``cli/completion/completers.py``; they find the state file
(``backend``, ``workspaces``) and read its addresses (``addresses``, ``containers``).
"""

from __future__ import annotations

import re
import shlex

import click
from click.shell_completion import BashComplete, CompletionItem, FishComplete, ShellComplete, ZshComplete

COMPLETE_VAR = "_CTL_COMPLETE"

_SAFE_FOR_BASH = re.compile(r"[\w.\-\[\]/:@%+=,]*")


class _BashComplete(BashComplete):
    """Bash, with values quoted when the shell would otherwise mangle them.

    A for_each address such as ``module.net["a"].aws_s3_bucket.b`` loses its quotes if bash
    inserts it bare, so such values are offered single-quoted, ready to run.
    """

    def format_completion(self, item: CompletionItem) -> str:
        value = str(item.value)
        if item.type == "plain" and not _SAFE_FOR_BASH.fullmatch(value):
            value = shlex.quote(value)
        return f"{item.type},{value}"


_SHELLS: dict[str, type[ShellComplete]] = {"bash": _BashComplete, "zsh": ZshComplete, "fish": FishComplete}


def answer(command: click.Command, instruction: str, prog_name: str = "ctl") -> int:
    """Print a shell's completion script or the completions for the words in the environment."""
    first, _, second = instruction.partition("_")
    shell, action = (second, first) if first in ("source", "complete") else (first, second)
    shell_class = _SHELLS.get(shell)
    if shell_class is None or action not in ("source", "complete"):
        click.echo(f"Unsupported completion instruction {instruction!r}: expected bash_source, bash_complete, "
                   "zsh_source, zsh_complete, fish_source or fish_complete.", err=True)
        return 1
    completer = shell_class(command, {}, prog_name, COMPLETE_VAR)
    if action == "source":
        click.echo(completer.source(), nl=False)
    else:
        click.echo(completer.complete())
    return 0
