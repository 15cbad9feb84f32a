"""Root variable values: where they come from, which one wins, conversion, validation, missing ones."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.config.loader import load_config
from engine.config.model import Variable
from engine.config.variables import collect_values, resolve_root_variables
from engine.validate import load_and_evaluate
from vocab.errors import CtlError, Diagnostic, Diagnostics
from vocab.values import is_marked, unmark

MakeConfig = Callable[[dict[str, str]], Path]

DECLS = "".join(f'variable "v{i}" {{\n  type = string\n}}\n' for i in range(1, 10))


def resolve(
    root: Path,
    var_args: list[tuple[str, str]] | None = None,
    environ: dict[str, str] | None = None,
    prompt: Callable[[Variable], str] | None = None,
) -> tuple[dict[str, Any], list[Diagnostic]]:
    module, diags = load_config(root)
    assert not diags.has_errors, diags.items
    given = collect_values(root, var_args or [], environ or {})
    out = Diagnostics()
    values = resolve_root_variables(module.variables, given, out, prompt=prompt)
    return {k: unmark(v)[0] for k, v in values.items()}, out.sorted()


def test_precedence_from_environment_to_command_line(make_config: MakeConfig) -> None:
    root = make_config({
        "main.tf": DECLS,
        "terraform.tfvars": "\n".join(f'v{i} = "tfvars"' for i in range(2, 9)),
        "terraform.tfvars.json": "{" + ", ".join(f'"v{i}": "tfvars.json"' for i in range(3, 9)) + "}",
        "a.auto.tfvars": "\n".join(f'v{i} = "a.auto"' for i in range(4, 10)),
        "b.auto.tfvars.json": "{" + ", ".join(f'"v{i}": "b.auto"' for i in range(5, 10)) + "}",
        "custom.tfvars": "\n".join(f'v{i} = "var-file"' for i in range(6, 9)),
    })
    env = {f"TF_VAR_v{i}": "env" for i in range(1, 10)}
    values, diags = resolve(root, [("var-file", "custom.tfvars"), ("var", "v7=cli"), ("var", "v8=cli")], env)
    assert [d for d in diags if d.severity == "error"] == []
    assert values == {
        "v1": "env",
        "v2": "tfvars",
        "v3": "tfvars.json",
        "v4": "a.auto",
        "v5": "b.auto",  # *.auto.tfvars(.json) files apply in name order
        "v6": "var-file",
        "v7": "cli",
        "v8": "cli",
        "v9": "b.auto",
    }


def test_var_and_var_file_apply_in_the_order_given(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": DECLS, "late.tfvars": 'v1 = "file"\n', "early.tfvars": 'v2 = "file"\n'})
    values, _ = resolve(root, [
        ("var", "v1=cli"), ("var-file", "late.tfvars"),
        ("var-file", "early.tfvars"), ("var", "v2=cli"),
    ])
    assert (values["v1"], values["v2"]) == ("file", "cli")


def test_later_var_of_the_same_name_wins(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": DECLS})
    values, _ = resolve(root, [("var", "v1=first"), ("var", "v1=second"), ("var", "v2=a=b")])
    assert (values["v1"], values["v2"]) == ("second", "a=b")


def test_ctl_var_wins_over_tf_var(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": DECLS})
    values, _ = resolve(root, environ={"TF_VAR_v1": "tf", "CTL_VAR_v1": "ctl", "TF_VAR_v2": "tf"})
    assert (values["v1"], values["v2"]) == ("ctl", "tf")


def test_defaults_apply_when_nothing_is_given(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": 'variable "region" {\n  default = "eu-west-1"\n}\n'})
    values, diags = resolve(root)
    assert (values, diags) == ({"region": "eu-west-1"}, [])


TYPED = """
variable "count_of" {
  type = number
}
variable "enabled" {
  type = bool
}
variable "names" {
  type = list(string)
}
variable "tags" {
  type = map(string)
}
variable "server" {
  type = object({ host = string, port = optional(number, 80) })
}
variable "anything" {}
"""


def test_values_are_converted_to_the_declared_type(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": TYPED})
    values, diags = resolve(
        root,
        [("var", 'tags={ team = "core", size = 3 }'), ("var", 'server={ host = "db" }')],
        {"CTL_VAR_count_of": "3", "CTL_VAR_enabled": "true", "TF_VAR_names": '["a", 2]', "CTL_VAR_anything": "[1]"},
    )
    assert diags == []
    assert values == {
        "count_of": 3,
        "enabled": True,
        "names": ["a", "2"],
        "tags": {"team": "core", "size": "3"},
        "server": {"host": "db", "port": 80},
        "anything": "[1]",  # an untyped variable takes environment text as a string
    }


def test_tfvars_values_keep_their_types(make_config: MakeConfig) -> None:
    root = make_config({
        "main.tf": TYPED,
        "terraform.tfvars": 'count_of = 2\nenabled = false\nnames = ["x"]\ntags = {}\nserver = { host = "h", port = 5432 }\nanything = { a = [1, 2] }\n',
    })
    values, diags = resolve(root)
    assert diags == []
    assert values["server"] == {"host": "h", "port": 5432}
    assert values["anything"] == {"a": [1, 2]}


@pytest.mark.parametrize(
    ("files", "var_args", "environ", "source"),
    [
        ({"terraform.tfvars": 'count_of = "abc"\n'}, [], {}, "terraform.tfvars"),
        ({}, [("var", "count_of=abc")], {}, "--var"),
        ({}, [], {"CTL_VAR_count_of": "abc"}, "environment variable CTL_VAR_count_of"),
        ({"x.auto.tfvars.json": '{"count_of": "abc"}'}, [], {}, "x.auto.tfvars.json"),
    ],
)
def test_a_mismatch_names_the_variable_the_type_and_the_source(
    make_config: MakeConfig, files: dict[str, str], var_args: list[tuple[str, str]], environ: dict[str, str],
    source: str,
) -> None:
    root = make_config({"main.tf": 'variable "count_of" {\n  type = number\n}\n', **files})
    _, diags = resolve(root, var_args, environ)
    assert [d.summary for d in diags] == ['Invalid value for input variable "count_of"']
    detail = diags[0].detail
    assert f"given by {source}" in detail
    assert "a number is required" in detail
    assert "declared as number at main.tf:1:1" in detail


def test_a_tfvars_mismatch_points_at_the_value(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": 'variable "n" {\n  type = number\n}\n', "terraform.tfvars": '# sizes\nn   = "abc"\n'})
    _, diags = resolve(root)
    assert [(str(d.range), d.summary) for d in diags] == [
        ("terraform.tfvars:2:7", 'Invalid value for input variable "n"')
    ]


def test_a_complex_value_that_is_not_an_expression(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": 'variable "names" {\n  type = list(string)\n}\n'})
    _, diags = resolve(root, environ={"TF_VAR_names": '["a", '})
    assert len(diags) == 1 and diags[0].severity == "error"
    assert diags[0].range is not None and diags[0].range.filename == "environment variable TF_VAR_names"
    _, diags = resolve(root, environ={"TF_VAR_names": "[other.name]"})
    assert [d.summary for d in diags] == [
        'Invalid value for input variable "names" from environment variable TF_VAR_names: '
        'Reference to undeclared name "other"'
    ]


def test_undeclared_values(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": DECLS, "terraform.tfvars": 'v1 = "x"\nextra = 1\n'})
    _, diags = resolve(root, [("var", "nope=1")], {"TF_VAR_also_nope": "1"})
    assert [(d.severity, d.summary) for d in diags if "undeclared" in d.summary] == [
        ("warning", 'Value for undeclared variable "extra"'),
        ("error", 'Value for undeclared variable "nope"'),
    ]


def test_a_malformed_var_argument(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": DECLS})
    with pytest.raises(CtlError, match='Invalid --var "v1": expected NAME=VALUE'):
        collect_values(root, [("var", "v1")], {})


def test_a_missing_var_file(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": DECLS})
    with pytest.raises(CtlError, match=r"Cannot read variables file missing\.tfvars"):
        collect_values(root, [("var-file", "missing.tfvars")], {})


def test_a_missing_required_variable(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": 'variable "region" {\n  type = string\n}\n'})
    _, diags = resolve(root)
    assert [(str(d.range), d.summary) for d in diags] == [("main.tf:1:1", 'No value for required variable "region"')]
    assert "CTL_VAR_region" in diags[0].hint


def test_a_missing_required_variable_is_asked_for_when_input_is_on(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": 'variable "replicas" {\n  type = number\n}\n'})
    asked: list[str] = []

    def prompt(var: Variable) -> str:
        asked.append(var.name)
        return "4"

    values, diags = resolve(root, prompt=prompt)
    assert (values, diags, asked) == ({"replicas": 4}, [], ["replicas"])


def test_validate_leaves_unset_required_variables_unknown_but_plan_requires_them(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": 'variable "region" {\n  type = string\n}\n'})
    assert load_and_evaluate(root, environ={}).diags.errors() == []
    loaded = load_and_evaluate(root, environ={}, require_all_variables=True)
    assert [d.summary for d in loaded.diags.errors()] == ['No value for required variable "region"']


def test_nullable_false_falls_back_to_the_default_and_sensitive_values_are_marked(make_config: MakeConfig) -> None:
    root = make_config({
        "main.tf": """
            variable "size" {
              type     = number
              default  = 3
              nullable = false
            }
            variable "password" {
              type      = string
              sensitive = true
            }
        """,
        "terraform.tfvars": "size = null\npassword = \"hunter2hunter2\"\n",
    })
    module, _ = load_config(root)
    out = Diagnostics()
    values = resolve_root_variables(module.variables, collect_values(root, [], {}), out)
    assert out.items == []
    assert values["size"] == 3
    assert is_marked(values["password"])
    assert unmark(values["password"])[0] == "hunter2hunter2"


def test_a_failing_validation_shows_its_error_message(make_config: MakeConfig) -> None:
    root = make_config({"main.tf": """
        variable "environment" {
          type    = string
          default = "dev"
          validation {
            condition     = contains(["dev", "prod"], var.environment)
            error_message = "Use dev or prod, not ${var.environment}."
          }
        }
    """})
    ok = load_and_evaluate(root, environ={})
    assert ok.diags.errors() == []
    bad = load_and_evaluate(root, var_args=[("var", "environment=qa")], environ={})
    errs = bad.diags.errors()
    assert [(str(d.range), d.summary) for d in errs] == [("main.tf:5:21", "Invalid value for variable")]
    assert errs[0].detail.startswith("Use dev or prod, not qa.")
