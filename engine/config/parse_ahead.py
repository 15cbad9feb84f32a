"""Parsing a large directory on two cores: a helper process parses from the last file down while
this process parses from the first up, and they meet in the middle.

Parsing is most of a first ``validate`` or ``plan`` of a large configuration (at 50,000 resources,
about five of its ten seconds), and it is Python: one process uses one core. The helper shares its
results through the parse cache (``engine.config.parse_cache``): it writes each file's entry, and
this process, on reaching a file the helper took, reads the entry as it reads any other. So the
helper adds no second way for a tree to arrive, and everything it could get wrong (a crash, a
syntax error, a read-only cache) only means this process parses that file itself, as it would
have without a helper.

Each side tells the other, on a pipe, the index of every file it starts. The helper stops before
a file this process has started; this process, on reaching a file the helper has started, closes
the helper's input and waits for it to finish that file (at most ``_WAIT_S``, then it is killed).
Between its own files, this process reads back the ones the helper has finished (a file is
finished once the helper has started the next): read after the meeting instead, they kept the
second core idle while this process caught up.
Only a directory whose uncached HCL adds up to ``MIN_BYTES`` is worth a second process.

Both sides must name a file's entry alike, and the name holds a fingerprint of ctl's parser sources
(``ParseCache.key``), read by each process from disk. So the job carries this process's, and a
helper that reads another one (the sources changed in between) starts no file: its entries would
be under names this process never looks up, and every file it handed over would be a miss.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

from engine.config.parse_cache import ParseCache
from engine.lang.hcl import Part
from vocab.errors import CtlError

Unit = tuple[Path, str, bytes, Part | None]
"""What one parse takes: a file's path, its name in diagnostics, its bytes, and the part of them
(None for the whole file)."""


def _size(unit: Unit) -> int:
    part = unit[3]
    return len(unit[2]) if part is None else part.end - part.start

MIN_BYTES = 1 << 20  # about 25 files of 250 resources: parsing enough to repay the helper's start-up
_WAIT_S = 60.0


class ParseAhead:
    """The helper parsing one directory's files from the end, seen from this process."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.helper_at = sys.maxsize  # the lowest index the helper has started
        self.started: list[int] = []  # every index the helper has started, in its order (descending)
        self._handed = 0  # how many of them ``finished`` has handed out
        self.done = False
        assert process.stdout is not None
        self._progress = _Numbers(process.stdout.fileno())

    @classmethod
    def start(cls, cache: ParseCache, units: list[Unit]) -> ParseAhead | None:
        """A helper for ``units`` (path, display name, bytes and the part of them, in the order this
        process parses them: a large file is several units), or None when too little of them is
        uncached HCL to be worth one, or there is one core."""
        hcl = [(index, unit) for index, unit in enumerate(units)
               if unit[0].name.endswith(".tf")]  # a JSON file is one unit, parsed here (only HCL is cut)
        if ((os.cpu_count() or 1) < 2 or not cache.writable or cache.key is None
                or sum(_size(u) for _, u in hcl) < MIN_BYTES):
            return None  # the usual case: a few kilobytes, not worth even hashing them here
        todo, size = [], 0
        for index, (path, display, src, part) in hcl:
            name = cache.entry(src, display, part)  # remembered: this process's parse does not hash it again
            if name is not None and not cache.holds(name):
                todo.append([index, str(path), display, part.to_json() if part is not None else None])
                size += _size((path, display, src, part))
        if size < MIN_BYTES:
            return None
        try:
            process = subprocess.Popen([sys.executable, "-m", "engine.config.parse_ahead"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            return None
        helper = cls(process)
        helper._send(json.dumps({"root": str(cache.root), "key": cache.key.hex(), "files": todo}) + "\n")
        return helper

    def claim(self, index: int) -> None:
        """Before this process parses file ``index``: the helper is told, or, when the helper has
        already started it, this process waits for the helper to be done (its entries are then in
        the cache)."""
        if self.done:
            return
        if not self._poll():  # the helper has ended: what it did not write, this process parses
            self.finish()
            return
        if index >= self.helper_at:
            self.finish()
        else:
            self._send(f"{index}\n")

    def finished(self) -> list[int]:
        """The files the helper has finished since the last call, highest first: their entries are
        in the cache. This process reads them back between its own files, while the helper goes
        on, rather than after the two sides meet with the second core idle. The file the helper is
        on is not among them; once it has ended, every file it started is (one it did not write
        is parsed here, as any miss is)."""
        if self.done:
            return []
        running = self._poll()
        if not running:
            self.finish()
        end = len(self.started) - 1 if running else len(self.started)
        if end <= self._handed:
            return []
        ready, self._handed = self.started[self._handed:end], end
        return ready

    def _poll(self) -> bool:
        """Take in the indices the helper has started since the last look; False once it has ended."""
        started = self._progress.read()
        if started is None:
            return False
        if started:
            self.started += started
            self.helper_at = min(self.helper_at, *started)
        return True

    def finish(self) -> None:
        """Stop the helper after its current file, and wait for it."""
        if self.done:
            return
        self.done = True
        assert self.process.stdin is not None and self.process.stdout is not None
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=_WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()

    def _send(self, line: str) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line.encode())
            self.process.stdin.flush()
        except OSError:  # the helper is gone
            self.finish()


class _Numbers:
    """The indices the other side has written to a pipe so far, one per line, read without waiting."""

    def __init__(self, fd: int, pending: bytes = b"") -> None:
        self.fd = fd
        self.pending = pending
        os.set_blocking(fd, False)

    def read(self) -> list[int] | None:
        """The indices written since the last call; None once the other side has closed the pipe."""
        chunk: bytes | None
        try:
            chunk = os.read(self.fd, 65536)
        except BlockingIOError:
            chunk = None  # nothing new; whole lines already received are still returned
        if chunk == b"":
            return None
        *lines, self.pending = (self.pending + (chunk or b"")).split(b"\n")
        return [int(line) for line in lines if line.strip().isdigit()]


def _helper() -> None:
    """The helper process: parse the job's files from the last one down into the cache, and stop
    before one the other side has started, or when the other side closes the pipe."""
    from engine.lang.hcl import parse_hcl_file, parse_hcl_part
    from vocab.regular_file import read_regular

    # What the helper makes is one file's tree at a time, without cycles, freed by reference
    # counting once written; the collector, started every few hundred allocations, found nothing
    # and only added to each file's time.
    gc.disable()
    stdin = sys.stdin.buffer.fileno()
    received = b""
    while b"\n" not in received:  # the job, on the first line; what follows is the other side's progress
        chunk = os.read(stdin, 65536)
        if not chunk:
            return
        received += chunk
    line, _, rest = received.partition(b"\n")
    job = json.loads(line)
    cache = ParseCache(Path(job["root"]))
    if cache.key is None or cache.key.hex() != job["key"]:
        return  # ctl's parser changed since the other side began: what it would write, the other side never looks up
    others = _Numbers(stdin, rest)
    other_at = -1
    read: tuple[str, bytes] | None = None  # the last file read: a large file's parts come in a row
    for index, path, display, part_json in reversed(job["files"]):
        started = others.read()
        if started is None:
            return
        other_at = max([other_at, *started])
        if index <= other_at:
            return
        sys.stdout.write(f"{index}\n")
        sys.stdout.flush()
        try:
            if read is None or read[0] != path:
                read = (path, read_regular(path))
            src = read[1]
            if part_json is None:
                cache.parse(src, display, parse_hcl_file)
            else:
                part = Part.from_json(part_json)
                cache.parse(src, display, partial(parse_hcl_part, part=part), part)
        except (CtlError, OSError, RecursionError, ValueError):
            continue  # not cached: the other side parses it and reports what is wrong


if __name__ == "__main__":
    _helper()
