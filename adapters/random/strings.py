"""``random_string`` and ``random_password``: random text from chosen character classes.

The algorithm is Terraform's: first the ``min_*`` characters of each class, then the rest from
every enabled class, then a shuffle — all from the operating system's CSPRNG (``secrets``).
``random_password`` adds a bcrypt hash of the result (``$2a$10$…``, as Terraform's random provider
writes it). ``secrets`` and ``bcrypt`` load on first use, not at discovery.
"""

from __future__ import annotations

from typing import Any

from adapters.base import AdapterContext, AdapterError
from adapters.random._base import RandomResource, whole_number
from adapters.random.schemas import string_schema
from vocab.values import Unknown, deep_unmark, unmark

UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LOWER = "abcdefghijklmnopqrstuvwxyz"
NUMERIC = "0123456789"
SPECIAL = "!@#$%&*()-_=+[]{}<>:?"
_BCRYPT_COST = 10  # Terraform's bcrypt.DefaultCost
_BCRYPT_MAX_BYTES = 72  # bcrypt ignores (newer libraries reject) anything past 72 bytes


class RandomString(RandomResource):
    """A random string; not secret (use ``random_password`` for that)."""

    name = "random_string"
    schema = string_schema(password=False)
    computed = frozenset({"id", "result"})
    replace_on = frozenset(
        {
            "length",
            "special",
            "upper",
            "lower",
            "numeric",
            "number",
            "min_upper",
            "min_lower",
            "min_numeric",
            "min_special",
            "override_special",
            "keepers",
        }
    )
    schema_version = 2  # Terraform's, so a state written by either tool reads the same

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self._normalized(planned)
        plain, _ = deep_unmark(out)
        result = _generate(ctx, plain)
        out.update(self._computed(result))
        return out

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import an existing value: the import id *is* the string."""
        if not resource_id:
            raise AdapterError(f"cannot import {self.name}: the value is empty", address=ctx.address)
        out = self._normalized({"length": len(resource_id)})
        out.update(self._computed(resource_id))
        return out

    def _computed(self, result: str) -> dict[str, Any]:
        return {"result": result, "id": result}

    def _normalized(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Defaults, keepers as strings, and ``number``/``numeric`` kept in step.

        ``number`` is the deprecated spelling of ``numeric``; Terraform keeps both in state and
        setting either to false turns digits off.
        """
        out = super()._normalized(attrs)
        given = [unmark(v)[0] for v in (attrs.get("numeric"), attrs.get("number")) if v is not None]
        if not any(isinstance(v, Unknown) for v in given):
            out["numeric"] = out["number"] = all(bool(v) for v in given)
        return out


class RandomPassword(RandomString):
    """A random secret: ``result`` and ``bcrypt_hash`` are sensitive, ``id`` is ``"none"``."""

    name = "random_password"
    schema = string_schema(password=True)
    computed = frozenset({"id", "result", "bcrypt_hash"})
    sensitive = frozenset({"result", "bcrypt_hash"})
    schema_version = 3

    def _computed(self, result: str) -> dict[str, Any]:
        return {"result": result, "id": "none", "bcrypt_hash": bcrypt_hash(result)}


def bcrypt_hash(password: str) -> str:
    """A ``$2a$10$`` bcrypt hash like Terraform's (cost 10, the first 72 bytes)."""
    import bcrypt

    data = password.encode("utf-8")[:_BCRYPT_MAX_BYTES]
    hashed: bytes = bcrypt.hashpw(data, bcrypt.gensalt(rounds=_BCRYPT_COST, prefix=b"2a"))
    return hashed.decode("ascii")


def _generate(ctx: AdapterContext, attrs: dict[str, Any]) -> str:
    import secrets

    length = whole_number(ctx, "length", attrs["length"])
    special = attrs.get("override_special") or SPECIAL
    minimums = [
        (NUMERIC, whole_number(ctx, "min_numeric", attrs["min_numeric"])),
        (LOWER, whole_number(ctx, "min_lower", attrs["min_lower"])),
        (UPPER, whole_number(ctx, "min_upper", attrs["min_upper"])),
        (special, whole_number(ctx, "min_special", attrs["min_special"])),
    ]
    wanted = sum(n for _, n in minimums)
    if length < 1:
        raise AdapterError(f"length must be at least 1; got {length}", address=ctx.address)
    if length < wanted:
        raise AdapterError(
            f"length ({length}) must be >= min_upper + min_lower + min_numeric + min_special ({wanted})",
            address=ctx.address,
        )
    pool = "".join(
        chars
        for chars, enabled in (
            (UPPER, attrs["upper"]),
            (LOWER, attrs["lower"]),
            (NUMERIC, attrs["numeric"]),
            (special, attrs["special"]),
        )
        if enabled
    )
    if length > wanted and not pool:
        raise AdapterError(
            "no characters to choose from",
            hint="enable at least one of upper, lower, numeric or special",
            address=ctx.address,
        )
    chars = [secrets.choice(charset) for charset, count in minimums for _ in range(count)]
    chars += [secrets.choice(pool) for _ in range(length - wanted)]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)
