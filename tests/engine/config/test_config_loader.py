"""Loading a configuration directory: which files count, duplicates across files, local modules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.config.loader import config_files, load_config
from vocab.errors import CtlError, Diagnostic

MakeConfig = Callable[[dict[str, str]], Path]


def errors(diags: list[Diagnostic]) -> list[tuple[str, str]]:
    return [(str(d.range), d.summary) for d in sorted(diags, key=lambda d: d.sort_key()) if d.severity == "error"]


def test_every_spec_file_counts_but_never_variable_files(tmp_path: Path) -> None:
    for name in [
        "main.tf", "network.tf.json", "app.tf.yaml", "extra.tf.yml", "k8s.yaml", "ci.yml", "terraform.tfvars",
        "terraform.tfvars.json",
        "prod.auto.tfvars", "dev.auto.tfvars.json", "README.md", ".hidden.tf", "main.tf.bak", "notes.txt",
    ]:
        (tmp_path / name).write_text("")
    (tmp_path / "modules.tf").mkdir()  # a directory named like a spec file is not a file
    assert [p.name for p in config_files(tmp_path)] == ["app.tf.yaml", "extra.tf.yml", "main.tf", "network.tf.json"]


def test_other_yaml_is_ignored_and_a_spec_lookalike_is_named_in_a_warning(make_config: MakeConfig) -> None:
    root = make_config({
        "main.tf": 'output "o" {\n  value = 1\n}\n',
        "deploy.yaml": "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: Secret\n",
        "values.yml": "resource: {}\nreplicas: 3\n",  # a config key among others: not a spec
        "old-spec.yaml": "output:\n  p:\n    value: 2\n",
    })
    module, diags = load_config(root)
    assert errors(diags.items) == []
    assert module.files == ["main.tf"] and list(module.outputs) == ["o"]
    [warning] = diags.warnings()
    assert warning.summary == "old-spec.yaml is not read: YAML specs are named *.tf.yaml or *.tf.yml"
    assert "Rename it to old-spec.tf.yaml" in warning.hint


def test_files_in_three_syntaxes_form_one_module(make_config: MakeConfig) -> None:
    root = make_config({
        "a.tf": 'variable "region" {\n  default = "eu-west-1"\n}\n',
        "b.tf.json": '{"locals": {"zone": "${var.region}a"}}',
        "c.tf.yaml": "output:\n  zone:\n    value: ${local.zone}\n",
        "terraform.tfvars": 'region = "us-east-1"\n',
    })
    module, diags = load_config(root)
    assert errors(diags.items) == []
    assert module.files == ["a.tf", "b.tf.json", "c.tf.yaml"]
    assert list(module.variables) == ["region"]
    assert list(module.locals) == ["zone"]
    assert list(module.outputs) == ["zone"]


@pytest.mark.parametrize(
    ("first", "second", "summary", "first_at"),
    [
        ('resource "terraform_data" "r" {}\n', 'resource "terraform_data" "r" {}\n',
         'Duplicate resource "terraform_data" configuration', "a.tf:1,1-30"),
        ('data "local_file" "f" {\n  filename = "x"\n}\n', 'data "local_file" "f" {\n  filename = "y"\n}\n',
         'Duplicate data "local_file" configuration', "a.tf:1,1-22"),
        ('variable "v" {}\n', 'variable "v" {}\n', 'Duplicate variable declaration', "a.tf:1,1-13"),
        ('output "o" {\n  value = 1\n}\n', 'output "o" {\n  value = 2\n}\n', 'Duplicate output definition',
         "a.tf:1,1-11"),
        ("locals {\n  l = 1\n}\n", "locals {\n  l = 2\n}\n", 'Duplicate local value definition', "a.tf:2,3-8"),
        ('module "m" {\n  source = "./m"\n}\n', 'module "m" {\n  source = "./m"\n}\n',
         'Duplicate module call', "a.tf:1,1-11"),
        ('provider "random" {\n  alias = "x"\n}\n', 'provider "random" {\n  alias = "x"\n}\n',
         'Duplicate provider configuration "random.x" definition', "a.tf:1,1-18"),
    ],
)
def test_a_definition_in_two_files_names_both_places(
    make_config: MakeConfig, first: str, second: str, summary: str, first_at: str
) -> None:
    root = make_config({"a.tf": first, "b.tf": second, "m/main.tf": ""})
    _, diags = load_config(root)
    dupes = [d for d in diags.errors() if d.summary.startswith("Duplicate")]
    assert len(dupes) == 1
    d = dupes[0]
    assert d.summary == summary
    assert d.range is not None and d.range.filename == "b.tf"  # reported at the second definition …
    assert f" at {first_at}." in d.detail  # … naming the first, as HCL writes a place


def test_duplicate_across_syntaxes(make_config: MakeConfig) -> None:
    root = make_config({
        "main.tf": 'variable "env" {\n  default = "dev"\n}\n',
        "vars.tf.yaml": "variable:\n  env:\n    default: prod\n",
    })
    _, diags = load_config(root)
    assert errors(diags.items) == [("vars.tf.yaml:2:3", "Duplicate variable declaration")]
    assert "main.tf:1,1-15" in diags.errors()[0].detail


def test_providers_with_different_aliases_are_not_duplicates(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": 'provider "random" {}\nprovider "random" {\n  alias = "b"\n}\n'})
    module, diags = load_config(root)
    assert errors(diags.items) == []
    assert sorted(module.providers) == ["random", "random.b"]


def test_local_modules_are_loaded_recursively(make_config: MakeConfig) -> None:
    root = make_config({
        "main.tf": 'module "app" {\n  source = "./modules/app"\n}\n',
        "modules/app/main.tf": 'module "label" {\n  source = "../label"\n}\nresource "terraform_data" "x" {}\n',
        "modules/label/main.tf": 'variable "name" {\n  default = "x"\n}\noutput "id" {\n  value = var.name\n}\n',
    })
    module, diags = load_config(root)
    assert errors(diags.items) == []
    app = module.children["app"]
    assert list(app.resources) == ["terraform_data.x"]
    label = app.children["label"]
    assert list(label.outputs) == ["id"]
    # Files of child modules are named relative to the root directory.
    assert label.files == ["modules/label/main.tf"]
    assert [path for path, _ in module.walk()] == [(), ("app",), ("app", "label")]


def test_a_module_called_twice_is_loaded_for_each_call(make_config: MakeConfig) -> None:
    root = make_config({
        "main.tf": 'module "a" {\n  source = "./shared"\n}\nmodule "b" {\n  source = "./shared"\n}\n',
        "shared/main.tf": 'output "x" {\n  value = 1\n}\n',
    })
    module, diags = load_config(root)
    assert errors(diags.items) == []
    assert sorted(module.children) == ["a", "b"]


@pytest.mark.parametrize(
    "source",
    [
        "terraform-aws-modules/vpc/aws",
        "git::https://example.com/network.git?ref=v1.2.0",
        "github.com/acme/terraform-modules//vpc",
        "https://example.com/module.zip",
    ],
)
def test_registry_and_remote_module_sources_are_not_supported_yet(make_config: MakeConfig, source: str) -> None:
    root = make_config({"main.tf": f'module "net" {{\n  source = "{source}"\n}}\n'})
    _, diags = load_config(root)
    assert errors(diags.items) == [("main.tf:2:12", f'Module source "{source}" is not supported yet')]
    assert "local module sources" in diags.errors()[0].detail


def test_a_module_calling_itself_is_an_error(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": 'module "again" {\n  source = "./"\n}\n'})
    _, diags = load_config(root)
    assert errors(diags.items) == [("main.tf:2:12", 'Module "again" calls itself through "./"')]


def test_a_module_calling_its_caller_is_an_error(make_config: MakeConfig) -> None:
    root = make_config({
        "main.tf": 'module "child" {\n  source = "./child"\n}\n',
        "child/main.tf": 'module "parent" {\n  source = "../"\n}\n',
    })
    _, diags = load_config(root)
    assert errors(diags.items) == [("child/main.tf:2:12", 'Module "parent" calls itself through "../"')]


def test_missing_and_empty_module_directories(make_config: MakeConfig) -> None:
    root = make_config({
        "main.tf": 'module "gone" {\n  source = "./nowhere"\n}\nmodule "empty" {\n  source = "./empty"\n}\n',
        "empty/README.md": "nothing here",
    })
    _, diags = load_config(root)
    assert errors(diags.items) == [
        ("main.tf:2:12", 'Module directory "./nowhere" does not exist'),
        ("main.tf:5:12", 'Module directory "./empty" has no configuration files'),
    ]


def test_a_directory_without_configuration(tmp_path: Path) -> None:
    (tmp_path / "terraform.tfvars").write_text('x = 1\n')
    _, diags = load_config(tmp_path)
    assert [d.summary for d in diags.errors()] == [f"No configuration files in {tmp_path.resolve()}"]


def test_a_missing_directory_raises(tmp_path: Path) -> None:
    with pytest.raises(CtlError, match="does not exist"):
        load_config(tmp_path / "nope")


def test_a_syntax_error_in_one_file_is_reported_with_the_problems_of_the_others(make_config: MakeConfig) -> None:
    root = make_config({
        "a.tf": "locals {\n  x = )\n}\n",
        "b.tf": 'variable "v" {}\nvariable "v" {}\n',
        "c.tf.json": '{"locals": {"y": }}',
    })
    _, diags = load_config(root)
    assert errors(diags.items) == [
        ("a.tf:2:7", 'Invalid syntax: unexpected ")"'),
        ("b.tf:2:1", "Duplicate variable declaration"),
        ("c.tf.json:1:18", "Invalid JSON: Expecting value"),
    ]
