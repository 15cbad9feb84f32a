"""The static dependency graph: edges from references and depends_on, reference errors, cycles."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.config.loader import load_config
from engine.graph import LOCAL, MODCALL, MODOUT, OUTPUT, PROVIDER, RESOURCE, VAR, Graph, Node, build_graph
from vocab.errors import Diagnostics

MakeConfig = Callable[[dict[str, str]], Path]


def graph_of(make_config: MakeConfig, files: dict[str, str]) -> tuple[Graph, Diagnostics]:
    module, diags = load_config(make_config(files))
    assert not diags.has_errors, [(str(d.range), d.summary) for d in diags.items]
    return build_graph(module, diags), diags


def errors(diags: Diagnostics) -> list[tuple[str, str]]:
    return [(str(d.range), d.summary) for d in diags.sorted() if d.severity == "error"]


def deps(g: Graph, node: Node) -> list[str]:
    return sorted(str(n) for n in g.dependencies(node))


CHAIN = {
    "main.tf": """
        variable "env" {
          default = "dev"
        }
        locals {
          prefix = "app-${var.env}"
        }
        resource "terraform_data" "a" {
          input = local.prefix
        }
        resource "terraform_data" "b" {
          count      = 2
          input      = [for x in terraform_data.a[*].output : x]
          depends_on = [terraform_data.c]
        }
        resource "terraform_data" "c" {}
        data "local_file" "f" {
          filename = "${path.module}/x"
        }
        module "m" {
          source = "./m"
          name   = data.local_file.f.content
        }
        output "result" {
          value = module.m.id
        }
        provider "random" {}
        resource "random_id" "r" {
          byte_length = 4
        }
    """,
    "m/main.tf": """
        variable "name" {}
        output "id" {
          value = var.name
        }
    """,
}


def test_edges_come_from_references_and_depends_on(make_config: MakeConfig) -> None:
    g, diags = graph_of(make_config, CHAIN)
    assert errors(diags) == []
    assert deps(g, Node((), LOCAL, "prefix")) == ["var.env"]
    assert deps(g, Node((), RESOURCE, "terraform_data.a")) == ["local.prefix"]
    # the for-expression's own variable x is not a reference
    assert deps(g, Node((), RESOURCE, "terraform_data.b")) == ["terraform_data.a", "terraform_data.c"]
    # as in Terraform, the call stands for its expansion only; each input is the child's variable
    assert deps(g, Node((), MODCALL, "m")) == []
    assert deps(g, Node(("m",), VAR, "name")) == ["data.local_file.f", "module.m"]
    # module.m.id waits for that output only; the whole module's outputs wait for every one
    assert deps(g, Node((), OUTPUT, "result")) == ["module.m.output.id"]
    assert deps(g, Node((), MODOUT, "m")) == ["module.m", "module.m.output.id"]
    assert deps(g, Node(("m",), OUTPUT, "id")) == ["module.m", "module.m.var.name"]
    # a resource depends on the provider configuration its type implies
    assert deps(g, Node((), RESOURCE, "random_id.r")) == ["provider.random"]


def test_edges_remember_where_the_reference_is_written(make_config: MakeConfig) -> None:
    g, _ = graph_of(make_config, CHAIN)
    edges = g.deps[Node((), RESOURCE, "terraform_data.b")]
    assert sorted((str(e.target), str(e.rng)) for e in edges) == [
        ("terraform_data.a", "main.tf:12:26"),
        ("terraform_data.c", "main.tf:13:17"),
    ]


def test_order_puts_dependencies_first(make_config: MakeConfig) -> None:
    g, _ = graph_of(make_config, CHAIN)
    order = [str(n) for n in g.order()]
    assert len(order) == len(g.nodes)
    for before, after in [
        ("var.env", "local.prefix"),
        ("local.prefix", "terraform_data.a"),
        ("terraform_data.a", "terraform_data.b"),
        ("terraform_data.c", "terraform_data.b"),
        ("data.local_file.f", "module.m.var.name"),
        ("module.m", "module.m.var.name"),
        ("module.m.output.id", "module.m (outputs)"),
        ("module.m.output.id", "output.result"),
        ("provider.random", "random_id.r"),
    ]:
        assert order.index(before) < order.index(after), (before, after)


def test_node_names() -> None:
    assert str(Node((), VAR, "x")) == "var.x"
    assert str(Node(("net", "sub"), LOCAL, "y")) == "module.net.module.sub.local.y"
    assert str(Node(("net",), RESOURCE, "data.local_file.f")) == "module.net.data.local_file.f"
    assert str(Node((), MODCALL, "net")) == "module.net"
    assert str(Node((), PROVIDER, "random.west")) == "provider.random.west"


@pytest.mark.parametrize(
    ("expr", "summary", "column"),
    [
        ("var.nope", 'Reference to undeclared input variable', 11),
        ("local.nope", 'Reference to undeclared local value', 11),
        ("module.nope.out", 'Reference to undeclared module', 11),
        ("data.local_file.nope.content", 'Reference to undeclared resource', 11),
        ("terraform_data.nope.output", 'Reference to undeclared resource', 11),
        ("upper(var.nope)", 'Reference to undeclared input variable', 17),
        ('"x-${local.nope}"', 'Reference to undeclared local value', 16),
        ("count.index", 'Reference to "count" in non-counted context', 11),
        ("each.key", 'Reference to "each" in context without for_each', 11),
        ("nope", "Invalid reference", 11),
    ],
)
def test_undeclared_references(make_config: MakeConfig, expr: str, summary: str, column: int) -> None:
    _, diags = graph_of(make_config, {"main.tf": f'resource "terraform_data" "a" {{\n  input = {expr}\n}}\n'})
    assert errors(diags) == [(f"main.tf:2:{column}", summary)]


def test_undeclared_references_in_a_module_point_into_its_files(make_config: MakeConfig) -> None:
    _, diags = graph_of(make_config, {
        "main.tf": 'module "net" {\n  source = "./net"\n}\n',
        "net/main.tf": 'output "x" {\n  value = var.cidr\n}\n',
    })
    assert errors(diags) == [("net/main.tf:2:11", 'Reference to undeclared input variable')]
    assert diags.errors()[0].detail == ('An input variable with the name "cidr" has not been declared. This variable '
                                        'can be declared with a variable "cidr" {} block.')  # Terraform's words


def test_count_and_each_are_available_where_they_are_set(make_config: MakeConfig) -> None:
    _, diags = graph_of(make_config, {
        "main.tf": """
            resource "terraform_data" "a" {
              count = 2
              input = count.index
            }
            resource "terraform_data" "b" {
              for_each = toset(["x"])
              input    = "${each.key}=${each.value}"
            }
            module "m" {
              source   = "./m"
              for_each = toset(["x"])
              name     = each.key
            }
            module "n" {
              source = "./m"
              count  = 1
              name   = count.index
            }
            locals {
              bad = count.index
            }
            output "bad" {
              value = each.value
            }
        """,
        "m/main.tf": 'variable "name" {}\n',
    })
    assert errors(diags) == [
        ("main.tf:20:9", 'Reference to "count" in non-counted context'),
        ("main.tf:23:11", 'Reference to "each" in context without for_each'),
    ]


def test_dynamic_block_iterators_are_not_references(make_config: MakeConfig) -> None:
    _, diags = graph_of(make_config, {"main.tf": """
        resource "terraform_data" "a" {
          dynamic "rule" {
            for_each = [1, 2]
            content {
              n = rule.value
            }
          }
          dynamic "other" {
            for_each = [1]
            iterator = it
            content {
              n = it.key
            }
          }
        }
    """})
    assert errors(diags) == []


def test_a_validation_may_only_refer_to_its_variable(make_config: MakeConfig) -> None:
    _, diags = graph_of(make_config, {"main.tf": """
        locals {
          allowed = ["a"]
        }
        variable "v" {
          default = "a"
          validation {
            condition     = contains(local.allowed, var.v)
            error_message = "no"
          }
        }
    """})
    assert errors(diags) == [("main.tf:7:30", "Invalid reference in variable validation")]


def test_a_cycle_is_reported_with_every_reference_on_it(make_config: MakeConfig) -> None:
    g, diags = graph_of(make_config, {
        "a.tf": 'locals {\n  first = local.second\n}\n',
        "b.tf": 'locals {\n  second = "${local.third}-x"\n  third  = local.first\n}\n',
    })
    assert g.find_cycle() is not None
    assert errors(diags) == [("a.tf:2:11", "Cycle: local.first -> local.second -> local.third -> local.first")]
    assert diags.errors()[0].detail == (
        "local.first refers to the next at a.tf:2:11; "
        "local.second refers to the next at b.tf:2:15; "
        "local.third refers to the next at b.tf:3:12"
    )


def test_a_cycle_through_resources_and_depends_on(make_config: MakeConfig) -> None:
    _, diags = graph_of(make_config, {"main.tf": """
        resource "terraform_data" "a" {
          input = terraform_data.b.output
        }
        resource "terraform_data" "b" {
          depends_on = [terraform_data.a]
        }
    """})
    assert errors(diags) == [("main.tf:2:11", "Cycle: terraform_data.a -> terraform_data.b -> terraform_data.a")]


def test_a_self_reference_is_not_a_cycle_edge(make_config: MakeConfig) -> None:
    g, _ = graph_of(make_config, {"main.tf": 'resource "terraform_data" "a" {\n  input = terraform_data.a.id\n}\n'})
    assert g.find_cycle() is None
    assert deps(g, Node((), RESOURCE, "terraform_data.a")) == []


def test_all_reference_errors_are_reported_together(make_config: MakeConfig) -> None:
    _, diags = graph_of(make_config, {
        "b.tf": 'output "x" {\n  value = var.b\n}\n',
        "a.tf": 'output "y" {\n  value = [local.a, var.c]\n}\n',
    })
    assert errors(diags) == [
        ("a.tf:2:12", 'Reference to undeclared local value'),
        ("a.tf:2:21", 'Reference to undeclared input variable'),
        ("b.tf:2:11", 'Reference to undeclared input variable'),
    ]


def test_modules_taking_each_others_outputs_are_no_cycle(make_config: MakeConfig) -> None:
    g, diags = graph_of(make_config, {
        "main.tf": """
            module "kms" {
              source  = "./kms"
              cluster = module.cluster.role
            }
            module "cluster" {
              source = "./cluster"
              key    = module.kms.key
            }
        """,
        "kms/main.tf": """
            variable "cluster" {}
            output "key" {
              value = "key-1"
            }
            output "policy" {
              value = "allow ${var.cluster}"
            }
        """,
        "cluster/main.tf": """
            variable "key" {}
            output "role" {
              value = "role-1"
            }
            output "volume" {
              value = "encrypted with ${var.key}"
            }
        """,
    })
    assert errors(diags) == []
    assert g.find_cycle() is None


def test_a_real_loop_through_two_modules_is_still_a_cycle(make_config: MakeConfig) -> None:
    g, _ = graph_of(make_config, {
        "main.tf": """
            module "a" {
              source = "./m"
              in     = module.b.out
            }
            module "b" {
              source = "./m"
              in     = module.a.out
            }
        """,
        "m/main.tf": """
            variable "in" {}
            output "out" {
              value = var.in
            }
        """,
    })
    cycle = g.find_cycle()
    assert cycle is not None
    assert {str(n) for n, _ in cycle} >= {"module.a.var.in", "module.a.output.out", "module.b.var.in"}


def test_a_provider_depends_on_what_its_nested_and_dynamic_blocks_read(make_config: MakeConfig) -> None:
    """``dynamic "assume_role" { for_each = [module.roles.arn] }``: the output is evaluated first."""
    g, diags = graph_of(make_config, {
        "main.tf": """
            provider "aws" {
              region = "eu-west-1"
              dynamic "assume_role" {
                for_each = compact([module.roles.arn])
                content {
                  role_arn = assume_role.value
                }
              }
              default_tags {
                tags = { env = local.env }
              }
            }
            locals {
              env = "dev"
            }
            module "roles" {
              source = "./roles"
            }
        """,
        "roles/main.tf": 'output "arn" { value = "arn:aws:iam::1:role/x" }\n',
    })
    assert errors(diags) == []
    assert deps(g, Node((), PROVIDER, "aws")) == ["local.env", "module.roles.output.arn"]


def test_the_order_is_worked_out_once_and_again_after_a_change() -> None:
    g = Graph()
    a, b, c = Node((), LOCAL, "a"), Node((), LOCAL, "b"), Node((), LOCAL, "c")
    g.add(b, None)
    g.add(a, None)
    g.depend(a, b, None)
    first = g.order()
    assert first == [b, a] and g.order() is first  # the walk follows the order building checked
    g.add(c, None)
    assert g.order() == [b, a, c]
    g.depend(b, c, None)
    assert g.order() == [c, b, a]


@pytest.mark.parametrize("seed", range(6))
def test_the_order_takes_the_least_ready_node_each_time(seed: int) -> None:
    """On a random graph over modules, kinds and names: each node comes after what it depends on,
    and each one is the least, by path, kind and name, of those ready when it is taken — which
    fixes the order completely, so plans list their changes the same way every time."""
    import random

    rnd = random.Random(seed)
    nodes = sorted({Node(rnd.choice([(), ("a",), ("a", "b"), ("c",)]), rnd.choice([LOCAL, OUTPUT, RESOURCE, VAR]),
                         f"n{rnd.randrange(60)}") for _ in range(150)})  # sorted: a set's order varies by run
    rnd.shuffle(nodes)
    g = Graph()
    for n in nodes:
        g.add(n, None)
    for i, n in enumerate(nodes):  # edges only to earlier nodes: no cycle
        for t in rnd.sample(nodes[:i], min(i, rnd.randrange(4))):
            g.depend(n, t, None)
    order = g.order()
    assert sorted(order) == sorted(nodes)
    done: set[Node] = set()
    for n in order:
        ready = [m for m in nodes if m not in done and g.dependencies(m) <= done]
        assert n == min(ready, key=lambda m: (m.path, m.kind, m.name))
        done.add(n)


def test_a_cycle_leaves_its_nodes_out_of_the_order() -> None:
    g = Graph()
    a, b, c = Node((), LOCAL, "a"), Node((), LOCAL, "b"), Node((), LOCAL, "c")
    for n in (a, b, c):
        g.add(n, None)
    g.depend(a, b, None)
    g.depend(b, a, None)
    g.depend(b, a, None)  # the same reference twice counts once
    assert g.order() == [c]
    assert {n for n, _ in g.find_cycle() or []} == {a, b}
