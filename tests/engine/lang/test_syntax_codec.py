"""The parse cache's format: every tree comes back equal, positions included; bad input is refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest

from engine.lang import ast
from engine.lang.hcl import parse_hcl_file
from engine.lang.syntax_codec import Uncacheable, decode_body, encode_body
from vocab.errors import CtlError, SourceText

TESTS = Path(__file__).resolve().parents[2]

EVERY_CONSTRUCT = '''\
terraform {
  required_version = ">= 1.0"
}

variable "big" {
  default = 123456789012345678901234567890
}

locals {
  fraction = 0.1 + 2.5e-3
  negative = -9223372036854775809
  unicode  = "Grüße, ${var.name}!"
  heredoc  = <<-EOT
    %{ for k, v in var.tags ~}
    ${k}=${v}
    %{ endfor ~}
    %{ if var.on }on%{ else }off%{ endif }
  EOT
  splat    = aws_instance.web[*].id
  legacy   = aws_instance.web.*.id
  nested   = { (var.key) = [for i, x in var.xs : x * 2 if i > 0], "q" = !var.on }
  grouped  = { for x in var.xs : x.k => x.v... }
  call     = merge(var.a, var.b...)
  cond     = var.on ? try(var.x[0]["y"], null) : (var.z).w
}

resource "aws_instance" "web" {
  count = 2
  tags  = { Name = "web-${count.index}" }

  dynamic "ebs_block_device" {
    for_each = var.disks
    content {
      device_name = ebs_block_device.value.name
    }
  }

  lifecycle {
    ignore_changes = [tags["x"]]
  }
}
'''


def test_a_negative_number_is_never_read_as_a_range() -> None:
    """Ranges are written as negative ints; a negative literal in the tree must come back a number."""
    body = parse_hcl_file(b'locals {\n  a = -5\n}\n', "m.tf")
    expr = body.blocks[0].body.attributes["a"].expr
    negated = ast.Literal(expr._rng, -5)  # what constant folding could leave in a tree
    body.blocks[0].body.attributes["a"] = dataclasses.replace(body.blocks[0].body.attributes["a"], expr=negated)
    back = decode_body(orjson.loads(orjson.dumps(encode_body(body, "m.tf"))), SourceText("m.tf", b"x" * 40))
    assert back.blocks[0].body.attributes["a"].expr.value == -5


def roundtrip(src: str, filename: str = "main.tf") -> None:
    body = parse_hcl_file(src.encode(), filename)
    data = orjson.loads(orjson.dumps(encode_body(body, filename)))
    assert decode_body(data, SourceText(filename, src.encode())) == body  # node for node, every range and value


def test_every_construct_comes_back_equal_with_its_positions() -> None:
    roundtrip(EVERY_CONSTRUCT)


def test_numbers_keep_their_exact_values() -> None:
    src = 'locals {\n  a = 123456789012345678901234567890\n  b = 0.1\n}\n'
    body = parse_hcl_file(src.encode(), "n.tf")
    back = decode_body(orjson.loads(orjson.dumps(encode_body(body, "n.tf"))), SourceText("n.tf", src.encode()))
    (locals_block,) = back.blocks
    a = locals_block.body.attributes["a"].expr.value
    b = locals_block.body.attributes["b"].expr.value
    original_b = body.blocks[0].body.attributes["b"].expr.value
    assert a == 123456789012345678901234567890 and type(a) is int
    assert b.exact == original_b.exact  # the 512-bit value, not only the nearest double


@pytest.mark.parametrize("number", [0.5, 0.1, -0.0, 1e-300, 5e-324, 1.7976931348623157e308, -2.5e-3])
def test_a_plain_float_comes_back_the_same_double(number: float) -> None:
    """A YAML or JSON spec's fraction is a plain double (YAML 1.1's float, as it always was read)."""
    body = parse_hcl_file(b'locals {\n  a = 1\n}\n', "f.tf")
    attribute = body.blocks[0].body.attributes["a"]
    body.blocks[0].body.attributes["a"] = dataclasses.replace(attribute, expr=ast.Literal(attribute.expr._rng, number))
    back = decode_body(orjson.loads(orjson.dumps(encode_body(body, "f.tf"))), SourceText("f.tf", b"x" * 40))
    value = back.blocks[0].body.attributes["a"].expr.value
    assert type(value) is float and value.hex() == number.hex()  # the sign of zero included


def test_a_float_that_is_not_finite_is_not_cached() -> None:
    body = parse_hcl_file(b'locals {\n  a = 1\n}\n', "f.tf")
    attribute = body.blocks[0].body.attributes["a"]
    body.blocks[0].body.attributes["a"] = dataclasses.replace(attribute, expr=ast.Literal(attribute.expr._rng,
                                                                                          float("nan")))
    with pytest.raises(Uncacheable):
        encode_body(body, "f.tf")


def _parses(path: Path) -> bool:
    try:
        parse_hcl_file(path.read_bytes(), path.name)
    except CtlError:
        return False  # a deliberately broken file: never cached, since it does not parse
    return True


@pytest.mark.parametrize("path", [p for p in sorted(TESTS.rglob("*.tf")) if _parses(p)],
                         ids=lambda p: str(p.relative_to(TESTS)))
def test_every_configuration_in_the_tests_comes_back_equal(path: Path) -> None:
    roundtrip(path.read_bytes().decode(), path.name)


def test_a_file_with_a_duplicate_attribute_is_not_cached() -> None:
    body = parse_hcl_file(b'locals {\n  a = 1\n  a = 2\n}\n', "d.tf")
    with pytest.raises(Uncacheable):
        encode_body(body, "d.tf")


@pytest.mark.parametrize("data", [
    None, 7, "text", [], [999], [-99, 1], ["0"], [0, 1], [2, [-4, 1]], [-1, 1, 2],
    [2, [-4], [-2]],  # a Body without its range
    [2, [-4], [-2], [-1, 1, 1, 0, 1, 2, 1], [-2], "extra"],
    [-6, "1", "0"],
    [2, [-4], [-2], [-7, 99]], [2, [-4], [-2], [-99, "0"]],  # unknown markers
], ids=repr)
def test_malformed_entries_are_refused_with_one_error_type(data: object) -> None:
    with pytest.raises(ValueError):
        decode_body(data, SourceText("main.tf", b"locals {}\n"))



def _first_attribute(node: list) -> list:
    """The encoded ``Attribute`` of ``locals { a = … }``: the body's dict, its one value."""
    block = node[2][1]  # the Body's block list, its first block
    return block[3][1][2]  # that block's Body, its attribute dict, the value under "a"


@pytest.mark.parametrize("tamper", [
    lambda attribute: attribute.append(-1),  # a field more than the class has
    lambda attribute: attribute.pop(),  # a field fewer
    lambda attribute: attribute.__setitem__(1, 7),  # a name that is not a string
    lambda attribute: attribute.__setitem__(3, 12),  # a range that is a plain number
    lambda attribute: attribute.__setitem__(2, "x"),  # an expression that is not a node
], ids=["extra field", "missing field", "number for a name", "number for a range", "text for a node"])
def test_a_node_not_shaped_like_its_class_is_refused(tamper) -> None:
    src = b"locals {\n  a = 1\n}\n"
    data = orjson.loads(orjson.dumps(encode_body(parse_hcl_file(src, "t.tf"), "t.tf")))
    assert decode_body(data, SourceText("t.tf", src)).blocks[0].body.attributes["a"].expr.value == 1
    tamper(_first_attribute(data))
    with pytest.raises(ValueError):
        decode_body(data, SourceText("t.tf", src))


@pytest.mark.parametrize("tamper", [
    lambda cons: cons.__setitem__(1, 12),  # the object's range a plain number
    lambda cons: cons.__setitem__(2, "x"),  # its items text, not a node
    lambda cons: cons.__setitem__(2, 7),  # its items a number
    lambda cons: cons[2][1].__setitem__(1, "k"),  # an item's key text, not a node
    lambda cons: cons[2][1].__setitem__(2, []),  # an item's value an empty list
    lambda cons: cons[2][1].append(-1),  # an item with a field more than it has
], ids=["number for a range", "text for items", "number for items", "text for a key", "empty value",
        "extra field"])
def test_an_object_not_shaped_like_its_classes_is_refused(tamper) -> None:
    """Objects, their items and collections are rebuilt by their own short paths; these refuse
    a damaged node with the same one error type as every other node."""
    src = b'locals {\n  a = { k = "v" }\n}\n'
    data = orjson.loads(orjson.dumps(encode_body(parse_hcl_file(src, "t.tf"), "t.tf")))
    assert decode_body(data, SourceText("t.tf", src)).blocks[0].body.attributes["a"].expr.items[0].value.value == "v"
    tamper(_first_attribute(data)[2])  # the attribute's expression: the object
    with pytest.raises(ValueError):
        decode_body(data, SourceText("t.tf", src))
