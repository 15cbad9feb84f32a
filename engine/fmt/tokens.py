"""HCL native syntax as the token stream Terraform's formatter sees (hclsyntax's scanner, rewritten).

``terraform fmt`` never re-prints a syntax tree: it takes the scanner's tokens, changes only the
spaces before each one and writes them back. So formatting the same way needs the same tokens,
cut at the same places, which tree-sitter's tree does not give (it drops literal whitespace and
merges template pieces). This scanner follows hclsyntax's ``scan_tokens.rl`` (HCL 2.10.1, the
version in Terraform 1.0.3) rule by rule: longest match, then the earlier rule; ``"``-strings,
``<<EOF`` heredocs and ``${``/``%{`` sequences nest through a stack of modes.

What the scanner cannot make sense of (an unknown character, a newline in a quoted string, an
unterminated string or heredoc) becomes a ``Problem``, which the caller reports as a syntax error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Token kinds: hclsyntax's names without the ``Token`` prefix.
O_BRACE, C_BRACE, O_BRACK, C_BRACK, O_PAREN, C_PAREN = "OBrace", "CBrace", "OBrack", "CBrack", "OParen", "CParen"
O_QUOTE, C_QUOTE, O_HEREDOC, C_HEREDOC = "OQuote", "CQuote", "OHeredoc", "CHeredoc"
STAR, SLASH, PLUS, MINUS, PERCENT = "Star", "Slash", "Plus", "Minus", "Percent"
EQUAL, EQUAL_OP, NOT_EQUAL, LESS, LESS_EQ, GREATER, GREATER_EQ = (
    "Equal", "EqualOp", "NotEqual", "LessThan", "LessThanEq", "GreaterThan", "GreaterThanEq")
AND, OR, BANG, DOT, COMMA, ELLIPSIS, FAT_ARROW, QUESTION, COLON = (
    "And", "Or", "Bang", "Dot", "Comma", "Ellipsis", "FatArrow", "Question", "Colon")
DOUBLE_COLON = "DoubleColon"  # provider::NAME::FUNC, which ctl reads and Terraform 1.0.3 does not
INTERP, CONTROL, SEQ_END = "TemplateInterp", "TemplateControl", "TemplateSeqEnd"
QUOTED_LIT, STRING_LIT, NUMBER, IDENT = "QuotedLit", "StringLit", "NumberLit", "Ident"
COMMENT, NEWLINE, EOF, INVALID, QUOTED_NEWLINE = "Comment", "Newline", "EOF", "Invalid", "QuotedNewline"
NIL = "Nil"  # stands in for "no token" at the edges of a line (hclwrite's nilToken)

_SELF = {
    "[": O_BRACK, "]": C_BRACK, "(": O_PAREN, ")": C_PAREN, ".": DOT, ",": COMMA, "*": STAR, "/": SLASH,
    "%": PERCENT, "+": PLUS, "-": MINUS, "=": EQUAL, "<": LESS, ">": GREATER, "!": BANG, "?": QUESTION,
    ":": COLON,
}
_PAIRS = {"==": EQUAL_OP, "!=": NOT_EQUAL, ">=": GREATER_EQ, "<=": LESS_EQ, "&&": AND, "||": OR, "=>": FAT_ARROW,
          "::": DOUBLE_COLON}
# Characters hclsyntax scans as tokens only to reject them with a helpful message.
_REJECTED = {
    "&": 'Bitwise operators are not supported. Did you mean boolean AND ("&&")?',
    "|": 'Bitwise operators are not supported. Did you mean boolean OR ("||")?',
    "~": 'Bitwise operators are not supported. Did you mean boolean NOT ("!")?',
    "^": "Bitwise operators are not supported.",
    ";": 'The ";" character is not valid. Use newlines to separate arguments and blocks, and commas to '
         "separate items in collection values.",
    "`": 'The "`" character is not valid. To create a multi-line string, use the "heredoc" syntax, like "<<EOT".',
    "'": 'Single quotes are not valid. Use double quotes (") to enclose strings.',
    "\u201c": '"Curly quotes" are not valid here. Replace the character with a "straight quote".',
    "\u201d": '"Curly quotes" are not valid here. Replace the character with a "straight quote".',
}

_SPACES = re.compile(r"[ \t]+")
_NUMBER = re.compile(r"[0-9](?:[0-9.]|[eE][+-]?[0-9])*+")
_VALID_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")
_ASCII_IDENT_PART = re.compile(r"[A-Za-z0-9_-]+")
_QUOTED_RUN = re.compile(r'(?:[^$%"\\\r\n]++|\\[^\r\n])++')
_HEREDOC_RUN = re.compile(r"[^$%\r\n]*")
# Go's unicode.IsSpace, which bytes.TrimSpace uses to compare a line with a heredoc's end marker.
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000"


class Token:
    """One token: its kind, its exact text, and the spaces the formatter puts before it."""

    __slots__ = ("col", "kind", "line", "spaces", "text")

    def __init__(self, kind: str, text: str, spaces: int = 0, line: int = 0, col: int = 0) -> None:
        self.kind = kind
        self.text = text
        self.spaces = spaces
        self.line = line
        self.col = col

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r}, spaces={self.spaces})"


@dataclass(frozen=True)
class Problem:
    """Something the scanner rejects; ``line``/``column`` are 1-based, the column in characters."""

    summary: str
    detail: str
    line: int
    column: int


def is_ident_start(ch: str) -> bool:
    return ch == "_" or ch.isidentifier()


def is_ident_part(ch: str) -> bool:
    return ch == "-" or ("a" + ch).isidentifier()


class _Heredoc:
    __slots__ = ("at_line_start", "marker")

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.at_line_start = True


class Scanner:
    """Turns one source text into tokens; ``scan()`` returns them ending with an ``EOF`` token."""

    def __init__(self, text: str, bom: int = 0) -> None:
        self.s = text
        self.bom = bom  # bytes of a stripped byte-order mark: hclwrite counts them as spaces
        self.i = 0
        self.tokens: list[Token] = []
        self.problems: list[Problem] = []
        self.modes: list[str] = ["main"]
        self.braces = 0
        self.ret_braces: list[int] = []
        self.heredocs: list[_Heredoc] = []
        self._line = 1
        self._line_start = 0
        self._last_end = 0

    def scan(self) -> list[Token]:
        step = {"main": self._main, "string": self._string, "heredoc": self._heredoc}
        while self.i < len(self.s):
            step[self.modes[-1]]()
        if len(self.modes) > 1:
            self._problem("Unterminated template string", "No closing marker was found for the string.",
                          len(self.s))
        gap = len(self.s) - self._last_end + (self.bom if not self.tokens else 0)
        eof = Token(EOF, "", gap, *self._position(len(self.s)))
        self.tokens.append(eof)
        return self.tokens

    # ---- bookkeeping ------------------------------------------------------------------------

    def _position(self, offset: int) -> tuple[int, int]:
        return self._line, offset - self._line_start + 1

    def _emit(self, kind: str, end: int) -> Token:
        start = self.i
        text = self.s[start:end]
        gap = start - self._last_end + (self.bom if not self.tokens else 0)
        tok = Token(kind, text, gap, *self._position(start))
        self.tokens.append(tok)
        newlines = text.count("\n")
        if newlines:
            self._line += newlines
            self._line_start = start + text.rindex("\n") + 1
        self.i = self._last_end = end
        return tok

    def _problem(self, summary: str, detail: str, offset: int) -> None:
        line, col = self._position(offset)
        self.problems.append(Problem(summary, detail, line, col))

    def _invalid(self, end: int, detail: str = "This character is not used within the language.") -> None:
        summary = "Unsupported operator" if detail.startswith("Bitwise") else "Invalid character"
        self._problem(summary, detail, self.i)
        self._emit(INVALID, end)

    # ---- modes ------------------------------------------------------------------------------

    def _main(self) -> None:
        s, i = self.s, self.i
        ch = s[i]
        m = _SPACES.match(s, i)
        if m:
            self.i = m.end()
            return
        if "0" <= ch <= "9":
            number = _NUMBER.match(s, i)
            assert number is not None  # a digit is a number
            end = number.end()
            while s[end - 1] == ".":  # a number never ends in "." ("1." is a number and a dot)
                end -= 1
            self._number(end)
        elif is_ident_start(ch):
            self._emit(IDENT, self._ident_end(i))
        elif ch == "#" or s.startswith("//", i):
            nl = s.find("\n", i)
            self._emit(COMMENT, len(s) if nl < 0 else nl + 1)
        elif s.startswith("/*", i) and (close := s.find("*/", i + 2)) >= 0:
            self._emit(COMMENT, close + 2)
        elif s.startswith("/*", i):
            self._problem("Unterminated comment", 'No "*/" closes this comment.', i)
            self._emit(SLASH, i + 1)
        elif ch == "\n" or s.startswith("\r\n", i):
            self._emit(NEWLINE, i + (1 if ch == "\n" else 2))
        elif s.startswith("...", i):
            self._emit(ELLIPSIS, i + 3)
        elif s[i:i + 2] in _PAIRS:
            self._emit(_PAIRS[s[i:i + 2]], i + 2)
        elif s.startswith("<<", i) and self._heredoc_start():
            pass
        elif ch in _SELF:
            self._emit(_SELF[ch], i + 1)
        elif ch == "{":
            self._emit(O_BRACE, i + 1)
            self.braces += 1
        elif ch == "}" or s.startswith("~}", i):
            self._close_brace(i + (1 if ch == "}" else 2), tilde=ch == "~")
        elif ch == '"':
            self._emit(O_QUOTE, i + 1)
            self.modes.append("string")
        else:
            self._invalid(i + 1, _REJECTED.get(ch, "This character is not used within the language."))

    def _number(self, end: int) -> None:
        """A number literal; one the parser would refuse (``1.2.3``, ``0x1F``, ``1e``) is a problem.

        A number directly followed by a name is never valid, except before ``if`` in a ``for``.
        """
        s, i = self.s, self.i
        follows = self._ident_end(end) if end < len(s) and is_ident_start(s[end]) else end
        if not _VALID_NUMBER.fullmatch(s, i, end) or (end < follows and s[end:follows] != "if"):
            self._problem("Invalid number literal", f'"{s[i:follows]}" is not a valid number: HCL numbers are '
                          "decimal, like 42, 1.5 or 1e3.", i)
        self._emit(NUMBER, end)

    def _ident_end(self, i: int) -> int:
        """Where the identifier starting at ``i`` ends (letters, digits, ``_`` and ``-``)."""
        s, end = self.s, i + 1
        while end < len(s):
            m = _ASCII_IDENT_PART.match(s, end)
            if m:
                end = m.end()
            elif not s[end].isascii() and is_ident_part(s[end]):
                end += 1
            else:
                break
        return end

    def _heredoc_start(self) -> bool:
        """``<<EOT`` or ``<<-EOT`` and the end of its line: the heredoc's marker is ``EOT``."""
        s, i = self.s, self.i
        start = i + (3 if s.startswith("<<-", i) else 2)
        if start >= len(s) or not is_ident_start(s[start]):
            return False
        end = self._ident_end(start)
        newline = 1 if s.startswith("\n", end) else 2 if s.startswith("\r\n", end) else 0
        if not newline:
            return False
        self._emit(O_HEREDOC, end + newline)
        self.heredocs.append(_Heredoc(s[start:end]))
        self.modes.append("heredoc")
        return True

    def _close_brace(self, end: int, *, tilde: bool) -> None:
        if self.ret_braces and self.ret_braces[-1] == self.braces:
            self._emit(SEQ_END, end)
            self.ret_braces.pop()
            self.modes.pop()
        else:
            self._emit(SEQ_END if tilde else C_BRACE, end)
        self.braces -= 1

    def _template_sequence(self) -> bool:
        """``${`` or ``%{`` (with an optional ``~``) in a string or heredoc: into an expression."""
        s, i = self.s, self.i
        if s[i] not in "$%" or not s.startswith("{", i + 1):
            return False
        end = i + (3 if s.startswith("~", i + 2) else 2)
        self._emit(INTERP if s[i] == "$" else CONTROL, end)
        self.braces += 1
        self.ret_braces.append(self.braces)
        if self.heredocs:
            self.heredocs[-1].at_line_start = False
        self.modes.append("main")
        return True

    def _string(self) -> None:
        s, i = self.s, self.i
        if self._template_sequence():
            return
        ch = s[i]
        if ch == '"':
            self._emit(C_QUOTE, i + 1)
            self.modes.pop()
        elif ch in "$%":
            # "$${" / "%%{" escape a sequence; a lone "$" or "%" is literal text
            self._emit(QUOTED_LIT, i + 3 if s.startswith(ch + "{", i + 1) else i + 1)
        elif ch in "\r\n":
            end = i
            while end < len(s) and s[end] in "\r\n":
                end += 1
            self._problem("Invalid multi-line string",
                          "Quoted strings may not be split over multiple lines. To produce a multi-line "
                          'string, either use the \\n escape to represent a newline character or use the '
                          '"heredoc" multi-line template syntax.', i)
            self._emit(QUOTED_NEWLINE, end)
        elif (m := _QUOTED_RUN.match(s, i)) is not None:
            self._emit(QUOTED_LIT, m.end())
        else:  # a backslash at the end of a line
            self._invalid(i + 1, "Backslash must be followed by an escape sequence selector character.")

    def _heredoc(self) -> None:
        s, i = self.s, self.i
        if self._template_sequence():
            return
        doc = self.heredocs[-1]
        if s[i] in "$%" and s.startswith(s[i] + "{", i + 1):  # "$${" / "%%{": escaped, literal text
            doc.at_line_start = False
            self._emit(STRING_LIT, i + 3)
            return
        if s[i] in "$%":
            if i + 1 < len(s) and s[i + 1] == "\n":
                doc.at_line_start = True
                self._emit(STRING_LIT, i + 2)
            elif s.startswith("\r\n", i + 1):
                doc.at_line_start = True
                self._emit(STRING_LIT, i + 3)
            else:
                doc.at_line_start = False
                self._emit(STRING_LIT, i + 1)
            return
        run = _HEREDOC_RUN.match(s, i)
        assert run is not None  # the pattern matches the empty string too
        end = run.end()
        newline = 1 if s.startswith("\n", end) else 2 if s.startswith("\r\n", end) else 0
        if not newline:
            if end == i:  # a carriage return that does not end a line
                self._invalid(i + 1)
                return
            doc.at_line_start = False
            self._emit(STRING_LIT, end)
            return
        if doc.at_line_start and s[i:end].strip(_GO_SPACE) == doc.marker:
            self._emit(C_HEREDOC, end)
            self._emit(NEWLINE, end + newline)
            self.heredocs.pop()
            self.modes.pop()
            return
        doc.at_line_start = True
        self._emit(STRING_LIT, end + newline)


def scan(text: str, bom: int = 0) -> tuple[list[Token], list[Problem]]:
    """The tokens of ``text`` (ending with ``EOF``) and what the scanner found wrong in it."""
    scanner = Scanner(text, bom)
    tokens = scanner.scan()
    return tokens, scanner.problems
