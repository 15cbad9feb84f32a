"""``ctl drift adopt``: write what reality has into the configuration, where it is a literal.

For each attribute that drifted, the resource block's source is walked to the tokens that set it
(``engine.drift.hcl_edit``). A literal there (a string, a number, a bool, a list or map of them)
is replaced by the value read now, in place; a map key or an argument the configuration lacks is
added on a line of its own. Nothing is guessed: a value set by an expression (a variable, a local,
a function call) is left alone, and the note says where it comes from and what literal reality has.
A file that ``ctl fmt`` would leave unchanged is formatted after the edit (aligned ``=`` and
comments stay aligned); any other file changes only where its values do.

Values the state marks sensitive are not written unless the caller allows it: configuration
files end up in version control.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.registry import Registry
from engine.config.model import Module, Resource
from engine.drift.detect import MASK, AttributeDrift, ObjectDrift, PathPart, path_text
from engine.drift.edits import Edit, Note, computed_only, display, raw, shown, variable_sources
from engine.drift.hcl_edit import NOT_LITERAL, HclFile, key_text, literal_value, render_literal
from engine.fmt import tokens as t
from engine.plan.model import ResourceChange
from engine.plan.refresh import config_key
from engine.state.address import InstanceAddress


@dataclass
class Adoption:
    edits: list[Edit] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    files: dict[Path, tuple[str, str]] = field(default_factory=dict)  # file -> (before, after)
    shown_files: dict[Path, tuple[str, str]] = field(default_factory=dict)  # the same, secrets masked

    @property
    def unresolved(self) -> bool:
        return any(n.remains for n in self.notes)


class _Context:
    """What locating one object's values needs: its block, its file, its module, its type."""

    def __init__(self, root_dir: Path, module: Module, res: Resource, file: Path, hcl: HclFile, brace: int,
                 change: ResourceChange, rt: Any, allow_sensitive: bool) -> None:
        self.root_dir, self.module, self.res, self.file, self.hcl, self.brace = root_dir, module, res, file, hcl, brace
        self.change, self.rt, self.allow_sensitive = change, rt, allow_sensitive

    def where(self, tok_index: int) -> str:
        return f"{display(self.file, self.root_dir)}:{self.hcl.tokens[tok_index].line}"


def plan_adoption(root_dir: Path, root: Module, drift: list[ResourceChange], objects: list[ObjectDrift],
                  registry: Registry, *, allow_sensitive: bool) -> Adoption:
    """The edits that make the configuration match ``objects``, and notes on what they leave."""
    out = Adoption()
    changes = {c.address: c for c in drift}
    parsed: dict[Path, HclFile] = {}
    for obj in objects:
        if obj.action == "delete":
            out.notes.append(Note(obj.address, "", "deleted outside ctl: there is no value to write "
                                  "(`ctl apply` creates it again; remove the block to let it go)"))
            continue
        addr = InstanceAddress.parse(obj.address)
        path, key = config_key(addr)
        module = _module_at(root, path)
        res = module.resources.get(key) if module is not None else None
        if module is None or res is None:
            out.notes.append(Note(obj.address, "", "has no resource block in the configuration"))
            continue
        file = _source_file(root_dir, module, res)
        if file.name.endswith((".tf.json", ".tf.yaml", ".tf.yml")):
            from engine.drift.adopt_json import adopt_json

            json_edits, json_notes = adopt_json(root_dir, module, file, changes[obj.address], obj, allow_sensitive,
                                                registry.resource_type(addr.type, "managed"))
            out.edits.extend(json_edits)
            out.notes.extend(json_notes)
            continue
        if file.suffix != ".tf":
            for a in obj.attributes:
                out.notes.append(Note(obj.address, a.name, f"is set in {display(file, root_dir)}: only .tf files "
                                      f"are rewritten; reality has {shown(a)}"))
            continue
        if file not in parsed:
            parsed[file] = HclFile.parse(file.read_text(encoding="utf-8"))
        hcl = parsed[file]
        brace = hcl.resource_block(res.rng.start.line, addr.type, addr.name)
        if brace is None:
            out.notes.append(Note(obj.address, "", f"its block at {display(file, root_dir)}:{res.rng.start.line} "
                                  "could not be read"))
            continue
        ctx = _Context(root_dir, module, res, file, hcl, brace, changes[obj.address],
                       registry.resource_type(addr.type, "managed"), allow_sensitive)
        for a in obj.attributes:
            found = _adopt_one(ctx, a)
            if isinstance(found, Edit):
                out.edits.append(found)
            else:
                out.notes.append(found)
    out.edits, conflicts = _without_conflicts(out.edits)
    out.notes.extend(conflicts)
    for file in {e.file for e in out.edits}:
        before = parsed[file].text if file in parsed else file.read_text(encoding="utf-8")
        edits = [e for e in out.edits if e.file == file]
        out.files[file] = (before, _patched(before, edits))
        masked = [Edit(**{**e.__dict__, "text": e.masked_text}) if e.sensitive else e for e in edits]
        out.shown_files[file] = (before, _patched(before, masked))
    return out


def _adopt_one(ctx: _Context, a: AttributeDrift) -> Edit | Note:
    if a.sensitive and not ctx.allow_sensitive:
        return Note(ctx.change.address, a.name, "is sensitive: not written into a file "
                    "(--allow-sensitive writes it; or set it from a variable)")
    return _in_body(ctx, a, ctx.brace, list(a.path))


def _in_body(ctx: _Context, a: AttributeDrift, brace: int, rest: list[PathPart]) -> Edit | Note:
    """The value at ``rest`` in the block body opened at ``brace``: an argument, or an argument of
    the n-th nested block of a type (state holds nested blocks as lists, in their written order)."""
    name, top = a.name, str(rest[0])
    items = ctx.hcl.body_items(brace)
    attr = next((i for i in items if i[0] == "attr" and i[1] == top), None)
    if attr is not None:
        return _in_value(ctx, a, attr[2], attr[3], rest[1:])
    blocks = [i for i in items if i[0] == "block" and i[1] == top]
    if blocks:
        index = rest[1] if len(rest) >= 3 else None
        if isinstance(index, int) and index < len(blocks):
            return _in_body(ctx, a, blocks[index][2], rest[2:])
        return Note(ctx.change.address, name, f"changes the nested blocks at {ctx.where(blocks[0][2])} as a whole; "
                    f"reality has {shown(a)}")
    nested = brace != ctx.brace
    if not nested and computed_only(ctx.rt, top):
        return Note(ctx.change.address, name, "is computed by the provider: nothing to write", remains=False)
    if not nested and top in getattr(ctx.rt, "computed", frozenset()):
        return Note(ctx.change.address, name, "is not set in the configuration and the provider computes it: "
                    "the plan keeps what it reads", remains=False)
    if len(rest) != 1 or nested:
        return Note(ctx.change.address, name, f"is not set in the configuration; reality has {shown(a)}")
    value = raw(ctx.change.after, a.path)
    text = render_literal(value)
    if text is None:
        return Note(ctx.change.address, name, f"has a value no literal can hold; reality has {shown(a)}")
    return _insert_line(ctx, a, ctx.hcl.closing(brace), f"{top} = {text}")


def _in_value(ctx: _Context, a: AttributeDrift, start: int, end: int, rest: list[PathPart]) -> Edit | Note:
    hcl = ctx.hcl
    toks = hcl.tokens[start:end]
    if not rest:
        if literal_value(toks) is NOT_LITERAL and not _literal_constructor(toks):
            return _expression(ctx, a, start, end)
        return _replace(ctx, a, start, end, raw(ctx.change.after, a.path))
    key = rest[0]
    if isinstance(key, str) and toks and toks[0].kind == t.O_BRACE and hcl.closing(start) == end - 1:
        try:
            items = hcl.object_items(start)
        except ValueError:
            return _expression(ctx, a, start, end)
        item = next((i for i in items if i[0] == key), None)
        after = raw(ctx.change.after, a.path)
        if item is not None and len(rest) == 1 and after is None:
            return _remove_item(ctx, a, item[1], item[3])
        if item is not None:
            return _in_value(ctx, a, item[2], item[3], rest[1:])
        if len(rest) == 1:
            return _insert_line(ctx, a, end - 1, f"{key_text(key)} = {render_literal(after)}")
    if isinstance(key, int) and _literal_constructor(toks):
        whole = a.path[:len(a.path) - len(rest)]
        return _replace(ctx, a, start, end, raw(ctx.change.after, whole))
    return _expression(ctx, a, start, end)


def _literal_constructor(toks: list[t.Token]) -> bool:
    """A list or map written only with literals: safe to write again whole."""
    if not toks or toks[0].kind not in (t.O_BRACK, t.O_BRACE):
        return False
    allowed = {t.O_BRACK, t.C_BRACK, t.O_BRACE, t.C_BRACE, t.O_QUOTE, t.C_QUOTE, t.QUOTED_LIT, t.NUMBER,
               t.COMMA, t.NEWLINE, t.EQUAL, t.COLON, t.MINUS, t.COMMENT}
    for tok in toks:
        if tok.kind == t.IDENT and toks[0].kind == t.O_BRACE:
            continue  # bare keys (a value that is a reference is caught below as not literal)
        if tok.kind == t.IDENT and tok.text in ("true", "false", "null"):
            continue
        if tok.kind not in allowed:
            return False
    return not any(tok.kind == t.COMMENT for tok in toks)  # rewriting whole would lose comments


def _replace(ctx: _Context, a: AttributeDrift, start: int, end: int, value: Any) -> Edit | Note:
    text = render_literal(value)
    if text is None:
        return Note(ctx.change.address, a.name, f"has a value no literal can hold; reality has {shown(a)}")
    hcl = ctx.hcl
    return Edit(ctx.file, hcl.offset(start), hcl.end_offset(end - 1), text, ctx.change.address, a.name,
                hcl.tokens[start].line, MASK if a.sensitive else text, a.sensitive, _MASKED)


def _insert_line(ctx: _Context, a: AttributeDrift, close: int, line_text: str) -> Edit:
    """``line_text`` on a new line just before the closing brace at ``close``, indented as the
    items above it (or, for a one-line object, after its last item)."""
    hcl = ctx.hcl
    shown = MASK if a.sensitive else line_text.split(" = ", 1)[1]
    masked = line_text.split(" = ", 1)[0] + " = " + _MASKED
    close_tok = hcl.tokens[close]
    prev = close - 1
    while prev > 0 and hcl.tokens[prev].kind in (t.NEWLINE, t.COMMENT):
        prev -= 1
    opener = hcl.tokens[prev].kind in (t.O_BRACE,)
    if hcl.tokens[prev].line == close_tok.line and not opener:  # `{ a = "b" }`
        at = hcl.end_offset(prev)
        return Edit(ctx.file, at, at, f", {line_text}", ctx.change.address, a.name, close_tok.line, shown,
                    a.sensitive, f", {masked}")
    line_start = hcl.line_starts[close_tok.line - 1]
    first = next((i for i in range(prev, 0, -1) if hcl.tokens[i].line < close_tok.line
                  and hcl.tokens[i].kind not in (t.NEWLINE, t.COMMENT)), prev)
    indent = hcl.line_indent(first) if not opener else hcl.line_indent(close) + "  "
    return Edit(ctx.file, line_start, line_start, f"{indent}{line_text}\n", ctx.change.address, a.name,
                close_tok.line, shown, a.sensitive, f"{indent}{masked}\n")


def _remove_item(ctx: _Context, a: AttributeDrift, key_at: int, end: int) -> Edit | Note:
    """A map key reality no longer has: its line goes, when the key is alone on it."""
    hcl = ctx.hcl
    line = hcl.tokens[key_at].line
    tail = end
    while hcl.tokens[tail].kind == t.COMMA:
        tail += 1
    ender = hcl.tokens[tail]
    alone = hcl.line_indent(key_at) == hcl.text[hcl.line_starts[line - 1]:hcl.offset(key_at)]
    if not alone or not (ender.kind == t.NEWLINE or (ender.kind == t.COMMENT and ender.text.endswith("\n"))):
        return Note(ctx.change.address, a.name, f"was removed outside ctl; remove it at {ctx.where(key_at)}")
    return Edit(ctx.file, hcl.line_starts[line - 1], hcl.end_offset(tail), "", ctx.change.address, a.name,
                line, "(removed)")


def _expression(ctx: _Context, a: AttributeDrift, start: int, end: int) -> Note:
    """Where a value set by an expression comes from, and what literal reality has."""
    hcl = ctx.hcl
    toks = hcl.tokens[start:end]
    kinds = [(tok.kind, tok.text) for tok in toks]
    reality = f"reality has {shown(a)}"
    if len(kinds) == 3 and kinds[0] == (t.IDENT, "var") and kinds[1][0] == t.DOT:
        return Note(ctx.change.address, a.name, f"comes from var.{toks[2].text} ({variable_sources(ctx.module, ctx.root_dir, toks[2].text)}); "
                    f"{reality}")
    if len(kinds) == 3 and kinds[0] == (t.IDENT, "local") and kinds[1][0] == t.DOT:
        local = ctx.module.locals.get(toks[2].text)
        where = (f"the locals entry at {display(Path(local.rng.filename), ctx.root_dir, ctx.module.dir)}:"
                 f"{local.rng.start.line}") if local is not None else "a locals entry"
        return Note(ctx.change.address, a.name, f"comes from local.{toks[2].text} ({where}); {reality}")
    source = hcl.source(start, end).replace("\n", " ")
    if len(source) > 60:
        source = source[:57] + "..."
    return Note(ctx.change.address, a.name, f"is set by the expression `{source}` at {ctx.where(start)}; {reality}")


def _without_conflicts(edits: list[Edit]) -> tuple[list[Edit], list[Note]]:
    """One edit per place: the same text from several instances is one edit; different texts
    (instances of a ``count`` block that drifted apart) are none, and said so."""
    by_place: dict[tuple[Path, int, int], list[Edit]] = {}
    for e in edits:
        by_place.setdefault((e.file, e.start, e.end), []).append(e)
    kept: list[Edit] = []
    notes: list[Note] = []
    for group in by_place.values():
        if len({e.text for e in group}) == 1:
            kept.append(group[0])
        else:
            notes.extend(Note(e.address, e.name, "its instances now differ from each other: one literal "
                              "cannot hold them all") for e in group)
    kept.sort(key=lambda e: (str(e.file), e.start))
    return kept, notes


def _patched(text: str, edits: list[Edit]) -> str:
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[:e.start] + e.text + text[e.end:]
    return text


_MASKED = str(render_literal(MASK))


def _module_at(root: Module, path: tuple[str, ...]) -> Module | None:
    module: Module | None = root
    for name in path:
        module = module.children.get(name) if module is not None else None
    return module


def _source_file(root_dir: Path, module: Module, res: Resource) -> Path:
    name = Path(res.rng.filename)
    if name.is_absolute():
        return name
    for base in (Path.cwd(), root_dir, module.dir):
        if (base / name).is_file():
            return (base / name).resolve()
    return (module.dir / name.name).resolve()


__all__ = ["Adoption", "Edit", "Note", "path_text", "plan_adoption"]
