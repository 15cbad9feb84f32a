"""regex, regexall and replace, with RE2 pattern semantics as Terraform documents them."""

from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))


def call(name: str, *args: object) -> object:
    return call_function(name, list(args), CTX)


def test_no_capture_groups_returns_the_whole_match() -> None:
    assert call("regex", "[a-z]+", "53453453.345345aaabbbccc23454") == "aaabbbccc"


def test_unnamed_groups_return_a_list() -> None:
    assert call("regex", "(\\d\\d\\d\\d)-(\\d\\d)-(\\d\\d)", "2019-02-01") == ["2019", "02", "01"]


def test_named_groups_return_a_map() -> None:
    pattern = "^(?:(?P<scheme>[^:/?#]+):)?(?://(?P<authority>[^/?#]*))?"
    assert call("regex", pattern, "https://terraform.io/docs/") == {
        "authority": "terraform.io",
        "scheme": "https",
    }


def test_no_match_is_an_error() -> None:
    with pytest.raises(FunctionError, match="did not match"):
        call("regex", "[a-z]+", "53453453.34534523454")


def test_mixing_named_and_unnamed_groups_is_an_error() -> None:
    with pytest.raises(FunctionError) as exc:
        call("regex", "(?P<a>x)(y)", "xy")
    assert exc.value.arg_index == 0


def test_invalid_pattern_is_an_argument_error() -> None:
    with pytest.raises(FunctionError, match="invalid regexp pattern: missing closing \\) in \\(") as exc:
        call("regex", "(", "x")
    assert exc.value.arg_index == 0


def test_regexall() -> None:
    assert call("regexall", "[a-z]+", "1234abcd5678efgh9") == ["abcd", "efgh"]
    assert call("length", call("regexall", "[a-z]+", "1234abcd5678efgh9")) == 2
    assert call("regexall", "[a-z]+", "123456789") == []


def test_regexall_with_groups_returns_lists_and_maps() -> None:
    assert call("regexall", "(\\w)=(\\d)", "a=1 b=2") == [["a", "1"], ["b", "2"]]
    assert call("regexall", "(?P<k>\\w)=(?P<v>\\d)", "a=1") == [{"k": "a", "v": "1"}]


def test_re2_classes_are_ascii_and_posix_classes_work() -> None:
    assert call("regex", "\\d+", "\u0663\u0664 42") == "42"
    assert call("regex", "[[:digit:]]+", "ab123c") == "123"
    assert call("regex", "[[:alpha:]]+", "12abc3") == "abc"


def test_dollar_matches_only_at_the_end_of_the_text() -> None:
    assert call("regexall", "a$", "a\n") == []
    assert call("regexall", "(?m)a$", "a\nba") == ["a", "a"]


def test_literal_quoting_and_end_of_text() -> None:
    assert call("regex", "\\Qa.b\\E", "xa.by") == "a.b"
    assert call("regexall", "b\\z", "ab\nab") == ["b"]


def test_flags() -> None:
    assert call("regex", "(?i)hello", "HeLLo") == "HeLLo"
    assert call("regex", "(?s)a.b", "a\nb") == "a\nb"


def test_flags_may_appear_mid_pattern_and_apply_to_the_rest_of_the_group() -> None:
    assert call("regex", "abc(?i)def", "abcDEF") == "abcDEF"
    assert call("regexall", "abc(?i)def", "ABCdef") == []
    assert call("regexall", "a(?i)b|c", "aB C") == ["aB", "C"]


def test_unterminated_character_class_is_invalid() -> None:
    with pytest.raises(FunctionError, match="invalid regexp pattern: missing closing \\] in \\[abc"):
        call("regex", "[abc", "a")


def test_replace_documented_examples() -> None:
    assert call("replace", "1 + 2 + 3", "+", "-") == "1 - 2 - 3"
    assert call("replace", "hello world", "/w.*d/", "everybody") == "hello everybody"


def test_replace_substitutes_capture_groups() -> None:
    assert call("replace", "2019-02-01", "/(\\d+)-(\\d+)-(\\d+)/", "$3.$2.$1") == "01.02.2019"
    assert call("replace", "key=value", "/(?P<k>\\w+)=(?P<v>\\w+)/", "${v}=${k}") == "value=key"
    assert call("replace", "a", "/a/", "$$1") == "$1"


def test_replace_without_slashes_is_literal() -> None:
    assert call("replace", "a.b.c", ".", "-") == "a-b-c"
    assert call("replace", "/", "/", "x") == "x"


def test_a_catastrophic_pattern_runs_in_linear_time() -> None:
    # Backtracking engines take exponential time here; RE2 answers at once (pytest-timeout guards).
    with pytest.raises(FunctionError, match="did not match"):
        call("regex", "(a+)+$", "a" * 100_000 + "!")
    assert call("replace", "a" * 100_000 + "!", "/(a|aa)+$/", "x") == "a" * 100_000 + "!"


def test_backreferences_and_lookaround_are_refused_as_terraform_does() -> None:
    with pytest.raises(FunctionError, match=r"invalid escape sequence in \\1"):
        call("regex", "(a)\\1", "aa")
    with pytest.raises(FunctionError, match=r"invalid or unsupported Perl syntax in \(\?="):
        call("regex", "(?=a)", "a")


def test_unicode_classes_and_empty_matches_next_to_a_match() -> None:
    assert call("regex", "\\pL+", "123héllo") == "héllo"
    assert call("regexall", "a*", "baaab") == ["", "aaa", ""]
    assert call("replace", "baaab", "/a*/", "-") == "-b-b-"
