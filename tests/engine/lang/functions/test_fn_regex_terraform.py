"""regex, regexall and replace give Terraform's values and refuse what Terraform refuses.

Terraform 1.0.3 (the test extra) evaluates the same calls as outputs; its ``output -json`` is the
expected value for each, and its error text for each bad pattern names the same problem as ours.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function
from tests.plugin.terraform_cli import TerraformDir

CTX = FunctionContext(base_dir=Path("."), module_dir=Path("."))

# (function, arguments): each becomes one output in Terraform and one call in ctl.
CALLS: list[tuple[str, list[str]]] = [
    ("regexall", ["a*", "baaab"]),
    ("regexall", ["(?m)^a$", "a\na\nb"]),
    ("regexall", ["a$", "a\n"]),
    ("regexall", ["(\\w)=(\\d)", "a=1 b=2 c=x"]),
    ("regexall", ["(?P<k>\\w+)=(?P<v>\\d+)", "ab=12 c=3"]),
    ("regexall", ["x*", ""]),
    ("regexall", ["\\b\\w", "hello big world"]),
    ("regexall", ["[[:upper:]][[:lower:]]+", "Hello World FOO"]),
    ("regex", ["\\pL+", "123héllo"]),
    ("regex", ["(?i)straße", "STRAßE"]),
    ("regex", ["\\d+", "\u0663\u0664 42"]),
    ("regex", ["\\Qa.b\\E", "xa.by"]),
    ("regex", ["(?s)a.b", "a\nb"]),
    ("regex", ["(a)|(b)", "b"]),
    ("regex", ["^(?:(?P<scheme>[^:/?#]+):)?(?://(?P<host>[^/?#]*))?", "https://example.com/x"]),
    ("regex", ["[^\\x00-\\x7f]+", "abc€def"]),
    ("replace", ["baaab", "/a*/", "-"]),
    ("replace", ["abc", "/x*/", "-"]),
    ("replace", ["hello world", "/(\\w+) (\\w+)/", "$2 $1 $$"]),
    ("replace", ["key=value", "/(?P<k>\\w+)=(?P<v>\\w+)/", "${v}=${k} $3"]),
    ("replace", ["a.b.c", "/\\./", "\\"]),
    ("replace", ["aaa", "/a/", "$0"]),
]

# Patterns Terraform refuses, with the words its message and ours share.
BAD_PATTERNS: list[tuple[str, str]] = [
    ("(a)\\1", "invalid escape sequence"),
    ("(?=a)", "invalid or unsupported Perl syntax"),
    ("a(", "missing closing )"),
    ("[a", "missing closing ]"),
    ("a**", "invalid nested repetition operator"),
    ("x{1001}", "invalid repeat count"),
    ("a)", "unexpected )"),
    ("(?P<n>a)(b)", "cannot mix both named and unnamed capture groups"),
]


def _hcl_string(text: str) -> str:
    """A quoted HCL string for ``text`` (JSON escapes, plus the template sequences HCL would read)."""
    return json.dumps(text, ensure_ascii=False).replace("${", "$${").replace("%{", "%%{")


def test_values_equal_terraforms(tmp_path: Path, plugin_dir: Path) -> None:
    tf = TerraformDir(tmp_path, plugin_dir)
    tf.write(
        "\n".join(
            f'output "o{i}" {{ value = {name}({", ".join(_hcl_string(a) for a in args)}) }}'
            for i, (name, args) in enumerate(CALLS)
        )
    )
    tf.apply()
    expected = json.loads(tf.run("output", "-json").stdout)
    for i, (name, args) in enumerate(CALLS):
        ours = call_function(name, list(args), CTX)
        assert ours == expected[f"o{i}"]["value"], f"{name}{tuple(args)}"


@pytest.mark.parametrize(("pattern", "words"), BAD_PATTERNS)
def test_bad_patterns_are_refused_with_terraforms_words(tmp_path: Path, plugin_dir: Path, pattern: str,
                                                        words: str) -> None:
    tf = TerraformDir(tmp_path, plugin_dir)
    tf.write(f'output "o" {{ value = regex({_hcl_string(pattern)}, "a") }}')
    theirs = " ".join(tf.apply(expect=1).output.split())
    assert words in theirs
    with pytest.raises(FunctionError) as exc:
        call_function("regex", [pattern, "a"], CTX)
    assert words in str(exc.value)
    assert exc.value.arg_index == 0
