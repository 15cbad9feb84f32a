"""The options plan, apply and destroy share, declared once and handed over as one ``RunFlags``.

``@shared_run_flags(...)`` replaces the command's ``flags: RunFlags`` parameter by the typer options
below (at the same place in ``--help``) and calls the command with them gathered into a
``RunFlags``; the few differences between the commands (the lock's default, some help texts,
whether ``--replace`` exists) are arguments of the decorator. ``RunFlags.run_options`` turns them
into the engine's ``RunOptions``, policy gate included.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli import output
from cli.common import VAR_FILE_HELP, VAR_HELP
from cli.completion.completers import complete_addresses, complete_instances
from cli.options import run as run_options
from cli.options.policy import BUILTIN_MODE_HELP, NO_BUILTIN_HELP, OVERRIDE_HELP, POLICY_DIR_HELP
from cli.views.plan_summary import TERMINAL_LIMIT

if TYPE_CHECKING:
    from engine.operations import RunOptions
    from engine.telemetry.timings import Timings
    from policies.gate import PolicyOptions

FULL_PLAN_HELP = (f"Show every change in full on a terminal too (there, a plan of more than {TERMINAL_LIMIT} "
                  f"changes shows the first {TERMINAL_LIMIT} and counts the rest; piped output and --json "
                  "are always complete).")

COMPACT_WARNINGS_HELP = ("Show warnings that come without an error as one line each (summary and where), "
                         "as Terraform's -compact-warnings does.")

TIMINGS_HELP = ("After the run, show the slowest resources and phases and the time spent waiting on the "
                "state lock, providers, the backend and the cloud (also set by CTL_TIMINGS=1).")


def timing_recorder(flag: bool) -> Timings | None:
    """The run's recorder when ``--timings``/``CTL_TIMINGS`` asks for the report or the OTEL_* variables
    for a trace; None otherwise, and the engine measures nothing."""
    from engine.telemetry.timings import Timings, enabled
    from engine.telemetry.tracing import wanted

    report = enabled(flag)
    return Timings(report_wanted=report) if report or wanted() else None


# The default of a command's ``flags: RunFlags`` parameter, which ``shared_run_flags`` replaces.
SHARED: Any = None


@dataclass
class RunFlags:
    """What the user asked of a plan, apply or destroy run, before it is checked and resolved."""

    refresh: bool = True
    target: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    replace: list[str] = field(default_factory=list)
    var: list[str] = field(default_factory=list)
    var_file: list[str] = field(default_factory=list)
    lock: bool = True
    lock_timeout: str | None = None
    parallelism: int | None = None
    input_: bool | None = None
    policy_dir: list[Path] = field(default_factory=list)
    no_builtin_policies: bool = False
    builtin_policies: str | None = None
    policy_override: str | None = None
    full_plan: bool = False
    compact_warnings: bool = False
    timings: bool = False

    def policy_options(self) -> PolicyOptions:
        """The policy gate's options; an empty --policy-override reason is a usage error."""
        from cli.options.policy import gate_options

        return gate_options(self.policy_dir, self.no_builtin_policies, self.policy_override,
                            builtin_mode=self.builtin_policies)

    def run_options(self, root: Path, *, mode: str, take_lock: bool,
                    policy: PolicyOptions | None = None) -> RunOptions:
        """The engine's options for this run, policy gate included."""
        run = run_options.build(root, mode=mode, refresh=self.refresh, targets=self.target,
                                excludes=self.exclude, replace=self.replace, var=self.var,
                                var_file=self.var_file, input_flag=self.input_, lock=self.lock,
                                lock_timeout_text=self.lock_timeout, parallelism_value=self.parallelism,
                                take_lock=take_lock)
        run.policy = policy if policy is not None else self.policy_options()
        run.plan.timings = timing_recorder(self.timings)
        return run


def _options(*, lock_default: bool, lock_help: str, refresh_help: str, input_help: str,
             replace: bool) -> list[tuple[str, Any, Any]]:
    """(parameter name, type, typer option) of every shared option, in ``--help`` order."""
    opts: list[tuple[str, Any, Any]] = [
        ("refresh", bool, typer.Option(True, "--refresh/--no-refresh", help=refresh_help)),
        ("target", list[str], typer.Option(None, "--target", help=run_options.TARGET_HELP,
                                                     autocompletion=complete_addresses)),
        ("exclude", list[str], typer.Option(None, "--exclude", help=run_options.EXCLUDE_HELP,
                                                      autocompletion=complete_addresses)),
        ("replace", list[str], typer.Option(None, "--replace", help=run_options.REPLACE_HELP,
                                                      autocompletion=complete_instances)),
        ("var", list[str], typer.Option(None, "--var", help=VAR_HELP)),
        ("var_file", list[str], typer.Option(None, "--var-file", help=VAR_FILE_HELP)),
        ("lock", bool, typer.Option(lock_default, "--lock/--no-lock", help=lock_help)),
        ("lock_timeout", str, typer.Option(None, "--lock-timeout", help=run_options.LOCK_TIMEOUT_HELP)),
        ("parallelism", int, typer.Option(None, "--parallelism", help=run_options.PARALLELISM_HELP)),
        ("input_", bool, typer.Option(None, "--input/--no-input", help=input_help)),
        ("policy_dir", list[Path], typer.Option(None, "--policy-dir", help=POLICY_DIR_HELP)),
        ("no_builtin_policies", bool, typer.Option(False, "--no-builtin-policies", help=NO_BUILTIN_HELP)),
        ("builtin_policies", str, typer.Option(None, "--builtin-policies", metavar="MODE", help=BUILTIN_MODE_HELP)),
        ("policy_override", str, typer.Option(None, "--policy-override", help=OVERRIDE_HELP)),
        ("full_plan", bool, typer.Option(False, "--full-plan", help=FULL_PLAN_HELP)),
        ("compact_warnings", bool, typer.Option(False, "--compact-warnings", help=COMPACT_WARNINGS_HELP)),
        ("timings", bool, typer.Option(False, "--timings", help=TIMINGS_HELP)),
    ]
    return [o for o in opts if replace or o[0] != "replace"]


def shared_run_flags(*, lock_default: bool = True,
                     lock_help: str = "Hold the state lock (--lock=false skips it).",
                     refresh_help: str = "Read real objects first.",
                     input_help: str = "Ask for missing values and confirmation.",
                     replace: bool = True) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Give a command the shared options in place of its ``flags`` parameter (see the module doc)."""
    shared = _options(lock_default=lock_default, lock_help=lock_help, refresh_help=refresh_help,
                      input_help=input_help, replace=replace)
    names = {name for name, _, _ in shared}
    known = {f.name for f in fields(RunFlags)}
    assert names <= known

    def decorate(command: Callable[..., int]) -> Callable[..., int]:
        signature = inspect.signature(command, eval_str=True)
        params: list[inspect.Parameter] = []
        for p in signature.parameters.values():
            if p.name != "flags":
                params.append(p)
                continue
            params.extend(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=option,
                                            annotation=type_) for name, type_, option in shared)

        def command_with_flags(**kwargs: Any) -> int:
            values = {name: kwargs.pop(name) for name in names}
            for name in _LISTS & names:  # click gives None or a tuple for a repeatable option
                values[name] = list(values[name] or [])
            if values["compact_warnings"]:
                output.compact_warnings()
            return command(**kwargs, flags=RunFlags(**values))

        command_with_flags.__name__ = command.__name__
        command_with_flags.__qualname__ = command.__qualname__
        command_with_flags.__doc__ = command.__doc__
        command_with_flags.__module__ = command.__module__
        # inspect.signature (and so typer) reads a function's ``__signature__`` from its attributes.
        command_with_flags.__dict__["__signature__"] = signature.replace(parameters=params)
        command_with_flags.__annotations__ = {p.name: p.annotation for p in params}
        return command_with_flags

    return decorate


_LISTS = frozenset({"target", "exclude", "replace", "var", "var_file", "policy_dir"})

__all__ = ["RunFlags", "shared_run_flags"]
