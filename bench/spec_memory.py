"""Where a JSON or YAML spec's memory goes while it is read: bytes per input byte, and by line.

``bench/scale.py`` gives each command's peak RSS, which is the reader's tree and everything the
command builds after it. This reads one generated ``main.tf.yaml`` or ``main.tf.json``
(``scale_config.generate_resources``) in-process, with the cyclic collector off as the commands
have it while they load, and prints:

* the CPU seconds and the growth of peak RSS of the read alone, without tracing;
* under ``tracemalloc``: what the finished tree holds and the peak while reading, in MiB and in
  bytes per input byte, and the lines that hold the most at the end (``--frames`` deep).

Run: ``python bench/spec_memory.py [--layout yaml|json] [--n 10000] [--top 15] [--frames 1]``
(exit status 0 always: this is a benchmark, not a test).
"""

from __future__ import annotations

import argparse
import gc
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from scale_config import generate_resources

ROOT = Path(__file__).resolve().parent.parent


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def measure(path: Path, top: int, frames: int, traced: bool) -> None:
    """Read ``path`` once; print the figures (``traced``: under tracemalloc, else RSS and CPU)."""
    sys.path.insert(0, str(ROOT))
    from engine.config.json_syntax import parse_json_file
    from engine.config.language import FILE_SCHEMA
    from engine.config.structured import parse_yaml_file

    src = path.read_bytes()
    parse = parse_yaml_file if path.name.endswith(".yaml") else parse_json_file
    gc.disable()
    size = len(src)
    if not traced:
        before, cpu = _peak_mb(), time.process_time()
        body = parse(src, path.name, FILE_SCHEMA)
        grown = _peak_mb() - before
        print(f"{path.name}: {size / 1e6:.2f} MB read in {time.process_time() - cpu:.2f} s of CPU; "
              f"peak RSS grew {grown:.1f} MiB ({grown * 2**20 / size:.1f} B/B)")
        del body
        return
    tracemalloc.start(frames)
    body = parse(src, path.name, FILE_SCHEMA)
    held, peak = tracemalloc.get_traced_memory()
    print(f"traced: the tree holds {held / 2**20:.1f} MiB ({held / size:.1f} B/B), "
          f"peak {peak / 2**20:.1f} MiB ({peak / size:.1f} B/B)")
    snapshot = tracemalloc.take_snapshot()
    for stat in snapshot.statistics("traceback" if frames > 1 else "lineno")[:top]:
        where = " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(stat.traceback))
        print(f"{stat.size / 2**20:8.2f} MiB {stat.count:9,d}  {where}")
    del body


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layout", choices=("yaml", "json"), default="yaml")
    ap.add_argument("--n", type=int, default=10_000, help="resources (default: %(default)s)")
    ap.add_argument("--top", type=int, default=15, help="lines listed (default: %(default)s)")
    ap.add_argument("--frames", type=int, default=1, help="frames per allocation site (default: %(default)s)")
    ap.add_argument("--file", help=argparse.SUPPRESS)  # the child's part: measure this file
    ap.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.file:
        measure(Path(args.file), args.top, args.frames, args.traced)
        return 0
    with tempfile.TemporaryDirectory(prefix="ctl-spec-memory-") as base:
        directory = Path(base) / "config"
        generate_resources(directory, args.n, args.layout)
        path = directory / f"main.tf.{args.layout}"
        for traced in (False, True):  # each in a fresh process: one's heap never inflates the other's peak
            subprocess.run([sys.executable, __file__, "--file", str(path), "--top", str(args.top),
                            "--frames", str(args.frames), *(["--traced"] if traced else [])], check=False)
    return 0


if __name__ == "__main__":
    try:
        main()
    except Exception as err:  # a benchmark reports, it does not fail the caller
        print(f"spec_memory: {type(err).__name__}: {err}", file=sys.stderr)
    sys.exit(0)
