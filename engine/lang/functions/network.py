"""IP network functions: cidrcontains cidrhost cidrnetmask cidrsubnet cidrsubnets.

Addresses are handled as integers through the stdlib ``ipaddress`` module. Like Terraform, a
prefix need not be normalised (``10.1.2.5/24`` means ``10.1.2.0/24``) and IPv4 octets with
leading zeros are read as decimal, not octal.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache

from engine.lang.functions._args import want_int, want_str
from engine.lang.functions._core import ArgError, Args, CallError, FunctionContext, fn

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_IPV4_LEADING_ZERO = re.compile(r"(?<![0-9])0+(?=[0-9])")


def _parse(prefix_value: object, i: int) -> Network:
    text = want_str(prefix_value, i)
    try:
        return _parse_text(text)
    except ValueError as exc:
        raise ArgError(i, f'invalid CIDR expression "{text}": {exc}') from exc


@lru_cache(maxsize=4096)
def _parse_text(text: str) -> Network:
    """Parse a prefix once; plans use the same few base prefixes over and over."""
    addr, slash, length = text.partition("/")
    if not slash or not length.isdigit():
        raise ValueError('a prefix like "10.0.0.0/16" is required')
    if ":" not in addr:
        addr = _IPV4_LEADING_ZERO.sub("", addr)
    return ipaddress.ip_network(f"{addr}/{int(length)}", strict=False)


def _host(net: Network, offset: int) -> str:
    return str(net.network_address + offset)


def _addr(net: Network, value: int) -> str:
    cls = ipaddress.IPv4Address if net.version == 4 else ipaddress.IPv6Address
    return str(cls(value))


def _cidrhost(a: Args, _c: FunctionContext) -> str:
    net, hostnum = _parse(a[0], 0), want_int(a[1], 1)
    size = net.num_addresses
    if hostnum < 0:
        hostnum += size
    if not 0 <= hostnum < size:
        raise CallError(f"prefix of {net.prefixlen} does not accommodate a host numbered {want_int(a[1], 1)}")
    return _host(net, hostnum)


def _cidrnetmask(a: Args, _c: FunctionContext) -> str:
    net = _parse(a[0], 0)
    if net.version != 4:
        raise ArgError(0, "only IPv4 prefixes are supported; IPv6 networks have no netmask notation")
    return str(net.netmask)


def _cidrsubnet(a: Args, _c: FunctionContext) -> str:
    net, newbits, netnum = _parse(a[0], 0), want_int(a[1], 1), want_int(a[2], 2)
    if newbits < 0:
        raise ArgError(1, "newbits must not be negative")
    newlen = net.prefixlen + newbits
    if newlen > net.max_prefixlen:
        raise CallError(f"insufficient address space to extend prefix of {net.prefixlen} by {newbits}")
    if not 0 <= netnum < (1 << newbits):
        raise CallError(f"prefix extension of {newbits} does not accommodate a subnet numbered {netnum}")
    start = int(net.network_address) + (netnum << (net.max_prefixlen - newlen))
    return f"{_addr(net, start)}/{newlen}"


def _cidrsubnets(a: Args, _c: FunctionContext) -> list[str]:
    net = _parse(a[0], 0)
    base = int(net.network_address)
    end = base + net.num_addresses
    pos = base
    out: list[str] = []
    for i in range(1, len(a)):
        newbits = want_int(a[i], i)
        if newbits < 1:
            raise ArgError(i, "must extend prefix by at least one bit")
        newlen = net.prefixlen + newbits
        if newlen > net.max_prefixlen:
            raise ArgError(
                i, f"would extend prefix to {newlen} bits, which is too long for an IPv{net.version} address"
            )
        size = 1 << (net.max_prefixlen - newlen)
        pos = -(-pos // size) * size  # align up to the subnet's own boundary
        if pos + size > end:
            raise ArgError(
                i,
                f"not enough remaining address space for a subnet with a prefix of {newlen} bits after {out[-1] if out else net}",
            )
        out.append(f"{_addr(net, pos)}/{newlen}")
        pos += size
    return out


def _cidrcontains(a: Args, _c: FunctionContext) -> bool:
    """Whether an address, or every address of a prefix, is inside the prefix (OpenTofu's function)."""
    net = _parse(a[0], 0)
    text = want_str(a[1], 1)
    try:
        inner = _parse_text(text) if "/" in text else ipaddress.ip_network(
            text if ":" in text else _IPV4_LEADING_ZERO.sub("", text))
    except ValueError as exc:
        raise ArgError(1, f'invalid IP address or prefix "{text}": {exc}') from exc
    if inner.version != net.version:
        raise ArgError(1, f"address family mismatch: {net} vs. {text}")
    return inner.prefixlen >= net.prefixlen and inner.network_address in net


FUNCTIONS = {
    "cidrcontains": fn(_cidrcontains, "containing_prefix", "contained_ip_or_prefix"),
    "cidrhost": fn(_cidrhost, "prefix", "hostnum"),
    "cidrnetmask": fn(_cidrnetmask, "prefix"),
    "cidrsubnet": fn(_cidrsubnet, "prefix", "newbits", "netnum"),
    "cidrsubnets": fn(_cidrsubnets, "prefix", variadic="newbits"),
}
