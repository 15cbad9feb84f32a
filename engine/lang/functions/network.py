"""IP network functions: cidrcontains cidrhost cidrnetmask cidrsubnet cidrsubnets.

Addresses are the byte strings of ``engine.lang.functions.ip_bytes``, so that every prefix gives the
references' answer, IPv4-mapped ones (``::ffff:10.0.0.0/104``) included. Like Terraform, a prefix
need not be normalised (``10.1.2.5/24`` means ``10.1.2.0/24``) and IPv4 octets with leading zeros
are read as decimal, not octal. Host and subnet numbers are read the way the references read them
(their low 64 bits decide whether a number fits); where the references would fail part-way, the
call is refused with the "does not accommodate" message.
"""

from __future__ import annotations

from functools import lru_cache

from engine.lang.functions._args import want_int, want_str, want_whole
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn
from engine.lang.functions.ip_bytes import (
    AddressOverflow,
    Prefix,
    address_text,
    as_ipv4,
    contains,
    last_address,
    next_subnet,
    parse_address,
    parse_prefix,
    prefix_mask,
    prefix_text,
    previous_subnet,
    with_number,
)

_WORD = 1 << 64
_INT64 = 1 << 63


def _prefix(value: object, i: int) -> Prefix:
    text = want_str(value, i)
    found = _parsed(text)
    if found is None:
        raise CallError(f"invalid CIDR expression: invalid CIDR address: {text}")
    return found


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Prefix | None:
    """Parse a prefix once; plans use the same few base prefixes over and over."""
    return parse_prefix(text)


def _bit_count(value: object, i: int) -> int:
    """A count of bits, which the references hold in a signed 64-bit integer (``want_int``'s range)."""
    return want_int(value, i)


def _signed_low_word(n: int) -> int:
    """The low 64 bits of ``n``'s magnitude read as a signed integer (how the references range-check)."""
    low = abs(n) % _WORD
    return low - _WORD if low >= _INT64 else low


def _cidrhost(a: Args, _c: FunctionContext) -> str:
    net, hostnum = _prefix(a[0], 0), want_whole(a[1], 1)
    ones, bits = net.lengths
    largest = (1 << (bits - ones)) - 1
    if hostnum < 0:  # counted back from the last address
        below = -hostnum - 1
        hostnum = largest - below
    else:
        below = _signed_low_word(hostnum)
    refusal = f"prefix of {ones} does not accommodate a host numbered {hostnum}"
    if below > largest:
        raise CallError(refusal)
    address = net.address or b""
    try:  # an IPv4-mapped network counts hosts from the IPv4 part's low bit, as the references do
        return address_text(with_number(address, hostnum, 32 if as_ipv4(address) else 128))
    except AddressOverflow:
        raise CallError(refusal) from None


def _cidrnetmask(a: Args, _c: FunctionContext) -> str:
    net = _prefix(a[0], 0)
    if as_ipv4(net.address) is None:
        raise CallError(f"IPv6 addresses cannot have a netmask: {want_str(a[0], 0)}")
    return address_text(net.mask)  # an IPv4-mapped prefix's mask is all 128 bits, printed as IPv6


def _cidrsubnet(a: Args, _c: FunctionContext) -> str:
    net, newbits, netnum = _prefix(a[0], 0), _bit_count(a[1], 1), want_whole(a[2], 2)
    ones, bits = net.lengths
    newlen = ones + newbits
    if newlen > bits:
        raise CallError(f"insufficient address space to extend prefix of {ones} by {newbits}")
    shift = newbits % _WORD
    highest = (((1 << shift) if shift < 64 else 0) - 1) % _WORD
    refusal = f"prefix extension of {newbits} does not accommodate a subnet numbered {netnum}"
    if abs(netnum) % _WORD > highest:
        raise CallError(refusal)
    try:
        address = with_number(net.address or b"", netnum, newlen)
    except AddressOverflow:
        raise CallError(refusal) from None
    return prefix_text(Prefix(address, prefix_mask(newlen, bits)))


def _cidrsubnets(a: Args, _c: FunctionContext) -> list[str]:
    net = _prefix(a[0], 0)
    if len(a) == 1:
        return []
    start = net.lengths[0]
    width = 8 * len(net.address or b"")
    current = previous_subnet(net, _bit_count(a[1], 1) + start)
    out: list[str] = []
    for i in range(1, len(a)):
        newbits = _bit_count(a[i], i)
        if newbits < 1:
            raise ArgError(i, "must extend prefix by at least one bit")
        if newbits > 32:
            raise ArgError(i, "may not extend prefix by more than 32 bits")
        length = start + newbits
        if length > width:
            family = "IPv4" if width == 32 else "IPv6"
            raise ArgError(i, f"would extend prefix to {length} bits, which is too long for an {family} address")
        try:
            following, rolled = next_subnet(current, length)
        except AddressOverflow:
            rolled = True
        # An IPv4-mapped base never gets a first subnet: stepping narrows it to IPv4, as in the references.
        if rolled or not contains(net, following.address or b""):
            raise ArgError(
                i,
                f"not enough remaining address space for a subnet with a prefix of {length} bits after {prefix_text(current)}",
            )
        current = following
        out.append(prefix_text(current))
    return out


def _cidrcontains(a: Args, _c: FunctionContext) -> bool:
    """Whether an address, or every address of a prefix, is inside the prefix (OpenTofu's function).

    IPv4 and IPv4-mapped addresses are one family here, as in OpenTofu: ``10.0.0.0/8`` contains
    ``::ffff:10.0.0.1``, and ``::/0`` is another family than ``::ffff:10.0.0.1``.
    """
    text, inner = want_str(a[0], 0), want_str(a[1], 1)
    net = _parsed(text)
    if net is None:
        raise CallError(f"invalid CIDR address: {text}")
    first = parse_address(inner)
    last: bytes | None = None
    if first is None:
        contained = _parsed(inner)
        if contained is None:
            raise CallError(f"invalid IP address or prefix: {inner}")
        first, last = contained.address or b"", last_address(contained)
    if (as_ipv4(first) is None) != (as_ipv4(net.address) is None):
        raise CallError(f"address family mismatch: {text} vs. {inner}")
    return contains(net, first) and (last is None or contains(net, last))


FUNCTIONS = {
    "cidrcontains": fn(_cidrcontains, "containing_prefix", "contained_ip_or_prefix"),
    "cidrhost": fn(_cidrhost, "prefix", "hostnum"),
    "cidrnetmask": fn(_cidrnetmask, "prefix"),
    "cidrsubnet": fn(_cidrsubnet, "prefix", "newbits", "netnum"),
    "cidrsubnets": fn(_cidrsubnets, "prefix", variadic="newbits"),
}
