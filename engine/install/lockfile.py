"""``.terraform.lock.hcl``: the versions and package hashes ``init`` chose, in Terraform's exact format.

The file is shared with Terraform: one ``provider "HOSTNAME/NAMESPACE/TYPE"`` block per provider,
sorted by address, with ``version``, ``constraints`` (in Terraform's normalized form, omitted when
there are none) and ``hashes`` (sorted, one per line, trailing comma), under Terraform's two-line
header. Reading is strict (a block or attribute Terraform would not write is an error pointing at
it), because a lock file that is silently half-read would let an unverified package through.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from engine.install.constants import constant
from engine.lang.hcl import parse_hcl_file
from engine.lang.syntax import Body
from vocab.errors import CtlError
from vocab.versions import normalize_constraints

LOCK_FILE = ".terraform.lock.hcl"
HEADER = (
    '# This file is maintained automatically by "terraform init".\n'
    "# Manual edits may be lost in future updates.\n"
)
_ATTRIBUTES = ("version", "constraints", "hashes")


@dataclass
class LockedProvider:
    """One provider's entry: the version every machine must use and the hashes its package may have."""

    address: str
    version: str
    constraints: str = ""
    hashes: list[str] = field(default_factory=list)

    def render(self) -> str:
        lines = [f"provider {_quote(self.address)} {{"]
        constraints = normalized_constraints(self.constraints)
        if constraints:
            lines.append(f"  version     = {_quote(self.version)}")
            lines.append(f"  constraints = {_quote(constraints)}")
        else:
            lines.append(f"  version = {_quote(self.version)}")
        if self.hashes:
            lines.append("  hashes = [")
            lines.extend(f"    {_quote(h)}," for h in sorted(set(self.hashes)))
            lines.append("  ]")
        lines.append("}")
        return "\n".join(lines) + "\n"


def normalized_constraints(text: str) -> str:
    """``constraints`` as Terraform must read them: in its normalized form, or Terraform refuses the file.

    Lock files written before ctl normalized (``>= 3.0`` for ``>= 3.0.0``) are read as they are and
    written back normalized; a constraint that cannot be read at all is kept as it is.
    """
    try:
        return normalize_constraints(text or None)
    except CtlError:
        return text


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(providers: dict[str, LockedProvider]) -> str:
    blocks = [providers[address].render() for address in sorted(providers)]
    return HEADER + "".join("\n" + block for block in blocks)


def read_lock(root_dir: Path) -> dict[str, LockedProvider]:
    """The lock file's entries by address; an absent file is an empty lock."""
    path = root_dir / LOCK_FILE
    try:
        src = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CtlError(f"cannot read {path}: {exc.strerror}") from None
    return parse_lock(src, str(path))


def parse_lock(src: bytes, filename: str) -> dict[str, LockedProvider]:
    body = parse_hcl_file(src, filename)
    _only(body, blocks=("provider",), attributes=())
    found: dict[str, LockedProvider] = {}
    for block in body.blocks:
        if len(block.labels) != 1:
            raise CtlError("A provider block in the lock file takes one label, the provider's address",
                           range=block.rng, hint=f"Delete {LOCK_FILE} and run `ctl init` to rewrite it.")
        address = _address(block.labels[0], block)
        if address in found:
            raise CtlError(f"The lock file names provider {address} twice", range=block.rng,
                           hint="Keep one of the two blocks.")
        _only(block.body, blocks=(), attributes=_ATTRIBUTES)
        values = {name: constant(block.body, name, "the lock file") for name in _ATTRIBUTES}
        version, constraints, hashes = values["version"], values["constraints"], values["hashes"]
        if not isinstance(version, str):
            raise CtlError(f"The lock file's entry for {address} has no version", range=block.rng,
                           hint="Run `ctl init -upgrade` to choose one.")
        if hashes is not None and not (isinstance(hashes, list) and all(isinstance(h, str) for h in hashes)):
            raise CtlError("hashes must be a list of strings", range=block.body.attributes["hashes"].rng)
        found[address] = LockedProvider(address, version, str(constraints or ""), list(hashes or []))
    return found


def _address(text: str, block: object) -> str:
    from vocab.providers import ProviderSource

    try:
        return str(ProviderSource.parse(text))
    except CtlError as err:
        err.range = getattr(block, "rng", None)
        raise


def _only(body: Body, *, blocks: tuple[str, ...], attributes: tuple[str, ...]) -> None:
    for name, attr in body.attributes.items():
        if name not in attributes:
            raise CtlError(f'Unsupported argument "{name}" in the lock file', range=attr.name_rng,
                           hint=f"Remove it; {LOCK_FILE} holds only what init writes.")
    for block in body.blocks:
        if block.type not in blocks:
            raise CtlError(f'Unsupported block "{block.type}" in the lock file', range=block.rng,
                           hint=f"Remove it; {LOCK_FILE} holds only what init writes.")


def write_lock(root_dir: Path, providers: dict[str, LockedProvider]) -> bool:
    """Write the lock file when its content changes (atomically); True when it was written."""
    path = root_dir / LOCK_FILE
    text = render(providers)
    try:
        if path.read_text() == text:
            return False
    except FileNotFoundError:
        pass
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return True
