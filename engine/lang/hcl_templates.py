"""Templates in HCL: quoted strings, heredocs, interpolations and ``%{ }`` directives.

tree-sitter's template tokens omit whitespace, so literal text is cut from the source bytes
*between* interpolations; strip markers (``~``) and ``<<-`` indentation are applied to those
literal tokens before they are nested into ``if``/``for`` parts.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from engine.lang import ast
from engine.lang.hcl_tree import NodeReader, _between, _unescape
from vocab.positions import Located


class TemplateConverter(NodeReader):
    """Template nodes to ``ast.Template`` parts; interpolated expressions go back to ``expr``."""

    def expr(self, node: Node) -> ast.Expr:  # the expression converter provides it
        raise NotImplementedError

    # ---- templates -------------------------------------------------------------------------

    def _template_expr(self, node: Node) -> ast.Expr:
        return self.expr(node.children[0])

    def _quoted_template(self, node: Node) -> ast.Expr:
        children = node.children
        start = children[0].end_byte
        end = children[-1].start_byte
        inner = children[1:-1]
        parts = self._plain_parts(inner, start, end)
        if parts is None:
            parts = self._parts(inner, start, end, quoted=True, flush=False)
        return _finish_template(self.rng(node), parts)

    def _plain_parts(self, nodes: list[Node], start: int, end: int) -> list[ast.TemplatePart] | None:
        """The parts of a quoted template made only of text and ``${ }`` without strip markers
        (``"${local.prefix}-1"``, most templates), read without ``_parts``' tokens; None for any other."""
        parts: list[ast.TemplatePart] = []
        cursor = start
        for node in nodes:
            kind = node.type
            if kind == "template_literal":
                continue
            if kind != "template_interpolation":
                return None
            children = node.children
            if len(children) != 3 or children[1].type != "expression":  # a strip marker, a comment, nothing
                return None
            if cursor < node.start_byte:
                parts.append(self._unescape_at(cursor, node.start_byte, quoted=True))
            parts.append(self.expr(children[1]))
            cursor = node.end_byte
        if cursor < end:
            parts.append(self._unescape_at(cursor, end, quoted=True))
        return parts

    def _heredoc_template(self, node: Node) -> ast.Expr:
        children = node.children
        idents = [c for c in children if c.type == "heredoc_identifier"]
        opener = idents[0]
        start = self.src.index(b"\n", opener.end_byte) + 1
        closer = idents[-1] if len(idents) > 1 else children[-1]
        end = self.src.rfind(b"\n", 0, closer.start_byte) + 1
        if end < start:
            end = start
        flush = bool(children[0].children) and children[0].children[0].type == "<<-"
        inner = [c for c in children if c.type in ("template_interpolation", "template_directive")]
        parts = self._parts(inner, start, end, quoted=False, flush=flush)
        rng = self.rng(node)
        if not parts:
            return ast.Literal(rng, "")
        if len(parts) == 1 and isinstance(parts[0], str):
            return ast.Literal(rng, parts[0])
        return ast.Template(rng, tuple(parts))

    def _parts(self, nodes: list[Node], start: int, end: int, *, quoted: bool, flush: bool) -> list[ast.TemplatePart]:
        """The parts of a template, with ``~`` strip markers and ``<<-`` indentation applied.

        HCL applies both to a flat sequence of tokens, before directives are nested: a strip
        marker trims only the literal token right next to it, and outside quoted strings literal
        tokens end at each newline. So ``%{ for x in xs ~}`` at the end of a heredoc line eats
        that line's newline but not the next line's indentation, and that next line (no longer
        at the start of a line) keeps its indentation in a ``<<-`` heredoc.
        """
        tokens: list[Any] = []
        self._flatten(nodes, start, end, quoted, tokens)
        for i, tok in enumerate(tokens):
            if isinstance(tok, _Lit):
                continue
            if tok.strip_left and i > 0 and isinstance(tokens[i - 1], _Lit):
                tokens[i - 1].val = tokens[i - 1].val.rstrip()
            if tok.strip_right and i + 1 < len(tokens) and isinstance(tokens[i + 1], _Lit):
                tokens[i + 1].val = tokens[i + 1].val.lstrip()
        if flush:
            _flush_heredoc(tokens)
        parts, _ = self._nest(tokens, 0, ())
        return parts

    def _flatten(self, nodes: list[Node], start: int, end: int, quoted: bool, out: list[Any]) -> None:
        """Literal tokens, interpolations and directive tags in source order."""
        cursor = start
        for node in nodes:
            kind = node.type
            if kind not in ("template_interpolation", "template_directive"):
                continue
            self._literal_tokens(cursor, node.start_byte, quoted, out)
            cursor = node.end_byte
            if kind == "template_interpolation":
                inner = self._child(node, "expression")
                ch = node.children
                left = len(ch) > 1 and ch[1].type == "strip_marker"
                right = len(ch) > 1 and ch[-2].type == "strip_marker"
                out.append(_Tag("interp", left, right, self.expr(inner), node))
                continue
            inner_node = node.children[0]
            children = inner_node.children
            if inner_node.type == "template_if":
                intro = children[0]
                else_intro = next((c for c in children if c.type == "template_else_intro"), None)
                end_tag = children[-1]
                then_end = else_intro if else_intro is not None else end_tag
                cond = self.expr(self._child(intro, "expression"))
                out.append(_Tag("if", *_tag_strips(intro), cond, node))
                self._flatten(_between(children, intro, then_end), intro.end_byte, then_end.start_byte, quoted, out)
                if else_intro is not None:
                    out.append(_Tag("else", *_tag_strips(else_intro), None, else_intro))
                    self._flatten(
                        _between(children, else_intro, end_tag), else_intro.end_byte, end_tag.start_byte, quoted, out
                    )
                out.append(_Tag("endif", *_tag_strips(end_tag), None, end_tag))
            elif inner_node.type == "template_for":
                intro, end_tag = children[0], children[-1]
                idents = [self.text(c) for c in intro.children if c.type == "identifier"]
                coll = self.expr(self._child(intro, "expression"))
                key_var, value_var = (idents[0], idents[1]) if len(idents) == 2 else (None, idents[0])
                out.append(_Tag("for", *_tag_strips(intro), (key_var, value_var, coll), node))
                self._flatten(_between(children, intro, end_tag), intro.end_byte, end_tag.start_byte, quoted, out)
                out.append(_Tag("endfor", *_tag_strips(end_tag), None, end_tag))
            else:
                raise self._unsupported(node)
        self._literal_tokens(cursor, end, quoted, out)

    def _literal_tokens(self, start: int, end: int, quoted: bool, out: list[Any]) -> None:
        if end <= start:
            return
        text = self.src[start:end].decode("utf-8", "replace")
        if quoted:
            out.append(_Lit(self._unescape_at(start, end, quoted=True)))
            return
        for line in text.split("\n"):  # outside quoted strings a literal token ends at each newline
            out.append(_Lit(_unescape(line, quoted=False) + "\n"))
        last = out[-1]
        last.val = last.val[:-1]  # the split added one newline too many
        if not last.val:
            out.pop()

    def _nest(self, tokens: list[Any], i: int, stop: tuple[str, ...]) -> tuple[list[ast.TemplatePart], int]:
        """Build nested if/for parts from the flat token list, up to a tag kind in ``stop``."""
        parts: list[ast.TemplatePart] = []
        while i < len(tokens):
            tok = tokens[i]
            if isinstance(tok, _Lit):
                if tok.val:
                    parts.append(tok.val)
                i += 1
                continue
            if tok.kind in stop:
                return _merge_strings(parts), i
            if tok.kind == "interp":
                parts.append(tok.data)
                i += 1
            elif tok.kind == "if":
                then, i = self._nest(tokens, i + 1, ("else", "endif"))
                otherwise: list[ast.TemplatePart] = []
                if tokens[i].kind == "else":
                    otherwise, i = self._nest(tokens, i + 1, ("endif",))
                parts.append(ast.TemplateIf(tok.data, tuple(then), tuple(otherwise), self.rng(tok.node)))
                i += 1
            elif tok.kind == "for":
                body, i = self._nest(tokens, i + 1, ("endfor",))
                key_var, value_var, coll = tok.data
                parts.append(ast.TemplateFor(key_var, value_var, coll, tuple(body), self.rng(tok.node)))
                i += 1
            else:
                raise self._unsupported(tok.node)
        return _merge_strings(parts), i


class _Lit:
    """A literal token of a template (mutable: strip markers and ``<<-`` trim it in place)."""

    __slots__ = ("val",)

    def __init__(self, val: str) -> None:
        self.val = val


class _Tag:
    """An interpolation or a directive tag (``if``, ``else``, ``endif``, ``for``, ``endfor``)."""

    __slots__ = ("data", "kind", "node", "strip_left", "strip_right")

    def __init__(self, kind: str, strip_left: bool, strip_right: bool, data: Any, node: Node) -> None:
        self.kind = kind
        self.strip_left = strip_left
        self.strip_right = strip_right
        self.data = data
        self.node = node


def _flush_heredoc(tokens: list[Any]) -> None:
    """``<<-``: remove the smallest indentation of the line-leading literal tokens from each of them.

    A line that starts with an interpolation or directive counts as indentation zero; a line of
    only whitespace does not count (and keeps its whitespace).
    """
    min_spaces: int | None = None
    at_line_start = True
    adjust: list[_Lit] = []
    for tok in tokens:
        if at_line_start:
            at_line_start = False
            if isinstance(tok, _Lit):
                stripped = tok.val.lstrip()
                if stripped or not tok.val.endswith("\n"):
                    spaces = len(tok.val) - len(stripped)
                    adjust.append(tok)
                    min_spaces = spaces if min_spaces is None else min(min_spaces, spaces)
            else:
                min_spaces = 0
        if isinstance(tok, _Lit) and tok.val.endswith("\n"):
            at_line_start = True
    if min_spaces:
        for tok in adjust:
            tok.val = tok.val[min_spaces:]


def _finish_template(rng: Located, parts: list[ast.TemplatePart]) -> ast.Expr:
    if not parts:
        return ast.Literal(rng, "")
    if len(parts) == 1:
        only = parts[0]
        if isinstance(only, str):
            return ast.Literal(rng, only)
        if isinstance(only, ast.Expr):
            return ast.TemplateWrap(rng, only)
    return ast.Template(rng, tuple(parts))


def _merge_strings(parts: list[ast.TemplatePart]) -> list[ast.TemplatePart]:
    """Adjacent text parts as one string, joined once: a heredoc is one text part per line, and
    adding them one by one took time growing with the square of its length."""
    out: list[ast.TemplatePart] = []
    run: list[str] = []
    for p in parts:
        if isinstance(p, str):
            run.append(p)
            continue
        if run:
            out.append("".join(run))
            run = []
        out.append(p)
    if run:
        out.append("".join(run))
    return out


def _tag_strips(tag: Node) -> tuple[bool, bool]:
    """(strip before the tag, strip after it) from ``%{~ … ~}`` markers."""
    children = tag.children
    left = len(children) > 1 and children[1].type == "strip_marker"
    right = len(children) > 1 and children[-2].type == "strip_marker"
    return left, right
