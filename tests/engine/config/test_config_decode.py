"""Decoding blocks into the configuration model: meta-arguments, lifecycle, types, moved, mistakes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.config.literals import traversal_text
from engine.config.loader import load_config
from engine.config.model import Module
from vocab.errors import Diagnostics

MakeConfig = Callable[[dict[str, str]], Path]


def load(make_config: MakeConfig, files: dict[str, str]) -> tuple[Module, Diagnostics]:
    return load_config(make_config(files))


def problems(diags: Diagnostics, severity: str = "error") -> list[tuple[str, str]]:
    return [(str(d.range), d.summary) for d in diags.sorted() if d.severity == severity]


def texts(exprs: list) -> list[str | None]:
    return [traversal_text(e) for e in exprs]


def test_lifecycle_arguments(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf": """
        resource "random_id" "a" {
          byte_length = 4
          lifecycle {
            create_before_destroy = true
            prevent_destroy       = true
            ignore_changes        = [keepers["build"], prefix]
            replace_triggered_by  = [terraform_data.b, terraform_data.c.output]
            precondition {
              condition     = true
              error_message = "pre"
            }
            postcondition {
              condition     = self.hex != ""
              error_message = "post"
            }
          }
        }
        resource "random_id" "b" {
          byte_length = 4
          lifecycle {
            ignore_changes = all
          }
        }
        resource "terraform_data" "b" {}
        resource "terraform_data" "c" {}
    """})
    assert problems(diags) == []
    lc = module.resources["random_id.a"].lifecycle
    assert lc.create_before_destroy is True
    assert lc.prevent_destroy is True
    assert lc.ignore_changes == ('keepers["build"]', "prefix")
    assert texts(lc.replace_triggered_by) == ["terraform_data.b", "terraform_data.c.output"]
    assert [str(c.rng) for c in lc.preconditions] == ["main.tf:9:23"]
    assert [str(c.rng) for c in lc.postconditions] == ["main.tf:13:23"]
    assert module.resources["random_id.b"].lifecycle.ignore_changes == "all"
    # lifecycle is a meta-argument block, not part of the resource's own arguments
    assert [b.type for b in module.resources["random_id.a"].body.blocks] == []
    assert module.resources["terraform_data.b"].lifecycle.create_before_destroy is False


def test_lifecycle_flags_must_be_literal(make_config: MakeConfig) -> None:
    _, diags = load(make_config, {"main.tf": """
        variable "keep" {
          default = true
        }
        resource "terraform_data" "a" {
          lifecycle {
            prevent_destroy = var.keep
          }
        }
    """})
    assert problems(diags) == [("main.tf:6:23", "Variables not allowed")]  # at "var", as Terraform


def test_meta_arguments_are_separated_from_arguments(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf": """
        resource "terraform_data" "a" {
          count      = 2
          input      = "x"
          provider   = terraform
          depends_on = [terraform_data.b, module.m]
          provisioner "local-exec" {
            command = "echo hi"
          }
          connection {
            host = "example.com"
          }
          nested {
            k = 1
          }
        }
        resource "terraform_data" "b" {
          for_each = toset(["x"])
        }
        module "m" {
          source = "./m"
        }
    """, "m/main.tf": ""})
    assert problems(diags) == []
    res = module.resources["terraform_data.a"]
    assert list(res.body.attributes) == ["input"]
    assert [b.type for b in res.body.blocks] == ["nested"]
    assert res.count is not None and str(res.count.expr.rng) == "main.tf:2:16"
    assert res.for_each is None
    assert module.resources["terraform_data.b"].for_each is not None
    assert texts(res.depends_on) == ["terraform_data.b", "module.m"]
    assert [str(e.rng) for e in res.depends_on] == ["main.tf:5:17", "main.tf:5:35"]
    assert res.provider == ("terraform", None)
    assert [(p.type, p.when, p.on_failure) for p in res.provisioners] == [("local-exec", "create", "fail")]
    assert res.connection is not None and list(res.connection.body.attributes) == ["host"]


def test_provider_references(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {
        "main.tf": """
            provider "random" {
              alias = "west"
            }
            resource "random_id" "a" {
              byte_length = 4
              provider    = random.west
            }
            resource "random_id" "b" {
              byte_length = 4
            }
            resource "terraform_data" "c" {
              provider = "random.west"
            }
        """,
    })
    assert problems(diags) == []
    assert module.resources["random_id.a"].provider == ("random", "west")
    assert module.resources["random_id.a"].provider_name == "random"
    assert module.resources["random_id.b"].provider is None
    assert module.resources["random_id.b"].provider_name == "random"  # implied by the type's prefix
    assert module.resources["terraform_data.c"].provider == ("random", "west")  # the JSON-style string form
    assert module.providers["random.west"].alias == "west"


def test_a_provider_reference_must_be_a_name(make_config: MakeConfig) -> None:
    _, diags = load(make_config, {"main.tf": 'resource "random_id" "a" {\n  provider = 1 + 1\n}\n'})
    assert problems(diags) == [("main.tf:2:14", '"provider" must be a provider reference such as aws.west')]


def test_depends_on_from_json_strings_point_into_the_strings(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf.json": """
        {
          "resource": {
            "terraform_data": {
              "a": {"depends_on": ["terraform_data.b", "module.m"]},
              "b": {}
            }
          }
        }
    """})
    assert problems(diags) == []
    deps = module.resources["terraform_data.a"].depends_on
    assert texts(deps) == ["terraform_data.b", "module.m"]
    assert [str(e.rng) for e in deps] == ["main.tf.json:4:29", "main.tf.json:4:49"]


def test_depends_on_must_be_a_list_of_references(make_config: MakeConfig) -> None:
    _, diags = load(make_config, {"main.tf": """
        resource "terraform_data" "a" {
          depends_on = terraform_data.b
        }
        resource "terraform_data" "c" {
          depends_on = [1]
        }
    """})
    assert problems(diags) == [
        ("main.tf:2:16", "Invalid expression"),
        ("main.tf:5:17", "Invalid expression"),
    ]


def test_moved_blocks(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf": """
        moved {
          from = terraform_data.old
          to   = terraform_data.new
        }
        moved {
          from = terraform_data.list[0]
          to   = terraform_data.map["a"]
        }
        moved {
          from = terraform_data.x
          to   = module.settings.terraform_data.x
        }
        moved {
          from = terraform_data.y
        }
    """})
    assert [(m.from_addr, m.to_addr) for m in module.moved] == [
        ("terraform_data.old", "terraform_data.new"),
        ("terraform_data.list[0]", 'terraform_data.map["a"]'),
        ("terraform_data.x", "module.settings.terraform_data.x"),
    ]
    assert problems(diags) == [("main.tf:13:1", 'A "moved" block needs "from" and "to"')]


@pytest.mark.parametrize(
    ("hcl_type", "json_type", "shown"),
    [
        ("string", "string", "string"),
        ("number", "number", "number"),
        ("bool", "bool", "bool"),
        ("any", "any", "any"),
        ("list(string)", "list(string)", "list(string)"),
        ("set(number)", "set(number)", "set(number)"),
        ("map(list(string))", "map(list(string))", "map(list(string))"),
        ("tuple([string, bool])", "tuple([string, bool])", "tuple([string, bool])"),
        ("object({ name = string, size = optional(number, 1) })", "object({name=string, size=optional(number, 1)})",
         "object({name=string, size=optional(number, 1)})"),
    ],
)
def test_variable_types_in_hcl_and_as_json_strings(
    make_config: MakeConfig, hcl_type: str, json_type: str, shown: str
) -> None:
    module, diags = load(make_config, {
        "a.tf": f'variable "h" {{\n  type = {hcl_type}\n}}\n',
        "b.tf.json": f'{{"variable": {{"j": {{"type": "{json_type}"}}}}}}',
    })
    assert problems(diags) == []
    assert str(module.variables["h"].type) == shown
    assert str(module.variables["j"].type) == shown


def test_variable_attributes(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf": """
        variable "password" {
          description = "The admin password."
          type        = string
          sensitive   = true
          nullable    = false
          validation {
            condition     = length(var.password) >= 12
            error_message = "Use at least 12 characters."
          }
        }
        variable "plain" {}
    """})
    assert problems(diags) == []
    v = module.variables["password"]
    assert (v.description, v.sensitive, v.nullable, v.required) == ("The admin password.", True, False, True)
    assert [str(x.rng) for x in v.validations] == ["main.tf:7:21"]
    p = module.variables["plain"]
    assert (p.type, p.sensitive, p.nullable, p.required) == (None, False, True, True)


def test_variable_mistakes(make_config: MakeConfig) -> None:
    _, diags = load(make_config, {"main.tf": """
        variable "a" {
          type = strin
        }
        variable "b" {
          sensitive = "yes"
        }
        variable "c" {
          validation {
            condition = true
          }
        }
    """})
    assert problems(diags) == [
        ("main.tf:2:10", "Invalid type specification"),
        ("main.tf:5:16", "Unsuitable value type"),
        ("main.tf:8:14", "Missing required argument"),
        ("main.tf:9:17", "Invalid validation expression"),
        ("main.tf:9:17", "Invalid variable validation condition"),
    ]


def test_outputs(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf": """
        output "secret" {
          value       = "x"
          sensitive   = true
          description = "A secret."
          depends_on  = [terraform_data.a]
          precondition {
            condition     = true
            error_message = "never"
          }
        }
        output "empty" {
          description = "no value"
        }
        resource "terraform_data" "a" {}
    """})
    out = module.outputs["secret"]
    assert (out.sensitive, out.description) == (True, "A secret.")
    assert texts(out.depends_on) == ["terraform_data.a"]
    assert len(out.preconditions) == 1
    assert "empty" not in module.outputs
    assert problems(diags) == [("main.tf:11:16", "Missing required argument")]


def test_module_calls(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {
        "main.tf": """
            module "net" {
              source     = "./net"
              for_each   = toset(["a", "b"])
              cidr       = "10.0.0.0/16"
              name       = each.key
              depends_on = [terraform_data.x]
              providers = {
                random = random.west
              }
            }
            module "nosource" {
              cidr = "x"
            }
            resource "terraform_data" "x" {}
            provider "random" {
              alias = "west"
            }
        """,
        "net/main.tf": 'variable "cidr" {}\nvariable "name" {}\n',
    })
    call = module.module_calls["net"]
    assert (call.source, sorted(call.inputs)) == ("./net", ["cidr", "name"])
    assert call.for_each is not None and call.count is None
    assert texts(call.depends_on) == ["terraform_data.x"]
    assert call.providers == {"random": "random.west"}
    assert problems(diags) == [("main.tf:11:19", "Missing required argument")]


def test_terraform_block(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf": """
        terraform {
          required_version = ">= 1.5.0"
          required_providers {
            random = {
              source  = "hashicorp/random"
              version = "~> 3.6"
            }
            local = "~> 2.5"
          }
          backend "local" {
            path = "state/terraform.tfstate"
          }
        }
    """})
    assert problems(diags) == []
    assert module.required_version == ">= 1.5.0"
    rp = module.required_providers
    assert (rp["random"].source, rp["random"].version) == ("hashicorp/random", "~> 3.6")
    assert (rp["local"].source, rp["local"].version) == ("hashicorp/local", "~> 2.5")
    assert module.backend is not None and module.backend.type == "local"
    assert list(module.backend.body.attributes) == ["path"]


def test_structural_mistakes(make_config: MakeConfig) -> None:
    _, diags = load(make_config, {"main.tf": """
        region = "eu-west-1"
        resource "terraform_data" {}
        resourse "terraform_data" "x" {}
        resource "terraform_data" "both" {
          count    = 1
          for_each = {}
          input    = 1
          input    = 2
        }
        locals {
          a = 1
          a = 2
        }
    """})
    assert problems(diags) == [
        ("main.tf:1:1", "Unsupported argument"),
        ("main.tf:2:27", "Missing name for resource"),
        ("main.tf:3:1", "Unsupported block type"),
        ("main.tf:6:3", '"count" and "for_each" cannot both be set'),
        ("main.tf:8:3", 'Attribute "input" redefined'),
        ("main.tf:12:3", 'Attribute "a" redefined'),
    ]


def test_import_blocks_are_read_with_their_target_and_id(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf": """
        import {
          to = terraform_data.a
          id = "x"
        }
    """})
    assert problems(diags) == [] and problems(diags, "warning") == []
    assert [(i.to, i.rng.start.line) for i in module.imports] == [("terraform_data.a", 1)]


def test_removed_blocks_name_whole_resources_or_modules(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf": """
        removed {
          from = terraform_data.kept
          lifecycle {
            destroy = false
          }
        }
        removed {
          from = module.legacy
        }
        removed {
          from = terraform_data.x[0]
        }
    """})
    assert [(r.from_addr, r.destroy) for r in module.removed] == [
        ("terraform_data.kept", False), ("module.legacy", True)]
    assert [s for _, s in problems(diags)] == ["A removed block names a whole resource or module, not an instance"]


def test_a_check_block_holds_assertions_and_skips_scoped_data_with_a_warning(make_config: MakeConfig) -> None:
    module, diags = load(make_config, {"main.tf": """
        check "health" {
          data "local_file" "probe" {
            filename = "x"
          }
          assert {
            condition     = true
            error_message = "never"
          }
        }
        check "empty" {}
    """})
    assert list(module.checks) == ["health"] and len(module.checks["health"].asserts) == 1
    assert problems(diags) == [("main.tf:10:1", 'Check block "empty" has no "assert" block')]
    assert [s for _, s in problems(diags, "warning")] == [
        'Data sources scoped to a "check" block are not read yet; this one was skipped']


def test_resource_and_data_addresses(make_config: MakeConfig) -> None:
    module, _ = load(make_config, {"main.tf": """
        resource "local_file" "a" {
          filename = "a"
        }
        data "local_file" "a" {
          filename = "a"
        }
    """})
    assert sorted(module.resources) == ["data.local_file.a", "local_file.a"]
    data = module.resources["data.local_file.a"]
    assert (data.mode, data.type, data.name) == ("data", "local_file", "a")
    assert str(data.type_rng) == "main.tf:4:6"
