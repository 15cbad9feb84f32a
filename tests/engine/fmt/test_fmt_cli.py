"""``ctl fmt`` as a user and a CI job run it, side by side with ``terraform fmt`` (1.0.3).

Both tools get copies of the same directory; what they print (the list of files, the diff, the
formatted standard input) and what they leave on disk must be the same. Exit codes follow ctl's
table: ``--check`` on an unformatted file is 2 where Terraform says 3.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.helpers import CTL, clean_env
from tests.plugin.terraform_cli import terraform_executable

UNFORMATTED = 'resource "x" "y" {\n  a=1\n  long_name   = "v"\n}\n'
FORMATTED = 'variable "ok" {\n  default = 1\n}\n'

TREE = {
    "main.tf": UNFORMATTED,
    "ok.tf": FORMATTED,
    "terraform.tfvars": 'region="eu"\ncount_of  = 2\n',
    "spec.tf.json": '{"variable": {"j": {"default": 1}}}',  # another extension: never touched
    "spec.tf.yaml": "variable:\n  y:   {default: 1}\n",
    "notes.txt": "a=1\n",
    "main.tf~": "a=1\n",  # an editor backup
    ".hidden/h.tf": "a=1\n",
    "modules/net/net.tf": 'output "o" {\nvalue=1\n}\n',
}


def _tree(root: Path) -> Path:
    for name, text in TREE.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _ctl(cwd: Path, *args: str, stdin: str | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CTL, "fmt", *args], cwd=cwd, env=clean_env(env), input=stdin, capture_output=True,
                          text=True, timeout=60, stdin=None if stdin is not None else subprocess.DEVNULL)


def _terraform(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = clean_env({"TF_CLI_CONFIG_FILE": str(cwd / ".none.tfrc"), "CHECKPOINT_DISABLE": "1"})
    return subprocess.run([str(terraform_executable()), "fmt", "-no-color", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=60,
                          stdin=None if stdin is not None else subprocess.DEVNULL)


@pytest.fixture
def twins(tmp_path: Path) -> tuple[Path, Path]:
    """The same tree twice: one for ctl, one for Terraform."""
    return _tree(tmp_path / "ctl"), _tree(tmp_path / "tf")


@pytest.mark.parametrize("args", [(), ("-recursive",), ("modules/net",), ("terraform.tfvars",)],
                         ids=["directory", "recursive", "subdirectory", "file"])
def test_rewrites_and_lists_what_terraform_does(twins: tuple[Path, Path], args: tuple[str, ...]) -> None:
    ours, theirs = twins
    ctl = _ctl(ours, *["-" + a if a.startswith("-") else a for a in args])
    tf = _terraform(theirs, *args)
    assert (ctl.returncode, tf.returncode) == (0, 0), ctl.stderr + tf.stderr
    assert ctl.stdout == tf.stdout and ctl.stdout  # the names of the changed files, one a line
    assert _files(ours) == _files(theirs)
    assert _ctl(ours, *["-" + a if a.startswith("-") else a for a in args]).stdout == ""  # idempotent


def test_check_writes_nothing_and_exits_2_where_terraform_exits_3(twins: tuple[Path, Path]) -> None:
    ours, theirs = twins
    before = _files(ours)
    ctl, tf = _ctl(ours, "--check", "--recursive"), _terraform(theirs, "-check", "-recursive")
    assert (ctl.returncode, tf.returncode) == (2, 3)
    assert ctl.stdout == tf.stdout == "main.tf\nmodules/net/net.tf\nterraform.tfvars\n"
    assert _files(ours) == before
    quiet = _ctl(ours, "--check", "--list=false")
    assert (quiet.returncode, quiet.stdout) == (2, "")
    assert _ctl(ours, "--check", "ok.tf").returncode == 0


def test_diff_is_terraforms_diff(twins: tuple[Path, Path]) -> None:
    ours, theirs = twins
    ctl = _ctl(ours, "--diff", "--write=false", "--recursive")
    tf = _terraform(theirs, "-diff", "-write=false", "-recursive")
    assert (ctl.returncode, tf.returncode) == (0, 0), tf.stderr
    assert "--- old/main.tf\n+++ new/main.tf\n" in ctl.stdout
    assert ctl.stdout == tf.stdout
    assert _files(ours)["main.tf"] == UNFORMATTED.encode()


def test_standard_input_to_standard_output(tmp_path: Path) -> None:
    src = 'locals {\nx=[1,2]\n  yy = "a"\n}\n'
    ctl, tf = _ctl(tmp_path, "-", stdin=src), _terraform(tmp_path, "-", stdin=src)
    assert (ctl.returncode, tf.returncode) == (0, 0)
    assert ctl.stdout == tf.stdout == 'locals {\n  x  = [1, 2]\n  yy = "a"\n}\n'
    assert list(tmp_path.iterdir()) == []


def test_a_syntax_error_names_its_place_and_the_other_files_are_still_formatted(tmp_path: Path) -> None:
    (tmp_path / "broken.tf").write_text('resource "x" "y" {\n  a = [1,\n}\n')
    (tmp_path / "fine.tf").write_text(UNFORMATTED)
    res = _ctl(tmp_path)
    assert res.returncode == 1
    assert "broken.tf:3:1: Invalid expression" in res.stderr and "Traceback" not in res.stderr
    assert (tmp_path / "broken.tf").read_text() == 'resource "x" "y" {\n  a = [1,\n}\n'
    assert res.stdout == "fine.tf\n" and (tmp_path / "fine.tf").read_text() != UNFORMATTED


def test_several_targets_in_one_run(tmp_path: Path) -> None:
    """Terraform 1.0.3 takes one target; ctl takes several, each as if given alone."""
    _tree(tmp_path)
    res = _ctl(tmp_path, "main.tf", "modules", "--recursive")
    assert (res.returncode, res.stdout) == (0, "main.tf\nmodules/net/net.tf\n")
    assert _ctl(tmp_path, "--check", "main.tf", "modules", "--recursive").returncode == 0


def test_a_missing_target_and_an_unformattable_file_are_clear_errors(tmp_path: Path) -> None:
    missing = _ctl(tmp_path, "nowhere")
    assert missing.returncode == 1 and "No file or directory at nowhere" in missing.stderr
    (tmp_path / "spec.tf.json").write_text("{}")
    json_file = _ctl(tmp_path, "spec.tf.json")
    assert json_file.returncode == 1 and "Only .tf and .tfvars files can be formatted" in json_file.stderr
    assert (tmp_path / "spec.tf.json").read_text() == "{}"


def test_a_file_over_4_mib_is_formatted_as_terraform_formats_it_unless_a_ceiling_is_set(
        twins: tuple[Path, Path]) -> None:
    """fmt has no ceiling of its own any more: only the parser's opt-in CTL_MAX_HCL_FILE_MB."""
    big = 'locals {\n  big = "' + "abcdefghij" * 7 * 80_000 + '"\n  x=1\n    long_name = 2\n}\n'
    assert len(big) > 5 * 1024 * 1024
    ctl_dir, tf_dir = twins
    for root in twins:
        (root / "big.tf").write_text(big)
    refused = _ctl(ctl_dir, "big.tf", env={"CTL_MAX_HCL_FILE_MB": "4"})
    assert refused.returncode == 1, refused.stderr
    assert "over the 4 MiB limit CTL_MAX_HCL_FILE_MB sets for HCL files" in refused.stderr
    assert (ctl_dir / "big.tf").read_text() == big
    ctl, tf = _ctl(ctl_dir, "big.tf"), _terraform(tf_dir, "big.tf")
    assert (ctl.returncode, tf.returncode) == (0, 0), ctl.stderr
    assert ctl.stdout == tf.stdout == "big.tf\n"
    formatted = (ctl_dir / "big.tf").read_text()
    assert formatted == (tf_dir / "big.tf").read_text()
    assert formatted.endswith('"\n  x         = 1\n  long_name = 2\n}\n')


def test_a_file_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "main.tf"
    path.write_text(UNFORMATTED)
    path.chmod(0o640)
    assert _ctl(tmp_path).returncode == 0
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["main.tf"]  # no temporary file left behind


def test_diff_tool_is_there() -> None:
    assert shutil.which("diff") is not None, "terraform fmt -diff runs diff(1)"
