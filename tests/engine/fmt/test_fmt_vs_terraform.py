"""``ctl fmt`` against ``terraform fmt`` (1.0.3): the same bytes out for the same bytes in.

The corpus in ``tests/fixtures/fmt`` covers every construct of the language (blocks and labels,
alignment runs, comments in every position, heredocs, templates, ``for`` expressions, operators,
unicode, ``.tfvars``). Each file is also fed in two disfigured forms (every indentation removed;
spaces around ``=`` and commas doubled) so that the formatter has real work on every line. Terraform
formats them all in one run; ctl must print the very same bytes, leave them alone on a second pass,
and keep their meaning (python-hcl2, the parser oracle, reads the same document before and after).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import hcl2
import pytest

from engine.fmt import format_source
from engine.lang.ast import Literal, ObjectItem, ScopeTraversal, TemplateWrap
from engine.lang.hcl import parse_expression, parse_hcl_file
from engine.lang.syntax import Attribute, Block, Body
from engine.lang.type_constraints import TypeConstraintError, parse_variable_type
from tests.plugin.terraform_cli import terraform_executable
from vocab.errors import SourceRange

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "fmt"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".tf", ".tfvars"))


def _unindented(text: str) -> str:
    """Every line's leading white space gone, heredoc bodies included (both tools get the same)."""
    return "\n".join(line.lstrip(" \t") for line in text.split("\n"))


def _spread(text: str) -> str:
    """Single spaces around ``=`` and after commas made into runs, outside quoted strings."""
    out = []
    for line in text.split("\n"):
        if '"' in line or "<<" in line or "#" in line or "//" in line:
            out.append(line)
            continue
        line = re.sub(r"(?<![=!<>])=(?![=>])", "   =  ", line)
        out.append(line.replace(",", " ,   "))
    return "\n".join(out)


VARIANTS = {"as-written": lambda t: t, "unindented": _unindented, "spread": _spread}


def _variant_name(case: str, variant: str) -> str:
    stem, _, ext = case.partition(".")
    return f"{stem}--{variant}.{ext}"


@pytest.fixture(scope="module")
def terraform_formatted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Every corpus file in every variant, as ``terraform fmt`` rewrote it (by file name)."""
    workdir = tmp_path_factory.mktemp("tf-fmt")
    originals: dict[str, bytes] = {}
    for case in CASES:
        text = (CORPUS / case).read_text()
        for variant, make in VARIANTS.items():
            name = _variant_name(case, variant)
            data = make(text).encode()
            originals[name] = data
            (workdir / name).write_bytes(data)
    home = tmp_path_factory.mktemp("tf-home")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "TF_CLI_CONFIG_FILE": str(home / "none.tfrc")}
    proc = subprocess.run([str(terraform_executable()), "fmt", "-list=false"], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = {name: (workdir / name).read_bytes() for name in originals}
    out.update({f"source:{name}": data for name, data in originals.items()})
    return out


PAIRS = [(case, variant) for case in CASES for variant in VARIANTS]


@pytest.mark.parametrize(("case", "variant"), PAIRS, ids=[f"{c}-{v}" for c, v in PAIRS])
def test_same_bytes_as_terraform(case: str, variant: str, terraform_formatted: dict[str, bytes]) -> None:
    name = _variant_name(case, variant)
    source = terraform_formatted[f"source:{name}"]
    ours = format_source(source, name)
    assert ours.decode() == terraform_formatted[name].decode()


@pytest.mark.parametrize(("case", "variant"), PAIRS, ids=[f"{c}-{v}" for c, v in PAIRS])
def test_formatting_twice_changes_nothing(case: str, variant: str, terraform_formatted: dict[str, bytes]) -> None:
    name = _variant_name(case, variant)
    once = format_source(terraform_formatted[f"source:{name}"], name)
    assert format_source(once, name) == once


@pytest.mark.parametrize("case", CASES)
def test_formatted_file_means_the_same(case: str) -> None:
    """ctl's parser reads the same configuration before and after formatting (positions aside).

    The only rewrites Terraform's fmt makes are of legacy type expressions (``type = list`` to
    ``list(any)``, ``type = "string"`` to ``string``), which compare as the type constraints they
    mean, and of interpolation-only strings (``"${x}"`` to ``x``), which mean their expression.
    """
    source = (CORPUS / case).read_bytes()
    before = parse_hcl_file(source, case)
    after = parse_hcl_file(format_source(source, case), case)
    assert _meaning(after) == _meaning(before)


def test_python_hcl2_reads_the_same_document() -> None:
    """The parser oracle agrees on a file it can read (python-hcl2 has gaps: ``!!x``, heredoc edges)."""
    source = (CORPUS / "realistic.tf").read_bytes()
    before = hcl2.loads(source.decode())
    after = hcl2.loads(format_source(source, "realistic.tf").decode())
    assert _without_spacing(after) == _without_spacing(before)


def _meaning(node: object, in_variable: bool = False) -> object:
    """A parsed body with every source position left out and variable types as constraints."""
    if isinstance(node, SourceRange):
        return None
    if isinstance(node, TemplateWrap):  # "${x}" is x: fmt unwraps it, as Terraform's does
        return _meaning(node.inner, in_variable)
    if isinstance(node, ObjectItem):  # holds a literal key as its name and range, not as a node
        return ("ObjectItem", _meaning(node.key, in_variable), _meaning(node.value, in_variable))
    if isinstance(node, Block):
        return ("block", node.type, tuple(node.labels), _meaning(node.body, node.type == "variable"))
    if isinstance(node, Body):
        attrs = {name: _attribute(attr, in_variable) for name, attr in node.attributes.items()}
        return ("body", attrs, [_meaning(b) for b in node.blocks])
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__, tuple(_meaning(getattr(node, f.name), in_variable)
                                           for f in dataclasses.fields(node) if not f.name.endswith("rng")))
    if isinstance(node, list | tuple):
        return tuple(_meaning(v, in_variable) for v in node)
    if isinstance(node, dict):
        return {k: _meaning(v, in_variable) for k, v in node.items()}
    return node


# What a quoted type meant before 0.12: the collections held strings.
_LEGACY_TYPES = {"string": "string", "list": "list(string)", "map": "map(string)"}


def _attribute(attr: Attribute, in_variable: bool) -> object:
    if not (in_variable and attr.name == "type"):
        return _meaning(attr.expr)
    expr = attr.expr.inner if isinstance(attr.expr, TemplateWrap) else attr.expr
    if isinstance(expr, Literal) and expr.value in _LEGACY_TYPES:  # the 0.11 spelling
        expr = parse_expression(_LEGACY_TYPES[expr.value], "type.tf")
    if isinstance(expr, ScopeTraversal) and expr.root == "set" and not expr.steps:  # fmt writes set(any)
        expr = parse_expression("set(any)", "type.tf")
    try:
        return repr(parse_variable_type(expr))
    except TypeConstraintError:  # "number" stays quoted (and refused) after fmt too
        return _meaning(expr)


def _without_spacing(value: object) -> object:
    """python-hcl2 hands expressions back as their source text: compare them without white space."""
    if isinstance(value, dict):
        return {k: _without_spacing(v) for k, v in value.items() if k not in ("__start_line__", "__end_line__")}
    if isinstance(value, list):
        return [_without_spacing(v) for v in value]
    if isinstance(value, str) and value.startswith("${"):
        return re.sub(r"\s+", "", value)
    return value


def test_corpus_is_not_already_formatted() -> None:
    """The corpus gives the formatter work: most files change (else the comparison proves little)."""
    changed = [case for case in CASES if format_source((CORPUS / case).read_bytes(), case) != (CORPUS / case).read_bytes()]
    assert len(changed) >= len(CASES) - 3, changed


def test_terraform_is_the_oracle_we_think() -> None:
    proc = subprocess.run([str(terraform_executable()), "version"], capture_output=True, text=True, timeout=60)
    assert proc.stdout.startswith("Terraform v1.0.3"), proc.stdout
    assert shutil.which("diff") is not None, "fmt --diff is compared with Terraform's, which runs diff(1)"
