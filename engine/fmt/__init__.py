"""``ctl fmt``: HCL files in the canonical layout, byte for byte as ``terraform fmt`` (1.0.3) writes them.

The pipeline mirrors Terraform's (``command/fmt.go`` over HCL 2.10.1's ``hclwrite``): check the
syntax first, since formatting a broken file could mangle it beyond an easy undo; scan the text
into tokens (``tokens``); apply the few rewrites Terraform makes (``rewrite``); then set the spaces
before every token (``layout``: indentation and spacing, ``align``: aligned ``=`` and comments)
and join the tokens again. Only spaces change, so everything else — heredoc bodies, comments,
string contents, CRLF line endings, blank lines — stays exactly as written.
"""

from __future__ import annotations

from engine.fmt import align, checks, layout
from engine.fmt.rewrite import rewrite
from engine.fmt.structure import Malformed
from engine.fmt.tokens import Problem, scan
from engine.lang.literals import decode_utf8
from vocab.errors import Diagnostic, DiagnosticsError, Pos, SourceRange

_BOM = b"\xef\xbb\xbf"


def format_source(src: bytes, filename: str) -> bytes:
    """``src`` formatted; a syntax error raises ``DiagnosticsError`` at its ``file:line:col``."""
    bom = len(_BOM) if src.startswith(_BOM) else 0
    text = decode_utf8(src, filename)
    tokens, problems = scan(text, bom)
    if problems:
        raise DiagnosticsError([_diagnostic(p, filename) for p in problems])
    _check_syntax(src[bom:], filename)  # first: the parser names the place as validate would
    try:
        tokens = rewrite(tokens)
    except Malformed as exc:
        tok = exc.token
        raise DiagnosticsError([_diagnostic(Problem(exc.summary, exc.detail, tok.line, tok.col), filename)]) from None
    problems = checks.problems(tokens)
    if problems:
        raise DiagnosticsError([_diagnostic(p, filename) for p in problems])
    lines = layout.split_lines(tokens)
    layout.indent(lines)
    layout.space(lines)
    align.align(lines)
    return "".join(" " * tok.spaces + tok.text for tok in tokens).encode()


# What ctl's own reader refuses for its own reasons; a file Terraform formats may contain them.
_READER_LIMITS = ("Unsupported expression syntax", "Expression nested too deeply", "Invalid number")


def _check_syntax(src: bytes, filename: str) -> None:
    """The parser's verdict: the file reads as HCL.

    ``parse_hcl_file`` reads the whole file into ctl's configuration model. When it stops at a
    construct the model does not support (rather than at a syntax error), the grammar alone is
    asked: formatting needs valid syntax, not an evaluable configuration.
    """
    from engine.lang.hcl import parse_hcl_file

    try:
        parse_hcl_file(src, filename)
    except DiagnosticsError as err:
        if not all(d.summary.startswith(_READER_LIMITS) for d in err.diagnostics()):
            raise
        from engine.lang.hcl_tree import NodeReader, _parseable, _parser

        root = _parser().parse(_parseable(src)).root_node
        if root.has_error:
            NodeReader(src, filename).raise_syntax_error(root)


def _diagnostic(problem: Problem, filename: str) -> Diagnostic:
    pos = Pos(problem.line, problem.column)
    return Diagnostic("error", problem.summary, detail=problem.detail, range=SourceRange(filename, pos, pos))


__all__ = ["format_source"]
