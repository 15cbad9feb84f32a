"""``random_id`` (random bytes in several encodings) and ``random_integer`` (a number in a range).

``secrets`` and ``base64`` load on first use: they pull in OpenSSL, which discovery should not pay.
"""

from __future__ import annotations

from typing import Any

from adapters._attributes import complete
from adapters.base import AdapterContext, AdapterError
from adapters.random._base import RandomResource, whole_number
from adapters.random.schemas import ID_SCHEMA, INTEGER_SCHEMA
from vocab.values import deep_unmark


class RandomId(RandomResource):
    """Random bytes, e.g. for unique names; ``id`` is URL-safe base64 without padding."""

    name = "random_id"
    schema = ID_SCHEMA
    computed = frozenset({"id", "b64_url", "b64_std", "hex", "dec"})
    replace_on = frozenset({"byte_length", "prefix", "keepers"})

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        import secrets

        out = self._normalized(planned)
        plain, _ = deep_unmark(out)
        length = whole_number(ctx, "byte_length", plain["byte_length"])
        if length < 1:
            raise AdapterError(f"byte_length must be at least 1; got {length}", address=ctx.address)
        out.update(_encodings(secrets.token_bytes(length), plain.get("prefix") or ""))
        return out

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ``B64URL`` or ``PREFIX,B64URL`` (the prefix may itself contain commas)."""
        import base64
        import binascii

        prefix, sep, encoded = resource_id.rpartition(",")
        try:
            data = base64.b64decode(encoded + "=" * (-len(encoded) % 4), altchars=b"-_", validate=True)
        except (binascii.Error, ValueError) as exc:
            raise AdapterError(
                f"cannot import random_id {resource_id!r}: not URL-safe base64",
                hint="use the id attribute (B64URL) or PREFIX,B64URL",
                address=ctx.address,
            ) from exc
        if not data:
            raise AdapterError(f"cannot import random_id {resource_id!r}: no bytes", address=ctx.address)
        out = complete(self.schema, {"byte_length": len(data), "prefix": prefix if sep and prefix else None})
        out.update(_encodings(data, prefix))
        return out


class RandomInteger(RandomResource):
    """A random whole number between ``min`` and ``max``; the same every time with a ``seed``."""

    name = "random_integer"
    schema = INTEGER_SCHEMA
    computed = frozenset({"id", "result"})
    replace_on = frozenset({"min", "max", "seed", "keepers"})

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        out = self._normalized(planned)
        plain, _ = deep_unmark(out)
        low = whole_number(ctx, "min", plain["min"])
        high = whole_number(ctx, "max", plain["max"])
        if high < low:
            raise AdapterError(f"min ({low}) must be less than or equal to max ({high})", address=ctx.address)
        seed = plain.get("seed")
        if seed:
            import random

            result = random.Random(str(seed)).randint(low, high)
        else:
            import secrets

            result = low + secrets.randbelow(high - low + 1)
        out.update(result=result, id=str(result))
        return out

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        """Import ``RESULT,MIN,MAX`` or ``RESULT,MIN,MAX,SEED``."""
        parts = resource_id.split(",")
        try:
            if len(parts) not in (3, 4):
                raise ValueError("expected 3 or 4 comma-separated parts")
            result, low, high = (int(p) for p in parts[:3])
        except ValueError as exc:
            raise AdapterError(
                f"cannot import random_integer {resource_id!r}: {exc}",
                hint="use RESULT,MIN,MAX or RESULT,MIN,MAX,SEED",
                address=ctx.address,
            ) from exc
        seed = parts[3] if len(parts) == 4 else None
        return complete(
            self.schema, {"min": low, "max": high, "seed": seed, "result": result, "id": parts[0]}
        )


def _encodings(data: bytes, prefix: str) -> dict[str, str]:
    import base64

    raw_url = base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")
    return {
        "id": raw_url,
        "b64_url": prefix + raw_url,
        "b64_std": prefix + base64.b64encode(data).decode("ascii"),
        "hex": prefix + data.hex(),
        "dec": prefix + str(int.from_bytes(data, "big")),
    }
