"""The console prints what Terraform 1.0.3's console prints, character for character.

Where the language changed after 1.0.3 and ctl follows the newest (``NEWER`` below, listed in
docs/language-versions.md), the reference is OpenTofu 1.12.6's console instead.

One configuration (typed and untyped variables, locals, a module called once and with ``count``)
is given to both: one Terraform console session answers every expression of the corpus below, typed
in turn as at a terminal (see ``console_answers``), and ctl's console session evaluates the same
expression against the same directory, variables from ``terraform.tfvars`` and ``TF_VAR_*`` included.
The texts must be equal: numbers, Go-quoted strings and heredocs, ``tolist``/``toset``/``tomap``
against tuples and objects, typed nulls, ``(sensitive)`` and ``(known after apply)``.

Resources are typed by their provider's schema: for them Terraform applies a configuration of the
test plugin providers and both consoles read the state it wrote.
"""

from __future__ import annotations

import contextlib
import os
import pty
import re
import subprocess
import threading
import tty
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.console import ConsoleInputError, Session, open_session
from tests.conftest import write_tree
from tests.e2e.helpers import CTL, Project, clean_env
from tests.plugin.terraform_cli import TerraformDir, opentofu_executable, terraform_executable

MAIN_TF = r'''
variable "cidr" { default = "10.0.0.0/16" }
variable "list" {
  type    = list(string)
  default = ["a", "b"]
}
variable "map" {
  type    = map(number)
  default = { a = 1, b = 2 }
}
variable "obj" {
  type    = object({ a = string, b = list(number), c = map(string) })
  default = { a = "x", b = [1, 2], c = { k = "v" } }
}
variable "objs" {
  type    = list(object({ name = string }))
  default = [{ name = "x" }, { name = "y" }]
}
variable "names" {
  type    = set(string)
  default = ["b", "a", "b"]
}
variable "pair" {
  type    = tuple([string, number])
  default = ["a", 1]
}
variable "anys" {
  type    = list(any)
  default = [[1], [2, 3]]
}
variable "untyped" { default = ["u", 1, { k = true }] }
variable "from_tfvars" {}
variable "from_env" {}
variable "unset" {}
variable "secret" {
  default   = "s3cret"
  sensitive = true
}
variable "sn" {
  type    = string
  default = null
}
variable "ln" {
  type    = list(string)
  default = null
}
variable "on" {
  type    = object({ a = string, b = list(number), c = map(string), d = object({ x = number }) })
  default = { a = null, b = null, c = null, d = null }
}

locals {
  nested     = { list = var.list, set = var.names, tuple = ["x", 1] }
  for_map    = { for k, v in var.map : k => [v] }
  subnet     = cidrsubnet(var.cidr, 8, 1)
  split_list = split(",", "a,b")
  chained    = local.split_list
}

module "child" {
  source  = "./child"
  names   = ["m1", "m22"]
  untyped = { k = "v" }
}

module "counted" {
  count  = 2
  source = "./child"
  names  = ["c${count.index}"]
}
'''

CHILD_TF = r'''
variable "names" { type = list(string) }
variable "untyped" { default = null }
output "listy" { value = var.names }
output "upper" { value = [for n in var.names : upper(n)] }
output "given" { value = var.untyped }
output "mapped" { value = tomap({ for n in var.names : n => length(n) }) }
'''

FILES = {
    "main.tf": MAIN_TF,
    "child/main.tf": CHILD_TF,
    "terraform.tfvars": 'from_tfvars = { list = ["t"], n = 1.5 }\n',
    "data.txt": "line one\nline two\n",
    "greeting.tftpl": "Hello, ${name}!\n%{ for x in items ~}\n- ${x}\n%{ endfor ~}\n",
}
ENV = {"TF_VAR_from_env": "from the environment"}

NUMBERS = [
    "1", "-1", "1.5", "-3.25", "0.1 + 0.2", "1/3", "2/3", "1e20", "1e-7", "3.0", "5 % 3",
    "100000000000000000000000000000000000001", "12345678901234567890 * 10", "pow(2, 64)", "ceil(1.2)",
    "log(100, 10)", "parseint(\"ff\", 16)", "max(1, 2.5)", "abs(-1.5)", "sum([1, 2.5])", "length(\"héllo\")",
    "-0", "0 * -1", "[-0, 0]", "tostring(-0)", "jsonencode({a = -0})", "abs(-0)",
]
STRINGS = [
    '"abc"', '""', r'"a\"b\\c"', r'"tab\there"', r'"a\nb"', r'"a\nb\n"', r'"\n"', r'"EOT\nx"',
    r'"EOT\nEOT_\n"', r'"  EOT  \ny"', '"héllo ☃"', '"日本語"', '"emoji 🎉"', r'"\u00a0nbsp"',
    r'"zero\u200bwidth"',
    r'"bell\u0007"', r'"del\u007f"', r'"esc\u001b[0m"', r'"line\u2028sep"', '"$${literal}"', '"%%{x}"',
    '"  padded  "', r'"a\r\nb"', r'"crlf\r"', 'upper("ß")', 'format("%05.2f", 3.14159)',
    'jsonencode({a = 1, b = [true, null], c = "<&>"})', 'yamlencode({a = [1, "x"]})', 'base64encode("hi")',
    'replace("a-b", "-", "_")', 'join(",", ["a", "b"])', 'title("hello world")', r'indent(2, "a\nb")',
    r'chomp("x\n")', 'trimspace(" x ")', 'substr("hello", 1, 3)', 'strrev("abc")', 'md5("x")',
    'sha256("x")', 'base64decode("aGk=")', 'urlencode("a b&c")', 'uuidv5("dns", "example.com")',
    'formatlist("%s-%s", ["a", "b"], "x")', '"${1 + 1} items"',
]
SCALARS = [
    "true", "false", "null", "!true", "1 < 2", '"a" == "a"', "tostring(null)", "[tostring(null)]",
    'tobool("true")', 'tonumber("5")', "tostring(5)", 'contains(["a"], "a")', 'index(["a", "b"], "b")',
    "alltrue([true])",
]
COLLECTIONS = [
    "[]", "{}", '["a", 1, true, null]', 'tolist(["a"])', "tolist([])", 'toset(["b", "a", "b"])',
    "toset([3, 1, 2])", "toset([])", "tomap({a = 1, b = 2})", "tomap({})", r'{a = 1, "b c" = 2, "d\"e" = 3}',
    r'{"multi\nline" = 1}', "{z = 1, a = 2, B = 3}", "{a = {b = [1, {c = true}]}}", "[[], [{}]]",
    "tolist([[1], [2, 3]])", "tolist([{a = 1}, {b = 2}])", 'tolist([null, "a"])', "tolist([true, null])",
    "toset([1, null])", "tomap({a = null, b = 1})", "tomap({a = [1], b = [1, 2]})", "tomap({a = {b = 1}})",
    r'["a\nb"]', r'{a = "x\ny"}', r'{a = [{b = "p\nq"}]}',
]
REFERENCES = [
    "var.cidr", "var.list", "var.map", "var.obj", "var.obj.b", 'var.obj["c"]', "var.objs", "var.objs[0]",
    "var.names", "var.pair", "var.anys", "var.untyped", "var.untyped[2]", "var.from_tfvars",
    "var.from_tfvars.list", "var.from_env", "var.unset", "var.secret", "var.sn", "var.ln", "var.on",
    "var.list[0]", 'var.map["a"]', "var.list[*]", "var.objs[*].name", "var.objs.*.name",
    "local.nested", "local.for_map", "local.subnet", "local.split_list", "local.chained",
    "module.child", "module.child.listy", "module.child.upper", "module.child.given", "module.child.mapped",
    "module.counted", "module.counted[1].listy", "module.counted[*].mapped",
    "path.module", "path.root", "path.cwd", "terraform.workspace", "abspath(path.root)",
]
EXPRESSIONS_AND_FUNCTIONS = [
    "[for x in var.list : upper(x)]", "{for k, v in var.map : k => v * 2}",
    '{for x in ["a", "a", "b"] : x => x...}',
    '[for x in tolist(["a"]) : tolist([x])]', "[for i, x in var.pair : i]", "[{a = 1}][*].a", "{a = 1}[*]",
    'toset(["a"])[*]', 'tolist([{a = 1}])[*].a',
    "true ? [] : tolist([\"a\"])", "true ? {a = 1} : {b = 2}", 'false ? ["a"] : ["b", "c"]',
    'false ? {a = 1} : {a = 2}', 'false ? null : tolist(["a"])', 'true ? tolist(["a"]) : null',
    'true ? "x" : 1', 'false ? var.untyped : ["v", 2, {k = false}]',
    'sensitive("x")', "[sensitive(1), 2]", "{a = sensitive(1)}", 'sensitive(tolist(["a"]))',
    "nonsensitive(sensitive(tolist([1])))", "upper(var.secret)", "[var.secret]",
    'cidrsubnet("10.0.0.0/16", 8, 1)', "cidrsubnet(var.cidr, 8, 255)", 'cidrsubnets("10.0.0.0/16", 4, 4)',
    'cidrhost("10.0.0.0/24", 5)', 'cidrnetmask("10.0.0.0/12")',
    'formatdate("DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z")',
    'formatdate("EEEE, YYYY-MM-DD h:mmaa", "2024-02-29T15:04:05+01:00")',
    'timeadd("2017-11-22T00:00:00Z", "10m")',
    r'jsondecode("{\"a\":[1,2],\"b\":null,\"c\":{\"d\":\"e\"}}")', r'yamldecode("a: [1, x]\nb: {c: true}")',
    r'csvdecode("a,b\n1,2\n3,4")', 'split(",", "a,b,c")', "keys({b = 1, a = 2})", "keys(tomap({a = 1}))",
    'values({a = 1, b = "x"})', "values(tomap({a = [1]}))", 'concat(["a"], ["b"])',
    'concat(tolist(["a"]), tolist(["b"]))', 'concat(["a"], tolist(["b"]))', 'merge({a = 1}, {b = "x"})',
    "merge(tomap({a = 1}), tomap({b = 2}))", "flatten([[1, [2]], [3]])", 'distinct(["a", "b", "a"])',
    'sort(["b", "a", "c"])', "reverse([1, 2])", "reverse(tolist([1, 2]))", 'reverse(toset(["a", "b"]))',
    'slice(["a", "b", "c"], 1, 3)', 'slice(tolist(["a", "b"]), 0, 1)', 'compact(["a", "", "b"])',
    'chunklist(["a", "b", "c"], 2)', 'element(["a", "b"], 3)', 'element(["a", ["b"]], 1)',
    'lookup({a = [1]}, "a")', 'lookup(tomap({a = tolist([1])}), "a")', 'lookup({a = 1}, "z", "d")',
    'zipmap(["a", "b"], [1, 2])', 'zipmap(["a"], tolist([1]))', 'transpose({a = ["x", "y"], b = ["x"]})',
    'setproduct(["a", "b"], [1])', 'setproduct(toset(["a"]), ["b"])', 'setunion(["a"], ["b"])',
    'setintersection(["a", "b"], ["b"])', 'setsubtract(["a", "b"], ["b"])', "range(3)", "range(1, 2, 0.5)",
    'regex("(a)(b)", "ab")', 'regex("(?P<x>a)", "ab")', 'regex("a+", "caab")', 'regexall("a", "aa")',
    'regexall("(a)", "aa")', 'matchkeys(["a", "b"], ["x", "y"], ["y"])', 'one(toset(["a"]))', "one([])",
    'coalesce("", "b")', 'coalescelist([], ["a"])', 'coalescelist(tolist([]), tolist(["a"]))',
    'try(tolist(["a"]), 1)', 'try(var.obj.nope, "fallback")', "can(var.obj.nope)",
    'fileset(path.module, "*.tf")', 'file("${path.module}/data.txt")',
    'templatefile("${path.module}/greeting.tftpl", {name = "x", items = ["a", "b"]})',
]
# Declared types carried through indexes, functions and for-expressions.
TYPES_FLOWING = [
    "var.anys[1]", "[for a in var.anys : a]", "coalescelist(var.list, [\"q\"])", "var.obj.c", "local.nested.set",
    "merge(var.map, {c = 3})", 'concat(var.list, ["x"])', "tolist(var.names)", "toset(var.list)",
    "module.child.upper[0]", "module.counted[0]", "values(var.map)", "keys(var.obj)", "var.on.b", "[var.on.b]",
    "{for o in var.objs : o.name => o}", "{for o in var.objs : o.name => o...}", '[for s in var.list : split("", s)]',
    'setunion(var.names, ["z"])', "zipmap(var.list, var.list)", "sensitive(var.list)", "{a = var.secret}",
    "range(5, 0, -2)", 'toset(["B", "a", "A", "b", "_"])', 'toset(["10", "9", "1"])', "toset([10, 9, 1.5])",
    "toset([true, false])", '{"B" = 1, "a" = 2, "_" = 3, "é" = 4, "Z" = 5}',
]
# Sensitivity: a function that only moves elements keeps their marks on them; others mark the result.
MARKS = [
    'keys({a = sensitive("x")})', 'values({a = sensitive("x")})', 'lookup({a = sensitive("x"), b = "y"}, "b")',
    'lookup(sensitive({a = "x"}), "a")', 'lookup({a = "x"}, sensitive("a"))', 'element(["a", sensitive("x")], 0)',
    'element([1], sensitive(0))', 'merge({a = sensitive("x")}, {b = 1})', 'concat(["a"], [sensitive("x")])',
    'slice(["a", sensitive("x")], 0, 1)', 'reverse(["a", sensitive("x")])', 'length({a = sensitive("x")})',
    "length(sensitive([1]))", "length([var.secret])", "keys({k = var.secret})",
    'contains(["a", sensitive("x")], "a")', 'distinct(["a", sensitive("x")])', 'jsonencode({a = sensitive("x")})',
    'coalesce(sensitive("x"), "y")', 'toset(["a", sensitive("x")])', 'can(sensitive("x"))',
    'flatten([[sensitive("x")], ["y"]])', 'zipmap(["a", "b"], [sensitive("x"), "y"])', 'tolist([sensitive("x"), "y"])',
    'tomap({a = sensitive("x"), b = "y"})', 'chunklist([sensitive("x"), "y"], 1)', "[for s in [var.secret, \"y\"] : upper(s)]",
    '[{a = sensitive("x"), b = "y"}][*].b', 'true ? [sensitive("x"), "y"] : []', "nonsensitive(var.secret)",
]
# type(): the console's own function, printed bare as OpenTofu prints it (Terraform 1.0.3 has no type()).
TYPES = [
    'type("a")', "type(1)", "type(true)", "type(null)", 'type(tolist(["a"]))', "type({a = 1})", 'type([1, "a"])',
    "type([])", "type({})", "type(tomap({a = 1}))", 'type(toset(["a"]))', "type(tolist([]))",
    "type({a = {b = [1]}, c = tolist([{d = 1}])})", "type(tomap({a = tolist([{b = 1}])}))", "type(tolist([[]]))",
    'type(tolist([tolist(["a"])]))', "type(toset([[1]]))", r'type({"a b" = 1, "\"q\"" = 2})', "(type(1.5))",
    'type(sensitive("a"))', "type(timestamp())", "type(tostring(null))", r'type(jsondecode("{\"a\":[1,null]}"))',
    "type(var.list)", "type(var.map)", "type(var.obj)", "type(var.objs)", "type(var.names)", "type(var.pair)",
    "type(var.anys)", "type(var.untyped)", "type(var.sn)", "type(var.ln)", "type(var.on)", "type(var.secret)",
    "type(var.unset)", "type(local.nested)", "type(local.for_map)", "type(local.split_list)", "type(module.child)",
    "type(module.counted)", "type(module.child.mapped)", 'type(merge({a = tostring(null)}, {b = 1}))',
    "type(merge(tomap({a = 1}), tomap({b = 2})))", 'type(merge(tomap({a = 1}), tomap({b = "x"})))',
    'type(zipmap(["a"], tolist([1])))', 'type(flatten([[tostring(null)], [1]]))', "type(merge(var.map, {c = 3}))",
    # type() asked about itself: a value of the type "type", alone or inside a tuple or object written out.
    "type(type(1))", "type(type(type(var.list)))", "type((type(null)))", 'type([type(1), "x", [type(var.map)]])',
    "type({a = type(1), (var.list[0]) = [1]})", "type([var.list]...)",
]
# templatestring (Terraform 1.9, OpenTofu 1.7) takes any string, a number or bool converted to one: the
# template "${1 + 1}" is the number 2 before it is the template "2".
TEMPLATESTRING = ['templatestring("${1 + 1}", {})', "templatestring(true, {})", "templatestring(1.5, {})",
                  'templatestring("$${x}-$${y}", {x = 1, y = "b"})']
CORPUS = (MARKS + NUMBERS + STRINGS + SCALARS + COLLECTIONS + REFERENCES + EXPRESSIONS_AND_FUNCTIONS + TYPES_FLOWING
          + TYPES + TEMPLATESTRING)
# type() is the console's own: inside an expression both references refuse it, and so does ctl.
TYPE_INSIDE_EXPRESSIONS = ['[type("a")]', 'type("a") == "string"', '[for s in var.list : s if type(s) == "string"]',
                           "[type(type(1))]", 'type(type(1)) == "type"']

# Where ctl's value (not its printing) differs from Terraform's: each is expected to fail, strictly, so
# that fixing the cause turns it into a failure to remove from here.
KNOWN_DIFFERENCES = {
    "pow(2, 64)": "Terraform's pow computes in float64 and prints its shortest digits "
                  "(18446744073709550000); ctl's pow returns the exact integer",
}

# Where the language changed after Terraform 1.0.3 and ctl prints what OpenTofu 1.12.6's console prints.
NEWER = {
    "tostring(null)": "a typed null: a null string, which the console names (1.0.3 had a null of no type)",
    "[tostring(null)]": "a typed null: a null string, which the console names (1.0.3 had a null of no type)",
    **{e: "type() is the console's own function (Terraform 1.1; OpenTofu prints the type bare)" for e in TYPES},
    **{e: "templatestring is Terraform 1.9's and OpenTofu 1.7's" for e in TEMPLATESTRING},
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("console") / "cfg", FILES).resolve()


@dataclass(frozen=True)
class Answer:
    """What a reference console did with one expression."""

    returncode: int
    stdout: str
    stderr: str

    def __repr__(self) -> str:  # what a failing assertion shows next to the expression
        return f"Answer(exit {self.returncode}, stdout={self.stdout!r})"


def _terraform_env(home: Path, data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "CTL_")) and k != "HOME"}
    env.update(HOME=str(home), TF_DATA_DIR=str(data_dir), TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1", **ENV)
    return env


# Typed after each expression: its answer, a quoted string on a line of its own, ends that
# expression's answer in the output.
_SEPARATOR = re.compile(r'^"-- end of answer (\d+) --"\n', re.MULTILINE)


def with_separators(expressions: Sequence[str]) -> str:
    """The text to type: each expression, then the separator numbered after it."""
    return "".join(f'{expression}\n"-- end of answer {number} --"\n' for number, expression in enumerate(expressions))


def split_answers(stdout: str, stderr: str, count: int) -> list[Answer]:
    """Each expression's answer from a console's output for ``with_separators``. An expression the
    console refused printed nothing and its error on stderr (which is not interleaved with the
    answers), so it is told as a refusal with the whole stderr attached."""
    pieces = _SEPARATOR.split(stdout)
    assert pieces[-1] == "" and pieces[1::2] == [str(n) for n in range(count)], \
        f"the console's answers are out of step with the expressions typed:\n{stdout}"
    return [Answer(0, text, "") if text.strip() else Answer(1, text, stderr) for text in pieces[0:-1:2]]


def console_answers(binary: Path, workdir: Path, env: dict[str, str], state: Path | None,
                    expressions: Sequence[str]) -> list[Answer]:
    """What ``BINARY console`` prints for each expression, from one process.

    Piped, the console prints only the last line's result, so a process per expression was needed:
    about 290 starts of Terraform, the slowest fixture of the tests that need no server. With its
    standard input at a pseudo-terminal the console is interactive: it prints each result as it is
    typed, through the same formatter. Its output stays a pipe, so readline writes no prompt or echo
    there, and no terminal turns a ``\r\n`` in a heredoc into something else.
    """
    controller, terminal = pty.openpty()
    tty.setraw(terminal)  # no echo, no line discipline: the bytes reach readline as typed
    state_option = [f"-state={state}"] if state is not None else []
    try:
        process = subprocess.Popen([str(binary), "console", *state_option], cwd=workdir, env=env,
                                   stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        os.close(terminal)

    def type_in() -> None:  # a thread: the terminal's buffer is small and the output must be drained
        data = (with_separators(expressions) + "exit\n").encode()
        with contextlib.suppress(OSError):  # the console is gone: its exit code and stderr say why
            while data:
                data = data[os.write(controller, data):]

    typist = threading.Thread(target=type_in, daemon=True)
    typist.start()
    try:
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
        typist.join(timeout=5)
        os.close(controller)
    # Bytes, decoded here: text mode would turn a "\r\n" inside a heredoc into "\n".
    stdout, stderr = out.decode(), err.decode()
    assert process.returncode == 0, f"the console session failed:\n{stderr}"
    return split_answers(stdout, stderr, len(expressions))


@pytest.fixture(scope="module")
def terraform(workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Answer]:
    """Terraform's console output for every expression of the corpus, from one console session."""
    binary = terraform_executable()
    home = tmp_path_factory.mktemp("home")
    env = _terraform_env(home, home / "tfdata")
    subprocess.run([str(binary), "init", "-input=false", "-no-color"], cwd=workdir, env=env, check=True,
                   capture_output=True, text=True, timeout=120)
    answers = console_answers(binary, workdir, env, home / "terraform.tfstate", CORPUS)
    return dict(zip(CORPUS, answers, strict=True))


@pytest.fixture(scope="module")
def opentofu(workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Answer]:
    """OpenTofu's console output for the expressions of ``NEWER``, from one console session, and for
    each of ``TYPE_INSIDE_EXPRESSIONS``, which it refuses, on its own."""
    home = tmp_path_factory.mktemp("tofu-home")
    binary = opentofu_executable(home / "bin")
    (home / "tofurc").write_text("")
    env = _terraform_env(home, home / "tfdata")
    env["TF_CLI_CONFIG_FILE"] = str(home / "tofurc")  # else it warns on stdout that there is none
    subprocess.run([str(binary), "init", "-input=false", "-no-color"], cwd=workdir, env=env, check=True,
                   capture_output=True, text=True, timeout=120)
    answers = dict(zip(NEWER, console_answers(binary, workdir, env, home / "tofu.tfstate", list(NEWER)), strict=True))
    for number, expression in enumerate(TYPE_INSIDE_EXPRESSIONS):  # refusals: one run each, for its own error
        done = subprocess.run([str(binary), "console", f"-state={home / f'{number}.tfstate'}"], cwd=workdir,
                              env=env, input=(expression + "\n").encode(), capture_output=True, timeout=120)
        answers[expression] = Answer(done.returncode, done.stdout.decode(), done.stderr.decode())
    return answers


@pytest.fixture(scope="module")
def session(workdir: Path) -> Iterator[Session]:
    cwd = Path.cwd()
    os.chdir(workdir)  # as the command runs: relative paths (file(), abspath()) from the configuration
    try:
        yield open_session(workdir, environ=ENV)
    finally:
        os.chdir(cwd)


def test_the_corpus_has_no_duplicates() -> None:
    assert len(CORPUS) == len(set(CORPUS))


def _param(expression: str) -> Any:
    reason = KNOWN_DIFFERENCES.get(expression)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(expression, marks=marks)


@pytest.mark.parametrize("expression", [_param(e) for e in CORPUS])
def test_prints_what_terraform_prints(expression: str, terraform: dict[str, Answer],
                                      opentofu: dict[str, Answer], session: Session) -> None:
    theirs = opentofu[expression] if expression in NEWER else terraform[expression]
    assert theirs.returncode == 0, f"the reference's console refused {expression!r}:\n{theirs.stderr}"
    if expression in NEWER:
        assert terraform[expression].stdout != theirs.stdout, "Terraform 1.0.3 agrees: drop it from NEWER"
    ours = session.handle(expression).text
    assert ours is not None
    assert ours + "\n" == theirs.stdout


@pytest.mark.parametrize("expression", TYPE_INSIDE_EXPRESSIONS)
def test_type_inside_an_expression_is_refused_as_opentofu_refuses_it(
        expression: str, opentofu: dict[str, Answer], session: Session) -> None:
    theirs = opentofu[expression]
    assert theirs.returncode == 1 and "type" in theirs.stderr, theirs
    with pytest.raises(ConsoleInputError) as refused:
        session.handle(expression)
    assert refused.value.summary == "Invalid use of type function"


# -- resources, typed by their provider's schema ------------------------------------------------------

PLUGIN_TF = """
terraform {
  required_providers {
    fwtest  = { source = "ctltest/fwtest", version = "~> 1.0" }
    sdktest = { source = "ctltest/sdktest", version = "~> 1.0" }
  }
}

provider "fwtest" { root = "objs" }
provider "sdktest" { root = "objs" }

resource "fwtest_thing" "a" {
  name     = "alpha"
  size     = 3
  tags     = { env = "dev" }
  secret   = "s3cr3t-value"
  settings = { level = 2, enabled = true }
  rule {
    port = 80
  }
}

resource "sdktest_record" "a" {
  count  = 2
  name   = "r${count.index}"
  size   = 3
  tags   = { env = "dev" }
  secret = "s3cr3t-value"
  rule {
    port = 80
  }
}
"""

RESOURCE_EXPRESSIONS = [
    "fwtest_thing.a", "sdktest_record.a", "sdktest_record.a[0].rule", "fwtest_thing.a.tags",
    "sdktest_record.a[*].tags", "fwtest_thing.a.secret", "{ for r in sdktest_record.a : r.name => r.member }",
]


def test_resources_from_the_state_print_as_terraform_prints_them(tmp_path: Path, plugin_dir: Path) -> None:
    """Terraform applies; ctl reads the very state Terraform wrote: the same values, so the same text,
    lists, sets, maps, typed nulls and the schema's sensitive attribute included."""
    (tmp_path / "terraform" / "objs").mkdir(parents=True)
    (tmp_path / "terraform" / "main.tf").write_text(PLUGIN_TF)
    terraform = TerraformDir(tmp_path / "terraform", plugin_dir)
    terraform.init()
    terraform.apply()
    project = Project(tmp_path / "ctl")
    project.root.mkdir()
    project.write(PLUGIN_TF)
    project.ok("init", "-plugin-dir", str(plugin_dir))
    project.state_file.write_bytes((terraform.workdir / "terraform.tfstate").read_bytes())

    # One console session each: Terraform's at a pseudo-terminal, ctl's piped (it prints every line's result).
    theirs = console_answers(terraform.binary, terraform.workdir, terraform.env, None, RESOURCE_EXPRESSIONS)
    done = subprocess.run([CTL, "console"], cwd=project.root, env=clean_env(),
                          input=with_separators(RESOURCE_EXPRESSIONS).encode(), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    ours = split_answers(done.stdout.decode(), done.stderr.decode(), len(RESOURCE_EXPRESSIONS))
    for expression, answer, mine in zip(RESOURCE_EXPRESSIONS, theirs, ours, strict=True):
        assert answer.returncode == 0, answer.stderr
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout == answer.stdout, expression
