"""What the benchmarks that run ctl beside Terraform 1.0.3 share (``init_mirror.py``,
``real_providers.py``, ``aws_moto.py``, ``aws_plan.py``, ``aws_race.py``): the tools and the mirror to use, a clean environment, one
command timed, and the lines of the report, so every one of them reads and is read the same way.

Not a benchmark itself: the scripts beside it import it (they run with ``bench/`` on ``sys.path``).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MIRROR = ROOT.parent / "shared" / "providers"

Times = list[tuple[float, float]]  # (wall, CPU) seconds of each run


@dataclass(frozen=True)
class Tool:
    """How to run one command of one tool in a configuration directory, and what it leaves behind there."""

    name: str
    args: list[str]
    leaves: tuple[str, ...]  # what a fresh checkout does not have

    def run(self, workdir: Path, env: dict[str, str]) -> tuple[float, float]:
        """(wall, CPU) seconds of one run; CPU counts the processes it waited for (providers).

        A failure (a re-plan that finds changes too) prints the command's output and ends the
        benchmark: its time would mean nothing."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(self.args, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.stdout.write(f"{self.name} {self.args[1]} failed ({done.returncode}):\n{done.stdout}{done.stderr}\n")
            raise SystemExit(1)
        return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    def clean(self, workdir: Path) -> None:
        for name in self.leaves:
            path = workdir / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif path.exists() or path.is_symlink():
                path.unlink()


def clean_env(home: Path) -> dict[str, str]:
    """No user configuration, no plugin cache, no update check, no data dir outside the configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "CTL_"))}
    env.update(HOME=str(home), CHECKPOINT_DISABLE="1", TF_IN_AUTOMATION="1")
    return env


@contextmanager
def scratch(prefix: str) -> Iterator[tuple[Path, dict[str, str]]]:
    """A scratch directory for the run, removed after it, and the clean environment with its home there."""
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        root = Path(name)
        home = root / "home"
        home.mkdir()
        yield root, clean_env(home)


def add_tool_arguments(parser: argparse.ArgumentParser) -> None:
    """``--mirror``, ``--terraform`` and ``--ctl``, defaulting to the mirror beside the checkout and
    the tools beside the running Python."""
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--terraform", type=Path, default=Path(sys.executable).parent / "terraform")
    parser.add_argument("--ctl", type=Path, default=Path(sys.executable).parent / "ctl")


def missing_tool(args: argparse.Namespace) -> str | None:
    """What is missing of the mirror and the two tools, said as the benchmark prints it; None if nothing."""
    for what, path in (("provider mirror", args.mirror), ("terraform", args.terraform), ("ctl", args.ctl)):
        if not path.exists():
            return f"no {what} at {path}\n"
    return None


def parse_tool_arguments(parser: argparse.ArgumentParser, *, provider: str | None = None) -> argparse.Namespace | None:
    """The command line with the tool arguments added, or None once what is missing has been said:
    the mirror, the two tools, and ``provider`` (``hashicorp/aws``) in the mirror when one is named."""
    add_tool_arguments(parser)
    args = parser.parse_args()
    problem = missing_tool(args)
    if problem is None and provider is not None and \
            not any((args.mirror.resolve() / "registry.terraform.io" / provider).glob("*.zip")):
        problem = f"no {provider} in the provider mirror at {args.mirror.resolve()}\n"
    if problem is not None:
        sys.stdout.write(problem)
        return None
    return args


# -- the report -----------------------------------------------------------------------------------


def load_average() -> float:
    """The one-minute load average when the benchmark starts: wall times mean little on a busy machine."""
    return os.getloadavg()[0]


def machine(load: float) -> str:
    """How busy the machine was, for the report's first line."""
    return f"load average {load:.1f} on {os.cpu_count()} cores"


def line(label: str, times: Times, width: int = 18) -> str:
    """One case's medians and minimum, as every benchmark against Terraform prints them."""
    wall = [w for w, _ in times]
    cpu = statistics.median(c for _, c in times)
    return (f"  {label:<{width}} wall median {statistics.median(wall):6.2f} s  min {min(wall):6.2f} s"
            f"   cpu median {cpu:6.2f} s")


def ratio(label: str, ours: float, theirs: float) -> str:
    """ctl's median wall time over Terraform's for one case."""
    return f"  ctl / terraform, {label}, median wall: {ours / theirs:.2f}\n"


def loaded(load: float) -> str:
    """The report's last word when the machine was busier than it has cores ('' when it was not)."""
    if load > (os.cpu_count() or 1):
        return "\nthe load average exceeded the number of cores: wall times are inflated\n"
    return ""
