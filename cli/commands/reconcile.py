"""``ctl reconcile``: the control loop that keeps infrastructure converged under the team's rules.

Each round refreshes and plans, applies under the state lock the changes the policy set's
``unattended`` rules allow, and reports the rest (``engine.drift.reconcile``). Every round is one
line of JSON on stdout (docs/drift.md has the shape), so a container's log, a CronJob's output or a
CI step can be read by a machine. Failing rounds back off; SIGTERM or SIGINT between rounds ends the
loop at once (exit 0), and during a round lets it finish safely first, as ``ctl apply`` does.
"""

from __future__ import annotations

import gc
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cli.common import VAR_FILE_HELP, VAR_HELP
from cli.interrupts import install_stop_signals
from cli.options import run as run_options
from cli.options.globals import options
from cli.options.policy import POLICY_DIR_HELP
from cli.views.reconcile import print_round
from vocab.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from cli.views.metrics import MetricsServer
    from engine.operations import RunOptions

_HELP = """Keep the infrastructure converged: refresh and plan every --every, apply what the policy
set's `unattended` rules allow, report the rest.

With no `unattended` rule in policies/policy-set.yaml nothing is applied: each round only
reports. Each round prints one line of JSON. SIGTERM or SIGINT between rounds ends the loop (exit 0);
during a round's apply, it starts nothing new, finishes what runs, saves state and exits 130.

Exit codes (--once: the round's; the loop: how it ended): 0 converged (or loop stopped between
rounds), 1 error, 2 changes left for a person, 3 denied by policy, 4 lock held, 64 usage error,
130 interrupted during a round.

Example: ctl reconcile --every 10m --metrics-addr :9100
"""


def register(app: typer.Typer) -> None:
    app.command("reconcile", help=_HELP)(reconcile_command)


def reconcile_command(
    ctx: typer.Context,
    every: str = typer.Option("10m", "--every", metavar="DURATION", help="Time between rounds, e.g. 30s, 10m, 1h."),
    once: bool = typer.Option(False, "--once", help="Run one round and exit with its code (a CronJob, a CI "
                                                    "schedule)."),
    max_backoff: str = typer.Option("1h", "--max-backoff", metavar="DURATION",
                                    help="Longest wait after failing rounds (the wait doubles from --every)."),
    metrics_addr: str = typer.Option(None, "--metrics-addr", metavar="HOST:PORT",
                                     help="Serve Prometheus metrics on /metrics and a /healthz there."),
    policy_dir: list[Path] = typer.Option(None, "--policy-dir", help=POLICY_DIR_HELP),
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
    lock_timeout: str = typer.Option(None, "--lock-timeout", help=run_options.LOCK_TIMEOUT_HELP),
    parallelism: int = typer.Option(None, "--parallelism", help=run_options.PARALLELISM_HELP),
) -> int:
    from engine.drift.reconcile import backoff_delay, reconcile_round
    from policies.gate import PolicyOptions

    interval = _duration(every, "--every")
    if interval <= 0:
        raise UsageError("--every must be longer than 0", hint="Use a duration such as 30s, 10m or 1h.")
    cap = _duration(max_backoff, "--max-backoff")
    root = options(ctx).root
    dirs = list(policy_dir or [])

    def make_options() -> RunOptions:
        run = run_options.build(root, var=var, var_file=var_file, input_flag=False, lock_timeout_text=lock_timeout,
                                parallelism_value=parallelism)
        run.policy = PolicyOptions(policy_dirs=dirs)
        return run

    make_options()  # a usage error (a bad --var, --parallelism) before the first round
    metrics = _metrics(metrics_addr)
    stop, abandon = threading.Event(), threading.Event()
    restore = install_stop_signals(
        stop, abandon,
        first=lambda name: f"{name} received: ending the reconcile loop after this round's work is saved.\n",
        second="Second signal: no longer waiting for running operations; saving state.\n")
    failures, number = 0, 0
    try:
        while True:
            number += 1
            stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            started = time.monotonic()
            report = reconcile_round(make_options, stop=stop, abandon=abandon)
            seconds = time.monotonic() - started
            failures = failures + 1 if report.outcome == "error" else 0
            last = once or stop.is_set() or report.interrupted
            delay = None if last else backoff_delay(interval, failures, cap)
            print_round(number, stamp, seconds, report, delay)
            if metrics is not None:
                metrics.observe(report, seconds, failures)
            if last:
                return int(report.exit_code) if once or report.interrupted else int(ExitCode.OK)
            # Each round's configuration, state and plan were frozen out of the collector's view, as
            # a one-shot command's are (engine/state/gc_pause.py): a loop gives them back to it.
            gc.unfreeze()
            gc.collect()
            if stop.wait(delay):
                return int(ExitCode.OK)
    finally:
        restore()
        if metrics is not None:
            metrics.close()


def _duration(text: str, flag: str) -> float:
    from engine.locking.options import parse_duration

    try:
        return parse_duration(text)
    except Exception:
        raise UsageError(f'Invalid {flag} "{text}"', hint="Use a duration such as 30s, 10m or 1h.") from None


def _metrics(address: str | None) -> MetricsServer | None:
    if address is None:
        return None
    from cli.views.metrics import MetricsServer

    return MetricsServer(address)


__all__ = ["register"]
