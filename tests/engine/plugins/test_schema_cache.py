"""The schema cache's entries are written whole or not at all, whoever writes them at once.

``ctl init`` starts no provider, so the first commands after it may each read a provider's schema and
cache it at the same time (two terminals, parallel CI jobs on one checkout). Every writer writes under
a name of its own and renames it into place: a reader finds the whole entry or none.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from engine.plugins import schema_cache

SOURCE = "registry.terraform.io/hashicorp/big"


def _schema(width: int) -> dict[str, object]:
    block = {"attributes": {f"a{i}": {"type": "string", "optional": True} for i in range(width)}}
    return {"provider": {"version": 0, "block": {}},
            "resource_schemas": {f"big_t{i}": {"version": 0, "block": block} for i in range(width)}}


def test_writers_at_once_leave_one_whole_entry_and_readers_never_see_a_torn_one(tmp_path: Path) -> None:
    sha = "ab" * 32
    schema = _schema(200)  # about a megabyte of JSON: a write takes long enough to overlap
    seen: list[str] = []
    stop = threading.Event()

    def write() -> None:
        for _ in range(5):
            schema_cache.write(tmp_path, sha, 5, schema, SOURCE)

    def read() -> None:
        path = tmp_path / schema_cache.SCHEMA_DIR / f"{sha}.json"
        while not stop.is_set():
            existed = path.exists()  # once there, the name always holds a whole entry
            doc = schema_cache.cached(tmp_path, sha, SOURCE)
            if doc is None and existed:
                seen.append("an entry that exists did not read back")
            elif doc is not None and schema_cache.expanded(doc["schema"]) != schema:
                seen.append("an entry read back different")

    reader = threading.Thread(target=read)
    reader.start()
    try:
        with ThreadPoolExecutor(4) as pool:
            writes = [pool.submit(write) for _ in range(4)]
        for done in writes:
            done.result()  # a writer's failure (another writer's file renamed away under it) fails the test
    finally:
        stop.set()
        reader.join()
    assert seen == []
    doc = schema_cache.cached(tmp_path, sha, SOURCE)
    assert doc is not None and schema_cache.expanded(doc["schema"]) == schema
    assert schema_cache.protocol_of(tmp_path, sha) == 5
    assert sorted(p.name for p in (tmp_path / schema_cache.SCHEMA_DIR).iterdir()) == [f"{sha}.json"]


def test_the_protocol_is_unknown_until_the_schema_is_read(tmp_path: Path) -> None:
    assert schema_cache.protocol_of(tmp_path, "cd" * 32) is None
    schema_cache.write(tmp_path, "cd" * 32, 6, _schema(1), SOURCE)
    assert schema_cache.protocol_of(tmp_path, "cd" * 32) == 6
