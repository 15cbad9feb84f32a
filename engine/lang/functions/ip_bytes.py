"""IP addresses and prefixes kept as 4 or 16 bytes, the way the references' network functions see them.

Terraform and OpenTofu hold an address as a byte string and decide at each step whether a 16-byte
address is really IPv4: one whose first twelve bytes are ``::ffff:`` (IPv4-mapped) prints in dotted
form, counts as IPv4 in ``cidrcontains``, shrinks to four bytes when ``cidrsubnets`` steps from one
subnet to the next, and takes ``cidrhost`` numbers at the IPv4 part's low bit shifted past the IPv6
part (``cidrhost("::ffff:10.0.0.0/104", 5)`` is ``0:5::ffff:a00:0``). Python's ``ipaddress`` keeps
the families apart and gives other answers for such prefixes, so this module models the byte strings
instead: a configuration written against either reference gets the same addresses here.

An address is ``bytes`` (4 or 16 long; empty where a step ran out of the family, printed ``<nil>``
as the references print it); a prefix is its network address and its mask, both bytes. Where the
references fail part-way (an address too long for its family), ``AddressOverflow`` is raised and
the caller reports it as a refusal.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

IPV4_IN_IPV6 = bytes(10) + b"\xff\xff"
_IPV4_ZERO = IPV4_IN_IPV6 + bytes(4)
_IPV6_ZERO = bytes(16)
_HEX_RUN = re.compile(r"[0-9A-Fa-f]+")
_DIGITS = re.compile(r"[0-9]+")


class AddressOverflow(Exception):
    """An address computed from a number needs more bytes than its family has."""


@dataclass(frozen=True)
class Prefix:
    """A network address and its mask; the mask has 4 or 16 bytes, or none when a step made it invalid."""

    address: bytes | None
    mask: bytes | None

    @property
    def lengths(self) -> tuple[int, int]:
        """The prefix length and the mask's width in bits; (0, 0) for a mask that is not ones then zeros."""
        mask = self.mask or b""
        ones = mask_length(mask)
        return (0, 0) if ones < 0 else (ones, 8 * len(mask))


# Parsing ---------------------------------------------------------------------------------------

def parse_ipv4(text: str) -> bytes | None:
    """Four decimal octets; leading zeros are read as decimal, as the references read them."""
    parts = text.split(".")
    if len(parts) != 4:
        return None
    octets = []
    for part in parts:
        if not _DIGITS.fullmatch(part) or int(part) > 0xFF:
            return None
        octets.append(int(part))
    return bytes(octets)


def parse_ipv6(text: str) -> bytes | None:
    """An IPv6 address (RFC 4291), with an optional trailing dotted IPv4 part; no zone suffix."""
    out = bytearray(16)
    gap = -1  # where "::" stands, in bytes
    rest = text
    if rest.startswith("::"):
        gap, rest = 0, rest[2:]
        if not rest:
            return bytes(out)
    filled = 0
    while filled < 16:
        group = _HEX_RUN.match(rest)
        if group is None or int(group.group(), 16) > 0xFFFF:
            return None
        end = group.end()
        if end < len(rest) and rest[end] == ".":  # the trailing IPv4 part
            if (gap < 0 and filled != 12) or filled + 4 > 16:
                return None
            tail = parse_ipv4(rest)
            if tail is None:
                return None
            out[filled:filled + 4] = tail
            rest, filled = "", filled + 4
            break
        value = int(group.group(), 16)
        out[filled], out[filled + 1] = value >> 8, value & 0xFF
        filled += 2
        rest = rest[end:]
        if not rest:
            break
        if rest[0] != ":" or len(rest) == 1:
            return None
        rest = rest[1:]
        if rest[0] == ":":
            if gap >= 0:
                return None
            gap, rest = filled, rest[1:]
            if not rest:
                break
    if rest:
        return None
    if filled < 16:
        if gap < 0:
            return None
        moved = 16 - filled
        out[gap + moved:16] = out[gap:filled]
        out[gap:gap + moved] = bytes(moved)
    elif gap >= 0:  # "::" must stand for at least one group
        return None
    return bytes(out)


def parse_address(text: str) -> bytes | None:
    """An address alone: the first "." or ":" decides the family, as in the references."""
    for char in text:
        if char == ".":
            return parse_ipv4(text)
        if char == ":":
            return parse_ipv6(text)
    return None


def parse_prefix(text: str) -> Prefix | None:
    """``ADDRESS/LENGTH`` with the address's host bits cleared; None when it is not one."""
    addr, slash, length = text.partition("/")
    if not slash:
        return None
    address = parse_ipv4(addr)
    if address is None:
        address = parse_ipv6(addr)
    if address is None or not _DIGITS.fullmatch(length) or int(length) > 8 * len(address):
        return None
    mask = prefix_mask(int(length), 8 * len(address))
    return Prefix(apply_mask(address, mask), mask)


# The references' byte-string rules --------------------------------------------------------------

def as_ipv4(address: bytes | None) -> bytes | None:
    """The four IPv4 bytes of an IPv4 or IPv4-mapped address; None for any other."""
    if address is None:
        return None
    if len(address) == 4:
        return address
    if len(address) == 16 and address[:12] == IPV4_IN_IPV6:
        return address[12:]
    return None


def narrowed(address: bytes) -> bytes:
    """An IPv4-mapped address as its four IPv4 bytes; any other unchanged."""
    return as_ipv4(address) or address


def prefix_mask(ones: int, bits: int) -> bytes | None:
    """The mask of ``ones`` leading one bits in ``bits``; None when the length does not fit."""
    if bits not in (32, 128) or not 0 <= ones <= bits:
        return None
    return (((1 << ones) - 1) << (bits - ones)).to_bytes(bits // 8, "big")


def mask_length(mask: bytes) -> int:
    """How many leading one bits ``mask`` has, or -1 when ones do not run straight into zeros."""
    value, bits = int.from_bytes(mask, "big"), 8 * len(mask)
    zeros = (~value & ((1 << bits) - 1)).bit_length()
    return bits - zeros if value == ((1 << bits) - 1) ^ ((1 << zeros) - 1) else -1


def apply_mask(address: bytes | None, mask: bytes | None) -> bytes | None:
    """The address with its host bits cleared; a 4-byte address meets the IPv4 part of a 16-byte
    mask of twelve 0xff bytes and the other way round; None when the widths still differ."""
    address, mask = address or b"", mask or b""
    if len(mask) == 16 and len(address) == 4 and mask[:12] == b"\xff" * 12:
        mask = mask[12:]
    if len(mask) == 4 and len(address) == 16 and address[:12] == IPV4_IN_IPV6:
        address = address[12:]
    if len(address) != len(mask):
        return None
    return bytes(a & m for a, m in zip(address, mask, strict=True))


def same_address(a: bytes, b: bytes) -> bool:
    """Equal as addresses: an IPv4 address equals its IPv4-mapped form."""
    if len(a) == len(b):
        return a == b
    if len(a) == 4 and len(b) == 16:
        return b[:12] == IPV4_IN_IPV6 and a == b[12:]
    if len(a) == 16 and len(b) == 4:
        return a[:12] == IPV4_IN_IPV6 and a[12:] == b
    return False


def address_text(address: bytes | None) -> str:
    """Dotted for IPv4 and IPv4-mapped addresses, RFC 5952 for the rest, as the references print."""
    if not address:
        return "<nil>"
    four = as_ipv4(address)
    if four is not None:
        return ".".join(str(b) for b in four)
    if len(address) == 16:
        return ipaddress.IPv6Address(address).compressed
    return "?" + address.hex()


def _number_and_mask(prefix: Prefix) -> tuple[bytes, bytes] | None:
    """The network address and the mask of the same width, or None when they cannot be matched."""
    address = as_ipv4(prefix.address)
    if address is None:
        address = prefix.address
        if address is None or len(address) != 16:
            return None
    mask = prefix.mask or b""
    if len(mask) == 4 and len(address) != 4:
        return None
    if len(mask) == 16 and len(address) == 4:
        mask = mask[12:]
    elif len(mask) not in (4, 16):
        return None
    return address, mask


def prefix_text(prefix: Prefix) -> str:
    """``ADDRESS/LENGTH``; an IPv4-mapped prefix prints as IPv4 with the mask's IPv4 part."""
    parts = _number_and_mask(prefix)
    if parts is None:
        return "<nil>"
    address, mask = parts
    ones = mask_length(mask)
    return f"{address_text(address)}/{ones if ones >= 0 else mask.hex()}"


def contains(prefix: Prefix, address: bytes) -> bool:
    """Whether ``address`` lies in ``prefix``; IPv4 and IPv4-mapped addresses compare as IPv4."""
    parts = _number_and_mask(prefix)
    if parts is None:
        return False
    network, mask = parts
    address = narrowed(address)
    if len(address) != len(network):
        return False
    return all(n & m == a & m for n, m, a in zip(network, mask, address, strict=True))


def to_int(address: bytes) -> tuple[int, int]:
    """The address as an integer and its width in bits (32 or 128)."""
    if len(address) not in (4, 16):
        raise AddressOverflow(f"address of {len(address)} bytes")
    return int.from_bytes(address, "big"), 8 * len(address)


def from_int(value: int, bits: int) -> bytes:
    """An integer's magnitude as an address of ``bits`` bits; too large a magnitude is refused."""
    magnitude = abs(value)
    if magnitude.bit_length() > bits:
        raise AddressOverflow(f"{magnitude} needs more than {bits} bits")
    return magnitude.to_bytes(bits // 8, "big")


def with_number(address: bytes, number: int, low_bit: int) -> bytes:
    """``number`` written into the address so that its lowest bit is bit ``low_bit`` counted from
    the top, the way the references place host and subnet numbers."""
    value, bits = to_int(address)
    shift = bits - low_bit
    if number and (shift < 0 or shift > bits):
        raise AddressOverflow(f"{number} placed at bit {low_bit}")
    return from_int(value | (number << max(shift, 0)), bits)


def last_address(prefix: Prefix) -> bytes:
    """The highest address of the prefix."""
    first = prefix.address or b""
    ones, bits = prefix.lengths
    if ones == bits:
        return first
    value, width = to_int(first)
    if width < ones:
        raise AddressOverflow(f"a {width}-bit address under a /{ones} mask")
    return from_int(value | ((1 << (width - ones)) - 1), width)


def stepped(address: bytes, step: int) -> bytes:
    """The next (``step`` 1) or previous (-1) address, wrapping round; IPv4-mapped ones narrow first."""
    address = narrowed(address)
    if not address:
        return address
    bits = 8 * len(address)
    return ((int.from_bytes(address, "big") + step) % (1 << bits)).to_bytes(len(address), "big")


def previous_subnet(network: Prefix, length: int) -> Prefix:
    """The prefix of ``length`` just below the network's first address (where stepping starts)."""
    start = narrowed(network.address or b"")
    mask = prefix_mask(length, 8 * len(start))
    return Prefix(apply_mask(stepped(start, -1), mask), mask)


def next_subnet(current: Prefix, length: int) -> tuple[Prefix, bool]:
    """The prefix of ``length`` just after ``current``, and whether the address space rolled over."""
    last = last_address(current)
    mask = prefix_mask(length, 8 * len(last))
    enclosing = Prefix(apply_mask(last, mask), mask)
    after = stepped(last_address(enclosing), 1)
    rolled = same_address(after, _IPV4_ZERO) or same_address(after, _IPV6_ZERO)
    return Prefix(apply_mask(after, mask), mask), rolled
