"""Options shared by several commands (variables, input) and small helpers around them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from engine.config.model import Variable
    from engine.state.model import State

VAR_HELP = "Set a root module variable: NAME=VALUE (repeatable; later wins)."
VAR_FILE_HELP = "Read variable values from a .tfvars or .tfvars.json file (repeatable)."
def hidden_flag(name: str) -> Any:
    """A flag Terraform takes on a command without listing it in its help (``validate
    -compact-warnings``, ``import -parallelism``): ctl takes it too, as hidden from ``--help``."""
    return typer.Option(False, name, hidden=True)


def hidden_values(name: str) -> Any:
    """A repeatable option Terraform takes on a command without listing it (``init -var``)."""
    return typer.Option(None, name, hidden=True)


STATE_FILE_HELP = ("Read this state file instead of the backend's state (Terraform's -state; a file that "
                   "does not exist is an empty state).")


def read_state_or_file(root: Path, path: Path | None) -> State:
    """The selected workspace's state, or the state file ``path`` names (Terraform's read-only
    ``-state=PATH`` of ``output``, ``state list`` and ``state show``)."""
    from engine.state.codec import decode_state
    from engine.state.model import new_state
    from engine.state_tools.access import read_state

    if path is None:
        return read_state(root)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return new_state()
    except OSError as exc:
        from vocab.errors import CtlError

        raise CtlError(f"Cannot read the state file {path}: {exc.strerror or exc}") from None
    return decode_state(data, str(path))


IGNORE_REMOTE_VERSION_HELP = ("Accepted for Terraform's command line: ctl's backends record no Terraform "
                              "version to compare with, so there is nothing to ignore.")

_raw_args: list[str] = []


def remember_args(args: list[str]) -> None:
    """Keep the raw command line so --var and --var-file can be applied in the order given."""
    _raw_args[:] = args


def ordered_var_args(vars_: list[str] | None, var_files: list[str] | None) -> list[tuple[str, str]]:
    """``--var``/``--var-file`` in command-line order (click groups them by option)."""
    vars_ = list(vars_ or [])
    files = list(var_files or [])
    out: list[tuple[str, str]] = []
    args = _raw_args
    i = 0
    while i < len(args):
        a = args[i]
        for flag, kind, pool in (("--var-file", "var-file", files), ("--var", "var", vars_)):
            value = None
            if a == flag and i + 1 < len(args):
                value = args[i + 1]
                i += 1
            elif a.startswith(flag + "="):
                value = a[len(flag) + 1 :]
            if value is not None and value in pool:
                pool.remove(value)
                out.append((kind, value))
                break
        i += 1
    out += [("var-file", f) for f in files] + [("var", v) for v in vars_]
    return out


def input_enabled(flag: bool | None) -> bool:
    """Prompting is off with --input=false, CTL_INPUT=false, CI set, or stdin not a terminal."""
    if flag is False:
        return False
    env = os.environ.get("CTL_INPUT", os.environ.get("TF_INPUT", ""))
    if env.lower() in ("0", "false", "no"):
        return False
    if os.environ.get("CI"):
        return False
    return sys.stdin.isatty()


def prompt_variable(var: Variable) -> str:
    desc = f" ({var.description})" if var.description else ""
    return str(typer.prompt(f"var.{var.name}{desc}", hide_input=var.sensitive))


def print_json(data: Any) -> None:
    """Indented, for documents Terraform prints indented (validate, output, version)."""
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False) + "\n")


def print_json_line(data: Any) -> None:
    """One line, as Terraform prints ``show -json`` and ``providers schema -json``: some readers
    (terraform-compliance) accept nothing else, and big plans stay compact."""
    sys.stdout.write(json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n")
