"""The built-in provider's functions, ``provider::terraform::…``, as Terraform 1.8 and OpenTofu 1.7 have them.

The expression corpus (tests/fixtures/expressions/language.tf) checks their output against OpenTofu;
these check the edges: unknowns, refusals, and that what one encodes the other decodes.
"""

from __future__ import annotations

import pytest

from engine.plugins.terraform_functions import TerraformFunctionError, builtin
from vocab.values import SENSITIVE, UNKNOWN, Unknown, mark, unmark


def call(name: str, *args: object) -> object:
    fn = builtin(name)
    assert fn is not None
    return fn(list(args))


def test_encode_tfvars_aligns_and_decode_tfvars_reads_it_back() -> None:
    value = {"a": "b", "long_name": 1, "l": [1, "x", True, None], "o": {"k": "v", "a b": {"z": 2}},
             "t": "${x} %{y}\n\t\"q\""}
    text = call("encode_tfvars", value)
    assert text == ('a         = "b"\nl         = [1, "x", true, null]\nlong_name = 1\no = {\n  "a b" = {\n'
                    '    z = 2\n  }\n  k = "v"\n}\nt = "$${x} %%{y}\\n\\t\\"q\\""\n')
    assert call("decode_tfvars", text) == value


def test_encode_expr_writes_one_expression() -> None:
    assert call("encode_expr", {"a": [1, "x"]}) == '{\n  a = [1, "x"]\n}'
    assert [call("encode_expr", v) for v in ("s", 1.5, [], {})] == ['"s"', "1.5", "[]", "{}"]


def test_a_sensitive_argument_gives_a_sensitive_result() -> None:
    value, marks = unmark(call("encode_expr", {"a": mark("secret", frozenset({SENSITIVE}))}))
    assert value == '{\n  a = "secret"\n}' and SENSITIVE in marks


def test_unknown_arguments_give_unknown_results() -> None:
    assert isinstance(call("encode_expr", [1, UNKNOWN]), Unknown)
    assert isinstance(call("decode_tfvars", UNKNOWN), Unknown)


@pytest.mark.parametrize(("name", "arg", "message"), [
    ("encode_expr", None, "must not be null"),
    ("encode_tfvars", [1], "requires an object"),
    ("encode_tfvars", {"not a name": 1}, "invalid variable name"),
    ("decode_tfvars", "a = var.x\n", 'invalid expression for variable "a"'),
    ("decode_tfvars", 'block {\n}\n', "blocks are not allowed"),
    ("decode_tfvars", "a = = 1\n", "invalid tfvars syntax"),
])
def test_refusals(name: str, arg: object, message: str) -> None:
    with pytest.raises(TerraformFunctionError, match=message):
        call(name, arg)


def test_other_names_are_not_functions_of_the_built_in_provider() -> None:
    assert builtin("tfvarsencode") is None
