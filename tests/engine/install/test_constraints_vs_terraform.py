"""Version constraints in Terraform 1.0.3's normalized form, the form its lock file must hold.

Terraform prints the constraints it combined from every module (``Finding hashicorp/random versions
matching "…"``) in exactly the form it writes to ``.terraform.lock.hcl`` and requires there; it does
so before looking for a package, so an empty plugin directory is enough to read it. ctl's
normalization of the same configuration must give the same text: versions written in full, ``=``
left out, ``~>`` keeping its precision, duplicates dropped, terms in Terraform's order.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir
from vocab.versions import Constraints, Version, normalize_constraints

MODULE = """\
terraform {{
  required_providers {{
    random = {{
      source  = "hashicorp/random"
      version = "{version}"
    }}
  }}
}}
"""

# (root module's constraint, a child module's constraint)
CASES = [
    ("~> 9.0", "~> 9"),
    (">= 3.0", "3.0"),
    ("= 3.0.0, != 1.2", "~>3.0.0"),
    ("  >= 3.0 ,< 4  ", ">=3.0.0"),
    ("> 3.0, < 3.0, >= 3.0, <= 3.0, != 3.0, ~> 3.0, ~> 3.0.0, = 3.0", ">= 0"),
    ("!= 3.1, > 2, < 5, >= 10.0, <= 6, ~> 3.2, = 3.9.0", ">= 2.10"),
    (">= 3.9.0-beta1, >= 3.9.0, >= 3.9.0-alpha, >= 3.9.0-beta1.2", ">= 3.9.0-2, >= 3.9.0-10, > 3.9.0-b-a"),
    ("> 3.0.0+10, > 3.0.0+9, > 3.0.0+a.b, > 3.0.0+a", "> 3.0.0+a-b, > 3.0.0+B, != 3.0.0-a+z, 3.0.0-a"),
    ("~> 3-beta1", "~> 3.9, ~> 3.9.0, > 03.1"),
]


def _terraform_normalized(tmp_path: Path, root: str, child: str, *, tree: bool = False) -> str:
    workdir = tmp_path / "cfg"
    (workdir / "child").mkdir(parents=True)
    (workdir / "main.tf").write_text(MODULE.format(version=root) + 'module "child" {\n  source = "./child"\n}\n')
    (workdir / "child" / "main.tf").write_text(MODULE.format(version=child))
    empty = tmp_path / "no-providers"
    empty.mkdir()
    terraform = TerraformDir(workdir, plugin_dir=empty)
    result = terraform.run("init", "-input=false", "-no-color", f"-plugin-dir={empty}", expect=None)
    if tree:  # the modules are installed before the providers are looked for
        return _tree(terraform.run("providers", "-no-color").stdout)
    found = re.search(r'Finding hashicorp/random versions matching "([^"]*)"', result.output)
    assert found, result.output
    return found.group(1)


@pytest.mark.parametrize(("root", "child"), CASES)
def test_constraints_are_normalized_as_terraform_normalizes_them(tmp_path: Path, root: str, child: str) -> None:
    expected = _terraform_normalized(tmp_path, root, child)
    assert normalize_constraints([root, child]) == expected
    assert normalize_constraints([child, root]) == expected, "the order of the modules does not matter"
    assert normalize_constraints(expected) == expected, "the normalized form is a fixed point"


@pytest.mark.parametrize("text", ["~> 9.0", "~> 9", "~> 9.0.0", ">= 3.0", "3.0", "!= 1.2"])
def test_the_normalized_form_keeps_the_meaning(text: str) -> None:
    versions = [Version.parse(v) for v in ("1.2.0", "2.9.9", "3.0.0", "3.0.1", "3.1.0", "9.0.0", "9.0.5",
                                            "9.1.0", "9.9.9", "10.0.0")]
    written, shown = Constraints.parse(text), Constraints.parse(normalize_constraints(text))
    assert [v for v in versions if written.allows(v)] == [v for v in versions if shown.allows(v)]
    assert str(written) == normalize_constraints(text)


def _tree(output: str) -> str:
    lines = output.splitlines()
    start = lines.index("Providers required by configuration:") + 1
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return "\n".join(lines[start:end])


@pytest.mark.parametrize(("root", "child"), [CASES[3], CASES[5], CASES[8]])
def test_ctl_providers_shows_each_module_constraints_as_terraform_does(tmp_path: Path, root: str, child: str) -> None:
    expected = _terraform_normalized(tmp_path, root, child, tree=True)
    assert "module.child" in expected
    shown = Project(tmp_path / "cfg").ok("providers", env={"HOME": str(tmp_path)}).stdout
    assert _tree(shown) == expected


@pytest.mark.parametrize("bad", [">=  3.0", "v3.0", ">= 3.0,, < 4", "~> 3.0.0.0"])
def test_a_constraint_terraform_refuses_is_refused_where_it_is_written(tmp_path: Path, bad: str) -> None:
    workdir = tmp_path / "cfg"
    workdir.mkdir()
    (workdir / "main.tf").write_text(MODULE.format(version=bad))
    empty = tmp_path / "no-providers"
    empty.mkdir()
    refused = TerraformDir(workdir, plugin_dir=empty).run(
        "init", "-input=false", "-no-color", f"-plugin-dir={empty}", expect=1)
    assert "Invalid version constraint" in refused.output

    result = Project(workdir).ctl("init", "-plugin-dir", str(empty), env={"HOME": str(tmp_path)})
    assert result.code == 1, str(result)
    assert "main.tf:3:5: Invalid version constraint" in result.stderr, str(result)
    assert "Traceback" not in result.output
