"""A third-party adapter package, installed with pip and used through the ctl executable.

``examples/adapter-plugin`` is installed with ``pip install --target`` into a temporary directory
that only the ctl subprocesses see (through PYTHONPATH), so the project's virtualenv stays clean.
Building it needs its build backend (hatchling) from the package index, as any pip install does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.e2e.helpers import REPO, Project, Result

PLUGIN = REPO / "examples" / "adapter-plugin"
ADDR = "example_note.hello"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plug-in installed by pip into a directory of its own."""
    target = tmp_path_factory.mktemp("plugin-site")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-input",
         "--disable-pip-version-check", "--target", str(target), str(PLUGIN)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"pip install failed:\n{proc.stdout}\n{proc.stderr}"
    assert list(target.glob("ctl_example_note-*.dist-info/entry_points.txt"))
    return target


class PluginProject(Project):
    """ctl runs that see the installed plug-in."""

    def __init__(self, root: Path, site: Path) -> None:
        super().__init__(root)
        self.site = site

    def ctl(self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 60) -> Result:
        # The plug-in's site, then whatever the tests run with (a checkout other than the installed one).
        path = os.pathsep.join(p for p in (str(self.site), os.environ.get("PYTHONPATH", "")) if p)
        return super().ctl(*args, env={"PYTHONPATH": path, **(env or {})}, timeout=timeout)


NOTE = """
resource "example_note" "hello" {{
  filename = "notes/hello.txt"
  text     = "{text}"
}}
"""


@pytest.fixture
def project(tmp_path: Path, site: Path) -> PluginProject:
    return PluginProject(tmp_path, site)


def test_ctl_lists_the_installed_adapter(project: PluginProject) -> None:
    assert "adapter example (example.com/acme/example)" in project.ok("version").stdout
    without = Project(project.root).ctl("version")  # the same ctl without the plug-in on its path
    assert "adapter example" not in without.stdout


def test_validate_checks_arguments_against_the_plugins_schema(project: PluginProject) -> None:
    project.write(NOTE.format(text="hi"))
    assert "The configuration is valid" in project.ok("validate").stdout
    project.write('resource "example_note" "hello" {\n  filename = "a.txt"\n  colour = "red"\n}\n')
    res = project.ctl("validate")
    assert res.code == 1, str(res)
    assert 'An argument named "colour" is not expected here.' in res.output
    assert 'The argument "text" is required, but no definition was found.' in res.output


def test_apply_update_drift_and_destroy(project: PluginProject) -> None:
    note = project.path("notes", "hello.txt")
    project.write(NOTE.format(text="Hello from a plug-in"))
    project.apply()
    assert note.read_text() == "Hello from a plug-in"
    assert project.instances()[ADDR]["attributes"]["length"] == len("Hello from a plug-in")
    assert project.state()["resources"][0]["provider"] == 'provider["example.com/acme/example"]'
    assert project.ctl("plan", "--detailed-exitcode").code == 0

    project.write(NOTE.format(text="Changed"))
    res = project.apply()
    assert "0 added, 1 changed, 0 destroyed" in res.stdout
    assert note.read_text() == "Changed"

    note.write_text("edited by hand")
    res = project.ctl("plan", "--detailed-exitcode")
    assert res.code == 2 and "Objects have changed outside of ctl" in res.stdout, str(res)
    project.apply()
    assert note.read_text() == "Changed"

    project.ok("destroy", "--auto-approve")
    assert not note.exists()


def test_import_by_file_name(project: PluginProject) -> None:
    project.path("notes").mkdir()
    project.path("notes", "hello.txt").write_text("already here")
    project.write(NOTE.format(text="already here"))
    project.ok("import", ADDR, "notes/hello.txt")
    assert project.ctl("plan", "--detailed-exitcode").code == 0


def test_the_plugin_passes_the_shared_contract_suite(site: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", str(PLUGIN / "contract_tests")], cwd=PLUGIN, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout and "failed" not in proc.stdout
