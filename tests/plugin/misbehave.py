"""The misbehaving test provider (tests/providers/misbehave), built in the test run, and a pair of
directories for driving it with ctl and with Terraform 1.0.3 side by side.

``misbehave_thing`` lives only in state; its ``trick`` argument names the protocol promise the
provider breaks (see the package comment of tests/providers/misbehave/main.go).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests import plugin_providers as pp
from tests.e2e.helpers import Project
from tests.plugin.terraform_cli import TerraformDir

SPEC = pp.ProviderSpec("misbehave", "ctltest", "registry.terraform.io", "1.0.0", 6, "misbehave")
PLUGINS = pp.BUILD_DIR / "misbehave-plugins"

HEADER = """
terraform {
  required_providers {
    misbehave = { source = "ctltest/misbehave" }
  }
}
"""


def misbehave_dir() -> Path:
    """A ``-plugin-dir`` holding only terraform-provider-misbehave, built when its sources changed."""
    go = pp.find_go()
    if go is None:
        pp._unavailable("Go is not installed, so tests/providers/misbehave cannot be built")
    assert go is not None
    with pp._build_lock():
        target = PLUGINS / SPEC.relative_path(pp._host_os_arch(go))
        if not target.exists() or target.stat().st_mtime <= pp._newest_source_mtime():
            pp._build(go, SPEC, target)
    return PLUGINS


@dataclass
class Pair:
    """One configuration in two directories: ``ctl`` (a Project) and ``terraform`` (a TerraformDir)."""

    ctl: Project
    terraform: TerraformDir


def make_pair(tmp_path: Path, plugins: Path, body: str, *, terraform: bool = True) -> Pair:
    """Both directories written and initialised from ``plugins`` (Terraform's only when asked)."""
    dirs = {}
    for tool in ("ctl", "terraform"):
        work = tmp_path / tool
        work.mkdir(parents=True)
        (work / "main.tf").write_text(HEADER + body)
        dirs[tool] = work
    project = Project(dirs["ctl"])
    project.ok("init", "-plugin-dir", str(plugins))
    tf = TerraformDir(dirs["terraform"], plugins)
    if terraform:
        tf.init()
    return Pair(project, tf)
