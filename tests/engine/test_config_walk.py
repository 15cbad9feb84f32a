"""Evaluating a configuration: count/for_each and module expansion, module inputs and outputs,
dynamic blocks, and the corpus configurations evaluated to what Terraform produced."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.validate import Loaded, load_and_evaluate
from engine.walk.config import WalkHooks
from vocab.values import deep_unmark, is_unknown

MakeConfig = Callable[[dict[str, str]], Path]


def evaluate_config(root: Path, **kw: Any) -> Loaded:
    """Evaluate with resources standing for their own arguments (no adapter schemas involved)."""
    return load_and_evaluate(root, environ={}, hooks_factory=lambda registry, diags: WalkHooks(), **kw)


def errors(loaded: Loaded) -> list[tuple[str, str]]:
    return [(str(d.range), d.summary) for d in loaded.diags.sorted() if d.severity == "error"]


def addresses(loaded: Loaded) -> list[str]:
    assert loaded.walk is not None
    return sorted(i.address for insts in loaded.walk.instances.values() for i in insts)


def configs(loaded: Loaded) -> dict[str, Any]:
    assert loaded.walk is not None
    return {i.address: i.config for insts in loaded.walk.instances.values() for i in insts}


def outputs(loaded: Loaded) -> dict[str, Any]:
    assert loaded.walk is not None
    return {k: deep_unmark(v)[0] for k, (v, _) in loaded.walk.root_outputs.items()}


MODULES = {
    "main.tf": """
        variable "envs" {
          default = { a = 1, b = 2 }
        }
        module "x" {
          for_each = var.envs
          source   = "./mod"
          n        = each.value
          label    = each.key
        }
        module "single" {
          source = "./mod"
          n      = 0
          label  = "s"
        }
        module "counted" {
          count  = 2
          source = "./mod"
          n      = count.index
          label  = "c${count.index}"
        }
        output "by_key" {
          value = { for k, m in module.x : k => m.names }
        }
        output "single" {
          value = module.single.names
        }
        output "counted" {
          value = module.counted[*].names
        }
        output "nested" {
          value = module.x["b"].inner
        }
    """,
    "mod/main.tf": """
        variable "n" {
          type = number
        }
        variable "label" {
          type = string
        }
        resource "terraform_data" "y" {
          count = var.n + 1
          input = "${var.label}-${count.index}"
        }
        module "leaf" {
          source = "./leaf"
          tags   = { for i, r in terraform_data.y : r.input => i }
        }
        output "names" {
          value = terraform_data.y[*].input
        }
        output "inner" {
          value = module.leaf.keys
        }
    """,
    "mod/leaf/main.tf": """
        variable "tags" {
          type = map(number)
        }
        resource "terraform_data" "t" {
          for_each = var.tags
          input    = each.value
        }
        output "keys" {
          value = keys(terraform_data.t)
        }
    """,
}


def test_instance_addresses_through_modules(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config(MODULES))
    assert errors(loaded) == []
    assert addresses(loaded) == [
        'module.counted[0].module.leaf.terraform_data.t["c0-0"]',
        "module.counted[0].terraform_data.y[0]",
        'module.counted[1].module.leaf.terraform_data.t["c1-0"]',
        'module.counted[1].module.leaf.terraform_data.t["c1-1"]',
        "module.counted[1].terraform_data.y[0]",
        "module.counted[1].terraform_data.y[1]",
        'module.single.module.leaf.terraform_data.t["s-0"]',
        "module.single.terraform_data.y[0]",
        'module.x["a"].module.leaf.terraform_data.t["a-0"]',
        'module.x["a"].module.leaf.terraform_data.t["a-1"]',
        'module.x["a"].terraform_data.y[0]',
        'module.x["a"].terraform_data.y[1]',
        'module.x["b"].module.leaf.terraform_data.t["b-0"]',
        'module.x["b"].module.leaf.terraform_data.t["b-1"]',
        'module.x["b"].module.leaf.terraform_data.t["b-2"]',
        'module.x["b"].terraform_data.y[0]',
        'module.x["b"].terraform_data.y[1]',
        'module.x["b"].terraform_data.y[2]',
    ]


def test_module_inputs_and_outputs(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config(MODULES))
    assert outputs(loaded) == {
        "by_key": {"a": ["a-0", "a-1"], "b": ["b-0", "b-1", "b-2"]},
        "single": ["s-0"],
        "counted": [["c0-0"], ["c1-0", "c1-1"]],
        "nested": ["b-0", "b-1", "b-2"],
    }
    assert configs(loaded)['module.x["b"].module.leaf.terraform_data.t["b-2"]'] == {"input": 2}


def test_count_and_for_each_expansion(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({"main.tf": """
        resource "terraform_data" "none" {
          count = 0
        }
        resource "terraform_data" "list" {
          count = 3
          input = count.index * 10
        }
        resource "terraform_data" "set" {
          for_each = toset(["b", "a", "b"])
          input    = "${each.key}/${each.value}"
        }
        resource "terraform_data" "map" {
          for_each = { web = 80, db = 5432 }
          input    = each.value
        }
        resource "terraform_data" "chained" {
          for_each = terraform_data.map
          input    = each.value.input + 1
        }
        output "list" {
          value = terraform_data.list[*].input
        }
        output "none" {
          value = length(terraform_data.none)
        }
    """}))
    assert errors(loaded) == []
    got = configs(loaded)
    assert addresses(loaded) == [
        'terraform_data.chained["db"]', 'terraform_data.chained["web"]',
        "terraform_data.list[0]", "terraform_data.list[1]", "terraform_data.list[2]",
        'terraform_data.map["db"]', 'terraform_data.map["web"]',
        'terraform_data.set["a"]', 'terraform_data.set["b"]',
    ]
    assert got['terraform_data.set["a"]'] == {"input": "a/a"}
    assert got['terraform_data.chained["db"]'] == {"input": 5433}
    assert outputs(loaded) == {"list": [0, 10, 20], "none": 0}


def test_invalid_count_and_for_each_values(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({"main.tf": """
        resource "terraform_data" "a" {
          count = -1
        }
        resource "terraform_data" "b" {
          count = 1.5
        }
        resource "terraform_data" "c" {
          for_each = [1, 2]
        }
        resource "terraform_data" "d" {
          for_each = "x"
        }
        variable "secret" {
          default   = { a = 1 }
          sensitive = true
        }
        resource "terraform_data" "e" {
          for_each = var.secret
        }
    """}))
    assert errors(loaded) == [
        ("main.tf:2:11", "Invalid count argument"),
        ("main.tf:5:11", "Invalid count argument"),
        ("main.tf:8:14", "Invalid for_each argument"),
        ("main.tf:11:14", "Invalid for_each argument"),
        ("main.tf:18:14", "Invalid for_each argument"),
    ]
    details = [d.detail for d in loaded.diags.errors()]
    assert "toset" in details[2]
    assert "Sensitive values" in details[4]


def test_for_each_over_a_tuple_of_strings_is_rejected(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({"main.tf": 'resource "terraform_data" "c" {\n  for_each = ["x", "y"]\n}\n'}))
    assert errors(loaded) == [("main.tf:2:14", "Invalid for_each argument")]


def test_for_each_over_a_set_of_strings_or_a_set_typed_variable(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({"main.tf": """
        variable "names" {
          type    = set(string)
          default = ["b", "a", "b"]
        }
        resource "terraform_data" "c" {
          for_each = toset(["x", "y", "x"])
        }
        resource "terraform_data" "v" {
          for_each = var.names
        }
    """}))
    assert errors(loaded) == []
    assert addresses(loaded) == [
        'terraform_data.c["x"]', 'terraform_data.c["y"]', 'terraform_data.v["a"]', 'terraform_data.v["b"]',
    ]


def test_unknown_for_each_is_a_placeholder_in_validate_and_an_error_in_plan(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": """
        resource "random_id" "r" {
          byte_length = 2
        }
        resource "terraform_data" "a" {
          for_each = toset([random_id.r.hex])
          input    = each.key
        }
    """})
    loaded = load_and_evaluate(root, environ={})
    assert errors(loaded) == []
    assert addresses(loaded) == ["random_id.r", "terraform_data.a[*]"]
    planned = load_and_evaluate(root, environ={}, plan_mode=True,
                                hooks_factory=lambda registry, diags: _PlanHooks())
    assert errors(planned) == [("main.tf:5:14", "Invalid for_each argument")]


class _PlanHooks(WalkHooks):
    plan_mode = True

    def resource_value(self, inst: Any) -> Any:
        from vocab.values import UNKNOWN

        return UNKNOWN


def test_module_call_argument_errors(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({
        "main.tf": 'module "m" {\n  source = "./m"\n  nmae   = "x"\n}\n',
        "m/main.tf": 'variable "name" {\n  type = string\n}\nvariable "size" {\n  type = number\n}\n',
    }))
    assert errors(loaded) == [
        ("main.tf:1:12", "Missing required argument"),  # at the brace, as Terraform points
        ("main.tf:1:12", "Missing required argument"),
        ("main.tf:3:3", "Unsupported argument"),
    ]
    details = sorted(d.detail for d in loaded.diags.errors())
    assert details == ['An argument named "nmae" is not expected here. Did you mean "name"?',
                       'The argument "name" is required, but no definition was found.',
                       'The argument "size" is required, but no definition was found.']


def test_module_input_of_the_wrong_type(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({
        "main.tf": 'module "m" {\n  source = "./m"\n  size   = "big"\n}\n',
        "m/main.tf": 'variable "size" {\n  type = number\n}\n',
    }))
    assert [s for _, s in errors(loaded)] == ['Invalid value for input variable "size"']
    assert "module call" in loaded.diags.errors()[0].detail


def test_dynamic_blocks(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({"main.tf": """
        variable "rules" {
          default = {
            http  = { port = 80, cidrs = ["0.0.0.0/0"] }
            https = { port = 443, cidrs = ["10.0.0.0/8", "192.168.0.0/16"] }
          }
        }
        resource "terraform_data" "fw" {
          input = "fw"
          dynamic "ingress" {
            for_each = var.rules
            content {
              name = ingress.key
              port = ingress.value.port
              dynamic "source" {
                for_each = ingress.value.cidrs
                iterator = cidr
                content {
                  position = cidr.key
                  cidr     = cidr.value
                }
              }
            }
          }
          dynamic "optional" {
            for_each = []
            content {
              x = 1
            }
          }
          static {
            y = 2
          }
        }
    """}))
    assert errors(loaded) == []
    assert configs(loaded)["terraform_data.fw"] == {
        "input": "fw",
        "ingress": [
            {"name": "http", "port": 80, "source": [{"position": 0, "cidr": "0.0.0.0/0"}]},
            {"name": "https", "port": 443, "source": [
                {"position": 0, "cidr": "10.0.0.0/8"},
                {"position": 1, "cidr": "192.168.0.0/16"},
            ]},
        ],
        "optional": [],
        "static": [{"y": 2}],
    }


def test_dynamic_block_mistakes(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({"main.tf": """
        resource "terraform_data" "a" {
          dynamic "x" {
            for_each = [1]
          }
          dynamic "y" {
            for_each = 5
            content {}
          }
        }
    """}))
    assert errors(loaded) == [
        ("main.tf:2:3", 'A dynamic "x" block needs "for_each" and a "content" block'),
        ("main.tf:6:16", "Invalid dynamic for_each value: a map, set or list is required"),
    ]


def test_a_root_output_of_a_sensitive_value_must_say_so(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({"main.tf": """
        variable "token" {
          default   = "t0ken"
          sensitive = true
        }
        output "leak" {
          value = "token: ${var.token}"
        }
        output "ok" {
          value     = var.token
          sensitive = true
        }
    """}))
    assert errors(loaded) == [("main.tf:5:1", "Output refers to sensitive values")]


def test_evaluation_errors_point_at_the_expression(make_config: MakeConfig) -> None:
    loaded = evaluate_config(make_config({"main.tf": """
        locals {
          a = upper(["x"])
          b = 1 + "two"
          c = { k = 1 }.nope
          d = [1, 2][5]
        }
    """}))
    assert [s for _, s in errors(loaded)] == [
        "Invalid function argument",
        "Invalid operand",
        "Unsupported attribute",
        "Invalid index",
    ]
    assert [w.split(":")[1] for w, _ in errors(loaded)] == ["2", "3", "4", "5"]


# ---- the corpus evaluates to what Terraform produced ---------------------------------------------


def test_rendered_configs_match_terraform_byte_for_byte(fixture_copy: Callable[[str], Path]) -> None:
    root = fixture_copy("corpus/rendered_configs")
    loaded = load_and_evaluate(root, environ={})
    assert errors(loaded) == []
    assert loaded.walk is not None
    scope = loaded.walk.scopes[()][0]
    expected = root / "expected"
    assert scope.locals["nginx_site"] == (expected / "search-api.conf").read_text()
    assert scope.locals["motd"] == (expected / "motd").read_text()
    assert scope.locals["cloud_init"] == (expected / "cloud-init.yaml").read_text()
    assert scope.locals["banner"] == (expected / "banner.txt").read_text().rstrip("\n")


def test_environment_matrix_outputs_match_terraform(fixture_copy: Callable[[str], Path]) -> None:
    root = fixture_copy("corpus/environment_matrix")
    loaded = load_and_evaluate(root, environ={})
    assert errors(loaded) == []
    expected = json.loads((root / "expected" / "outputs.json").read_text())
    got = outputs(loaded)
    assert sorted(got) == sorted(expected)
    for name, want in expected.items():
        if is_unknown(got[name]) or "known after apply" in repr(got[name]):
            continue  # terraform_data.output is only known after apply
        assert got[name] == want["value"], name
    # Outputs that read terraform_data.output after apply: their inputs are known now.
    summaries = {i.key: i.config["input"] for i in loaded.walk.instances[_node(loaded, "terraform_data.region_summary")]}
    assert summaries == {region: v for region, v in expected["region_summaries"]["value"].items()}
    (canary,) = loaded.walk.instances[_node(loaded, "terraform_data.canary")]
    assert canary.config["input"]["deployment"] == expected["canary"]["value"]["deployment"]


def _node(loaded: Loaded, address: str) -> Any:
    assert loaded.graph is not None
    return next(n for n in loaded.graph.nodes if n.path == () and n.name == address)


def test_data_lake_dynamic_blocks(fixture_copy: Callable[[str], Path]) -> None:
    loaded = evaluate_config(fixture_copy("corpus/data_lake"))
    table = configs(loaded)["aws_dynamodb_table.catalog"]
    assert table["attribute"] == [
        {"name": "dataset_id", "type": "S"},
        {"name": "owner_team", "type": "S"},
        {"name": "version", "type": "N"},
        {"name": "zone", "type": "S"},
    ]
    assert table["global_secondary_index"] == [
        {"name": "by_owner", "hash_key": "owner_team", "range_key": "dataset_id", "projection_type": "ALL"},
        {"name": "by_zone", "hash_key": "zone", "range_key": None, "projection_type": "KEYS_ONLY"},
    ]
    assert table["ttl"] == []  # toggled off by an empty list
    assert table["point_in_time_recovery"] == [{"enabled": True}]


def test_platform_services_nested_modules(fixture_copy: Callable[[str], Path]) -> None:
    loaded = evaluate_config(fixture_copy("corpus/platform_services"))
    assert addresses(loaded) == [
        'module.service["checkout"].aws_iam_role.this',
        'module.service["checkout"].aws_sqs_queue.input["emails"]',
        'module.service["checkout"].aws_sqs_queue.input["payments"]',
        'module.service["ledger"].aws_iam_role.this',
        'module.service["ledger"].aws_sqs_queue.input["entries"]',
        "module.shared_events[0].aws_sns_topic.this",
    ]
