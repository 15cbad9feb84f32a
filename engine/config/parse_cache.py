"""Parsed ``.tf``, ``.tf.json`` and ``.tf.yaml`` files kept under ``.ctl/cache/parse``, so an unchanged configuration is not re-parsed.

Parsing is most of what ``validate`` does and a large share of every plan: at 50,000 resources
about six seconds of each command. A file's entry is found by a SHA-256 of the parser's own code,
the file's name and its bytes, so an edited file, a renamed one or a new ctl simply misses, and
nothing is ever invalidated by hand. Entries are JSON (``engine.lang.syntax_codec``) after a
checksum of it: an entry that cannot be read, does not match its checksum or cannot be decoded is
parsed afresh and rewritten, never trusted in part.

The cache sits with the rest of the working directory's data (providers, modules, plugins), and is
as trusted as they are. Writing is best effort: a read-only directory just means no cache. The
entries a load did not use are removed once they outnumber the ones it did, so the cache stays
about the size of one configuration. ``CTL_PARSE_CACHE=0`` turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import zlib
from collections.abc import Callable
from pathlib import Path

import orjson
import tree_sitter
import tree_sitter_hcl
import yaml

import engine.config.json_syntax
import engine.config.structured
import engine.config.yaml_values
import engine.lang
import vocab.errors
import vocab.limits
import vocab.positions
from engine.config.cache_writer import write_in_child
from engine.lang import syntax
from engine.lang.hcl import Part
from engine.lang.syntax import Body
from engine.lang.syntax_codec import Uncacheable, decode_body, encode_body
from vocab.errors import SourceText

CACHE_DIR = Path(".ctl") / "cache" / "parse"
ENABLE_ENV = "CTL_PARSE_CACHE"
# Top-level blocks per entry of a file cached in pieces (``parse_in_pieces``): a few megabytes of
# encoded tree at a time.
PIECE_BLOCKS = 1000


class ParseCache:
    """The parse cache of one configuration root, for one load."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dir = root / CACHE_DIR
        self.used: set[str] = set()
        self.writable = True
        # Taken afresh for each load, not once per process: a process that loads again after ctl's
        # sources changed (a test session while they are edited) would otherwise name its entries
        # for the old code while a helper (``engine.config.parse_ahead``) names them for the new.
        self.key: bytes | None = _fingerprint()  # None: nothing can be cached (``entry``)
        # by file and part's start: the bytes hashed, and the name
        self._names: dict[tuple[str, int], tuple[bytes, str | None]] = {}
        self._held: list[tuple[Path, Body, str]] | None = None  # entries to write later (``hold_writes``)

    @staticmethod
    def enabled() -> bool:
        return os.environ.get(ENABLE_ENV, "1") != "0"

    def entry(self, src: bytes, filename: str, part: Part | None = None) -> str | None:
        """The name of this file's (or this part of it's) entry; None when nothing can be cached
        safely (the parser's own files cannot be read, so there is no way to key an entry). Asked
        again for the same bytes object (a large directory's are looked up before they are
        parsed), it is not hashed again."""
        key = (filename, part.start if part is not None else -1)
        known = self._names.get(key)
        if known is not None and known[0] is src:
            return known[1]
        name = None
        if self.key is not None:
            digest = hashlib.sha256(self.key)
            digest.update(filename.encode("utf-8", "surrogateescape") + b"\0")
            if part is None:
                digest.update(src)
            else:  # where the part is, and its bytes: its ranges are offsets in the whole file
                digest.update(orjson.dumps(part.to_json()) + b"\0")
                digest.update(memoryview(src)[part.start : part.end])
            name = digest.hexdigest() + ".json"
        self._names[key] = (src, name)
        return name

    def holds(self, name: str) -> bool:
        return (self.dir / name).is_file()

    def parse(self, src: bytes, filename: str, parse: Callable[[bytes, str], Body], part: Part | None = None) -> Body:
        """``parse(src, filename)``, or the same tree from the cache when this exact file (or this
        exact ``part`` of it, which ``parse`` then parses) was parsed before."""
        name = self.entry(src, filename, part)
        if name is None:
            return parse(src, filename)
        self.used.add(name)
        path = self.dir / name
        try:
            data = path.read_bytes()
        except OSError:
            pass
        else:
            try:
                return decode_body(orjson.loads(_checked(data)), SourceText(filename, src))
            except ValueError:
                pass  # damaged or foreign: parsed below, and rewritten
        body = parse(src, filename)
        self._store(path, body, filename)
        return body

    def parse_in_pieces(self, src: bytes, filename: str, parse: Callable[[bytes, str], Body]) -> Body:
        """``parse(src, filename)`` for a file parsed whole (``.tf.json``, ``.tf.yaml``), cached in pieces of at
        most ``PIECE_BLOCKS`` top-level blocks each, encoded and decoded one at a time.

        An entry is a tree's nested lists while it is encoded or decoded, several times the tree's
        own size: one entry for a generated file of 50,000 resources doubled the command's peak.
        The file's entry holds how many pieces there are, each piece is an entry of its own, and a
        missing or damaged piece means the file is parsed afresh and rewritten.
        """
        name = self.entry(src, filename)
        if name is None:
            return parse(src, filename)
        stem = name[: -len(".json")]
        self.used.add(name)
        try:
            pieces = orjson.loads(_checked((self.dir / name).read_bytes()))["pieces"]
            text = SourceText(filename, src)
            bodies: list[Body] = []
            for index in range(int(pieces)):
                piece = f"{stem}-{index}.json"
                self.used.add(piece)
                bodies.append(decode_body(orjson.loads(_checked((self.dir / piece).read_bytes())), text))
            return _joined(bodies)
        except (OSError, ValueError, TypeError, KeyError):
            pass  # not cached, damaged or foreign: parsed below, and rewritten
        body = parse(src, filename)
        if body.duplicates:
            return body  # the decoder reports them from shared objects: parsed every time
        blocks = body.blocks
        count = max(1, -(-len(blocks) // PIECE_BLOCKS))
        for index in range(count):
            piece = f"{stem}-{index}.json"
            self.used.add(piece)
            chunk = blocks[index * PIECE_BLOCKS : (index + 1) * PIECE_BLOCKS]
            self._store(self.dir / piece, Body(body.attributes if index == 0 else {}, chunk, body.rng), filename)
        if self.writable:
            self._write_bytes(self.dir / name, orjson.dumps({"pieces": count}))
        return body

    def hold_writes(self) -> None:
        """Keep the entries of the files parsed from now on, to be written by ``write_held``."""
        if self._held is None:
            self._held = []

    def write_held(self) -> None:
        """Write the held entries in a child process (``engine.config.cache_writer``): a large load's
        command does not wait for what only the next command reads."""
        held, self._held = self._held, None
        if held:
            write_in_child(held, self._write)

    def _store(self, path: Path, body: Body, filename: str) -> None:
        if self._held is not None:
            self._held.append((path, body, filename))
        else:
            self._write((path, body, filename))

    def _write(self, entry: tuple[Path, Body, str]) -> bool:
        """Write one entry; False once the cache proves unwritable."""
        path, body, filename = entry
        if not self.writable:
            return False
        try:
            data = orjson.dumps(encode_body(body, filename))
        except (Uncacheable, TypeError, RecursionError):
            return True  # orjson's own errors are TypeErrors: a tree too deep for it is parsed every time
        return self._write_bytes(path, data)

    def _write_bytes(self, path: Path, data: bytes) -> bool:
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(_checksum(data) + data)
            os.replace(temporary, path)
        except OSError:
            self.writable = False
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
        return self.writable

    def prune(self) -> None:
        """Remove the entries this load did not use, once they outnumber the ones it did."""
        try:
            names = os.listdir(self.dir)
        except OSError:
            return
        if len(names) <= 2 * len(self.used) + 32:
            return
        for name in names:
            if name not in self.used:
                with contextlib.suppress(OSError):
                    os.unlink(self.dir / name)


def _joined(bodies: list[Body]) -> Body:
    """A file's body from its pieces: the first holds its arguments and range, all hold blocks."""
    first = bodies[0]
    return Body(first.attributes, [block for body in bodies for block in body.blocks], first.rng)


def _checked(entry: bytes) -> bytes:
    """An entry's JSON, once its checksum shows it is whole: a damaged entry raises ``ValueError``.

    The decoder takes the numbers it reads as they are (a range is not checked against the file),
    so a truncated or altered entry must never reach it. The checksum is the CRC-32 of the JSON, as
    eight hex digits before it: a tenth of a millisecond for a file of 250 resources.
    """
    data = entry[8:]
    if entry[:8] != _checksum(data):
        raise ValueError("an entry that does not match its checksum")
    return data


def _checksum(data: bytes) -> bytes:
    return b"%08x" % zlib.crc32(data)


def _fingerprint() -> bytes | None:
    """What a parse result depends on besides the file: the code of the parsers and of the tree they build.

    The language package's modules, the JSON and YAML readers (with the YAML alias budget), the syntax
    and error models, the limits they enforce, and the size and time of every file of tree-sitter, its
    HCL grammar and PyYAML (whose C parser gives a YAML spec's events): a changed ctl, grammar or
    PyYAML misses every old entry. None when they cannot be read (an installation without its
    sources): then nothing is cached.
    """
    try:
        return _fingerprint_of_sources()
    except OSError:
        return None


def _fingerprint_of_sources() -> bytes:
    digest = hashlib.sha256()
    sources = sorted(Path(engine.lang.__file__).parent.glob("*.py"))
    sources += [Path(syntax.__file__), Path(vocab.errors.__file__), Path(vocab.positions.__file__), Path(__file__),
                Path(vocab.limits.__file__), Path(engine.config.json_syntax.__file__),
                Path(engine.config.structured.__file__), Path(engine.config.yaml_values.__file__),
                Path(engine.lang.__file__).parent / "functions" / "_yaml.py"]  # the alias budget
    for path in sources:
        digest.update(path.read_bytes())
    for package in (tree_sitter, tree_sitter_hcl, yaml):
        folder = Path(package.__file__ or "").parent
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.is_file():
                stat = entry.stat()
                digest.update(f"{entry.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.digest()
