"""Decoding file bodies into the configuration model: blocks, meta-arguments, duplicates.

The decoder accumulates diagnostics so ``ctl validate`` reports every problem of a run at once;
only the parse of a single file stops at its first syntax error.
"""

from __future__ import annotations

from engine.config.model import (
    Backend,
    Check,
    Condition,
    ImportBlock,
    Lifecycle,
    Local,
    Module,
    ModuleCall,
    Moved,
    Output,
    ProviderConfig,
    Removed,
    RequiredProvider,
    Resource,
    Validation,
    Variable,
)
from engine.config.provisioners import decode_provisioners
from engine.config.syntax import Attribute, Block, BlockSchema, Body
from engine.errors import CtlError, Diagnostics
from engine.lang import ast
from engine.lang.hcl import parse_expression
from engine.positions import Located, as_range

_CONDITION = BlockSchema()
_LIFECYCLE = BlockSchema(blocks={"precondition": (0, _CONDITION), "postcondition": (0, _CONDITION)})
_RESOURCE = BlockSchema(
    blocks={
        "lifecycle": (0, _LIFECYCLE),
        "provisioner": (1, BlockSchema(blocks={"connection": (0, BlockSchema())})),
        "connection": (0, BlockSchema()),
    }
)
_VARIABLE = BlockSchema(blocks={"validation": (0, _CONDITION)}, literal_attributes=frozenset({"default"}))
_TERRAFORM = BlockSchema(blocks={"backend": (1, BlockSchema()), "required_providers": (0, BlockSchema())})

#: What the JSON and YAML readers need to know about top-level blocks.
FILE_SCHEMA = BlockSchema(
    blocks={
        "terraform": (0, _TERRAFORM),
        "provider": (1, BlockSchema()),
        "variable": (1, _VARIABLE),
        "locals": (0, BlockSchema()),
        "output": (1, BlockSchema(blocks={"precondition": (0, _CONDITION)})),
        "resource": (2, _RESOURCE),
        "data": (2, _RESOURCE),
        "module": (1, BlockSchema()),
        "moved": (0, BlockSchema()),
        "check": (1, BlockSchema(blocks={"assert": (0, _CONDITION), "data": (2, _RESOURCE)})),
        "import": (0, BlockSchema()),
        "removed": (0, BlockSchema(blocks={"lifecycle": (0, BlockSchema())})),
    }
)

_RESOURCE_META = frozenset({"count", "for_each", "provider", "depends_on"})
_META_BLOCKS = frozenset({"lifecycle", "provisioner", "connection"})
_MODULE_META = frozenset({"source", "version", "count", "for_each", "depends_on", "providers"})
_LABELS = {"provider": 1, "variable": 1, "output": 1, "resource": 2, "data": 2, "module": 1, "check": 1}


class ModuleDecoder:
    """Adds the blocks of one file after another to a ``Module``, noting every problem."""

    def __init__(self, module: Module, diags: Diagnostics) -> None:
        self.module = module
        self.diags = diags
        self._seen: dict[str, Located] = {}

    def add_file(self, body: Body) -> None:
        self._report_duplicate_attributes(body)
        for name in body.attributes:
            attr = body.attributes[name]
            self.diags.error(
                f'Unsupported argument "{name}" at the top level',
                detail="Only blocks (resource, variable, output, …) may appear at the top level of a file.",
                range=attr.name_rng,
            )
        for block in body.blocks:
            want = _LABELS.get(block.type, 0)
            if block.type in _LABELS and len(block.labels) != want:
                self.diags.error(
                    f'A "{block.type}" block needs {want} label{"s" if want > 1 else ""}, found {len(block.labels)}',
                    range=block.rng,
                )
                continue
            handler = getattr(self, f"_block_{block.type}", None)
            if handler is None:
                self.diags.error(f'Unsupported block type "{block.type}"', range=block.rng)
                continue
            try:
                handler(block)
            except CtlError as err:
                self.diags.add(err)

    # ---- helpers ---------------------------------------------------------------------------

    def _claim(self, key: str, what: str, rng: Located) -> bool:
        """Record a definition; a second definition of the same thing is an error naming both.
        The ranges are kept as the syntax keeps them, made ``SourceRange``s only for an error."""
        first = self._seen.get(key)
        if first is not None:
            name = key.split(":", 1)[1]
            self.diags.error(
                f'Duplicate {what} "{name}" definition',
                detail=f'{what.capitalize()} "{name}" was already defined at {as_range(first)}.',
                range=as_range(rng),
            )
            return False
        self._seen[key] = rng
        return True

    def _report_duplicate_attributes(self, body: Body) -> None:
        for first, second in body.duplicates:
            self.diags.error(
                f'Attribute "{second.name}" redefined',
                detail=f"It was already set at {first.rng}.",
                range=second.name_rng,
            )

    def _constant(self, attr: Attribute | None, kind: type, what: str) -> object:
        """A literal value of an argument that must not be an expression (``sensitive = true``)."""
        if attr is None:
            return None
        expr = _unwrap(attr.expr)
        if isinstance(expr, ast.Literal) and isinstance(expr.value, kind):
            return expr.value
        self.diags.error(f"{what} must be a literal {kind.__name__ if kind is not str else 'string'}", range=attr.expr.rng)
        return None

    def _conditions(self, blocks: list[Block]) -> list[Condition]:
        out: list[Condition] = []
        for b in blocks:
            cond, msg = b.body.attr("condition"), b.body.attr("error_message")
            if cond is None or msg is None:
                self.diags.error(f'A "{b.type}" block needs "condition" and "error_message"', range=b.rng)
                continue
            out.append(Condition(cond.expr, msg.expr, cond.expr.rng))
        return out

    # ---- top-level blocks ------------------------------------------------------------------

    def _block_terraform(self, block: Block) -> None:
        body = block.body
        rv = body.attr("required_version")
        if rv is not None:
            self.module.required_version = str(self._constant(rv, str, "required_version") or "")
        for b in body.blocks:
            if b.type == "backend":
                if self.module.backend is not None:
                    self.diags.error("Duplicate backend configuration", range=b.rng)
                    continue
                if len(b.labels) != 1:
                    self.diags.error('A "backend" block needs 1 label (its type)', range=b.rng)
                    continue
                self.module.backend = Backend(b.labels[0], b.body, b.rng)
            elif b.type == "encryption":
                self.module.encryption = b.body
            elif b.type == "required_providers":
                for name, attr in b.body.attributes.items():
                    self.module.required_providers[name] = _required_provider(name, attr)

    def _block_provider(self, block: Block) -> None:
        name = block.labels[0]
        alias = self._constant(block.body.attr("alias"), str, "alias")
        cfg = ProviderConfig(name, alias if isinstance(alias, str) else None, block.body, block.rng)
        if self._claim(f"provider:{cfg.key}", "provider configuration", block.rng):
            self.module.providers[cfg.key] = cfg

    def _block_variable(self, block: Block) -> None:
        from engine.lang.types import parse_variable_type

        name = block.labels[0]
        body = block.body
        var = Variable(name, block.rng)
        type_attr = body.attr("type")
        if type_attr is not None:
            type_expr = type_attr.expr
            if isinstance(type_expr, ast.TemplateWrap):
                type_expr = _unwrap(type_expr)  # "${map(string)}": python-hcl2 wraps every expression
            if isinstance(type_expr, ast.Literal) and isinstance(type_expr.value, str):
                r = type_expr.rng
                type_expr = parse_expression(type_expr.value, r.filename, r.start.line, _text_column(type_expr))
            try:
                var.type = parse_variable_type(type_expr)
            except CtlError as err:
                self.diags.add(err)
        default = body.attr("default")
        if default is not None:
            var.default = default.expr
        var.description = str(self._constant(body.attr("description"), str, "description") or "")
        var.sensitive = bool(self._constant(body.attr("sensitive"), bool, "sensitive") or False)
        nullable = self._constant(body.attr("nullable"), bool, "nullable")
        var.nullable = True if nullable is None else bool(nullable)
        for v in body.blocks_of("validation"):
            cond, msg = v.body.attr("condition"), v.body.attr("error_message")
            if cond is None or msg is None:
                self.diags.error('A "validation" block needs "condition" and "error_message"', range=v.rng)
                continue
            var.validations.append(Validation(cond.expr, msg.expr, cond.expr.rng))
        if self._claim(f"variable:{name}", "variable", block.rng):
            self.module.variables[name] = var

    def _block_locals(self, block: Block) -> None:
        self._report_duplicate_attributes(block.body)
        for name, attr in block.body.attributes.items():
            if self._claim(f"local:{name}", "local value", attr.name_rng):
                self.module.locals[name] = Local(name, attr.expr, attr.rng)

    def _block_output(self, block: Block) -> None:
        name = block.labels[0]
        body = block.body
        value = body.attr("value")
        if value is None:
            self.diags.error(f'Output "{name}" needs a "value"', range=block.rng)
            return
        out = Output(name, value.expr, block.rng)
        out.sensitive = bool(self._constant(body.attr("sensitive"), bool, "sensitive") or False)
        out.description = str(self._constant(body.attr("description"), str, "description") or "")
        out.depends_on = self._traversal_list(body.attr("depends_on"))
        out.preconditions = self._conditions(body.blocks_of("precondition"))
        if self._claim(f"output:{name}", "output", block.rng):
            self.module.outputs[name] = out

    def _block_resource(self, block: Block, mode: str = "managed") -> None:
        rtype, name = block.labels
        body = block.body
        self._report_duplicate_attributes(body)
        # Most resources have arguments only: their body is their arguments as it is, not a copy.
        plain = not body.blocks and body.attributes.keys().isdisjoint(_RESOURCE_META)
        args = body if plain else Body(
            {k: v for k, v in body.attributes.items() if k not in _RESOURCE_META},
            [b for b in body.blocks if b.type not in _META_BLOCKS],
            body._rng,  # as kept, not a SourceRange built for it
            body.duplicates,
        )
        res = Resource(mode, rtype, name, args, block._rng, block._label_rngs[0] if block._label_rngs else block._rng)
        if not plain:
            self._meta_arguments(res, body)
        kind = "data source" if mode == "data" else "resource"
        if self._claim(f"{kind}:{res.address}", kind, block._rng):
            self.module.resources[res.address] = res

    def _meta_arguments(self, res: Resource, body: Body) -> None:
        """``count``, ``for_each``, ``provider``, ``depends_on`` and the meta blocks of a resource."""
        res.count = body.attr("count")
        res.for_each = body.attr("for_each")
        if res.count is not None and res.for_each is not None:
            self.diags.error('"count" and "for_each" cannot both be set', range=res.for_each.name_rng)
        provider = body.attr("provider")
        if provider is not None:
            res.provider = self._provider_ref(provider)
            res.provider_rng = provider.expr.rng
        res.depends_on = self._traversal_list(body.attr("depends_on"))
        for lc in body.blocks_of("lifecycle"):
            res.lifecycle = self._lifecycle(lc)
        res.provisioners = decode_provisioners(body.blocks_of("provisioner"), self.diags)
        conns = body.blocks_of("connection")
        res.connection = conns[0] if conns else None

    def _block_data(self, block: Block) -> None:
        self._block_resource(block, "data")

    def _block_module(self, block: Block) -> None:
        name = block.labels[0]
        body = block.body
        source_attr = body.attr("source")
        if source_attr is None:
            self.diags.error(f'Module "{name}" needs a "source"', range=block.rng)
            return
        source = self._constant(source_attr, str, "source")
        if not isinstance(source, str):
            return
        call = ModuleCall(name, source, block.rng, source_attr.expr.rng)
        call.inputs = {k: v for k, v in body.attributes.items() if k not in _MODULE_META}
        call.count = body.attr("count")
        call.for_each = body.attr("for_each")
        call.depends_on = self._traversal_list(body.attr("depends_on"))
        providers = body.attr("providers")
        if providers is not None and isinstance(providers.expr, ast.ObjectCons):
            for item in providers.expr.items:
                key = _traversal_text(item.key)
                val = _traversal_text(item.value)
                if key and val:
                    call.providers[key] = val
        if self._claim(f"module call:{name}", "module call", block.rng):
            self.module.module_calls[name] = call

    def _block_moved(self, block: Block) -> None:
        frm, to = block.body.attr("from"), block.body.attr("to")
        if frm is None or to is None:
            self.diags.error('A "moved" block needs "from" and "to"', range=block.rng)
            return
        from_text, to_text = _traversal_text(frm.expr), _traversal_text(to.expr)
        if not from_text or not to_text:
            self.diags.error('"from" and "to" must be resource addresses', range=block.rng)
            return
        self.module.moved.append(Moved(from_text, to_text, block.rng))

    def _block_check(self, block: Block) -> None:
        name = block.labels[0]
        asserts = self._conditions(block.body.blocks_of("assert"))
        for nested in block.body.blocks_of("data"):
            self.diags.warning('Data sources scoped to a "check" block are not read yet; this one was skipped',
                               hint="Declare it at the top level of the module if the assertions need it.",
                               range=nested.rng)
        if not asserts:
            self.diags.error(f'Check block "{name}" has no "assert" block', range=block.rng)
            return
        if self._claim(f"check:{name}", "check block", block.rng):
            self.module.checks[name] = Check(name, asserts, block.rng)

    def _block_import(self, block: Block) -> None:
        to, id_ = block.body.attr("to"), block.body.attr("id")
        for name in block.body.attributes:
            if name not in ("to", "id", "provider"):
                what = ("for_each in import blocks is not supported yet; write one import block per object"
                        if name == "for_each" else f'Unsupported argument "{name}" in an import block')
                self.diags.error(what, range=block.body.attributes[name].name_rng)
        text = _traversal_text(to.expr) if to is not None else None
        if to is None or id_ is None or not text:
            self.diags.error('An "import" block needs "to" (a resource instance address) and "id"',
                             range=block.rng, hint='For example: import {\n  to = aws_s3_bucket.logs\n  id = "logs"\n}')
            return
        self.module.imports.append(ImportBlock(text, id_.expr, block.rng))

    def _block_removed(self, block: Block) -> None:
        frm = block.body.attr("from")
        text = _traversal_text(frm.expr) if frm is not None else None
        if frm is None or not text:
            self.diags.error('A "removed" block needs "from": the address of a resource or module',
                             range=block.rng)
            return
        if "[" in text:
            self.diags.error("A removed block names a whole resource or module, not an instance",
                             detail=f'"{text}" has an instance key; remove the key.', range=frm.expr.rng)
            return
        destroy = True
        for lc in block.body.blocks_of("lifecycle"):
            value = self._constant(lc.body.attr("destroy"), bool, "destroy")
            destroy = True if value is None else bool(value)
        self.module.removed.append(Removed(text, destroy, block.rng))

    # ---- meta-arguments --------------------------------------------------------------------

    def _lifecycle(self, block: Block) -> Lifecycle:
        body = block.body
        create_before_destroy = bool(
            self._constant(body.attr("create_before_destroy"), bool, "create_before_destroy") or False
        )
        prevent_destroy = bool(self._constant(body.attr("prevent_destroy"), bool, "prevent_destroy") or False)
        ignore_changes: tuple[str, ...] | str = ()
        ignore = body.attr("ignore_changes")
        if ignore is not None:
            expr = _unwrap(ignore.expr)
            if (isinstance(expr, ast.ScopeTraversal) and expr.root == "all" and not expr.steps) or (isinstance(expr, ast.Literal) and expr.value == "all"):
                ignore_changes = "all"
            else:
                ignore_changes = tuple(t for t in (_traversal_text(e) for e in self._traversal_list(ignore)) if t)
        return Lifecycle(
            create_before_destroy,
            prevent_destroy,
            ignore_changes,
            tuple(self._traversal_list(body.attr("replace_triggered_by"))),
            tuple(self._conditions(body.blocks_of("precondition"))),
            tuple(self._conditions(body.blocks_of("postcondition"))),
        )

    def _traversal_list(self, attr: Attribute | None) -> list[ast.Expr]:
        """``[aws_s3_bucket.a, module.x]`` (HCL) or ``["aws_s3_bucket.a"]`` (JSON) as traversals."""
        if attr is None:
            return []
        expr = _unwrap(attr.expr)
        if not isinstance(expr, ast.TupleCons):
            self.diags.error(f'"{attr.name}" must be a list of references', range=attr.expr.rng)
            return []
        out: list[ast.Expr] = []
        for item in expr.items:
            item = _unwrap(item)
            if isinstance(item, ast.Literal) and isinstance(item.value, str):
                r = item.rng
                item = parse_expression(item.value, r.filename, r.start.line, _text_column(item))
            if not isinstance(item, ast.ScopeTraversal | ast.RelativeTraversal):
                self.diags.error(f'"{attr.name}" entries must be references', range=item.rng)
                continue
            out.append(item)
        return out

    def _provider_ref(self, attr: Attribute) -> tuple[str, str | None] | None:
        expr = _unwrap(attr.expr)
        if isinstance(expr, ast.Literal) and isinstance(expr.value, str):
            r = expr.rng
            expr = parse_expression(expr.value, r.filename, r.start.line, _text_column(expr))
        text = _traversal_text(expr)
        if not text:
            self.diags.error('"provider" must be a provider reference such as aws.west', range=attr.expr.rng)
            return None
        name, _, alias = text.partition(".")
        return name, alias or None


def _text_column(lit: ast.Literal) -> int:
    """The column where a string literal's text starts: after the quote of an HCL string.

    An HCL string's range covers its quotes; a JSON/YAML string's range already starts at its text.
    """
    r = lit.rng
    quoted = r.start.line == r.end.line and r.end.column - r.start.column == len(str(lit.value)) + 2
    return r.start.column + 1 if quoted else r.start.column


def _unwrap(expr: ast.Expr) -> ast.Expr:
    while isinstance(expr, ast.TemplateWrap | ast.Parens):
        expr = expr.inner
    return expr


def _traversal_text(expr: ast.Expr) -> str | None:
    """``aws_s3_bucket.a[0]`` as text, for references used as names rather than values."""
    expr = _unwrap(expr)
    if isinstance(expr, ast.Literal) and isinstance(expr.value, str):
        return expr.value
    if not isinstance(expr, ast.ScopeTraversal):
        return None
    out = expr.root
    for step in expr.steps:
        if isinstance(step, ast.AttrStep):
            out += "." + step.name
        elif isinstance(step, ast.SplatStep):
            return None
        else:
            key = _unwrap(step.key)
            if not isinstance(key, ast.Literal):
                return None
            out += f'["{key.value}"]' if isinstance(key.value, str) else f"[{key.value}]"
    return out


def _required_provider(name: str, attr: Attribute) -> RequiredProvider:
    expr = _unwrap(attr.expr)
    source, version = f"hashicorp/{name}", ""
    if isinstance(expr, ast.Literal) and isinstance(expr.value, str):
        version = expr.value
    elif isinstance(expr, ast.ObjectCons):
        for item in expr.items:
            key, val = _unwrap(item.key), _unwrap(item.value)
            if isinstance(key, ast.Literal) and isinstance(val, ast.Literal):
                if key.value == "source":
                    source = str(val.value)
                elif key.value == "version":
                    version = str(val.value)
    return RequiredProvider(name, source, version, attr.rng)


traversal_text = _traversal_text
unwrap = _unwrap
