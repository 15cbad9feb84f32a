"""CIDR functions, checked against the examples in Terraform's function documentation."""

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
    with pytest.raises(FunctionError, match="IPv4"):
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
    assert exc.value.arg_index == 0


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
