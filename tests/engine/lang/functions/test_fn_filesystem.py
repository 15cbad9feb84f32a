"""File functions: paths read as Terraform reads them, and the opt-in sandbox (``file_root``)."""

import os
from pathlib import Path

import pytest

from engine.lang.functions import FunctionContext, FunctionError, call_function, file_root_from


@pytest.fixture
def root(tmp_path: Path) -> Path:
    conf = tmp_path / "conf"
    (conf / "files" / "subdirectory").mkdir(parents=True)
    (conf / "files" / "hello.txt").write_text("Hello World")
    (conf / "files" / "world.txt").write_text("world")
    (conf / "files" / "subdirectory" / "anotherfile.txt").write_text("x")
    (conf / "binary.bin").write_bytes(b"\xff\xfe")
    (conf / "backends.tftpl").write_text("backend ${addr}:${port}")
    (tmp_path / "secret.txt").write_text("top secret")
    return conf


def ctx_for(root: Path, **kw: object) -> FunctionContext:
    return FunctionContext(base_dir=root, module_dir=root, **kw)


def call(root: Path, name: str, *args: object, **kw: object) -> object:
    return call_function(name, list(args), ctx_for(root, **kw))


def test_file_reads_relative_to_the_configuration_directory(root: Path) -> None:
    assert call(root, "file", "files/hello.txt") == "Hello World"
    assert call(root, "file", f"{root}/files/hello.txt") == "Hello World"


def test_file_refuses_invalid_utf8_and_missing_files(root: Path) -> None:
    with pytest.raises(FunctionError, match="UTF-8"):
        call(root, "file", "binary.bin")
    with pytest.raises(FunctionError, match="no file exists"):
        call(root, "file", "missing.txt")


def test_filebase64(root: Path) -> None:
    assert call(root, "filebase64", "files/hello.txt") == "SGVsbG8gV29ybGQ="
    assert call(root, "filebase64", "binary.bin") == "//4="


def test_fileexists(root: Path) -> None:
    assert call(root, "fileexists", "files/hello.txt") is True
    assert call(root, "fileexists", "files/nope.txt") is False
    with pytest.raises(FunctionError, match="not a regular file"):
        call(root, "fileexists", "files")


@pytest.mark.parametrize(
    "fn", ["file", "filebase64", "fileexists", "filemd5", "filesha256", "filebase64sha256"]
)
def test_paths_outside_the_configuration_are_read_as_terraform_reads_them(root: Path, fn: str) -> None:
    expected = call(root, fn, "../secret.txt")
    assert expected not in (None, False)
    for path in (str(root.parent / "secret.txt"), "files/../../secret.txt", "./../conf/../secret.txt"):
        assert call(root, fn, path) == expected


@pytest.mark.parametrize(
    "fn", ["file", "filebase64", "fileexists", "filemd5", "filesha256", "filebase64sha256"]
)
def test_a_file_root_refuses_paths_that_leave_it(root: Path, fn: str) -> None:
    for path in ("../secret.txt", str(root.parent / "secret.txt"), "files/../../secret.txt"):
        with pytest.raises(FunctionError, match="outside the configuration directory") as exc:
            call(root, fn, path, file_root=root)
        assert exc.value.arg_index == 0
    assert call(root, "file", "files/../files/hello.txt", file_root=root) == "Hello World"


def test_a_file_root_refuses_symlinks_leading_outside(root: Path) -> None:
    os.symlink(root.parent / "secret.txt", root / "link.txt")
    assert call(root, "file", "link.txt") == "top secret"
    with pytest.raises(FunctionError, match="outside the configuration directory"):
        call(root, "file", "link.txt", file_root=root)


def test_the_file_root_comes_from_ctl_file_root(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    assert file_root_from({}) is None and file_root_from({"CTL_FILE_ROOT": " "}) is None
    assert file_root_from({"CTL_FILE_ROOT": "files"}) == (root / "files").resolve()
    monkeypatch.setenv("CTL_FILE_ROOT", str(root))
    with pytest.raises(FunctionError, match="outside the configuration directory"):
        call_function("file", ["../secret.txt"], FunctionContext(base_dir=root, module_dir=root))


def test_fileset_documented_examples(root: Path) -> None:
    assert call(root, "fileset", str(root), "files/*.txt") == ["files/hello.txt", "files/world.txt"]
    assert call(root, "fileset", str(root), "files/{hello,world}.txt") == [
        "files/hello.txt",
        "files/world.txt",
    ]
    assert call(root, "fileset", f"{root}/files", "*") == ["hello.txt", "world.txt"]
    assert call(root, "fileset", f"{root}/files", "**") == [
        "hello.txt",
        "subdirectory/anotherfile.txt",
        "world.txt",
    ]


def test_fileset_patterns(root: Path) -> None:
    assert call(root, "fileset", ".", "files/?ello.txt") == ["files/hello.txt"]
    assert call(root, "fileset", ".", "files/[hw]*.txt") == ["files/hello.txt", "files/world.txt"]
    assert call(root, "fileset", ".", "**/anotherfile.txt") == ["files/subdirectory/anotherfile.txt"]
    assert call(root, "fileset", ".", "nothing/*") == []


def test_fileset_reads_parents_as_terraform_does_unless_a_file_root_confines_it(root: Path) -> None:
    assert call(root, "fileset", "..", "*.txt") == ["secret.txt"]
    assert call(root, "fileset", ".", "../*.txt") == ["../secret.txt"]
    with pytest.raises(FunctionError, match="outside"):
        call(root, "fileset", "..", "*", file_root=root)
    with pytest.raises(FunctionError, match="outside"):
        call(root, "fileset", ".", "../*", file_root=root)


def test_abspath_basename_dirname() -> None:
    base = Path("/srv/conf")
    ctx = FunctionContext(base_dir=base, module_dir=base)
    assert call_function("abspath", ["modules/x"], ctx) == "/srv/conf/modules/x"
    assert call_function("abspath", ["/etc/../tmp"], ctx) == "/tmp"
    assert call_function("basename", ["foo/bar/baz.txt"], ctx) == "baz.txt"
    assert call_function("dirname", ["foo/bar/baz.txt"], ctx) == "foo/bar"
    assert call_function("dirname", ["foo"], ctx) == "."
    assert call_function("dirname", [""], ctx) == "."


def _render(text: str, filename: str, variables: dict) -> str:
    out = text
    for k, v in variables.items():
        out = out.replace("${" + k + "}", str(v))
    return f"{filename}|{out}"


def test_templatefile_passes_text_filename_and_vars_to_the_renderer(root: Path) -> None:
    result = call(
        root, "templatefile", "backends.tftpl", {"addr": "10.0.0.1", "port": 8080}, render_template=_render
    )
    assert result == "backends.tftpl|backend 10.0.0.1:8080"


def test_templatefile_reads_outside_unless_confined_and_checks_its_arguments(root: Path) -> None:
    assert str(call(root, "templatefile", "../secret.txt", {}, render_template=_render)).endswith("top secret")
    with pytest.raises(FunctionError, match="outside"):
        call(root, "templatefile", "../secret.txt", {}, render_template=_render, file_root=root)
    with pytest.raises(FunctionError) as exc:
        call(root, "templatefile", "backends.tftpl", ["x"], render_template=_render)
    assert exc.value.arg_index == 1
    with pytest.raises(FunctionError, match="invalid template variable name"):
        call(root, "templatefile", "backends.tftpl", {"1x": 1}, render_template=_render)


def test_templatefile_without_a_renderer_is_unavailable(root: Path) -> None:
    with pytest.raises(FunctionError, match="templatefile is not available here"):
        call(root, "templatefile", "backends.tftpl", {})
