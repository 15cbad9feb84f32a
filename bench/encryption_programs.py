"""What OpenTofu's external key provider, key chains and external method cost an apply.

A configuration of N independent ``terraform_data`` resources is applied with ``ctl apply
--auto-approve`` (a fresh process, local state) under four ``encryption`` blocks:

* ``pbkdf2``: ``aes_gcm`` with a ``pbkdf2`` key (200,000 iterations), the baseline;
* ``chain``: the same ``pbkdf2`` chained from another ``pbkdf2``;
* ``external key``: the same ``pbkdf2`` chained from an ``external`` key provider (the Python key
  program of the tests, ``tests/engine/encryption/data/key_program.py``);
* ``external method``: the ``external`` method (the Python method program of the tests), which runs
  once for every document sealed: the state and each entry of the apply journal.

Each program appends a line to a counter file on every run, so the number of program runs is
counted, not inferred. Reported: wall time of the apply and program runs.

Run: ``python bench/encryption_programs.py [--sizes 20,100]`` (exit status 0 always: a benchmark).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "tests" / "engine" / "encryption" / "data"
PBKDF2 = 'key_provider "pbkdf2" "main" {\n  %s\n  iterations = 200000\n}\n'
AES = 'method "aes_gcm" "m" {\n  keys = key_provider.pbkdf2.main\n}\n'


def _counting(program: Path, counter: Path, *args: str) -> str:
    """A command that counts its runs, then runs ``program`` (a list, no shell: as the block gives it)."""
    code = (f"import runpy, sys; open({str(counter)!r}, 'a').write('x\\n'); "
            f"sys.argv = [{str(program)!r}, *{list(args)!r}]; runpy.run_path({str(program)!r}, run_name='__main__')")
    return json.dumps([sys.executable, "-c", code])


def blocks(counter: Path) -> dict[str, str]:
    outer = 'key_provider "pbkdf2" "outer" {\n  passphrase = "a passphrase of sixteen+"\n  iterations = 200000\n}\n'
    external = f'key_provider "external" "svc" {{\n  command = {_counting(DATA / "key_program.py", counter)}\n}}\n'
    method = (f'method "external" "m" {{\n  encrypt_command = {_counting(DATA / "method_program.py", counter, "--encrypt")}\n'
              f'  decrypt_command = {_counting(DATA / "method_program.py", counter, "--decrypt")}\n}}\n')
    return {
        "pbkdf2": PBKDF2 % 'passphrase = "a passphrase of sixteen+"' + AES,
        "chain": outer + PBKDF2 % "chain = key_provider.pbkdf2.outer" + AES,
        "external key": external + PBKDF2 % "chain = key_provider.external.svc" + AES,
        "external method": method,
    }


def _ctl() -> list[str]:
    ctl = Path(sys.executable).parent / "ctl"
    return [str(ctl)] if ctl.exists() else [shutil.which("ctl") or "ctl"]


def measure(n: int, name: str, root: Path) -> tuple[float, int, int]:
    work = root / f"{name.replace(' ', '-')}-{n}"
    work.mkdir()
    counter = work / "runs.txt"
    block = blocks(counter)[name]
    kind = "external" if name == "external method" else "aes_gcm"
    resources = "".join(f'resource "terraform_data" "r{i}" {{\n  input = "{i}"\n}}\n' for i in range(n))
    (work / "main.tf").write_text(f"terraform {{\n  encryption {{\n{block}state {{\n  method = method.{kind}.m\n}}\n"
                                  f"  }}\n}}\n{resources}")
    env = {**os.environ, "KEY_PROGRAM_MASTER": "11" * 32, "METHOD_PROGRAM_KEY": "22" * 32, "NO_COLOR": "1"}
    subprocess.run([*_ctl(), "init"], cwd=work, env=env, capture_output=True, check=True)
    start = time.perf_counter()
    done = subprocess.run([*_ctl(), "apply", "--auto-approve"], cwd=work, env=env, capture_output=True)
    wall = time.perf_counter() - start
    runs = len(counter.read_text().splitlines()) if counter.exists() else 0
    return wall, runs, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20,100")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print("| N | encryption | apply wall | program runs | exit |\n| --- | --- | --- | --- | --- |")
        for n in (int(s) for s in args.sizes.split(",")):
            for name in blocks(Path(tmp)):
                wall, runs, code = measure(n, name, Path(tmp))
                print(f"| {n} | {name} | {wall:.1f} s | {runs} | {code} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
