"""Terraform's JSON configuration syntax and its YAML form: structure, templates, scalars, positions."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from engine.config.json_syntax import parse_json_file
from engine.config.language import FILE_SCHEMA
from engine.config.structured import parse_yaml_file
from engine.lang import ast
from engine.lang.eval import EvalContext, EvalError, evaluate
from engine.lang.syntax import Block, Body
from vocab.errors import DiagnosticsError

SCOPE = {"var": {"env": "dev", "names": ["a", "b"]}}


def json_body(text: str) -> Body:
    return parse_json_file(textwrap.dedent(text).lstrip("\n").encode(), "main.tf.json", FILE_SCHEMA)


def yaml_body(text: str) -> Body:
    return parse_yaml_file(textwrap.dedent(text).lstrip("\n").encode(), "main.yaml", FILE_SCHEMA)


def value(expr: ast.Expr) -> Any:
    return evaluate(expr, EvalContext(variables=SCOPE))


def block(body: Body, block_type: str, *labels: str) -> Block:
    return next(b for b in body.blocks if b.type == block_type and b.labels == list(labels))


def first_error(call: Any, text: str) -> tuple[str, str]:
    with pytest.raises(DiagnosticsError) as info:
        call(text)
    d = info.value.diagnostics()[0]
    return str(d.range), d.summary


# ---- JSON -------------------------------------------------------------------------------------


JSON_CONFIG = """
{
  "//": "A comment property is ignored.",
  "variable": {
    "env": {"type": "string", "default": "${not_a_template}"},
    "sizes": {"type": "map(number)", "default": {"small": 1}}
  },
  "locals": {
    "name": "logs-${var.env}",
    "plain": "no template",
    "count": 3,
    "//": "ignored here too"
  },
  "resource": {
    "local_file": {
      "a": {
        "filename": "out/${var.env}.txt",
        "tags": {"team": "core", "//": "not a tag"},
        "lifecycle": {"create_before_destroy": true},
        "provisioner": {"local-exec": [{"command": "echo one"}, {"command": "echo two"}]}
      },
      "b": [
        {"filename": "first"},
        {"filename": "second"}
      ]
    }
  }
}
"""


def test_json_top_level_blocks_and_labels() -> None:
    body = json_body(JSON_CONFIG)
    assert [(b.type, b.labels) for b in body.blocks] == [
        ("variable", ["env"]),
        ("variable", ["sizes"]),
        ("locals", []),
        ("resource", ["local_file", "a"]),
        ("resource", ["local_file", "b"]),
        ("resource", ["local_file", "b"]),
    ]
    assert body.attributes == {}


def test_json_strings_are_templates_but_variable_defaults_are_literal() -> None:
    body = json_body(JSON_CONFIG)
    locals_ = block(body, "locals").body.attributes
    assert list(locals_) == ["name", "plain", "count"]  # the "//" comment is dropped
    assert value(locals_["name"].expr) == "logs-dev"
    assert value(locals_["plain"].expr) == "no template"
    assert value(locals_["count"].expr) == 3
    default = block(body, "variable", "env").body.attributes["default"].expr
    assert isinstance(default, ast.Literal) and default.value == "${not_a_template}"


def test_json_blocks_versus_attributes_follow_the_schema() -> None:
    res = block(json_body(JSON_CONFIG), "resource", "local_file", "a").body
    # "tags" is an ordinary object argument; "lifecycle" and "provisioner" are blocks.
    assert sorted(res.attributes) == ["filename", "tags"]
    assert value(res.attributes["tags"].expr) == {"team": "core"}
    assert [(b.type, b.labels) for b in res.blocks] == [
        ("lifecycle", []),
        ("provisioner", ["local-exec"]),
        ("provisioner", ["local-exec"]),
    ]
    assert value(res.blocks[0].body.attributes["create_before_destroy"].expr) is True
    assert [value(b.body.attributes["command"].expr) for b in res.blocks[1:]] == ["echo one", "echo two"]


def test_json_an_array_of_bodies_is_several_blocks() -> None:
    body = json_body(JSON_CONFIG)
    bodies = [b.body for b in body.blocks if b.labels == ["local_file", "b"]]
    assert [value(b.attributes["filename"].expr) for b in bodies] == ["first", "second"]


def test_json_positions_of_blocks_attributes_and_template_parts() -> None:
    body = json_body(JSON_CONFIG)
    res = block(body, "resource", "local_file", "a")
    assert str(res.rng) == "main.tf.json:15:7"  # the innermost label: "a"
    filename = res.body.attributes["filename"]
    assert str(filename.name_rng) == "main.tf.json:16:9"
    # The string's text starts at column 22, so the reference after "out/${" is at column 28.
    tpl = filename.expr
    assert isinstance(tpl, ast.Template)
    ref = next(p for p in tpl.parts if isinstance(p, ast.Expr))
    assert str(ref.rng) == "main.tf.json:16:28"


def test_structured_ranges_carry_byte_offsets_in_the_file() -> None:
    text = '{"locals": {"é": "x", "a": "${var.one}", "b": "${var.two}"}}'
    attrs = block(parse_json_file(text.encode(), "main.tf.json", FILE_SCHEMA), "locals").body.attributes
    data = text.encode()
    for name, ref in (("a", b"var.one"), ("b", b"var.two")):
        expr = attrs[name].expr
        assert isinstance(expr, ast.TemplateWrap)
        assert expr.inner.rng.start.byte == data.index(ref)
        assert expr.inner.rng.end.byte == data.index(ref) + len(ref)
    assert attrs["a"].name_rng.start.byte == data.index(b'"a"')


def test_json_evaluation_error_points_inside_the_string() -> None:
    body = json_body('{\n  "locals": {\n    "x": "value: ${var.missing}"\n  }\n}\n')
    expr = block(body, "locals").body.attributes["x"].expr
    with pytest.raises(EvalError) as info:
        value(expr)
    # The string's text starts at column 11; ".missing" is at column 23.
    assert str(info.value.range) == "main.tf.json:3:23"


@pytest.mark.parametrize(
    ("text", "where", "summary"),
    [
        ('{\n  "a": 1,\n  "b": [1, 2,]\n}\n', "main.tf.json:3:14", "Invalid JSON: Expecting value"),
        ('{\n  "a": 1\n  "b": 2\n}\n', "main.tf.json:3:3", "Invalid JSON: Expecting ',' delimiter"),
        ('{\n  "locals": {"a": 1}\n', "main.tf.json:3:1", "Invalid JSON: Expecting ',' delimiter"),
    ],
)
def test_json_syntax_errors_have_line_and_column(text: str, where: str, summary: str) -> None:
    assert first_error(lambda t: parse_json_file(t.encode(), "main.tf.json", FILE_SCHEMA), text) == (where, summary)


def test_json_top_level_must_be_an_object() -> None:
    where, summary = first_error(lambda t: parse_json_file(t.encode(), "main.tf.json", FILE_SCHEMA), "[1, 2]\n")
    assert (where, summary) == ("main.tf.json:1:1", "The top level of a JSON configuration must be an object")


def test_json_duplicate_keys_are_recorded_for_the_decoder() -> None:
    body = json_body('{"locals": {"a": 1, "a": 2}}')
    dupes = block(body, "locals").body.duplicates
    assert [(a.name, str(b.name_rng)) for a, b in dupes] == [("a", "main.tf.json:1:21")]


def test_json_empty_file_is_an_empty_body() -> None:
    body = parse_json_file(b"{}", "main.tf.json", FILE_SCHEMA)
    assert not body.blocks and body.attributes == {}


# ---- YAML -------------------------------------------------------------------------------------


YAML_CONFIG = """
# a YAML comment
variable:
  env:
    type: string
    default: "${not_a_template}"
locals:
  name: "logs-${var.env}"
  bare: plain ${var.env} text
  enabled: true
  yes_word: yes
  on_word: on
  mode: 0644
  quoted_true: "true"
  count: 10
  ratio: 1.5
  big: 1e3
  nothing: null
  tilde: ~
  list: [a, "${var.env}"]
  script: |
    echo ${var.env}
    echo done
resource:
  local_file:
    a:
      filename: out.txt
      lifecycle:
        prevent_destroy: true
    b:
      - filename: one
      - filename: two
"""


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("name", "logs-dev"),
        ("bare", "plain dev text"),
        ("enabled", True),
        ("yes_word", "yes"),  # YAML 1.2: only true/false are booleans
        ("on_word", "on"),
        ("mode", "0644"),  # a file mode stays a string, not octal 420
        ("quoted_true", "true"),
        ("count", 10),
        ("ratio", 1.5),
        ("big", 1000),
        ("nothing", None),
        ("tilde", None),
        ("list", ["a", "dev"]),
        ("script", "echo dev\necho done\n"),
    ],
)
def test_yaml_scalars_and_templates(name: str, expected: Any) -> None:
    attrs = block(yaml_body(YAML_CONFIG), "locals").body.attributes
    assert value(attrs[name].expr) == expected


def test_yaml_structure_matches_the_json_syntax() -> None:
    body = yaml_body(YAML_CONFIG)
    assert [(b.type, b.labels) for b in body.blocks] == [
        ("variable", ["env"]),
        ("locals", []),
        ("resource", ["local_file", "a"]),
        ("resource", ["local_file", "b"]),
        ("resource", ["local_file", "b"]),
    ]
    a = block(body, "resource", "local_file", "a").body
    assert list(a.attributes) == ["filename"]
    assert [b.type for b in a.blocks] == ["lifecycle"]
    default = block(body, "variable", "env").body.attributes["default"].expr
    assert isinstance(default, ast.Literal) and default.value == "${not_a_template}"


def test_yaml_positions_of_templates() -> None:
    attrs = block(yaml_body(YAML_CONFIG), "locals").body.attributes
    ref = next(p for p in attrs["name"].expr.parts if isinstance(p, ast.Expr))
    assert str(ref.rng) == "main.yaml:7:17"  # inside the double quotes that open at column 9
    bare = next(p for p in attrs["bare"].expr.parts if isinstance(p, ast.Expr))
    assert str(bare.rng) == "main.yaml:8:17"
    # A literal block scalar: the text starts on the next line, at the block's indentation.
    refs = [p for p in attrs["script"].expr.parts if isinstance(p, ast.Expr)]
    assert [str(r.rng) for r in refs] == ["main.yaml:21:12"]


def test_yaml_evaluation_error_points_inside_the_string() -> None:
    body = yaml_body('locals:\n  x: "value: ${var.missing}"\n')
    with pytest.raises(EvalError) as info:
        value(block(body, "locals").body.attributes["x"].expr)
    assert str(info.value.range) == "main.yaml:2:19"


@pytest.mark.parametrize(
    ("text", "where", "summary"),
    [
        ("locals:\n  b: 1\n c: 2\n", "main.yaml:3:2", "Invalid YAML: did not find expected key"),
        ("locals:\n  b: [1, 2\n", "main.yaml:3:1", "Invalid YAML: did not find expected ',' or ']'"),
        ('locals:\n  b: "unterminated\n', "main.yaml:3:1", "Invalid YAML: found unexpected end of stream"),
    ],
)
def test_yaml_syntax_errors_have_line_and_column(text: str, where: str, summary: str) -> None:
    assert first_error(lambda t: parse_yaml_file(t.encode(), "main.yaml", FILE_SCHEMA), text) == (where, summary)


def test_yaml_template_syntax_error_points_at_the_string() -> None:
    where, summary = first_error(
        lambda t: parse_yaml_file(t.encode(), "main.yaml", FILE_SCHEMA), 'locals:\n  x: "${var.env"\n'
    )
    assert (where, summary) == ("main.yaml:2:7", "Invalid syntax")


def test_yaml_top_level_must_be_a_mapping() -> None:
    where, summary = first_error(lambda t: parse_yaml_file(t.encode(), "main.yaml", FILE_SCHEMA), "- a\n- b\n")
    assert (where, summary) == ("main.yaml:1:1", "The top level of a YAML configuration must be an object")


def test_yaml_empty_document_is_an_empty_body() -> None:
    body = parse_yaml_file(b"# nothing yet\n", "main.yaml", FILE_SCHEMA)
    assert not body.blocks and body.attributes == {}
