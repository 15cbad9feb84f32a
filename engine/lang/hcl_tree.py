"""Reading tree-sitter's HCL syntax tree: the parser, positions in the original file, syntax errors.

The base of the converter (``engine.lang.hcl``): everything that knows about nodes and bytes but
not yet what they mean. Positions are mapped back to the file the text came from, including text
parsed inside a wrapper (an expression from the command line, a string from a JSON file).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from sys import intern
from typing import Any, NoReturn

import tree_sitter_hcl
from tree_sitter import Language, Node, Parser

from engine.lang.literals import LiteralError, code_point, nfc
from vocab.errors import Diagnostic, DiagnosticsError, Pos, SourceRange, SourceText
from vocab.positions import INDEX_LIMIT, LENGTH_LIMIT, LENGTH_SHIFT, START_SHIFT, Located, as_range, packed_in

_LANGUAGE = Language(tree_sitter_hcl.language())
_local = threading.local()



# HCL reads ``1e3`` as one number; the grammar only knows exponents after a fraction (``1.0e3``).
_EXPONENT_WITHOUT_FRACTION = re.compile(rb"(?<![\w.])[0-9]+[eE][-+]?[0-9]+(?![\w.])")
_DIGIT_THEN_E = re.compile(rb"[0-9][eE]")
_NUL_STAND_IN = b"`"
# HCL reads ``[ * ]`` as the splat ``[*]`` (three tokens, blanks between them); the grammar only
# knows ``[*]`` written together.
_SPACED_SPLAT = re.compile(rb"\[[ \t]*\*[ \t]*\]")
# Likewise ``a. * .b``: HCL's attribute splat is the two tokens ``.`` and ``*``, with blanks between them
# allowed; the grammar only knows ``.*`` written together (blanks around the pair it reads already).
_SPACED_ATTR_SPLAT = re.compile(rb"\.[ \t]+\*")
# Tokens whose text may hold any character, a NUL included.
_TEXT_TOKENS = frozenset({"comment", "template_literal"})


def _parseable(src: bytes) -> bytes:
    """``src`` with every ``1e3``-style literal spelled as digits of the same length, every
    ``[ * ]`` as `` [*] `` and every ``. *`` as `` .*``, for the grammar.

    The tree is built from these bytes, but every token's text is read from the original ``src``:
    the literal keeps its value and every position stays where it was. Inside strings, comments
    and names the substitution is one run of plain characters for another, so no structure changes.

    A NUL byte, which the grammar refuses anywhere, becomes a backtick: like NUL in HCL, a
    character allowed in strings, heredocs and comments (where Terraform keeps the NUL) and
    nowhere else, so a NUL outside them is still a syntax error, reported at its own place.
    """
    if b"\0" in src:
        src = src.replace(b"\0", _NUL_STAND_IN)
    if b"[ " in src or b"[\t" in src or b" ]" in src or b"\t]" in src:
        src = _SPACED_SPLAT.sub(_close_splat, src)
    if b". " in src or b".\t" in src:
        src = _SPACED_ATTR_SPLAT.sub(_close_attr_splat, src)
    if not _DIGIT_THEN_E.search(src):  # much cheaper than the search below
        return src
    return _EXPONENT_WITHOUT_FRACTION.sub(lambda m: b"1" * len(m.group()), src)


def _close_splat(found: re.Match[bytes]) -> bytes:
    """``[ * ]`` as `` [*] ``: the same length, with the star where it was (see ``_parseable``)."""
    text = found.group()
    star = text.index(b"*")
    return b" " * (star - 1) + b"[*]" + b" " * (len(text) - star - 2)


def _close_attr_splat(found: re.Match[bytes]) -> bytes:
    """``. *`` as `` .*``: the same length, with the star where it was (see ``_parseable``)."""
    return b" " * (len(found.group()) - 2) + b".*"


def _parser() -> Parser:
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = Parser(_LANGUAGE)
    return parser


class NodeReader:
    """One parsed source: its bytes, where it sits in the user's file, and how to report on it."""

    def __init__(
        self,
        src: bytes,
        filename: str,
        *,
        file_line: int = 1,
        file_col: int = 1,
        base_row: int = 0,
        col_shift: int = 0,
        line_indent: int = 0,
        byte_of: Callable[[int, int], int] | None = None,
        host: SourceText | None = None,
    ) -> None:
        self.src = src
        self.filename = filename
        self.file_line = file_line
        self.file_col = file_col
        self.base_row = base_row
        self.col_shift = col_shift
        self.line_indent = line_indent
        self.depth = 0  # expressions being converted, one inside the other (see ``expr``)
        self.byte_of = byte_of
        self._ascii = src.isascii()
        # Whether any comment can be in the tree: without one of these bytes there is none.
        self.may_comment = b"#" in src or b"//" in src or b"/*" in src
        # For text parsed inside a wrapper (parse_expression/parse_template): where the user's
        # text starts in ``src``, and the text itself.
        self.content: tuple[int, str] | None = None
        # A whole file: its ranges are byte offsets into it, lines and columns worked out on demand.
        whole_file = (file_line, file_col, base_row, col_shift, line_indent, byte_of) == (1, 1, 0, 0, 0, None)
        self.source_text = SourceText(filename, src) if whole_file else None
        # A range of a whole file is its text's number plus the packed start and length, written out
        # in ``rng``: a function call less for each of the thousands of ranges of a file. Zero when
        # the number does not fit the packed layout (``packed_in`` then keeps each a ``SourceRange``).
        index = self.source_text.index if self.source_text is not None else 0
        self._base = index if index < INDEX_LIMIT else 0
        # Text from another file (a JSON or YAML string) whose bytes ``byte_of`` finds in ``host``:
        # its ranges are packed offsets into that file, as the file's own are, not six numbers each.
        self.host = host if byte_of is not None else None

    # ---- positions -------------------------------------------------------------------------

    def _pos(self, point: Any, byte: int) -> Pos:
        return Pos(*self._point(point, byte))

    def _point(self, point: Any, byte: int) -> tuple[int, int, int]:
        """(line, column, byte) in the original file: the hot path of parsing, so plain ints."""
        row, col = point
        if not self._ascii and col:
            # tree-sitter counts columns in bytes; a column is counted in characters.
            col = len(self.src[byte - col : byte].decode("utf-8", "replace"))
        if row == self.base_row:
            line, col = self.file_line, self.file_col + col - self.col_shift
        else:
            line, col = self.file_line + row - self.base_row, col + 1 + self.line_indent
        if self.byte_of is not None:
            byte = self.byte_of(line, col)
        return line, col, byte

    def rng(self, node: Node) -> Located:
        """Where ``node`` is, as a syntax node keeps it (``as_range`` makes it a ``SourceRange``)."""
        text = self.source_text
        if text is not None:
            start = node.start_byte
            length = node.end_byte - start
            if length < LENGTH_LIMIT and self._base:
                return self._base | start << START_SHIFT | length << LENGTH_SHIFT
            return packed_in(text, start, node.end_byte)
        if self.host is not None:
            return packed_in(self.host, self._point(node.start_point, node.start_byte)[2],
                             self._point(node.end_point, node.end_byte)[2])
        return SourceRange.of(
            self.filename,
            *self._point(node.start_point, node.start_byte),
            *self._point(node.end_point, node.end_byte),
        )

    def _unescape_at(self, start: int, end: int, *, quoted: bool) -> str:
        """The string between two byte offsets with its escapes resolved; a bad escape is an error there."""
        text = self.src[start:end].decode("utf-8", "replace")
        try:
            return nfc(_unescape(text, quoted=quoted))
        except LiteralError as exc:
            byte = start + len(text[: exc.offset].encode())
            row = self.src.count(b"\n", 0, byte)
            col = byte - (self.src.rfind(b"\n", 0, byte) + 1)
            pos = self._pos((row, col), byte)
            raise DiagnosticsError([Diagnostic("error", "Invalid escape sequence", detail=exc.message,
                                               range=SourceRange(self.filename, pos, pos))]) from None

    def _child(self, node: Node, kind: str) -> Node:
        """The first child of ``kind``; a tree without it (an empty ``${}``) is the user's syntax error."""
        return self._first_of(node.children, kind, node)

    def _first_of(self, nodes: list[Node], kind: str, parent: Node | None = None) -> Node:
        for c in nodes:
            if c.type == kind:
                return c
        raise self.incomplete(parent if parent is not None else nodes[0])

    def incomplete(self, node: Node) -> DiagnosticsError:
        """Something the grammar let through is missing a part (``"${}"``, ``(  )``): a positioned error."""
        text = self.src[node.start_byte:node.end_byte].decode("utf-8", "replace").split("\n")[0][:60]
        return DiagnosticsError([Diagnostic(
            "error", "Invalid expression",
            detail=f'"{text}" is missing an expression; write one inside it or remove it.',
            range=as_range(self.rng(node)),
        )])

    def _span(self, first: Node, last: Node) -> Located:
        if self.source_text is not None:
            return packed_in(self.source_text, first.start_byte, last.end_byte)
        if self.host is not None:
            return packed_in(self.host, self._point(first.start_point, first.start_byte)[2],
                             self._point(last.end_point, last.end_byte)[2])
        return SourceRange.of(
            self.filename,
            *self._point(first.start_point, first.start_byte),
            *self._point(last.end_point, last.end_byte),
        )

    def same_line(self, previous: Node, node: Node) -> bool:
        """Whether ``node`` starts on the line ``previous`` ends on: no newline between them (two
        byte offsets read, not two points built)."""
        return self.src.find(b"\n", previous.end_byte, node.start_byte) < 0

    def join(self, first: Located, last: Located) -> Located:
        """From ``first``'s start to ``last``'s end."""
        return as_range(first).to(as_range(last)).located()

    def text(self, node: Node) -> str:
        """A token's text, interned: the same names (``input``, ``tags``, a resource type) recur in
        every block of a large configuration, and one copy of each is memory saved."""
        return intern(self.src[node.start_byte : node.end_byte].decode("utf-8", "replace"))

    # ---- errors ----------------------------------------------------------------------------

    def raise_syntax_error(self, root: Node) -> None:
        if b"\0" in self.src:
            self._raise_at_stray_nul(root)
        bad = _first_error(root)
        node = bad or root
        if bad is not None and bad.type == "ERROR":
            # An ERROR node holds what parsed before the problem, then the token that did not fit:
            # point at that token when it is the last thing in it (``x = )``), not at the start.
            sized = [c for c in bad.children if c.end_byte > c.start_byte]
            if sized and not sized[-1].is_named and len(sized) > 1:
                node = sized[-1]
            following = bad.next_sibling
            if node.type in _WANTS_EXPRESSION and following is not None and following.end_byte > following.start_byte:
                if node.type == "=" and following.start_point[0] > node.end_point[0]:
                    # ``input =`` and the line ends: an argument's expression must start on its line.
                    self._raise_at(node, "Invalid expression",
                                   "Expected the start of an expression, but the line ends here.", at_end=True)
                # ``[1,`` then ``}``: the separator was fine, what follows it is not an expression.
                self._raise_at(following, "Invalid expression",
                               f'Expected the start of an expression, but found "{self.text(following)[:20]}".')
        if self.content is not None and node.start_byte < self.content[0]:
            # The parser gave up on the whole wrapped text: point at its start, never at the wrapper.
            text = self.content[1]
            start = Pos(self.file_line, self.file_col, 0)
            raise DiagnosticsError(
                [
                    Diagnostic(
                        "error",
                        "Invalid syntax",
                        detail=f'"{text[:60]}" is not a valid expression or template; check for an unclosed '
                               "${, %{, bracket, brace or quote.",
                        range=SourceRange(self.filename, start, start),
                        snippet=text.split("\n")[0],
                    )
                ]
            )
        if self.content is not None and node.start_byte >= self.content[0] + len(self.content[1].encode()):
            # Past the end of the wrapped text (something is missing at its end): point at its end.
            lines = self.content[1].split("\n")
            col = self.file_col + len(lines[0]) if len(lines) == 1 else len(lines[-1]) + 1
            end = Pos(self.file_line + len(lines) - 1, col, 0)
            raise DiagnosticsError(
                [
                    Diagnostic(
                        "error",
                        f'Invalid syntax: missing "{node.type}"' if node.is_missing else "Invalid syntax",
                        detail="The text ends before the expression is complete.",
                        range=SourceRange(self.filename, end, end),
                        snippet=lines[-1],
                    )
                ]
            )
        if bad is not None and bad.is_missing:
            summary = f'Invalid syntax: missing "{bad.type}"'
        else:
            token = self.text(node).strip().split("\n")[0][:40]
            summary = f'Invalid syntax: unexpected "{token}"' if token else "Invalid syntax"
        self._raise_at(node, summary, "This is not valid HCL; check for unbalanced braces, brackets or quotes.")

    def _raise_at_stray_nul(self, root: Node) -> None:
        """A NUL outside strings, heredocs and comments: Terraform's "Invalid character", at the NUL."""
        text_spans: list[tuple[int, int]] = []
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type in _TEXT_TOKENS:
                text_spans.append((node.start_byte, node.end_byte))
            else:
                stack.extend(node.children)
        at = self.src.find(b"\0")
        while at >= 0:
            if not any(start <= at < end for start, end in text_spans):
                row = self.src.count(b"\n", 0, at)
                col = at - (self.src.rfind(b"\n", 0, at) + 1)
                pos = self._pos((row, col), at)
                line = self.src.split(b"\n")[row]
                raise DiagnosticsError([Diagnostic(
                    "error", "Invalid character",
                    detail="A NUL character is not used within the language; it may appear only inside "
                           "strings, heredocs and comments.",
                    range=SourceRange(self.filename, pos, pos),
                    snippet=line.decode("utf-8", "replace"),
                )])
            at = self.src.find(b"\0", at + 1)

    def _raise_at(self, node: Node, summary: str, detail: str, *, at_end: bool = False) -> NoReturn:
        """Raise a syntax error at ``node`` (``at_end``: just after the last character of its line)."""
        line_no = node.start_point[0]
        src_lines = self.src.split(b"\n")
        line = src_lines[line_no] if line_no < len(src_lines) else b""
        first = node
        while first.children and first.end_point[0] > first.start_point[0]:
            first = first.children[0]  # a span over lines is shown by its first token, as HCL shows it
        rng = as_range(self.rng(first))
        if at_end:
            end = Pos(rng.start.line, len(line.rstrip(b" \t\r").decode("utf-8", "replace")) + 1, 0)
            rng = SourceRange(rng.filename, end, end)
        raise DiagnosticsError([Diagnostic("error", summary, detail=detail, range=rng,
                                           snippet=line.decode("utf-8", "replace"))])

    def _unsupported(self, node: Node) -> DiagnosticsError:
        return DiagnosticsError(
            [Diagnostic("error", f'Unsupported expression syntax "{self.text(node)[:40]}"', range=as_range(self.rng(node)))]
        )


# Tokens after which an expression must come: when the parse fails right after one, the error is
# the token that follows (where Terraform reports it), not the separator.
_WANTS_EXPRESSION = frozenset({",", "=", "?", ":", "+", "-", "*", "/", "%", "&&", "||", "==", "!=", "<", ">", "<=", ">="})


def _first_error(node: Node) -> Node | None:
    if node.type == "ERROR" or node.is_missing:
        # Point at the first token inside an ERROR node: that is where the parse went wrong.
        return node
    for child in node.children:
        if child.has_error or child.is_missing or child.type == "ERROR":
            found = _first_error(child)
            if found is not None:
                return found
    return None


def _between(children: list[Node], first: Node, last: Node) -> list[Node]:
    return [c for c in children if first.end_byte <= c.start_byte and c.end_byte <= last.start_byte]


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_ESCAPE_SEQUENCE = re.compile(r'\\(?:([nrt"\\])|u(.{4})|U(.{8}))', re.DOTALL)


def _unescape(text: str, *, quoted: bool) -> str:
    """``text`` with its escapes resolved, in one pass of the regular expression engine (a long
    literal is millions of characters). A backslash before anything else stays as it is."""
    if "$${" in text:
        text = text.replace("$${", "${")
    if "%%{" in text:
        text = text.replace("%%{", "%{")
    if not quoted or "\\" not in text:
        return text
    return _ESCAPE_SEQUENCE.sub(_one_escape, text)


def _one_escape(m: re.Match[str]) -> str:
    simple = m.group(1)
    if simple is not None:
        return _ESCAPES[simple]
    digits = m.group(2)
    return code_point(digits if digits is not None else m.group(3), m.start())
