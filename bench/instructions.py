"""Instructions each phase of the configuration pipeline executes, counted by valgrind.

Wall and CPU seconds on this machine drift by a third from one minute to the next, so a change of
a few percent in one phase cannot be told from the noise without many alternating runs. The number
of instructions a phase executes does not drift: ``valgrind --tool=cachegrind --cache-sim=no``
counts them exactly, run after run. Each phase is run twice under it, once doing the work and once
stopping just before it, and the difference is the work's own count (imports, set-up and the
interpreter's start and exit cancel out).

The phases, on ``--size`` generated ``terraform_data`` resources (``scale_config``, files of 250):

* ``tree-sitter``: tree-sitter's own parse of two files (no conversion)
* ``parse``: ``parse_hcl_file`` on the same two files (tree-sitter and the conversion to syntax)
* ``encode``, ``decode``: a parse cache entry of each of the two files, written and read back
* ``load``: ``load_config`` of the whole directory with a warm parse cache
* ``graph``: ``build_graph`` of the loaded configuration
* ``validate``: ``validate`` with a warm parse cache (load, graph and walk)
* ``plan``: the whole ``ctl plan --out`` command (parse cache warm), its plan printed to a pipe
* ``apply``: the whole ``ctl apply`` of that saved plan, on a copy of the directory without state

The two whole commands are counted against a run that only imports ``cli.main``, and run with
``CTL_BUILTIN_POLICIES=off``: the built-in policy engine's allocator (regopy's snmalloc) aborts
under valgrind.

Compare two trees of the code with ``--tree``: the counts are only comparable on the same
configuration, Python and valgrind. Each tree's modules are compiled to bytecode first, as an
installed ctl's are: a module compiled during a phase would count in it. A run under valgrind is
about fifty times slower than without.

Run: ``python bench/instructions.py [--size 10000] [--phases parse,graph] [--tree DIR] [--json]``.
Exit status 0 always (a benchmark, not a test); without valgrind it says so and measures nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHASES = ("tree-sitter", "parse", "encode", "decode", "load", "graph", "validate", "plan", "apply")
_COMMANDS = {"plan": ["plan", "--out", "counted.bin"], "apply": ["apply", "plan.bin"]}
_SAMPLE_FILES = 2
_I_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def run_phase(phase: str, directory: Path, setup_only: bool) -> None:
    """Inside the measured process: set up ``phase`` on ``directory``, then do it unless ``setup_only``."""
    import gc

    os.chdir(directory)
    if phase in _COMMANDS:
        from cli.main import app

        if not setup_only:
            sys.argv = ["ctl", *_COMMANDS[phase]]
            app()
        return
    gc.disable()  # as the commands' own loads do; a collection would land in one run and not the other
    if phase in ("tree-sitter", "parse", "encode", "decode"):
        _run_file_phase(phase, sorted(directory.glob("r*.tf"))[:_SAMPLE_FILES], setup_only)
        return
    from engine.config.loader import load_config
    from engine.graph import build_graph
    from engine.validate import validate
    from vocab.errors import Diagnostics

    if phase == "load":
        if not setup_only:
            load_config(Path("."))
    elif phase == "graph":
        root, _ = load_config(Path("."))
        if not setup_only:
            build_graph(root, Diagnostics())
    elif not setup_only:
        validate(Path("."))


def _run_file_phase(phase: str, files: list[Path], setup_only: bool) -> None:
    import orjson

    from engine.lang.hcl import parse_hcl_file
    from engine.lang.hcl_tree import _parser
    from engine.lang.syntax_codec import decode_body, encode_body
    from vocab.errors import SourceText

    sources = [(f.name, f.read_bytes()) for f in files]
    bodies = [parse_hcl_file(src, name) for name, src in sources] if phase in ("encode", "decode") else []
    entries = [orjson.dumps(encode_body(body, name)) for body, (name, _) in zip(bodies, sources, strict=True)
               ] if phase == "decode" else []
    if setup_only:
        return
    for i, (name, src) in enumerate(sources):
        if phase == "tree-sitter":
            _parser().parse(src)
        elif phase == "parse":
            parse_hcl_file(src, name)
        elif phase == "encode":
            orjson.dumps(encode_body(bodies[i], name))
        else:
            decode_body(orjson.loads(entries[i]), SourceText(name, src))


def count(tree: Path, phase: str, directory: Path, setup_only: bool) -> int:
    """Instructions of one run of this script's ``--run`` mode under cachegrind."""
    with contextlib.ExitStack() as stack:
        if phase == "apply":  # each apply on its own copy: an apply adds the state it creates
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="ctl-instructions-apply-"))
            directory = Path(shutil.copytree(directory, Path(scratch) / directory.name))
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               sys.executable, __file__, "--run", phase, "--dir", str(directory)]
        if setup_only:
            cmd.append("--setup-only")
        env = dict(os.environ, PYTHONPATH=str(tree), CTL_BUILTIN_POLICIES="off")
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    found = _I_REFS.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{phase}: valgrind run failed: {done.stderr.strip()[-400:]}")
    return int(found.group(1).replace(",", ""))


def prepare(tree: Path, size: int, directory: Path) -> None:
    """Generate the configuration, warm its parse cache and save the plan the apply phase applies,
    with the tree's own ``ctl``."""
    from scale_config import generate_resources  # beside this script, on its path

    generate_resources(directory, size)
    env = dict(os.environ, PYTHONPATH=str(tree), CTL_BUILTIN_POLICIES="off")
    for args in (["validate"], ["plan", "--out", "plan.bin"]):
        subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'ctl'; from cli.main import app; app()",
                        *args], cwd=directory, env=env, capture_output=True, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=10_000, help="resources to generate (default 10,000)")
    ap.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)}")
    ap.add_argument("--tree", default=str(ROOT), help="the code to measure (default: this checkout)")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    ap.add_argument("--run", help=argparse.SUPPRESS)
    ap.add_argument("--dir", help=argparse.SUPPRESS)
    ap.add_argument("--setup-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        run_phase(args.run, Path(args.dir), args.setup_only)
        return
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing measured (apt-get install valgrind)")
        return
    phases = [p for p in args.phases.split(",") if p]
    unknown = [p for p in phases if p not in PHASES]
    if unknown:
        print(f"unknown phase(s): {', '.join(unknown)}; choose from {', '.join(PHASES)}")
        return
    tree = Path(args.tree).resolve()
    from scale import compile_sources  # beside this script, on its path

    # A module compiled while a phase runs (one imported late) would count in it; installed, none is.
    compile_sources(tree)
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ctl-instructions-") as tmp:
        directory = Path(tmp) / f"n{args.size}"
        prepare(tree, args.size, directory)
        for phase in phases:
            work = count(tree, phase, directory, False) - count(tree, phase, directory, True)
            results[phase] = round(work / 1e6, 1)
            if not args.json:
                print(f"{phase:12} {results[phase]:10,.1f} million instructions", flush=True)
    if args.json:
        print(json.dumps({"tree": str(tree), "size": args.size, "millions": results}))


if __name__ == "__main__":
    main()
