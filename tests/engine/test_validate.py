"""``validate``: resource types, schema checks, and every problem of a run reported together."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.validate import Loaded, validate

MakeConfig = Callable[[dict[str, str]], Path]
CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
LOCAL_ONLY = ["app_secrets", "environment_matrix", "refactor_moves", "release_train", "rendered_configs", "static_site"]
CLOUD = ["azure_containers", "data_lake", "event_pipeline", "gcs_archive", "multicloud_backups", "platform_services"]


def run(root: Path, **kw: object) -> Loaded:
    return validate(root, environ={}, **kw)


def problems(loaded: Loaded) -> list[tuple[str, str, str | None]]:
    return [(str(d.range), d.summary, d.address) for d in loaded.diags.sorted() if d.severity == "error"]


@pytest.mark.parametrize("name", LOCAL_ONLY)
def test_local_corpus_configurations_are_valid(name: str, fixture_copy: Callable[[str], Path]) -> None:
    loaded = run(fixture_copy(f"corpus/{name}"))
    assert problems(loaded) == []
    assert loaded.walk is not None


@pytest.mark.parametrize("name", CLOUD)
def test_cloud_corpus_configurations_are_valid(name: str, fixture_copy: Callable[[str], Path]) -> None:
    """Every resource type and argument these configurations use (written for Terraform's aws,
    google and azurerm providers) is provided by an adapter: nothing is reported at all."""
    loaded = run(fixture_copy(f"corpus/{name}"))
    assert [(d.severity, d.summary) for d in loaded.diags.items] == []
    assert loaded.walk is not None


def test_every_corpus_configuration_is_covered() -> None:
    assert sorted(LOCAL_ONLY + CLOUD) == sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


def test_unsupported_resource_and_data_types(make_config: MakeConfig) -> None:
    loaded = run(make_config({"main.tf": 'resource "aws_eks_cluster" "k" {}\n\ndata "aws_ami" "a" {}\n'}))
    assert problems(loaded) == [
        ("main.tf:1:10", "Unsupported resource type aws_eks_cluster: no adapter provides it", None),
        ("main.tf:3:6", "Unsupported data source aws_ami: no adapter provides it", None),
    ]


def test_schema_violations_name_address_attribute_and_position(make_config: MakeConfig) -> None:
    loaded = run(make_config({"main.tf": """
        resource "random_integer" "port" {
          min    = "abc"
          max    = 10
          colour = "red"
        }
        resource "random_id" "missing" {
          prefix = "x"
        }
        resource "random_id" "keep" {
          byte_length = 4
          keepers     = { a = [1] }
        }
        resource "random_string" "short" {
          length = 0
        }
        resource "random_id" "explicit_null" {
          byte_length = null
        }
    """}))
    assert problems(loaded) == [
        ("main.tf:2:12", "Incorrect attribute value type", "random_integer.port"),
        ("main.tf:4:3", "Unsupported argument", "random_integer.port"),
        ("main.tf:6:32", "Missing required argument", "random_id.missing"),  # at its body's brace
        ("main.tf:11:17", "Incorrect attribute value type", "random_id.keep"),
        ("main.tf:14:12", 'Invalid value for attribute "length"', "random_string.short"),
        ("main.tf:17:17", "Missing required argument", "random_id.explicit_null"),
    ]
    details = [d.detail for d in loaded.diags.sorted() if d.severity == "error"]
    assert details == [
        'random_integer.port: Inappropriate value for attribute "min": a number is required.',
        'random_integer.port: An argument named "colour" is not expected here.',
        'random_id.missing: The argument "byte_length" is required, but no definition was found.',
        'random_id.keep: Inappropriate value for attribute "keepers": element "a": string required, but have tuple.',
        "random_string.short: 0 is less than the minimum of 1",  # the adapter's own constraint, as before
        'random_id.explicit_null: The argument "byte_length" is required, but no definition was found.',
    ]


def test_a_whole_number_argument_keeps_the_adapters_own_words(make_config: MakeConfig) -> None:
    """``min`` is a number in the schema form; that it must be whole is the native adapter's own
    constraint, checked after the decoder with the words it always had."""
    loaded = run(make_config({"main.tf": 'resource "random_integer" "p" {\n  min = "1"\n  max = 10\n}\n'}))
    assert [(str(d.range), d.summary, d.detail) for d in loaded.diags.errors()] == [
        ("main.tf:2:9", 'Inappropriate value for attribute "min"', "random_integer.p: whole number required, got string.")]


def test_schema_errors_are_per_instance(make_config: MakeConfig) -> None:
    loaded = run(make_config({"main.tf": """
        resource "random_integer" "p" {
          for_each = { a = 1, b = "two" }
          min      = each.value
          max      = 10
        }
    """}))
    assert problems(loaded) == [('main.tf:3:14', "Incorrect attribute value type", 'random_integer.p["b"]')]


def test_unsupported_argument_from_a_block_points_at_the_block(make_config: MakeConfig) -> None:
    loaded = run(make_config({"main.tf": """
        resource "random_id" "a" {
          byte_length = 4
          dynamic "rule" {
            for_each = [1]
            content {}
          }
        }
        resource "random_id" "b" {
          byte_length = 4
          setting {}
        }
    """}))
    assert problems(loaded) == [
        ("main.tf:3:11", "Unsupported block type", "random_id.a"),
        ("main.tf:10:3", "Unsupported block type", "random_id.b"),
    ]


def test_values_known_only_after_apply_are_not_checked(make_config: MakeConfig) -> None:
    loaded = run(make_config({"main.tf": """
        variable "max" {
          type = number
        }
        resource "random_id" "seed" {
          byte_length = 4
        }
        resource "random_integer" "p" {
          min  = random_id.seed.dec
          max  = var.max
          seed = random_id.seed.hex
        }
    """}))
    assert problems(loaded) == []


def test_every_problem_of_a_run_is_reported_together_sorted_by_position(make_config: MakeConfig) -> None:
    loaded = run(make_config({
        "b.tf": """
            resource "random_integer" "port" {
              min = "abc"
              max = 10
            }
            locals {
              shout = uper("x")
            }
        """,
        "a.tf": """
            output "x" {
              value = var.nope
            }
            resource "acme_widget" "logs" {}
        """,
        "c.tf": "locals {\n  broken = )\n}\n",
        "d.tf.json": '{"locals": {"y": "${local.missing}"}}',
    }))
    assert [(where, summary) for where, summary, _ in problems(loaded)] == [
        ("a.tf:2:11", 'Reference to undeclared input variable'),
        ("a.tf:4:10", "Unsupported resource type acme_widget: no adapter provides it"),
        ("b.tf:2:9", "Incorrect attribute value type"),
        ("b.tf:6:11", "Call to unknown function"),
        ("c.tf:2:12", 'Invalid syntax: unexpected ")"'),
        ("d.tf.json:1:21", 'Reference to undeclared local value'),
    ]


def test_errors_in_two_strings_on_one_json_line_are_both_reported(make_config: MakeConfig) -> None:
    loaded = run(make_config({"main.tf.json": '{"locals": {"a": "${var.nope}", "b": "${upper([1])}"}}\n'}))
    assert [(w, s) for w, s, _ in problems(loaded)] == [
        ("main.tf.json:1:21", 'Reference to undeclared input variable'),
        ("main.tf.json:1:47", "Invalid function argument"),
    ]


def test_an_undeclared_reference_is_reported_once(make_config: MakeConfig) -> None:
    loaded = run(make_config({"main.tf": 'locals {\n  a = var.nope\n  b = "${var.nope}-x"\n}\n'}))
    assert [(w, s) for w, s, _ in problems(loaded)] == [
        ("main.tf:2:7", 'Reference to undeclared input variable'),
        ("main.tf:3:10", 'Reference to undeclared input variable'),
    ]


def test_a_cycle_stops_before_evaluation(make_config: MakeConfig) -> None:
    loaded = run(make_config({"main.tf": "locals {\n  a = local.b\n  b = local.a\n}\n"}))
    assert loaded.walk is None
    assert [s for _, s, _ in problems(loaded)] == ["Cycle: local.a -> local.b -> local.a"]


def test_timings_are_recorded(make_config: MakeConfig) -> None:
    loaded = run(make_config({"main.tf": 'resource "random_id" "a" {\n  byte_length = 4\n}\n'}))
    assert set(loaded.timings) == {"parse", "graph", "evaluate"}


def test_root_variables_are_unknown_as_in_terraform_validate(make_config: MakeConfig) -> None:
    """A null default would fail the template; any value a plan is given might not: valid."""
    root = make_config({"main.tf": """
        variable "prefix" {
          type    = string
          default = null
        }
        variable "names" {
          type    = list(string)
          default = []
        }
        resource "terraform_data" "x" {
          for_each = toset(var.names)
          input    = "${var.prefix}-${each.key}"
        }
        output "first" {
          value = "${var.prefix}-${var.names[0]}"
        }
    """})
    assert problems(run(root)) == []
    given = run(root, var_args=[("var", "names=[]")])  # a value given is used, as plan would use it
    assert [summary for _, summary, _ in problems(given)] == ["Invalid index"]


def test_a_default_that_breaks_its_own_validation_is_still_reported(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": """
        variable "env" {
          default = "production"
          validation {
            condition     = contains(["dev", "prod"], var.env)
            error_message = "env must be dev or prod."
          }
        }
    """})
    assert [summary for _, summary, _ in problems(run(root))] == ["Invalid value for variable"]


def test_templatestring_renders_a_named_value_or_a_literal(make_config: MakeConfig) -> None:
    from engine.validate import load_and_evaluate

    root = make_config({"main.tf": """
        locals {
          raw = "Hi $${name}%%{ for x in items }, $${x}%%{ endfor }"
        }
        output "greeting" {
          value = templatestring(local.raw, { name = "ctl", items = ["a", "b"] })
        }
    """})
    loaded = load_and_evaluate(root, environ={})
    assert loaded.walk is not None and loaded.walk.root_outputs["greeting"][0] == "Hi ctl, a, b"
    literal = make_config({"main.tf": 'output "o" {\n  value = templatestring("Hi $${n}${1}", { n = 2 })\n}\n'})
    loaded = load_and_evaluate(literal, environ={})
    assert loaded.walk is not None and loaded.walk.root_outputs["o"][0] == "Hi 21"
    bad = make_config({"main.tf": 'output "o" {\n  value = templatestring([1], {})\n}\n'})
    assert [(where, summary) for where, summary, _ in problems(run(bad))] == [
        ("main.tf:2:26", "Invalid function argument")]


def test_a_failed_check_assertion_is_a_warning_naming_the_check(make_config: MakeConfig) -> None:
    from engine.validate import load_and_evaluate

    root = make_config({"main.tf": """
        variable "replicas" {
          default = 1
        }
        resource "terraform_data" "db" {
          input = "db"
        }
        check "capacity" {
          assert {
            condition     = var.replicas >= 2
            error_message = "only ${var.replicas} replica"
          }
          assert {
            condition     = terraform_data.db.output != null
            error_message = "not known until apply: not reported"
          }
        }
    """})
    loaded = load_and_evaluate(root, environ={})
    assert loaded.diags.errors() == []
    [warning] = loaded.diags.warnings()
    assert (warning.summary, str(warning.range)) == ("Check block assertion failed", "main.tf:9:21")
    assert warning.detail.startswith("only 1 replica") and 'check "capacity"' in warning.detail
    assert [d.summary for d in run(root).diags.items] == []  # validate: the variable is not known yet


def test_for_each_over_a_set_or_an_empty_tuple_is_a_set_either_way(make_config: MakeConfig) -> None:
    from engine.validate import load_and_evaluate

    root = make_config({"main.tf": """
        variable "enabled" {
          default = false
        }
        resource "terraform_data" "x" {
          for_each = var.enabled ? toset(["a", "b"]) : []
          input    = each.key
        }
    """})
    assert load_and_evaluate(root, environ={}).diags.errors() == []
    on = load_and_evaluate(root, environ={}, var_args=[("var", "enabled=true")])
    assert on.diags.errors() == [] and on.walk is not None
    assert sorted(i.address for insts in on.walk.instances.values() for i in insts) == [
        'terraform_data.x["a"]', 'terraform_data.x["b"]']


def test_a_module_that_was_not_loaded_has_unknown_outputs_and_orders_nothing(make_config: MakeConfig) -> None:
    """One error where the source is written; no cascade of missing attributes, no false cycle."""
    root = make_config({"main.tf": """
        module "net" {
          source = "terraform-google-modules/network/google"
          routes = [terraform_data.vm.output]
        }
        resource "terraform_data" "vm" {
          input = module.net.subnets["a"]["self_link"]
        }
        output "name" {
          value = module.net.network_name
        }
    """})
    assert [summary for _, summary, _ in problems(run(root))] == [
        'Module source "terraform-google-modules/network/google" is not supported yet']


def test_null_elements_of_a_map_of_strings_are_accepted(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": """
        resource "random_id" "snapshot" {
          byte_length = 4
          keepers = {
            id       = "db"
            snapshot = null
          }
        }
    """})
    assert problems(run(root)) == []


MODULE_WITH_SECRETS = """
variable "type" { type = string }
variable "secret" {
  type      = string
  default   = "s"
  sensitive = true
}
output "path" { value = "/x/${var.type}" }
output "secret" {
  value     = var.secret
  sensitive = true
}
"""


def test_modules_whose_instances_are_not_known_yet_are_unknown_as_a_whole(make_config: MakeConfig) -> None:
    """for_each over a root variable: Terraform validates ``module.m["k"]`` and ``keys(module.m)``.

    The instance keys are not known, so no key is missing; and the outputs' sensitivity stays on
    the outputs, so the keys are not a secret (Terraform 1.0.3 validates this configuration).
    """
    loaded = run(make_config({
        "main.tf": """
            variable "enabled" { type = bool }
            variable "grants" { type = map(string) }
            module "integration" {
              source   = "./m"
              for_each = var.enabled ? merge({ datadog = { type = "Datadog" } }, {}) : {}
              type     = each.value.type
            }
            module "grant" {
              source   = "./m"
              for_each = var.grants
              type     = each.value
            }
            output "name" { value = module.integration["datadog"].path }
            output "keys" { value = keys(module.grant) }
        """,
        "m/main.tf": MODULE_WITH_SECRETS,
    }))
    assert problems(loaded) == []


def test_keys_of_a_map_with_sensitive_values_are_not_sensitive(make_config: MakeConfig) -> None:
    loaded = run(make_config({
        "main.tf": """
            module "one" {
              source = "./m"
              type   = "t"
            }
            output "names" { value = keys(module.one) }
            output "count" { value = length(module.one) }
            output "leak" { value = values(module.one) }
        """,
        "m/main.tf": MODULE_WITH_SECRETS,
    }))
    assert [(r, s) for r, s, _ in problems(loaded)] == [("main.tf:7:1", "Output refers to sensitive values")]
