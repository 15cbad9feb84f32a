"""One configuration written in HCL, Terraform's JSON syntax and YAML must give the same model."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine.config.literals import traversal_text
from engine.lang.eval import EvalContext, evaluate
from engine.validate import Loaded, load_and_evaluate
from tests.conftest import copy_fixture
from vocab.values import deep_unmark, is_marked

SYNTAXES = ("hcl", "json", "yaml")


_copies: dict[str, Path] = {}


@pytest.fixture(scope="module", autouse=True)
def _copied(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each syntax's configuration loaded from a copy (``copy_fixture``), made once for the module."""
    base = tmp_path_factory.mktemp("equivalent")
    for syntax in SYNTAXES:
        _copies[syntax] = copy_fixture(f"equivalent/{syntax}", base)


@cache
def loaded(syntax: str) -> Loaded:
    return load_and_evaluate(_copies[syntax], environ={})


def summary(syntax: str) -> dict[str, Any]:
    """Everything a user can observe of the configuration, without source positions."""
    result = loaded(syntax)
    root, walk = result.root, result.walk
    assert root is not None and walk is not None
    scope = walk.scopes[()][0]
    instances = {
        inst.address: repr(deep_unmark(inst.config)[0])
        for insts in walk.instances.values()
        for inst in insts
    }
    return {
        "variables": {
            name: (
                str(v.type),
                evaluate(v.default, EvalContext(variables={})) if v.default is not None else None,
                v.description,
                v.sensitive,
            )
            for name, v in root.variables.items()
        },
        "locals": deep_unmark(dict(scope.locals))[0],
        "resources": {
            addr: (
                r.mode,
                r.count is not None,
                r.for_each is not None,
                [traversal_text(d) for d in r.depends_on],
                r.lifecycle.ignore_changes,
                r.lifecycle.create_before_destroy,
            )
            for addr, r in root.resources.items()
        },
        "instances": instances,
        "outputs": {
            name: (repr(deep_unmark(value)[0]), sensitive, root.outputs[name].description)
            for name, (value, sensitive) in walk.root_outputs.items()
        },
        "required_version": root.required_version,
    }


@pytest.mark.parametrize("syntax", SYNTAXES)
def test_each_syntax_is_valid(syntax: str) -> None:
    assert [(str(d.range), d.summary) for d in loaded(syntax).diags.items] == []


@pytest.mark.parametrize("syntax", ["json", "yaml"])
def test_same_model_as_hcl(syntax: str) -> None:
    hcl, other = summary("hcl"), summary(syntax)
    for key in hcl:
        assert other[key] == hcl[key], key


def test_the_model_is_what_the_configuration_says() -> None:
    s = summary("hcl")
    assert s["variables"] == {
        "project": ("string", "inventory", "Prefix of every name.", False),
        "environment": ("string", "dev", "", False),
        "replicas": ("number", 2, "", False),
        "labels": ("map(string)", {"team": "platform", "tier": "backend"}, "", False),
        "enable_audit": ("bool", True, "", False),
    }
    assert s["locals"] == {
        "name_prefix": "inventory-dev",
        "common_labels": {"team": "platform", "tier": "backend", "environment": "dev"},
        "replica_names": ["inventory-dev-00", "inventory-dev-01"],
    }
    assert sorted(s["instances"]) == [
        "local_file.manifest",
        "local_file.readme",
        "local_sensitive_file.api_key",
        "random_id.suffix",
        "random_integer.port",
        "random_password.api_key",
        'random_string.bucket["assets"]',
        'random_string.bucket["logs"]',
        "terraform_data.audit[0]",
        "terraform_data.replica[0]",
        "terraform_data.replica[1]",
    ]
    assert s["resources"]["terraform_data.audit"][3] == ["terraform_data.replica"]
    assert s["resources"]["random_password.api_key"][4] == ("length",)
    assert s["resources"]["local_file.manifest"][5] is True
    assert s["required_version"] == ">= 1.5.0"


def test_evaluated_arguments() -> None:
    walk = loaded("hcl").walk
    assert walk is not None
    configs = {i.address: i.config for insts in walk.instances.values() for i in insts}
    assert configs["random_id.suffix"] == {"byte_length": 4, "keepers": {"project": "inventory"}}
    assert configs["random_integer.port"] == {"min": 8000, "max": 8999, "seed": "inventory-dev"}
    assert configs["terraform_data.replica[1]"]["input"]["name"] == "inventory-dev-01"
    readme = configs["local_file.readme"]["content"]
    assert readme == "# inventory-dev\nReplicas: inventory-dev-00, inventory-dev-01\n"


@pytest.mark.parametrize("syntax", SYNTAXES)
def test_sensitive_output_stays_marked(syntax: str) -> None:
    walk = loaded(syntax).walk
    assert walk is not None
    value, sensitive = walk.root_outputs["api_key"]
    assert sensitive is True and is_marked(value)
