"""CIDR functions, checked against the examples in Terraform's function documentation and against
what OpenTofu 1.12.6 and Terraform 1.0.3 answer for IPv4-mapped IPv6 prefixes (``::ffff:a.b.c.d``)."""

import re
from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


@pytest.mark.parametrize(
    ("prefix", "hostnum", "expected"),
    [
        ("10.12.112.0/20", 16, "10.12.112.16"),
        ("10.12.112.0/20", 268, "10.12.113.12"),
        ("fd00:fd12:3456:7890:00a2::/72", 34, "fd00:fd12:3456:7890::22"),
        ("10.0.0.0/8", 2, "10.0.0.2"),
        ("10.0.0.0/8", -2, "10.255.255.254"),
        ("10.1.2.240/28", 1, "10.1.2.241"),
        ("10.1.2.240/28", 14, "10.1.2.254"),
    ],
)
def test_cidrhost(prefix: str, hostnum: int, expected: str) -> None:
    assert call("cidrhost", prefix, hostnum) == expected


def test_cidrhost_out_of_range() -> None:
    with pytest.raises(FunctionError, match="does not accommodate") as exc:
        call("cidrhost", "10.1.2.240/28", 16)
    assert exc.value.arg_index is None  # the call fails as a whole, as cty's cidrhost says


def test_cidrnetmask() -> None:
    assert call("cidrnetmask", "172.16.0.0/12") == "255.240.0.0"
    with pytest.raises(FunctionError, match="IPv6 addresses cannot have a netmask: fd00::/8"):
        call("cidrnetmask", "fd00::/8")


@pytest.mark.parametrize(
    ("prefix", "newbits", "netnum", "expected"),
    [
        ("172.16.0.0/12", 4, 2, "172.18.0.0/16"),
        ("10.1.2.0/24", 4, 15, "10.1.2.240/28"),
        ("fd00:fd12:3456:7890::/56", 16, 162, "fd00:fd12:3456:7800:a200::/72"),
        ("10.1.2.5/24", 0, 0, "10.1.2.0/24"),
        ("010.001.0.0/16", 8, 1, "10.1.1.0/24"),
    ],
)
def test_cidrsubnet(prefix: str, newbits: int, netnum: int, expected: str) -> None:
    assert call("cidrsubnet", prefix, newbits, netnum) == expected


def test_cidrsubnet_errors() -> None:
    with pytest.raises(FunctionError, match="does not accommodate") as exc:
        call("cidrsubnet", "10.1.2.0/24", 4, 16)
    assert exc.value.arg_index is None
    with pytest.raises(FunctionError, match="insufficient address space") as exc:
        call("cidrsubnet", "10.1.2.0/24", 9, 0)
    assert exc.value.arg_index is None
    with pytest.raises(FunctionError, match="invalid CIDR") as exc:
        call("cidrsubnet", "10.1.2.0", 4, 1)
    assert exc.value.arg_index is None


def test_cidrsubnets() -> None:
    assert call("cidrsubnets", "10.1.0.0/16", 4, 4, 8, 4) == [
        "10.1.0.0/20",
        "10.1.16.0/20",
        "10.1.32.0/24",
        "10.1.48.0/20",
    ]
    assert call("cidrsubnets", "fd00:fd12:3456:7890::/56", 16, 16, 16, 32) == [
        "fd00:fd12:3456:7800::/72",
        "fd00:fd12:3456:7800:100::/72",
        "fd00:fd12:3456:7800:200::/72",
        "fd00:fd12:3456:7800:300::/88",
    ]


def test_nested_cidrsubnets() -> None:
    outer = call("cidrsubnets", "10.0.0.0/8", 8, 8, 8, 8)
    assert [call("cidrsubnets", block, 4, 4) for block in outer] == [
        ["10.0.0.0/20", "10.0.16.0/20"],
        ["10.1.0.0/20", "10.1.16.0/20"],
        ["10.2.0.0/20", "10.2.16.0/20"],
        ["10.3.0.0/20", "10.3.16.0/20"],
    ]


def test_cidrsubnets_runs_out_of_space() -> None:
    with pytest.raises(FunctionError, match="not enough remaining address space") as exc:
        call("cidrsubnets", "10.0.0.0/24", 1, 1, 1)
    assert exc.value.arg_index == 3


def test_cidrcontains() -> None:
    assert call("cidrcontains", "10.0.0.0/8", "10.1.2.3") is True
    assert call("cidrcontains", "10.0.0.0/8", "11.0.0.0") is False
    assert call("cidrcontains", "10.0.0.0/8", "10.1.0.0/16") is True
    assert call("cidrcontains", "10.0.0.0/16", "10.0.0.0/8") is False
    assert call("cidrcontains", "fd00::/8", "fd00::1") is True
    with pytest.raises(FunctionError, match="address family mismatch"):
        call("cidrcontains", "10.0.0.0/8", "fd00::1")
    with pytest.raises(FunctionError, match="invalid IP address"):
        call("cidrcontains", "10.0.0.0/8", "10.0.0")


@pytest.mark.parametrize(
    ("prefix", "hostnum", "expected"),
    [
        # The host number lands past the IPv4 part, at bit 96: the references' answer, not ::ffff:a00:5.
        ("::ffff:10.0.0.0/104", 5, "0:5::ffff:a00:0"),
        ("::ffff:10.0.0.0/104", -1, "ff:ffff::ffff:a00:0"),
        ("::ffff:0:0/96", 5, "0:5::ffff:0:0"),
        # An IPv4-mapped result prints as IPv4, whatever the prefix's family.
        ("::ffff:10.0.0.0/104", 0, "10.0.0.0"),
        ("::ffff:1.2.3.4/128", 0, "1.2.3.4"),
        ("::/0", 0xFFFF_0A00_0005, "10.0.0.5"),
        ("::ffff:010.0.0.0/104", 5, "0:5::ffff:a00:0"),
        ("::1.2.3.4/128", 0, "::102:304"),
    ],
)
def test_cidrhost_ipv4_mapped(prefix: str, hostnum: int, expected: str) -> None:
    assert call("cidrhost", prefix, hostnum) == expected


def test_cidrhost_refusals_name_the_number_the_references_name() -> None:
    with pytest.raises(FunctionError, match="prefix of 104 does not accommodate a host numbered 16777216"):
        call("cidrhost", "::ffff:10.0.0.0/104", 1 << 24)
    # A negative number is counted back from the last address; the message shows where it landed.
    with pytest.raises(FunctionError, match="prefix of 24 does not accommodate a host numbered -44"):
        call("cidrhost", "10.0.0.0/24", -300)
    # Numbers the references cannot place (they fail inside the function) are refused, not wrapped.
    with pytest.raises(FunctionError, match="does not accommodate a host numbered 9223372036854775808"):
        call("cidrhost", "10.0.0.0/8", 1 << 63)


@pytest.mark.parametrize(
    ("prefix", "newbits", "netnum", "expected"),
    [
        ("::ffff:10.0.0.0/104", 8, 1, "10.1.0.0/16"),
        ("::ffff:10.0.0.0/104", 0, 0, "10.0.0.0/8"),
        ("::ffff:10.0.0.0/96", 1, 1, "128.0.0.0/1"),
        ("::/64", 32, 0xFFFF, "0.0.0.0/0"),
        ("10.0.0.0/16", 8, -1, "0.0.1.0/24"),
        ("10.0.0.0/16", -8, 0, "10.0.0.0/8"),
    ],
)
def test_cidrsubnet_as_the_references(prefix: str, newbits: int, netnum: int, expected: str) -> None:
    assert call("cidrsubnet", prefix, newbits, netnum) == expected


def test_cidrnetmask_of_an_ipv4_mapped_prefix_is_its_whole_mask() -> None:
    assert call("cidrnetmask", "::ffff:10.0.0.0/104") == "ffff:ffff:ffff:ffff:ffff:ffff:ff00:0"
    assert call("cidrnetmask", "::ffff:10.0.0.0/96") == "ffff:ffff:ffff:ffff:ffff:ffff::"


def test_cidrsubnets_of_an_ipv4_mapped_prefix_is_refused() -> None:
    with pytest.raises(FunctionError, match="prefix of 112 bits after <nil>") as exc:
        call("cidrsubnets", "::ffff:10.0.0.0/104", 8, 8)
    assert exc.value.arg_index == 1
    # Stepping from an IPv6 subnet into the IPv4-mapped range leaves the base prefix, as in the references.
    with pytest.raises(FunctionError, match="prefix of 96 bits after ::fffe:0:0/96") as exc:
        call("cidrsubnets", "::ffff:0:0/95", 1, 1)
    assert exc.value.arg_index == 2


def test_cidrsubnets_extends_by_at_most_32_bits() -> None:
    with pytest.raises(FunctionError, match="may not extend prefix by more than 32 bits"):
        call("cidrsubnets", "fd00::/8", 33)


@pytest.mark.parametrize(
    ("prefix", "inner", "expected"),
    [
        ("10.0.0.0/8", "::ffff:10.0.0.1", True),
        ("::ffff:10.0.0.0/104", "10.0.0.1", True),
        ("::ffff:10.0.0.0/104", "::ffff:10.0.0.1", True),
        ("::ffff:10.0.0.0/104", "11.0.0.1", False),
        ("10.0.0.0/8", "::ffff:10.1.0.0/112", True),
        ("::ffff:10.0.0.0/104", "10.0.0.0/7", False),
        ("::ffff:0:0/96", "1.2.3.4", True),
    ],
)
def test_cidrcontains_ipv4_mapped_is_ipv4(prefix: str, inner: str, expected: bool) -> None:
    assert call("cidrcontains", prefix, inner) is expected


@pytest.mark.parametrize(
    ("prefix", "inner"), [("::/0", "::ffff:10.0.0.1"), ("::ffff:10.0.0.0/104", "2001::1"), ("::ffff:0:0/95", "1.2.3.4")]
)
def test_cidrcontains_family_mismatch_with_ipv4_mapped(prefix: str, inner: str) -> None:
    with pytest.raises(FunctionError, match=f"address family mismatch: {re.escape(prefix)} vs. {re.escape(inner)}"):
        call("cidrcontains", prefix, inner)


@pytest.mark.parametrize(
    "prefix", ["fe80::1%eth0/64", "10.0.0.0/", "10.0.0.0", "1.2.3.4.5/8", "::1:2:3:4:5:6:7:8/128",
               "1::2::3/128", "::ffff:1.2.3/128", "1.2.3.4::/128", "::ffff:1.2.3.4:5/128", "10.0.0.0/33"],
)
def test_prefixes_the_references_refuse(prefix: str) -> None:
    with pytest.raises(FunctionError, match=f"invalid CIDR expression: invalid CIDR address: {re.escape(prefix)}"):
        call("cidrhost", prefix, 0)
