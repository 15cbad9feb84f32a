"""Every size limit ctl enforces, in one place.

A configuration is untrusted input: a typo (``count = 1000000000``) or a hostile module must end
in one clear error, not in minutes of silence, gigabytes of memory or a Python ``RecursionError``.
Each limit is far above what a real configuration needs; the error that reports one names it and,
where it can be raised, how. ``docs/limits.md`` lists them for users.
"""

from __future__ import annotations

import os
import sys

# Expressions nested deeper than this (parentheses, lists, objects, calls, conditionals, ``for``)
# are refused while parsing: the parser, the evaluator and the type checker all recurse.
MAX_NESTING = 256

# Digits in a number literal. Python refuses to convert longer integer strings (a guard against
# quadratic conversion time), so the limit is the same and reported as ctl's own.
MAX_NUMBER_DIGITS = 4300

# Instances of one resource, data source or module call (``count``/``for_each``).
MAX_INSTANCES_ENV = "CTL_MAX_INSTANCES"
DEFAULT_MAX_INSTANCES = 100_000

# Characters in one string a function builds (``format``, ``join``, ``strrev`` …).
MAX_STRING_LENGTH = 10 * 1024 * 1024

# Elements in one collection a function builds (``setproduct`` multiplies its inputs' lengths).
MAX_COLLECTION_LENGTH = 1_000_000

# Levels of lists and objects in a value ``jsondecode`` or ``yamldecode`` returns: deeper values
# cannot be shown in a plan or written to state (Terraform itself crashes showing such a value).
MAX_DECODED_NESTING = 1000

# Values that YAML aliases may copy in one document (``yamldecode``, ``.tf.yaml``): an alias repeats
# its anchor's whole value, so anchors built from aliases of anchors grow exponentially.
MAX_ALIAS_EXPANSION = 100_000

# Bytes of one file read by ``file``, ``filebase64``, ``templatefile`` and the hash functions: large
# enough for a function package zip, small enough that a stray disk image does not exhaust memory.
MAX_FILE_BYTES = 256 * 1024 * 1024

# Bytes of one HCL file (``.tf``, ``.tfvars``), parsed or formatted: no ceiling unless
# ``CTL_MAX_HCL_FILE_MB`` sets one, a guard for untrusted input. Parsing and formatting keep memory
# proportional to a file's size (large files are read in parts, long literals are not read by the
# grammar), so size alone is no reason to refuse.
MAX_HCL_FILE_ENV = "CTL_MAX_HCL_FILE_MB"

# Operations run at once by refresh and apply unless --parallelism / CTL_PARALLELISM say otherwise
# (Terraform's default too).
DEFAULT_PARALLELISM = 10

# The interpreter's own recursion limit, raised so that ``MAX_NESTING`` levels of expression fit
# comfortably (each level costs several Python frames in the parser and evaluator).
RECURSION_LIMIT = 20_000


def max_instances() -> int:
    """``CTL_MAX_INSTANCES`` when it is a positive whole number, else the default."""
    raw = os.environ.get(MAX_INSTANCES_ENV, "").strip().replace("_", "")
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return DEFAULT_MAX_INSTANCES


def max_hcl_file_bytes(default_mib: int = 0) -> int:
    """``CTL_MAX_HCL_FILE_MB`` (whole MiB) when it is a positive number, else ``default_mib``; 0 means
    no ceiling."""
    raw = os.environ.get(MAX_HCL_FILE_ENV, "").strip()
    mib = int(raw) if raw.isdigit() and int(raw) > 0 else default_mib
    return mib * 1024 * 1024


def raise_recursion_limit() -> None:
    """Give the parser and evaluator room for ``MAX_NESTING`` levels (never lowers the limit)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


__all__ = [
    "MAX_ALIAS_EXPANSION",
    "MAX_DECODED_NESTING",
    "DEFAULT_MAX_INSTANCES",
    "DEFAULT_PARALLELISM",
    "MAX_COLLECTION_LENGTH",
    "MAX_FILE_BYTES",
    "MAX_HCL_FILE_ENV",
    "MAX_INSTANCES_ENV",
    "MAX_NESTING",
    "MAX_NUMBER_DIGITS",
    "MAX_STRING_LENGTH",
    "RECURSION_LIMIT",
    "max_hcl_file_bytes",
    "max_instances",
    "raise_recursion_limit",
]
