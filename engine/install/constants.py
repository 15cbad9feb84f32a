"""Constant attributes of the files installation reads (the lock file, the CLI configuration), and the
limits installation puts on what the network sends (``docs/limits.md`` lists them for users)."""

from __future__ import annotations

import os

from engine.lang.eval import EvalContext, evaluate
from engine.lang.syntax import Body
from vocab.errors import CtlError


def constant(body: Body, name: str, where: str) -> object:
    """The value of attribute ``name`` (None when absent); anything but a constant is an error."""
    attr = body.attributes.get(name)
    if attr is None:
        return None
    try:
        return evaluate(attr.expr, EvalContext(variables={}))
    except CtlError:
        raise CtlError(f'"{name}" in {where} must be a constant', range=attr.expr.rng) from None


# --- Limits on what a registry or mirror may send ----------------------------------------------------
# A registry, a mirror and every host their answers point at are remote parties: an answer that never
# ends, or ends a byte at a time, must cost a bounded amount of memory, disk and time.

# Bytes of one JSON document (service discovery, versions, download metadata, a mirror's index) or one
# SHA256SUMS / signature file. The largest public versions documents are a few hundred kilobytes.
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024

# Bytes of one provider package download. The largest public provider releases are a few hundred
# megabytes zipped; the environment variable lowers or raises it (whole MiB).
MAX_DOWNLOAD_ENV = "CTL_MAX_PROVIDER_DOWNLOAD_MB"
DEFAULT_MAX_DOWNLOAD_MB = 2048

# Bytes of a package's files once unpacked, and how many members its zip may hold: a small zip whose
# members inflate to terabytes must not fill the disk.
MAX_UNPACKED_BYTES = 8 * 1024 * 1024 * 1024
MAX_ARCHIVE_MEMBERS = 10_000

# Seconds one document request may take in all, retries included, and seconds one package download may
# take in all. A server that sends a byte just often enough to dodge the socket timeout still ends
# here. The environment variables (whole seconds) exist for slow links and for tests.
DOCUMENT_DEADLINE_ENV = "CTL_REGISTRY_DEADLINE"
DEFAULT_DOCUMENT_DEADLINE = 120
DOWNLOAD_DEADLINE_ENV = "CTL_DOWNLOAD_DEADLINE"
DEFAULT_DOWNLOAD_DEADLINE = 1800


def _positive(name: str, default: int) -> int:
    """The environment variable ``name`` when it is a positive whole number, else ``default``."""
    raw = os.environ.get(name, "").strip().replace("_", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else default


def max_download_bytes() -> int:
    """The cap on one package download, in bytes."""
    return _positive(MAX_DOWNLOAD_ENV, DEFAULT_MAX_DOWNLOAD_MB) * 1024 * 1024


def document_deadline() -> float:
    """Seconds one registry or mirror document may take, retries included."""
    return float(_positive(DOCUMENT_DEADLINE_ENV, DEFAULT_DOCUMENT_DEADLINE))


def download_deadline() -> float:
    """Seconds one package download may take, retries included."""
    return float(_positive(DOWNLOAD_DEADLINE_ENV, DEFAULT_DOWNLOAD_DEADLINE))
