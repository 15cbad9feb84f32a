"""Provider schemas cached by the binary's SHA-256 under ``.ctl/plugins/schemas/``.

Reading a schema means starting the provider (tens of milliseconds for a small one, seconds for
the big cloud providers); keyed by the binary's content, a cached schema is right for exactly that
binary, so each new binary is started once for its schema and later commands start none to
validate. As under Terraform, ``ctl init`` starts no provider: the first command that needs a
schema (validate, plan, console, ...) reads and caches it (``engine.plugins.registry``). Two such
commands may run at once; each writes its entry under a name of its own and renames it into place,
so a reader sees a whole entry or none, never a torn one.

Each resource type's and data source's schema is stored as JSON text of its own inside the entry
(``stored``), and decoded only when a command builds that type (``adapters.plugin.bridge``): a
configuration uses a handful of a big provider's types, and decoding all of HashiCorp's aws
provider's (13 MB of JSON) made about 58 MB of objects for every command. ``expanded`` gives the
whole schema decoded, for ``ctl providers schema -json``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from vocab.errors import CtlError

_log = logging.getLogger(__name__)

SCHEMA_DIR = Path(".ctl") / "plugins" / "schemas"
CACHE_FORMAT = 3  # bumped when the cached shape changes: an entry no longer READABLE is read from the binary again
# Format 2 held every type's schema decoded (the whole of it decoded by every command); the readers
# take both, and ``ctl init`` rewrites a format 2 entry as 3 from what it holds.
READABLE = (2, CACHE_FORMAT)
_BY_TYPE = ("resource_schemas", "data_source_schemas")  # the sections held as one JSON text per type
# An entry's first bytes, as ``write`` lays them out (keys sorted): its format and protocol.
_HEAD = re.compile(rb'^\{"format": ([0-9]+), "protocol": ([0-9]+),')


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cached(root_dir: Path, sha256: str, source: str = "") -> dict[str, Any] | None:
    """The cached ``{"format": N, "protocol": N, "schema": {...}}`` for a binary, or None.

    Each call decodes the file afresh (for a big cloud provider, megabytes of JSON), so a command
    reads it once and hands the result down. Every decode is logged (``CTL_LOG=info``) with its size
    and time, which is how a second one in a command shows up.
    """
    started = time.perf_counter()
    try:
        text = (root_dir / SCHEMA_DIR / f"{sha256}.json").read_text()  # ASCII: json.dumps escapes the rest
        doc = json.loads(text)
    except (OSError, ValueError):
        return None
    _log.info("provider schema read from the cache", extra={
        "provider": source, "sha256": sha256, "bytes": len(text),
        "seconds": round(time.perf_counter() - started, 6)})
    usable = isinstance(doc, dict) and doc.get("format") in READABLE and isinstance(doc.get("schema"), dict)
    return doc if usable else None


def protocol_of(root_dir: Path, sha256: str) -> int | None:
    """The plugin protocol a cached entry records, from its first bytes (the whole entry is megabytes
    for a big provider); None when the binary's schema has not been read yet."""
    try:
        with (root_dir / SCHEMA_DIR / f"{sha256}.json").open("rb") as handle:
            head = handle.read(64)
    except OSError:
        return None
    found = _HEAD.match(head)
    return int(found.group(2)) if found is not None and int(found.group(1)) in READABLE else None


def read_from_binary(root_dir: Path, executable: Path, sha256: str, source: str) -> dict[str, Any]:
    """Start the provider, read its schema, cache it; diagnostics the provider reports are errors.

    Logged (``CTL_LOG=info``) with its time, as the cache's decodes are: how a command that started
    the provider for its schema shows up."""
    from adapters.plugin.schema_json import read_schema_document

    started = time.perf_counter()
    protocol, schema = read_schema_document(executable, source, root_dir)
    _log.info("provider schema read from the provider", extra={
        "provider": source, "sha256": sha256, "seconds": round(time.perf_counter() - started, 6)})
    return write(root_dir, sha256, protocol, schema, source)


def write(root_dir: Path, sha256: str, protocol: int, schema: dict[str, Any], source: str) -> dict[str, Any]:
    """Cache ``schema`` (decoded or as an entry holds it) in the current format; the entry as ``cached``
    gives it, with ``schema`` as it was given."""
    doc = {"format": CACHE_FORMAT, "protocol": protocol, "schema": schema}
    folder = root_dir / SCHEMA_DIR
    text = json.dumps({**doc, "schema": stored(schema)}, sort_keys=True)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # A name no other writer (process or thread) uses, renamed over the entry once complete.
        handle, name = tempfile.mkstemp(prefix=f".{sha256}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(handle, "w") as out:
                out.write(text)
            os.replace(name, folder / f"{sha256}.json")
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise CtlError(f"cannot cache the schema of provider {source} in {folder}: {exc.strerror}") from None
    return doc


def stored(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as an entry holds it: each type's schema in the ``_BY_TYPE`` sections as JSON text."""
    return {key: {name: typed if isinstance(typed, str) else json.dumps(typed, sort_keys=True)
                  for name, typed in section.items()}
            if key in _BY_TYPE and isinstance(section, dict) else section
            for key, section in schema.items()}


def expanded(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every type's schema decoded, whether it came from an entry or from the binary."""
    return {key: {name: json.loads(typed) if isinstance(typed, str) else typed for name, typed in section.items()}
            if key in _BY_TYPE and isinstance(section, dict) else section
            for key, section in schema.items()}
