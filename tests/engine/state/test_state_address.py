"""Resource-instance addresses: the strings users type and state files store."""

from __future__ import annotations

import pytest

from engine.state.address import AddressError, InstanceAddress, format_module, parse_module

ROUND_TRIPS = [
    "aws_s3_bucket.logs",
    "aws_s3_bucket.logs[0]",
    "aws_s3_bucket.logs[12]",
    'random_id.a["k"]',
    "data.local_file.x",
    "data.local_file.x[3]",
    'module.net["a"].aws_s3_bucket.logs[0]',
    "module.net.aws_s3_bucket.logs",
    'module.net[0].module.dns["eu-west-1"].data.aws_zone.main["x"]',
    'random_id.a["with.dots[and]brackets"]',
    'random_id.a["quote \\" and backslash \\\\"]',
    'random_id.a["üñí ☃"]',
    'random_id.a[""]',
    "my-provider_thing.with-dash_name",
]


@pytest.mark.parametrize("text", ROUND_TRIPS)
def test_parse_then_format_gives_the_same_text(text: str) -> None:
    assert str(InstanceAddress.parse(text)) == text


def test_parts_are_exposed() -> None:
    a = InstanceAddress.parse('module.net["a"].module.dns[0].data.aws_zone.main["x"]')
    assert a.module == (("net", "a"), ("dns", 0))
    assert (a.mode, a.type, a.name, a.key) == ("data", "aws_zone", "main", "x")
    assert a.module_str == 'module.net["a"].module.dns[0]'
    assert a.resource_str == 'module.net["a"].module.dns[0].data.aws_zone.main'


def test_count_index_and_string_key_stay_distinct() -> None:
    assert InstanceAddress.parse("a_b.c[1]").key == 1
    assert InstanceAddress.parse('a_b.c["1"]').key == "1"
    assert InstanceAddress.parse("a_b.c[1]") != InstanceAddress.parse('a_b.c["1"]')


def test_built_addresses_format_like_terraform() -> None:
    a = InstanceAddress((("net", "a"),), "managed", "aws_s3_bucket", "logs", 0)
    assert str(a) == 'module.net["a"].aws_s3_bucket.logs[0]'
    assert InstanceAddress.parse(str(a)) == a


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("aws_s3_bucket", "type and name"),
        ("aws_s3_bucket.logs.extra", "type and name"),
        ("aws_s3_bucket.logs[", "index must be"),
        ('aws_s3_bucket.logs["a', "unterminated"),
        ("aws_s3_bucket.logs[a]", "index must be"),
        ("aws_s3_bucket.logs[0", 'expected "]"'),
        ("aws_s3_bucket[0].logs", "cannot have an index"),
        ("module.net", "type and name"),
        ("module[0].net.a.b", "after the module name"),
        ("aws s3.logs", "unexpected"),
        ("1abc.logs", "expected a name"),
        ("aws_s3_bucket..logs", "expected a name"),
    ],
)
def test_malformed_addresses_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(AddressError) as err:
        InstanceAddress.parse(text)
    assert reason in err.value.summary
    assert repr(text) in err.value.summary
    assert "aws_s3_bucket.logs" in err.value.hint


def test_module_paths_round_trip() -> None:
    assert parse_module("") == ()
    text = 'module.a.module.b["x"].module.c[2]'
    assert format_module(parse_module(text)) == text
    with pytest.raises(AddressError):
        parse_module("module.a.aws_vpc.main")


def test_the_one_step_parse_of_common_addresses_agrees_with_the_scanner() -> None:
    """Root-module addresses with no key or a count index skip the scanner; every string of a few
    tricky pieces must parse (or be refused) exactly as the scanner alone would."""
    import itertools

    from engine.state import address

    def scanned(text: str) -> InstanceAddress | str:
        simple = address._SIMPLE
        address._SIMPLE = address.re.compile(r"(?!)")  # matches nothing: the scanner only
        try:
            return InstanceAddress.parse(text)
        except AddressError:
            return "refused"
        finally:
            address._SIMPLE = simple

    def parsed(text: str) -> InstanceAddress | str:
        try:
            return InstanceAddress.parse(text)
        except AddressError:
            return "refused"

    pieces = ["data", "module", "a", "b_1", "x-y", "1a", "[0]", "[01]", '["k"]', "é", "[", "[-1]", "[\u0661]"]  # an Arabic-Indic digit one
    for n in range(1, 5):
        for combo in itertools.product(pieces, repeat=n):
            for sep in (".", ""):
                text = sep.join(combo)
                assert parsed(text) == scanned(text), text
    assert InstanceAddress.parse("data.x.y[3]") == InstanceAddress((), "data", "x", "y", 3)
