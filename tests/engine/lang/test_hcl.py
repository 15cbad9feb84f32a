"""The HCL native syntax reader: expression trees, evaluated results, bodies, positions, syntax errors.

Expected values follow the HCL native syntax specification and Terraform's documentation of
expressions and string templates; heredoc results were checked against what Terraform renders.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.lang import ast
from engine.lang.eval import EvalContext, evaluate
from engine.lang.functions import FunctionContext
from engine.lang.hcl import parse_expression, parse_hcl_file, parse_template
from engine.lang.syntax import Body
from engine.lang.templatefile import render
from vocab.errors import CtlError, DiagnosticsError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

VARS: dict[str, Any] = {
    "var": {
        "name": "web",
        "names": ["a", "b", "c"],
        "nums": [3, 1, 2],
        "tags": {"env": "prod", "team": "core"},
        "servers": [{"ip": "10.0.0.1", "port": 80}, {"ip": "10.0.0.2", "port": 443}],
        "yes": True,
        "no": False,
        "nothing": None,
    },
    "local": {"matrix": [[1, 2], [3, 4]]},
}


def ev(src: str, **extra: Any) -> Any:
    """Parse ``src`` as an expression and evaluate it with ``VARS`` (plus ``extra``) in scope."""
    here = Path.cwd()
    ctx = EvalContext(variables={**VARS, **extra}, func_ctx=FunctionContext(base_dir=here, module_dir=here))
    return evaluate(parse_expression(src, "main.tf"), ctx)


def body_of(src: str, filename: str = "main.tf") -> Body:
    return parse_hcl_file(src.encode(), filename)


def attr_value(src: str, name: str = "x") -> Any:
    """Evaluate attribute ``name`` of a file's top-level body."""
    here = Path.cwd()
    ctx = EvalContext(variables=dict(VARS), func_ctx=FunctionContext(base_dir=here, module_dir=here))
    return evaluate(body_of(src).attributes[name].expr, ctx)


def syntax_error(src: str) -> tuple[str, str, str | None]:
    """(``file:line:col``, summary, snippet) of the error a file with a syntax error raises."""
    with pytest.raises(DiagnosticsError) as info:
        body_of(src)
    d = info.value.diagnostics()[0]
    return str(d.range), d.summary, d.snippet


# ---- a compact, range-free rendering of expression trees ----------------------------------------


def sx(node: Any) -> str:
    """An s-expression of the tree (ranges left out) so expected shapes can be written by hand."""
    if isinstance(node, str):
        return repr(node)
    if isinstance(node, ast.Literal):
        return repr(node.value)
    if isinstance(node, ast.ScopeTraversal):
        return node.root + _steps(node.steps)
    if isinstance(node, ast.RelativeTraversal):
        return f"({sx(node.source)}){_steps(node.steps)}"
    if isinstance(node, ast.Splat):
        return sx(node.source) + ("[*]" if node.full else ".*") + _steps(node.each)
    if isinstance(node, ast.BinaryOp):
        return f"({node.op} {sx(node.left)} {sx(node.right)})"
    if isinstance(node, ast.UnaryOp):
        return f"({node.op} {sx(node.operand)})"
    if isinstance(node, ast.Conditional):
        return f"(? {sx(node.cond)} {sx(node.true)} {sx(node.false)})"
    if isinstance(node, ast.FunctionCall):
        args = " ".join(sx(a) for a in node.args)
        return f"({node.name} {args}{' ...' if node.expand_final else ''})"
    if isinstance(node, ast.TupleCons):
        return "[" + " ".join(sx(i) for i in node.items) + "]"
    if isinstance(node, ast.ObjectCons):
        return "{" + " ".join(f"{sx(i.key)}={sx(i.value)}" for i in node.items) + "}"
    if isinstance(node, ast.Parens):
        return f"(paren {sx(node.inner)})"
    if isinstance(node, ast.TemplateWrap):
        return f"(wrap {sx(node.inner)})"
    if isinstance(node, ast.Template):
        return "(tpl " + " ".join(sx(p) for p in node.parts) + ")"
    if isinstance(node, ast.TemplateIf):
        then = " ".join(sx(p) for p in node.then)
        other = " ".join(sx(p) for p in node.otherwise)
        return f"(%if {sx(node.cond)} [{then}] [{other}])"
    if isinstance(node, ast.TemplateFor):
        names = f"{node.key_var},{node.value_var}" if node.key_var else node.value_var
        return f"(%for {names} {sx(node.collection)} [" + " ".join(sx(p) for p in node.body) + "])"
    if isinstance(node, ast.ForExpr):
        names = f"{node.key_var},{node.value_var}" if node.key_var else node.value_var
        head = f"(for {names} {sx(node.collection)}"
        body = f"{sx(node.key_expr)}=>{sx(node.value_expr)}" if node.key_expr is not None else sx(node.value_expr)
        tail = (" ..." if node.group else "") + (f" if {sx(node.cond)}" if node.cond is not None else "")
        return f"{head} {body}{tail})"
    raise AssertionError(f"unexpected node {node!r}")


def _steps(steps: tuple[ast.Step, ...]) -> str:
    return "".join(f".{s.name}" if isinstance(s, ast.AttrStep) else f"[{sx(s.key)}]" for s in steps)


# ---- expression trees -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "tree"),
    [
        # literals
        ("42", "42"),
        ("1.5", "1.5"),
        ("1.5e3", "1500"),
        ("true", "True"),
        ("false", "False"),
        ("null", "None"),
        ('"plain"', "'plain'"),
        # traversals, legacy index and splats
        ("var.name", "var.name"),
        ('var.tags["env"]', "var.tags['env']"),
        ("aws_instance.web[0].id", "aws_instance.web[0].id"),
        ("var.names.0", "var.names[0]"),
        ("var.servers.1.ip", "var.servers[1].ip"),
        ("var.servers[*].ip", "var.servers[*].ip"),
        ("var.servers.*.ip", "var.servers.*.ip"),
        ("var.servers[*]", "var.servers[*]"),
        ("values(var.tags)[0]", "((values var.tags))[0]"),
        # operators and their precedence
        ("1 + 2 * 3", "(+ 1 (* 2 3))"),
        ("(1 + 2) * 3", "(* (paren (+ 1 2)) 3)"),
        ("10 - 4 - 3", "(- (- 10 4) 3)"),
        ("!a && b || c", "(|| (&& (! a) b) c)"),
        ("a || b && c", "(|| a (&& b c))"),
        ("1 < 2 == true", "(== (< 1 2) True)"),
        ("a + 1 >= b * 2", "(>= (+ a 1) (* b 2))"),
        ("-x + 1", "(+ (- x) 1)"),
        ("7 % 4 * 2", "(* (% 7 4) 2)"),
        # conditionals, including an unparenthesised chain (right-associative in HCL)
        ("a ? 1 : 2", "(? a 1 2)"),
        ("a ? 1 : b ? 2 : 3", "(? a 1 (? b 2 3))"),
        ("a ? 1 : b ? 2 : c ? 3 : 4", "(? a 1 (? b 2 (? c 3 4)))"),
        ("a ? b ? 1 : 2 : 3", "(? a (? b 1 2) 3)"),
        ("(a ? b : c) ? 1 : 2", "(? (paren (? a b c)) 1 2)"),
        ('x == 1 ? "a" : "b"', "(? (== x 1) 'a' 'b')"),
        # function calls
        ("max(1, 2)", "(max 1 2)"),
        ("max(var.nums...)", "(max var.nums ...)"),
        ("concat([1], [2]...)", "(concat [1] [2] ...)"),
        ("upper(trimspace(var.name))", "(upper (trimspace var.name))"),
        ("f()", "(f )"),
        # collections and object keys
        ("[1, 2,]", "[1 2]"),
        ("[]", "[]"),
        ('{a = 1, "b c" = 2, (var.name) = 3}', "{'a'=1 'b c'=2 (paren var.name)=3}"),
        ('{ "${var.name}-x" = 1 }', "{(tpl var.name '-x')=1}"),
        ("{a: 1}", "{'a'=1}"),
        ("{\n  a = 1\n  b = 2\n}", "{'a'=1 'b'=2}"),
        # for expressions
        ("[for s in var.names : upper(s)]", "(for s var.names (upper s))"),
        ("[for i, s in var.names : s if i > 0]", "(for i,s var.names s if (> i 0))"),
        ("{for k, v in var.tags : v => k}", "(for k,v var.tags v=>k)"),
        ("{for s in xs : s.group => s.name...}", "(for s xs s.group=>s.name ...)"),
        ("{for s in xs : s.k => s... if s.on}", "(for s xs s.k=>s ... if s.on)"),
        # templates
        ('"a${b}c"', "(tpl 'a' b 'c')"),
        ('"${var.names}"', "(wrap var.names)"),
        ('"%{if a}y%{else}n%{endif}"', "(tpl (%if a ['y'] ['n']))"),
        ('"%{for k, v in m}${k}=${v};%{endfor}"', "(tpl (%for k,v m [k '=' v ';']))"),
    ],
)
def test_expression_tree(src: str, tree: str) -> None:
    assert sx(parse_expression(src, "main.tf")) == tree


# ---- evaluation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "value"),
    [
        ("42", 42),
        ("1.5", 1.5),
        ("0.1 + 0.2", 0.3),
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("8 / 2 / 2", 2),
        ("7 % 4 * 2", 6),
        ("-3 + 5", 5 - 3),
        ("!var.no && var.no || var.yes", True),
        ("!(var.no && var.no || var.yes)", False),
        ("var.yes || var.no && var.no", True),
        ("1 < 2 == true", True),
        ("1 > 2 || 2 > 1 && false", False),
        ("1 == 1.0", True),
        ('"1" == 1', False),
        ("var.yes ? 1 : var.no ? 2 : 3", 1),
        ("var.no ? 1 : var.no ? 2 : 3", 3),
        ("var.no ? 1 : var.yes ? 2 : var.no ? 3 : 4", 2),
        ("var.yes ? var.no ? 1 : 2 : 3", 2),
        ("var.names.0", "a"),
        ("var.servers.1.ip", "10.0.0.2"),
        ("local.matrix.1.0", 3),
        ("var.servers[*].ip", ["10.0.0.1", "10.0.0.2"]),
        ("var.servers.*.port", [80, 443]),
        ("var.nothing[*]", []),
        ("var.name[*]", ["web"]),
        ("length(var.servers[*])", 2),
        ("[for s in var.names : upper(s)]", ["A", "B", "C"]),
        ("[for i, s in var.names : \"${i}=${s}\"]", ["0=a", "1=b", "2=c"]),
        ("[for n in var.nums : n * 10 if n > 1]", [30, 20]),
        ("{for k, v in var.tags : v => k}", {"prod": "env", "core": "team"}),
        ("{for i, s in [\"x\", \"y\", \"x\"] : s => i...}", {"x": [0, 2], "y": [1]}),
        ("{for s in var.servers : s.port > 100 => s.ip...}", {"false": ["10.0.0.1"], "true": ["10.0.0.2"]}),
        ("max(var.nums...)", 3),
        ("min(5, var.nums...)", 1),
        ('{a = 1, "b c" = 2, (var.name) = 3}', {"a": 1, "b c": 2, "web": 3}),
        ('{"${var.name}-x" = 1}', {"web-x": 1}),
        ("{name = 1}", {"name": 1}),
        ("{(local.matrix[0][1]) = true}", {"2": True}),
    ],
)
def test_expression_value(src: str, value: Any) -> None:
    assert ev(src) == value


@pytest.mark.parametrize(
    ("src", "value"),
    [
        (r'"a\nb"', "a\nb"),
        (r'"tab\there"', "tab\there"),
        (r'"say \"hi\""', 'say "hi"'),
        (r'"back\\slash"', "back\\slash"),
        (r'"caf\u00e9"', "café"),
        (r'"\U0001F600"', "\U0001f600"),
        ('"$${not_interpolated}"', "${not_interpolated}"),
        ('"%%{not_a_directive}"', "%{not_a_directive}"),
        ('"cost: $5 and 100%"', "cost: $5 and 100%"),
        ('"pre-${var.name}-post"', "pre-web-post"),
        ('"${var.nums}"', [3, 1, 2]),  # a lone interpolation keeps its type
        ('"n=${1 + 1}"', "n=2"),
        ('"${var.yes}"', True),
        ('"${var.yes}!"', "true!"),
    ],
)
def test_strings_and_escapes(src: str, value: Any) -> None:
    assert ev(src) == value


@pytest.mark.parametrize(
    ("src", "value"),
    [
        ('"Hello, %{ if var.name != "" }${var.name}%{ else }unnamed%{ endif }!"', "Hello, web!"),
        ('"Hello, %{ if var.nothing != null }x%{ else }unnamed%{ endif }!"', "Hello, unnamed!"),
        ('"%{ if var.no }only when true%{ endif }"', ""),
        ('"%{ for s in var.names }${s},%{ endfor }"', "a,b,c,"),
        ('"%{ for k, v in var.tags }${k}=${v} %{ endfor }"', "env=prod team=core "),
        ('"%{ for i, s in var.names }%{ if i > 0 }, %{ endif }${s}%{ endfor }"', "a, b, c"),
        # strip markers remove the whitespace next to them, on the side of the ~
        ('"a  ${~ var.name ~}  b"', "awebb"),
        ('"a  ${~ var.name}  b"', "aweb  b"),
        ('"a  ${var.name ~}  b"', "a  webb"),
        ('"[ %{~ for s in var.names ~} ${s} %{~ endfor ~} ]"', "[abc]"),
        ('"x %{~ if var.yes ~} y %{~ else ~} n %{~ endif ~} z"', "xyz"),
    ],
)
def test_template_directives(src: str, value: str) -> None:
    assert ev(src) == value


def test_heredoc_keeps_every_character() -> None:
    src = "x = <<EOT\n  hello\n    ${var.name}\n\nend\nEOT\n"
    assert attr_value(src) == "  hello\n    web\n\nend\n"


def test_flush_heredoc_removes_the_smallest_indentation() -> None:
    src = "x = <<-EOT\n    hello\n      ${var.name}\n\n    bye\n  EOT\n"
    assert attr_value(src) == "hello\n  web\n\nbye\n"


def test_flush_heredoc_counts_an_interpolation_at_line_start_as_no_indentation() -> None:
    src = "x = <<-EOT\n    a\n${var.name}\n    b\nEOT\n"
    assert attr_value(src) == "    a\nweb\n    b\n"


def test_heredoc_with_custom_marker_and_empty_body() -> None:
    assert attr_value("x = <<END_OF_TEXT\nline\nEND_OF_TEXT\n") == "line\n"
    assert attr_value("x = <<EOT\nEOT\n") == ""


def test_strip_markers_in_heredoc_eat_the_newline_after_a_directive() -> None:
    # Terraform's documented example: one "server" line per element, no blank lines.
    src = (
        "x = <<EOT\n"
        "%{ for ip in var.servers[*].ip ~}\n"
        "server ${ip}\n"
        "%{ endfor ~}\n"
        "EOT\n"
    )
    assert attr_value(src) == "server 10.0.0.1\nserver 10.0.0.2\n"


def test_strip_marker_before_a_directive_joins_it_to_the_previous_line() -> None:
    src = "x = <<EOT\nnames:\n%{~ for s in var.names } ${s}%{ endfor }\nEOT\n"
    assert attr_value(src) == "names: a b c\n"


def test_strip_marker_trims_only_up_to_the_end_of_its_line() -> None:
    # ``~}`` eats the rest of its own line (the newline) but not the next line's indentation.
    src = "x = <<EOT\n%{ if var.yes ~}\n    indented\n%{ endif ~}\nEOT\n"
    assert attr_value(src) == "    indented\n"


def test_flush_heredoc_line_after_strip_marker_keeps_its_indentation() -> None:
    # Terraform's quirk: after ``~}`` the next line no longer starts a line, so ``<<-`` leaves it alone.
    src = (
        "x = <<-EOT\n"
        "    Admins:\n"
        "    %{ for s in var.names ~}\n"
        "      - ${s}\n"
        "    %{ endfor ~}\n"
        "    done\n"
        "  EOT\n"
    )
    assert attr_value(src) == "Admins:\n      - a\n      - b\n      - c\n    done\n"


def test_template_if_in_heredoc_with_else() -> None:
    src = "x = <<EOT\n%{ if var.no ~}\nyes\n%{ else ~}\nno\n%{ endif ~}\nEOT\n"
    assert attr_value(src) == "no\n"


# ---- the corpus templates render exactly as Terraform rendered them ---------------------------


@pytest.mark.parametrize("page", ["index", "oncall"])
def test_template_file_renders_like_terraform(page: str) -> None:
    site = FIXTURES / "corpus" / "static_site"
    template = site / "templates" / "page.html.tftpl"
    pages = {"index": ("Welcome", ["Who we are", "How to ask for help"]),
             "oncall": ("On-call", ["Rotations", "Escalation", "Postmortems"])}
    title, sections = pages[page]
    variables = {
        "site_name": "Platform Handbook",
        "title": title,
        "sections": sections,
        "nav": [{"slug": "index", "title": "Welcome"}, {"slug": "oncall", "title": "On-call"}],
        "current": page,
        "footer": (site / "content" / "footer.html").read_text().strip(),
    }
    here = Path.cwd()
    rendered = render(template.read_text(), str(template), variables, FunctionContext(base_dir=here, module_dir=here))
    assert rendered == (site / "expected" / f"{page}.html").read_text()


# ---- bodies, blocks, comments -------------------------------------------------------------------


def test_blocks_labels_nesting_and_comments() -> None:
    src = """# a hash comment
// a slash comment
/* a block
   comment */
resource "random_id" "x" { # trailing comment
  byte_length = 4 // another
  /* inline */ prefix = "p-"
  nested {
    inner "one" "two" {
      k = "v"
    }
  }
  nested {}
}
locals {
  a = 1 # a = 2 is only a comment
}
"""
    body = body_of(src)
    assert [(b.type, b.labels) for b in body.blocks] == [("resource", ["random_id", "x"]), ("locals", [])]
    res = body.blocks[0]
    assert list(res.body.attributes) == ["byte_length", "prefix"]
    assert [(b.type, b.labels) for b in res.body.blocks] == [("nested", []), ("nested", [])]
    inner = res.body.blocks[0].body.blocks[0]
    assert (inner.type, inner.labels) == ("inner", ["one", "two"])
    assert list(inner.body.attributes) == ["k"]
    assert res.body.blocks[1].body.attributes == {}
    locals_body = body.blocks[1].body
    assert list(locals_body.attributes) == ["a"]
    assert evaluate(locals_body.attributes["a"].expr, EvalContext(variables={})) == 1


def test_block_with_identifier_labels_and_one_line_block() -> None:
    body = body_of('provider aws { region = "eu-west-1" }\nterraform { backend "local" {} }\n')
    assert [(b.type, b.labels) for b in body.blocks] == [("provider", ["aws"]), ("terraform", [])]
    assert list(body.blocks[0].body.attributes) == ["region"]
    backend = body.blocks[1].body.blocks[0]
    assert (backend.type, backend.labels) == ("backend", ["local"])


def test_an_attribute_set_twice_in_one_body_is_recorded() -> None:
    body = body_of("x = 1\ny = 2\nx = 3\n")
    assert [(a.name, str(a.rng), b.name, str(b.rng)) for a, b in body.duplicates] == [
        ("x", "main.tf:1:1", "x", "main.tf:3:1")
    ]


def test_an_empty_file_has_an_empty_body() -> None:
    body = body_of("")
    assert body.attributes == {} and not body.blocks
    body = body_of("# only a comment\n")
    assert body.attributes == {} and not body.blocks


# ---- positions ----------------------------------------------------------------------------------


def test_positions_of_blocks_labels_attributes_and_expressions() -> None:
    src = 'variable "region" {\n  default = "eu-west-1"\n}\n\nresource "random_id" "x" {\n  byte_length = var.n + 1\n}\n'
    body = body_of(src)
    var, res = body.blocks
    assert str(var.rng) == "main.tf:1:1"
    assert [str(r) for r in var.label_rngs] == ["main.tf:1:10"]
    default = var.body.attributes["default"]
    assert (str(default.rng), str(default.name_rng), str(default.expr.rng)) == (
        "main.tf:2:3", "main.tf:2:3", "main.tf:2:13",
    )
    assert [str(r) for r in res.label_rngs] == ["main.tf:5:10", "main.tf:5:22"]
    expr = res.body.attributes["byte_length"].expr
    assert isinstance(expr, ast.BinaryOp)
    assert str(expr.rng) == "main.tf:6:17"
    assert (expr.rng.end.line, expr.rng.end.column) == (6, 26)
    assert str(expr.left.rng) == "main.tf:6:17"
    assert str(expr.right.rng) == "main.tf:6:25"


def test_positions_inside_templates_and_heredocs() -> None:
    src = 'x = "pre-${var.a}-${var.b}"\ny = <<EOT\nline one\n  ${var.c}\nEOT\n'
    body = body_of(src)
    parts = body.attributes["x"].expr.parts
    refs = [p for p in parts if isinstance(p, ast.Expr)]
    assert [str(r.rng) for r in refs] == ["main.tf:1:12", "main.tf:1:21"]
    heredoc = body.attributes["y"].expr
    inner = next(p for p in heredoc.parts if isinstance(p, ast.Expr))
    assert str(inner.rng) == "main.tf:4:5"


def test_columns_count_characters_not_bytes() -> None:
    body = body_of('x = "héllo ${var.a}"\ny = "ü" == var.b\n')
    ref = body.attributes["x"].expr.parts[1]
    assert str(ref.rng) == "main.tf:1:14"
    right = body.attributes["y"].expr.right
    assert str(right.rng) == "main.tf:2:12"


def test_parse_expression_maps_positions_to_where_the_text_came_from() -> None:
    expr = parse_expression("1 + var.x", "terraform.tfvars", line=7, column=12)
    assert isinstance(expr, ast.BinaryOp)
    assert str(expr.rng) == "terraform.tfvars:7:12"
    assert str(expr.right.rng) == "terraform.tfvars:7:16"


def test_parse_template_maps_positions_to_where_the_string_came_from() -> None:
    expr = parse_template("logs-${var.env}\nsecond ${var.x}", "main.tf.json", line=4, column=20)
    refs = [p for p in expr.parts if isinstance(p, ast.Expr)]
    assert [str(r.rng) for r in refs] == ["main.tf.json:4:27", "main.tf.json:5:10"]
    here = Path.cwd()
    ctx = EvalContext(variables={"var": {"env": "dev", "x": 1}}, func_ctx=FunctionContext(base_dir=here, module_dir=here))
    assert evaluate(expr, ctx) == "logs-dev\nsecond 1"


def test_parse_template_of_plain_text_and_single_interpolation() -> None:
    assert sx(parse_template("no templates here", "f.yaml")) == "'no templates here'"
    wrap = parse_template("${var.list}", "f.yaml")
    assert sx(wrap) == "(wrap var.list)"
    assert evaluate(wrap, EvalContext(variables={"var": {"list": [1, 2]}})) == [1, 2]


# ---- syntax errors ------------------------------------------------------------------------------


def test_syntax_error_points_at_the_stray_token_with_its_line() -> None:
    src = 'variable "release" {\n  type = string\n}\n\nresource "terraform_data" "r" {\n  input = var.release )\n}\n'
    assert syntax_error(src) == ("main.tf:6:23", 'Invalid syntax: unexpected ")"', "  input = var.release )")


def test_syntax_error_in_a_call_argument_list() -> None:
    src = "locals {\n  x = foo(1,,2)\n}\n"
    assert syntax_error(src) == ("main.tf:2:12", 'Invalid syntax: unexpected ","', "  x = foo(1,,2)")


def test_syntax_error_for_an_unclosed_bracket_names_what_is_missing() -> None:
    where, summary, _ = syntax_error("a = [1, 2\n")
    assert summary == 'Invalid syntax: missing "]"'
    assert where.startswith("main.tf:")


def test_syntax_error_position_after_non_ascii_text() -> None:
    where, summary, snippet = syntax_error('a = "é" )\n')
    assert (where, summary, snippet) == ("main.tf:1:9", 'Invalid syntax: unexpected ")"', 'a = "é" )')


def test_syntax_error_is_a_ctl_error_with_a_printable_location() -> None:
    with pytest.raises(CtlError) as info:
        body_of("x = )\n", "network.tf")
    assert str(info.value).startswith("network.tf:1:5: Invalid syntax")


def test_syntax_error_in_a_wrapped_expression_never_shows_the_wrapper() -> None:
    with pytest.raises(DiagnosticsError) as info:
        parse_template("bucket-${var.x", "main.yaml", line=4, column=11)
    d = info.value.diagnostics()[0]
    assert str(d.range) == "main.yaml:4:11"
    assert "__" not in d.summary + d.detail + (d.snippet or "")
    with pytest.raises(DiagnosticsError) as info:
        parse_expression("1 +", "--var", 1, 1)
    d = info.value.diagnostics()[0]
    assert str(d.range) == "--var:1:4"
    assert "__" not in d.summary + d.detail + (d.snippet or "")


@pytest.mark.parametrize(("src", "value"), [
    ("1e3", 1000), ("2E-2", 0.02), ("-1e+2", -100), ("[1e3, 1.5e3]", [1000, 1500]),
    ('"1e3 ${1e3}"', "1e3 1000"), ("{ a1e3 = 1e1 }", {"a1e3": 10}),
])
def test_exponent_literals_without_a_fraction_are_numbers(src: str, value: Any) -> None:
    assert ev(src) == value


def test_an_exponent_literal_keeps_the_positions_after_it() -> None:
    with pytest.raises(DiagnosticsError) as err:
        parse_hcl_file(b"x = 1e3 + 2e2\ny = )\n", "t.tf")
    assert err.value.diagnostics()[0].range is not None
    start = err.value.diagnostics()[0].range.start
    assert (start.line, start.column) == (2, 5)


@pytest.mark.parametrize(("src", "where", "summary"), [
    ("locals {\n  x = 1 y = 2\n}\n", (2, 9), "Missing newline after argument"),
    ('locals {}\nresource "a" "b" {} output "o" {}\n', (2, 21), "Missing newline after block definition"),
    ("locals {\n  a = {\n    b = 1 c = 2\n  }\n}\n", (3, 11), "Missing attribute separator"),
])
def test_what_hcl_separates_by_newlines_or_commas_must_be_separated(
        src: str, where: tuple[int, int], summary: str) -> None:
    with pytest.raises(DiagnosticsError) as err:
        parse_hcl_file(src.encode(), "main.tf")
    [d] = err.value.diagnostics()
    assert d.summary == summary
    assert d.range is not None and (d.range.start.line, d.range.start.column) == where


def test_commas_newlines_and_heredocs_still_separate() -> None:
    body = parse_hcl_file(b'locals {\n  a = { b = 1, c = 2 }\n  d = <<EOT\nx\nEOT\n  e = {\n    f = 1,\n    g = 2\n  }\n}\n',
                          "main.tf")
    assert [b.type for b in body.blocks] == ["locals"]


def test_a_splat_inside_a_splat_applies_to_each_element() -> None:
    groups = [{"m": [{"n": "a"}, {"n": "b"}]}, {"m": [{"n": "c"}]}]
    assert ev("local.g[*].m[*].n", local={"g": groups}) == [["a", "b"], ["c"]]
    assert ev("local.g[*].m[0].n", local={"g": groups}) == ["a", "c"]


COMMENTED = {
    "1 + /* c */ 2": 3,
    "[1, /* x */ 2, # y\n 3]": [1, 2, 3],
    "max(/* y */ 1, 5 /* z */)": 5,
    "{ /* z */ k = 1 # w\n j = 2 }": {"k": 1, "j": 2},
    "true ? /* t */ 1 : 2": 1,
    "[for /* c */ x in [1, 2] : x * /* d */ 2]": [2, 4],
    "! /* n */ false": True,
    "(/* p */ 4)": 4,
}


@pytest.mark.parametrize(("src", "value"), COMMENTED.items())
def test_comments_between_tokens_of_an_expression(src: str, value: Any) -> None:
    """A comment may stand between any two tokens (Terraform 1.0.3 gives these values)."""
    here = Path.cwd()
    ctx = EvalContext(variables=VARS, func_ctx=FunctionContext(base_dir=here, module_dir=here))
    assert evaluate(body_of(f"x = {src}\n").attributes["x"].expr, ctx) == value
