"""A block's shape checked as Terraform checks it, in its words: labels, required and static arguments.

A block of the language can be wrong before anything is evaluated: a label missing or one too many,
a required argument left out, a name no address can hold, a defined-twice name, a variable where
Terraform reads with no evaluation context (``sensitive = var.x``, a variable's ``default``). Users
read these messages beside Terraform's documentation and answers written for Terraform, and scripts
read them through ``validate -json``, so each is worded and placed as Terraform and OpenTofu word and
place it: the summary without the name, the detail with it, the range where HCL points (the brace
that opens a body lacking something, the first label too many, the root of a reference).
"""

from __future__ import annotations

import re

from engine.lang import ast
from engine.lang.calls import start_range
from engine.lang.eval import evaluate
from engine.lang.evaluation import EvalContext
from engine.lang.operators import scalar_to_string
from engine.lang.references import references
from engine.lang.syntax import Attribute, Block
from vocab.errors import CtlError, Diagnostics, SourceRange
from vocab.values import type_name

# The labels of each labelled block, named as HCL names them in its messages.
LABEL_NAMES = {"resource": ("type", "name"), "data": ("type", "name"), "ephemeral": ("type", "name")}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class ShapeCheck:
    """Reports what a block's shape lacks or has too much of, into ``diags``."""

    __slots__ = ("diags",)

    def __init__(self, diags: Diagnostics) -> None:
        self.diags = diags

    def wrong_labels(self, block: Block) -> None:
        """Too few or too many labels: the first one missing, at the brace that opens the body, or
        the first one too many, at that label."""
        names = LABEL_NAMES.get(block.type, ("name",))
        listed = f"{len(names)} labels ({', '.join(names)})"
        if len(block.labels) < len(names):
            self.diags.error(f"Missing {names[len(block.labels)]} for {block.type}", range=opening_brace(block),
                             detail=f"All {block.type} blocks must have {listed}.")
        else:
            self.diags.error(f"Extraneous label for {block.type}", range=block.label_rngs[len(names)],
                             detail=f"Only {listed} are expected for {block.type} blocks.")

    def required(self, block: Block, *names: str) -> bool:
        """Whether ``block`` sets every argument in ``names``; each one missing is an error at the
        brace that opens its body."""
        missing = [name for name in names if block.body.attr(name) is None]
        for name in missing:
            self.diags.error("Missing required argument", range=opening_brace(block),
                             detail=f'The argument "{name}" is required, but no definition was found.')
        return not missing

    def valid_name(self, block: Block, what: str) -> bool:
        """Whether the block's last label is a name Terraform takes ("Invalid resource name")."""
        if _NAME.fullmatch(block.labels[-1]):
            return True
        self.diags.error(f"Invalid {what} name", range=block.label_rngs[-1],
                         detail="A name must start with a letter or underscore and may contain only letters, digits, "
                                "underscores, and dashes.")
        return False

    def duplicate(self, what: str, name: str, first: SourceRange, again: SourceRange) -> None:
        """A second definition of ``name``, pointing at the first."""
        summary, detail = _duplicate_words(what, name, hcl_place(first))
        self.diags.error(summary, detail=detail, range=again)

    def static(self, expr: ast.Expr) -> bool:
        """Whether ``expr`` reads no variable and calls no function, as an argument Terraform
        decodes with no evaluation context must; the first of either is an error."""
        for node in ast.walk(expr):
            if isinstance(node, ast.ScopeTraversal):
                self.diags.error("Variables not allowed", detail="Variables may not be used here.",
                                 range=_root_range(node))
                return False
            if isinstance(node, ast.FunctionCall):
                self.diags.error("Function calls not allowed", detail="Functions may not be called here.",
                                 range=node.rng)
                return False
        return True

    def constant(self, attr: Attribute | None, kind: type) -> object:
        """The value of an argument Terraform reads with no variables or functions (``sensitive``, a
        module's ``source``): a constant expression converted to ``kind`` (bool or str) as cty converts
        one (``"true"`` is true, ``1`` is ``"1"``), or HCL's error; None when unset or null."""
        if attr is None or not self.static(attr.expr):
            return None
        try:
            value = evaluate(attr.expr, EvalContext(variables={}))
        except CtlError as err:
            self.diags.add(err)
            return None
        converted = _converted(value, kind)
        if converted is None and value is not None:
            wanted = "bool" if kind is bool else "string"
            reason = (f"a {wanted} is required" if isinstance(value, str) else
                      f"{wanted} required, but have {type_name(value)}")
            self.diags.error("Unsuitable value type", detail=f"Unsuitable value: {reason}", range=start_range(attr.expr))
        return converted

    def validation_reads_its_variable(self, name: str, condition: ast.Expr) -> None:
        """A validation condition that does not read the variable it validates checks nothing; when
        it reads nothing at all the newest language says so twice, as OpenTofu does."""
        found = references(condition)
        if any(ref.root == "var" and ref.parts[:1] == (name,) for ref in found):
            return
        if not found:
            self.diags.error("Invalid validation expression", range=condition.rng,
                             detail="The condition expression must refer to at least one object from elsewhere in "
                                    "the configuration, or else its result would not be checking anything.")
        self.diags.error("Invalid variable validation condition", range=condition.rng,
                         detail=f'The condition for variable "{name}" must refer to var.{name} in order to test '
                                "incoming values.")


def opening_brace(block: Block) -> SourceRange:
    """The brace that opens a block's body, where HCL points at what the body lacks."""
    return brace_after(block.rng)


def brace_after(rng: SourceRange) -> SourceRange:
    """The first brace after ``rng`` on its line (a block header, or a label of one): the brace that
    opens the block's body; ``rng`` itself where there is none (a block read from JSON)."""
    text = rng.text
    if text is None:
        return rng
    end = rng.byte_span()[1]
    brace = text.src.find(b"{", end)
    if brace < 0 or b"\n" in text.src[end:brace]:
        return rng
    return SourceRange.in_text(text, brace, brace + 1)


def hcl_place(rng: SourceRange) -> str:
    """A range as HCL writes it in a message: ``main.tf:3,1-11`` (``main.tf:3,1-5,2`` over lines)."""
    start, end = rng.start, rng.end
    if start.line == end.line:
        return f"{rng.filename}:{start.line},{start.column}-{end.column}"
    return f"{rng.filename}:{start.line},{start.column}-{end.line},{end.column}"


def _root_range(node: ast.ScopeTraversal) -> SourceRange:
    """The name a traversal starts with (``var`` of ``var.a``)."""
    rng = node.rng
    text = rng.text
    if text is None:
        return rng
    start = rng.byte_span()[0]
    return SourceRange.in_text(text, start, start + len(node.root.encode()))


def _duplicate_words(what: str, name: str, first: str) -> tuple[str, str]:
    """Summary and detail of a second definition, in Terraform's words for each kind."""
    if what == "variable":
        return ("Duplicate variable declaration",
                f'A variable named "{name}" was already declared at {first}. Variable names must be unique within '
                "a module.")
    if what == "local value":
        return ("Duplicate local value definition",
                f'A local value named "{name}" was already defined at {first}. Local value names must be unique '
                "within a module.")
    if what == "output":
        return ("Duplicate output definition",
                f'An output named "{name}" was already defined at {first}. Output names must be unique within a '
                "module.")
    if what == "module call":
        return ("Duplicate module call",
                f'A module call named "{name}" was already defined at {first}. Module calls must have unique names '
                "within a module.")
    if what in ("resource", "data source"):
        rtype, rname = name.removeprefix("data.").split(".", 1)
        mode, kind = ("resource", "resource") if what == "resource" else ("data", "data resource")
        return (f'Duplicate {mode} "{rtype}" configuration',
                f'A {rtype} {kind} named "{rname}" was already declared at {first}. Resource names must be unique '
                "per type in each module.")
    return f'Duplicate {what} "{name}" definition', f'{what.capitalize()} "{name}" was already defined at {first}.'


def _converted(value: object, kind: type) -> object:
    """``value`` as ``kind`` (bool or str) by cty's conversions, or None when it has none."""
    if isinstance(value, kind) and not (kind is str and isinstance(value, bool)):
        return value
    if kind is bool:
        return {"true": True, "false": False}.get(value) if isinstance(value, str) else None
    return scalar_to_string(value) if isinstance(value, bool | int | float) else None
