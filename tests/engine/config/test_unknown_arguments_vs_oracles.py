"""Every block ctl reads refuses the names it does not take, as Terraform 1.0.3 and OpenTofu 1.12.6 do.

A misspelt protection (``lifecycle { prevent_destory = true }``, ``output { sensitve = true }``)
that validates does nothing, and the resource it was meant to keep is destroyed. Each case below is
run through ``terraform validate`` (1.0.3), ``tofu validate`` (OpenTofu 1.12.6, unpacked from
``../shared/peers``) and the real ``ctl validate``, side by side: ctl accepts exactly what the newer
reference accepts, and where it refuses, its first error is at the same line and column, its summary
begins with the reference's and it makes the same "Did you mean" suggestion. JSON cases are also
run through ctl as ``.tf.yaml`` (the references have no YAML syntax; the verdict must not change).

The references read HashiCorp's providers from ``../shared/providers`` (``-plugin-dir``); ctl serves
``random`` with its native adapter, and with the plugin where a case says so. Under CI=true a missing
reference is a failure, never a skip.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.helpers import CTL, REPO, clean_env
from tests.plugin.terraform_cli import missing_oracle, opentofu_executable, terraform_executable

MIRROR = REPO.parent / "shared" / "providers"
ORACLE_TIMEOUT = 120.0

# Written beside each case unless it says otherwise: the references need the provider sources with
# their host (OpenTofu's default registry is its own), and lock files from one ``init`` are shared.
VERSIONS = """\
terraform {
  required_providers {
    random = {
      source = "registry.terraform.io/hashicorp/random"
    }
    archive = {
      source = "registry.terraform.io/hashicorp/archive"
    }
  }
}
"""
RESOURCE = """\
resource "random_id" "a" {
  byte_length = 2
%s
}
"""



@dataclass(frozen=True)
class Case:
    """A configuration (file name -> text) and how it must be prepared."""

    files: dict[str, str]
    versions: bool = True  # write VERSIONS as versions.tf (cases about required_providers do not)
    init_here: bool = False  # the references run ``init`` in the case (it calls a module)
    ctl_plugin: bool = False  # ctl serves the providers with the plugins (``ctl init -plugin-dir``)


def _r(body: str) -> str:
    return RESOURCE % textwrap.indent(textwrap.dedent(body).strip("\n"), "  ")


def _tf(text: str) -> dict[str, str]:
    return {"main.tf": textwrap.dedent(text).lstrip("\n")}


def _json(doc: Any) -> dict[str, str]:
    return {"main.tf.json": json.dumps(doc, indent=2) + "\n"}


_MODULE = {"m/main.tf": 'variable "a" {\n  default = 1\n}\n'}
_ARCHIVE = """\
data "archive_file" "a" {
  type        = "zip"
  output_path = "out.zip"
  dynamic "source" {
%s
  }
}
"""


def _archive(body: str) -> str:
    return _ARCHIVE % textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")


CASES: dict[str, Case] = {
    # lifecycle and its conditions
    "lifecycle_prevent_destory": Case(_tf(_r("lifecycle {\n  prevent_destory = true\n}"))),
    "lifecycle_ignore_change": Case(_tf(_r("lifecycle {\n  ignore_change = [byte_length]\n}"))),
    "lifecycle_precondtion": Case(_tf(_r(
        'lifecycle {\n  precondtion {\n    condition     = var.n > 0\n    error_message = "No."\n  }\n}'
    ) + 'variable "n" {\n  default = 1\n}\n')),
    "lifecycle_every_argument": Case(_tf(_r("""
        lifecycle {
          create_before_destroy = true
          prevent_destroy       = false
          ignore_changes        = [byte_length]
          replace_triggered_by  = [random_id.b]
          precondition {
            condition     = var.n > 0
            error_message = "No."
          }
          postcondition {
            condition     = self.hex != ""
            error_message = "No."
          }
        }
        """) + 'resource "random_id" "b" {\n  byte_length = 2\n}\nvariable "n" {\n  default = 1\n}\n')),
    "postcondition_extra_argument": Case(_tf(_r(
        'lifecycle {\n  postcondition {\n    condition     = self.hex != ""\n    error_message = "No."\n'
        "    severity      = 1\n  }\n}"
    ))),
    "lifecycle_as_argument": Case(_tf(_r("lifecycle = {}"))),
    "data_lifecycle_managed_argument": Case(_tf(
        'data "archive_file" "a" {\n  type        = "zip"\n  output_path = "out.zip"\n'
        '  source_content          = "x"\n  source_content_filename = "x"\n'
        "  lifecycle {\n    prevent_destroy = true\n  }\n}\n"), ctl_plugin=True),
    # variables, validation
    "variable_defualt": Case(_tf('variable "x" {\n  defualt = 1\n}\n')),
    "variable_newer_arguments": Case(_tf(
        'variable "x" {\n  type        = number\n  default     = 1\n  description = "d"\n  sensitive   = false\n'
        '  nullable    = false\n  ephemeral   = false\n  deprecated  = "Use y."\n}\n'
        'variable "y" {\n  default = 1\n  const   = true\n}\n')),
    "variable_validation_as_argument": Case(_tf('variable "x" {\n  validation = true\n}\n')),
    "variable_default_as_block": Case(_tf('variable "x" {\n  default {\n  }\n}\n')),
    "validation_extra_argument": Case(_tf(
        'variable "x" {\n  default = "a"\n  validation {\n    condition     = var.x != ""\n'
        '    error_message = "The x must be set."\n    severity      = 1\n  }\n}\n')),
    # outputs
    "output_sensitve": Case(_tf('output "o" {\n  value    = 1\n  sensitve = true\n}\n')),
    "output_newer_arguments": Case(_tf(
        'variable "n" {\n  default = 1\n}\n'
        'output "o" {\n  value       = var.n\n  description = "d"\n  sensitive   = false\n  ephemeral   = false\n'
        '  deprecated  = "Use p."\n  depends_on  = []\n  precondition {\n    condition     = var.n > 0\n'
        '    error_message = "No."\n  }\n}\n')),
    "output_postcondition": Case(_tf(
        'variable "n" {\n  default = 1\n}\n'
        'output "o" {\n  value = var.n\n  postcondition {\n    condition     = var.n > 0\n'
        '    error_message = "No."\n  }\n}\n')),
    # the terraform block
    "terraform_bogus_argument": Case(_tf("terraform {\n  bogus = 1\n}\n")),
    "terraform_bogus_block": Case(_tf("terraform {\n  bogus {\n  }\n}\n")),
    "terraform_required_versoin": Case(_tf('terraform {\n  required_versoin = ">= 1.0"\n}\n')),
    "terraform_known_names": Case(_tf(
        'terraform {\n  required_version = ">= 0.12"\n  experiments      = []\n'
        '  provider_meta "random" {\n    x = 1\n  }\n  backend "local" {\n    path = "x.tfstate"\n  }\n}\n')),
    "required_providers_bogus_key": Case(_tf(
        'terraform {\n  required_providers {\n    random = {\n      source  = "registry.terraform.io/hashicorp/random"\n'
        '      verison = "~> 3.0"\n    }\n  }\n}\n'), versions=False),
    "required_providers_as_block": Case(_tf(
        'terraform {\n  required_providers {\n    random {\n      source = "hashicorp/random"\n    }\n  }\n}\n'),
        versions=False),
    "required_providers_configuration_aliases": Case(_tf(
        'terraform {\n  required_providers {\n    random = {\n      source                = '
        '"registry.terraform.io/hashicorp/random"\n      configuration_aliases = [random.b]\n    }\n  }\n}\n'),
        versions=False, init_here=True),
    "locals_with_a_block": Case(_tf("locals {\n  a = 1\n  b {\n  }\n}\n")),
    # refactoring blocks
    "moved_extra": Case(_tf(_r("") + "moved {\n  from  = random_id.b\n  to    = random_id.a\n  extra = 1\n}\n")),
    "import_extra": Case(_tf(_r("") + 'import {\n  to    = random_id.a\n  id    = "qg"\n  bogus = 1\n}\n')),
    "removed_extra": Case(_tf("removed {\n  from  = random_id.gone\n  bogus = 1\n}\n")),
    "removed_lifecycle_destory": Case(_tf(
        "removed {\n  from = random_id.gone\n  lifecycle {\n    destory = false\n  }\n}\n")),
    "removed_known_names": Case(_tf(
        "removed {\n  from = random_id.gone\n  lifecycle {\n    destroy = false\n  }\n}\n")),
    # checks
    "check_extra_argument": Case(_tf(_r("") + 'check "c" {\n  bogus = 1\n  assert {\n'
                                      '    condition     = random_id.a.hex != ""\n    error_message = "No."\n  }\n}\n')),
    "assert_extra_argument": Case(_tf(_r("") + 'check "c" {\n  assert {\n    condition     = random_id.a.hex != ""\n'
                                       '    error_message = "No."\n    bogus         = 1\n  }\n}\n')),
    # provisioners and connections
    "connection_bogus_with_provisioner": Case(_tf(_r(
        'connection {\n  host  = "h"\n  bogus = 1\n}\nprovisioner "local-exec" {\n  command = "true"\n}'))),
    "connection_bogus_without_provisioner": Case(_tf(_r('connection {\n  host  = "h"\n  bogus = 1\n}'))),
    "connection_known_names": Case(_tf(_r(
        'connection {\n  type        = "ssh"\n  host        = "h"\n  user        = "u"\n  port        = 22\n'
        '  timeout     = "1m"\n  agent       = false\n  script_path = "/tmp/x"\n  bastion_host = "b"\n}\n'
        'provisioner "local-exec" {\n  command = "true"\n}'))),
    "provisioner_connection_bogus": Case(_tf(_r(
        'provisioner "local-exec" {\n  command = "true"\n  connection {\n    host   = "h"\n    bogus  = 1\n  }\n}'))),
    "provisioner_nested_block": Case(_tf(_r('provisioner "local-exec" {\n  command = "true"\n  bogus {\n  }\n}'))),
    "provisioner_wen": Case(_tf(_r('provisioner "local-exec" {\n  command = "true"\n  wen     = destroy\n}'))),
    "provisioner_known_names": Case(_tf(_r(
        'provisioner "local-exec" {\n  command     = "true"\n  interpreter = ["/bin/sh", "-c"]\n'
        '  working_dir = "."\n  environment = {}\n  quiet       = true\n  when        = destroy\n'
        "  on_failure  = continue\n}"))),
    "resource_depend_on": Case(_tf(_r("depend_on = []"))),
    # provider blocks, with the native random adapter and with the plugin
    "provider_random_bogus": Case(_tf('provider "random" {\n  bogus = 1\n}\n' + _r(""))),
    "provider_random_bogus_plugin": Case(_tf('provider "random" {\n  bogus = 1\n}\n' + _r("")), ctl_plugin=True),
    "provider_random_bogus_block": Case(_tf('provider "random" {\n  bogus {\n  }\n}\n' + _r(""))),
    "provider_random_bogus_block_plugin": Case(_tf('provider "random" {\n  bogus {\n  }\n}\n' + _r("")),
                                               ctl_plugin=True),
    "provider_meta_arguments": Case(_tf(
        'provider "random" {\n  alias   = "b"\n  version = ">= 1.0"\n}\n' + _r("provider = random.b"))),
    # module calls
    "module_unknown_block": Case(_tf('module "m" {\n  source = "./m"\n  bogus {\n  }\n}\n') | _MODULE,
                                 init_here=True),
    "module_argument_nmae": Case(_tf('module "m" {\n  source = "./m"\n  nmae   = "x"\n}\n')
                                 | {"m/main.tf": 'variable "name" {\n  default = "a"\n}\n'}, init_here=True),
    "module_depend_on": Case(_tf('module "m" {\n  source    = "./m"\n  depend_on = []\n}\n') | _MODULE,
                             init_here=True),
    "module_meta_arguments": Case(_tf(
        'module "m" {\n  source     = "./m"\n  count      = 1\n  depends_on = []\n  providers  = {}\n  a = 2\n}\n')
        | _MODULE, init_here=True),
    # dynamic blocks (archive_file's "source" is a nested block)
    "dynamic_extra_argument": Case(_tf(_archive(
        'for_each = ["a"]\nbogus    = 1\ncontent {\n  content  = "x"\n  filename = "y"\n}')), ctl_plugin=True),
    "dynamic_labels": Case(_tf(_archive(
        'for_each = ["a"]\nlabels   = []\ncontent {\n  content  = "x"\n  filename = "y"\n}')), ctl_plugin=True),
    "dynamic_contnt": Case(_tf(_archive('for_each = ["a"]\ncontnt {\n  content  = "x"\n  filename = "y"\n}')),
                           ctl_plugin=True),
    "dynamic_known_names": Case(_tf(_archive(
        'for_each = ["a"]\niterator = it\ncontent {\n  content  = it.value\n  filename = "y"\n}')), ctl_plugin=True),
    # the top level
    "top_level_resorce": Case(_tf('resorce "random_id" "a" {\n}\n')),
    "top_level_required_providers": Case(_tf('required_providers {\n  random = {\n    source = "hashicorp/random"\n  }\n}\n')),
    "top_level_language": Case(_tf("language {\n  edition = tofu2024\n}\n")),
    "top_level_language_bogus": Case(_tf("language {\n  edition = tofu2024\n  bogus   = 1\n}\n")),
    # Terraform's JSON syntax (and, through ctl, the same documents as YAML)
    "json_variable_defualt": Case(_json({"variable": {"x": {"defualt": 1}}})),
    "json_output_sensitve": Case(_json({"output": {"o": {"value": 1, "sensitve": True}}})),
    "json_terraform_bogus": Case(_json({"terraform": {"bogus": 1}})),
    "json_lifecycle_prevent_destory": Case(_json(
        {"resource": {"random_id": {"a": {"byte_length": 2, "lifecycle": {"prevent_destory": True}}}}})),
    "json_lifecycle_precondtion": Case(_json({"resource": {"random_id": {"a": {
        "byte_length": 2, "lifecycle": {"precondtion": {"condition": "${self.hex != \"\"}", "error_message": "No."}}}}}})),
    "json_moved_extra": Case(_json({
        "resource": {"random_id": {"a": {"byte_length": 2}}},
        "moved": [{"from": "random_id.b", "to": "random_id.a", "extra": 1}],
    })),
    "json_provider_bogus": Case(_json({"provider": {"random": {"bogus": 1}},
                                       "resource": {"random_id": {"a": {"byte_length": 2}}}})),
    "json_required_providers_verison": Case(_json({"terraform": {"required_providers": {"random": {
        "source": "registry.terraform.io/hashicorp/random", "verison": "~> 3.0"}}}}), versions=False),
    "json_removed_lifecycle_destory": Case(_json(
        {"removed": [{"from": "random_id.gone", "lifecycle": {"destory": False}}]})),
    "json_validation_extra": Case(_json({"variable": {"x": {"default": "a", "validation": [
        {"condition": "${var.x != \"\"}", "error_message": "The x must be set.", "severity": 1}]}}})),
    "json_comments": Case(_json({"//": "c", "variable": {"x": {"//": "c", "default": 1}}})),
    "json_top_level_resorce": Case(_json({"resorce": {"random_id": {"a": {}}}})),
}

# Constructs of the newest language that OpenTofu accepts and ctl does not act on: refused by name
# ("… is not supported by ctl") rather than ignored, since ignoring them changes what happens to the
# infrastructure (a disabled resource created, an object destroyed that was to be forgotten). The
# line holding ``marker`` is where ctl points.
NOT_SUPPORTED: dict[str, tuple[Case, str]] = {
    "lifecycle_enabled": (Case(_tf(_r("lifecycle {\n  enabled = false\n}"))), "enabled"),
    "lifecycle_destroy": (Case(_tf(_r("lifecycle {\n  destroy = false\n}"))), "destroy"),
    "module_lifecycle_enabled": (Case(_tf(
        'module "m" {\n  source = "./m"\n  lifecycle {\n    enabled = false\n  }\n}\n') | _MODULE, init_here=True),
        "enabled"),
    "terraform_cloud": (Case(_tf('terraform {\n  cloud {\n    organization = "o"\n  }\n}\n')), "cloud"),
    "ephemeral_resource": (Case(_tf('ephemeral "random_password" "p" {\n  length = 8\n}\n')), "ephemeral"),
    "removed_provisioner": (Case(_tf(
        'removed {\n  from = random_id.gone\n  lifecycle {\n    destroy = true\n  }\n'
        '  provisioner "local-exec" {\n    when    = destroy\n    command = "true"\n  }\n}\n')), "provisioner"),
}


# ---- the references ------------------------------------------------------------------------------------


@dataclass
class Verdict:
    """What one validator said: valid or not, and its errors in its own order."""

    valid: bool
    errors: list[dict[str, Any]] = field(default_factory=list)
    raw: str = ""

    def first(self) -> dict[str, Any]:
        return self.errors[0]


def _verdict(stdout: str, stderr: str) -> Verdict:
    start = stdout.find("{")
    try:
        doc = json.loads(stdout[start:]) if start >= 0 else None
    except json.JSONDecodeError:
        doc = None
    if not isinstance(doc, dict) or "valid" not in doc:
        raise AssertionError(f"no validate -json document in:\n{stdout}\n{stderr}")
    errors = [d for d in doc.get("diagnostics", []) if d.get("severity") == "error"]
    return Verdict(bool(doc["valid"]), errors, stdout + stderr)


class Oracle:
    """``terraform`` or ``tofu``: validate a directory with providers from a shared, initialised data dir."""

    def __init__(self, name: str, binary: Path, work: Path) -> None:
        self.name = name
        self.binary = binary
        self.template = work / f"{name}-template"
        self.template.mkdir()
        (self.template / "versions.tf").write_text(VERSIONS)
        home = work / f"{name}-home"
        home.mkdir()
        self.base_env = {k: v for k, v in os.environ.items() if not k.startswith("TF_") and k != "HOME"}
        self.base_env.update(HOME=str(home), CHECKPOINT_DISABLE="1", TF_IN_AUTOMATION="1")
        self.data_dir = self.template / ".terraform"
        self._run(self.template, "init", "-backend=false", "-input=false", "-no-color", f"-plugin-dir={MIRROR}",
                  data_dir=self.data_dir, expect_ok=True)

    def _run(self, cwd: Path, *args: str, data_dir: Path, expect_ok: bool = False) -> subprocess.CompletedProcess[str]:
        env = {**self.base_env, "TF_DATA_DIR": str(data_dir)}
        proc = subprocess.run([str(self.binary), *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=ORACLE_TIMEOUT)
        if expect_ok and proc.returncode != 0:
            raise AssertionError(f"{self.name} {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def validate(self, case_dir: Path, case: Case) -> Verdict:
        if case.init_here:
            data_dir = case_dir / ".terraform"
            self._run(case_dir, "init", "-backend=false", "-input=false", "-no-color", f"-plugin-dir={MIRROR}",
                      data_dir=data_dir)
        else:
            data_dir = self.data_dir
            if case.versions:
                shutil.copy(self.template / ".terraform.lock.hcl", case_dir / ".terraform.lock.hcl")
        proc = self._run(case_dir, "validate", "-json", "-no-color", data_dir=data_dir)
        return _verdict(proc.stdout, proc.stderr)


@pytest.fixture(scope="module")
def oracles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Oracle]]:
    if not (MIRROR / "registry.terraform.io" / "hashicorp" / "random").is_dir():
        missing_oracle(f"HashiCorp's providers are not at {MIRROR}")
    work = tmp_path_factory.mktemp("oracles")
    tofu = opentofu_executable(work)
    yield {"terraform": Oracle("terraform", terraform_executable(), work), "tofu": Oracle("tofu", tofu, work)}


def _write(root: Path, case: Case, files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True)
    if case.versions:
        (root / "versions.tf").write_text(VERSIONS)
    for name, text in (files if files is not None else case.files).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _ctl(root: Path, case: Case, files: dict[str, str] | None = None) -> Verdict:
    """``ctl validate -json`` in a fresh directory; with the plugins, ``ctl init`` runs before the case is written."""
    if case.ctl_plugin:
        root.mkdir(parents=True)
        (root / "versions.tf").write_text(VERSIONS)
        init = subprocess.run([CTL, "init", "-plugin-dir", str(MIRROR)], cwd=root, env=clean_env(),
                              capture_output=True, text=True, timeout=ORACLE_TIMEOUT)
        assert init.returncode == 0, init.stdout + init.stderr
        for name, text in (files if files is not None else case.files).items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
    else:
        _write(root, case, files)
    proc = subprocess.run([CTL, "validate", "-json"], cwd=root, env=clean_env(), capture_output=True, text=True,
                          timeout=ORACLE_TIMEOUT)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stdout + proc.stderr, proc.stderr
    return _verdict(proc.stdout, proc.stderr)


def _at(diag: dict[str, Any]) -> tuple[str, int, int]:
    rng = diag.get("range") or {}
    start = rng.get("start") or {}
    return rng.get("filename", ""), start.get("line", 0), start.get("column", 0)


_SUGGESTION = re.compile(r'Did you mean "[^"]+"\?')


def _agrees(ctl: Verdict, reference: Verdict, who: str) -> None:
    """ctl refuses at the reference's first error, with its summary first and its suggestion."""
    want = reference.first()
    found = [d for d in ctl.errors if _at(d)[1:] == _at(want)[1:]]
    assert found, f"{who} refuses at {_at(want)} ({want['summary']}); ctl's errors: " + \
        "; ".join(f"{_at(d)} {d['summary']}" for d in ctl.errors)
    got = found[0]
    assert got["summary"].startswith(want["summary"]), (got["summary"], want["summary"])
    suggestion = _SUGGESTION.search(want.get("detail") or "")
    if suggestion:
        assert suggestion.group(0) in (got.get("detail") or ""), (suggestion.group(0), got)


@pytest.mark.parametrize("name", sorted(CASES))
def test_ctl_accepts_and_refuses_as_the_newest_reference(name: str, oracles: dict[str, Oracle],
                                                         tmp_path: Path) -> None:
    case = CASES[name]
    said = {who: oracle.validate(_write(tmp_path / who, case), case) for who, oracle in oracles.items()}
    ctl = _ctl(tmp_path / "ctl", case)
    newest = said["tofu"]  # where the two references differ, the newer language is followed
    assert ctl.valid == newest.valid, (
        f"ctl says {'valid' if ctl.valid else 'invalid'}, OpenTofu 1.12.6 {'valid' if newest.valid else 'invalid'}\n"
        f"ctl: {[d['summary'] for d in ctl.errors]}\nOpenTofu: {newest.raw}\nTerraform 1.0.3: {said['terraform'].raw}"
    )
    if newest.valid:
        return
    _agrees(ctl, newest, "OpenTofu 1.12.6")
    older = said["terraform"]
    if not older.valid and (_at(older.first()), older.first()["summary"]) == (_at(newest.first()), newest.first()["summary"]):
        _agrees(ctl, older, "Terraform 1.0.3")
    if any(name.endswith(".tf.json") for name in case.files):
        as_yaml = {n.replace(".tf.json", ".tf.yaml"): yaml.safe_dump(json.loads(t), sort_keys=False)
                   for n, t in case.files.items()}
        in_yaml = _ctl(tmp_path / "ctl-yaml", case, as_yaml)
        assert not in_yaml.valid
        assert any(d["summary"].startswith(newest.first()["summary"]) for d in in_yaml.errors), in_yaml.raw


@pytest.mark.parametrize("name", sorted(NOT_SUPPORTED))
def test_newest_constructs_ctl_does_not_act_on_are_refused_by_name(name: str, oracles: dict[str, Oracle],
                                                                   tmp_path: Path) -> None:
    case, marker = NOT_SUPPORTED[name]
    newest = oracles["tofu"].validate(_write(tmp_path / "tofu", case), case)
    assert newest.valid, newest.raw  # OpenTofu accepts it: a construct of the language, not a typo
    ctl = _ctl(tmp_path / "ctl", case)
    refused = [d for d in ctl.errors if "is not supported by ctl" in d["summary"]]
    assert refused, ctl.raw
    line = next(i for i, text in enumerate(case.files["main.tf"].splitlines(), 1) if marker in text)
    assert _at(refused[0])[1] == line, (refused[0], line)
    shown = subprocess.run([CTL, "validate"], cwd=tmp_path / "ctl", env=clean_env(), capture_output=True, text=True,
                           timeout=ORACLE_TIMEOUT)
    assert "is not supported by ctl" in shown.stdout + shown.stderr and "Hint: " in shown.stdout + shown.stderr
