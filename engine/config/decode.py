"""Decoding file bodies into the configuration model: blocks, meta-arguments, duplicates.

The decoder accumulates diagnostics so ``ctl validate`` reports every problem of a run at once;
only the parse of a single file stops at its first syntax error.
"""

from __future__ import annotations

from sys import intern

from engine.config.language import (
    DATA_META_BLOCKS,
    FILE_SCHEMA,
    LABELS,
    MANAGED_ONLY,
    META_BLOCKS,
    MODULE_META,
    REQUIRED_PROVIDER_KEYS,
    RESOURCE_META,
)
from engine.config.literals import required_provider_entry, text_column, traversal_text, unwrap
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
from engine.config.names import DYNAMIC, NameCheck, is_structured
from engine.config.provisioners import CONNECTION, decode_provisioners
from engine.config.shape import ShapeCheck
from engine.lang import ast
from engine.lang.evaluation import did_you_mean
from engine.lang.hcl import parse_expression
from engine.lang.syntax import Attribute, Block, Body
from vocab.errors import CtlError, Diagnostics, SourceRange
from vocab.positions import Located, as_range


class ModuleDecoder:
    """Adds the blocks of one file after another to a ``Module``, noting every problem."""

    def __init__(self, module: Module, diags: Diagnostics) -> None:
        self.module = module
        self.diags = diags
        self._seen: dict[str, Located] = {}
        self._names = NameCheck(diags, structured=False)  # set again for each file's syntax
        self._shape = ShapeCheck(diags)

    def add_file(self, body: Body) -> None:
        self._names = NameCheck(self.diags, structured=is_structured(body))
        self._report_duplicate_attributes(body)
        for name in body.attributes:
            attr = body.attributes[name]
            if self._names.structured:
                self._names.argument(attr, FILE_SCHEMA, "a configuration file", known=frozenset(FILE_SCHEMA.blocks))
                continue
            self.diags.error("Unsupported argument", detail=f'An argument named "{name}" is not expected here.',
                             hint="Only blocks (resource, variable, output, …) may appear at the top level of a file.",
                             range=attr.name_rng)
        for block in body.blocks:
            if block.type in LABELS and len(block.labels) != LABELS[block.type]:
                self._shape.wrong_labels(block)
                continue
            handler = getattr(self, f"_block_{block.type}", None)
            if handler is None:
                self._names.block(block, FILE_SCHEMA, "a configuration file")
                continue
            schema = FILE_SCHEMA.blocks[block.type][1]
            if schema.attributes is not None or block.body.blocks:  # most resources: nothing to look at
                self._names.body(block.body, schema, block.type)
            try:
                handler(block)
            except CtlError as err:
                self.diags.add(err)

    # ---- helpers ---------------------------------------------------------------------------

    def _claim(self, key: str, what: str, rng: Located) -> bool:
        """Record a definition; a second definition of the same thing is an error naming both, in
        Terraform's words for each kind. The ranges are kept as the syntax keeps them, made
        ``SourceRange``s only for an error."""
        first = self._seen.get(key)
        if first is not None:
            name = key.split(":", 1)[1]
            self._shape.duplicate(what, name, as_range(first), as_range(rng))
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

    def _ephemeral(self, body: Body, what: str) -> None:
        """``ephemeral = true`` is the newest language's and is accepted; ctl does not yet keep such
        a value out of state and plan files, which the author is told rather than left to assume."""
        attr = body.attr("ephemeral")
        if attr is not None and self._shape.constant(attr, bool):
            self.diags.warning(f"An ephemeral {what} is stored like any other value",
                               detail="ctl does not yet keep ephemeral values out of the state and plan files.",
                               hint="" if body.attr("sensitive") is not None else
                               "Mark it sensitive as well to keep it out of the output.",
                               range=attr.name_rng)

    def _attributes_only(self, body: Body) -> None:
        """A body of names chosen by the author (``locals``, ``required_providers``): no blocks."""
        for b in body.blocks:
            self.diags.error(f'Unexpected "{b.type}" block', detail="Blocks are not allowed here.",
                             hint=f'Write it as an argument: {b.type} = {{ … }}', range=b.rng)

    def _not_supported(self, rng: SourceRange, what: str, hint: str) -> None:
        """A construct of the newest language that ctl recognises but does not act on: refused by
        name, since ignoring it would change what happens to the infrastructure."""
        self.diags.error(f"{what} is not supported by ctl", hint=hint, range=rng)

    def _required_provider(self, name: str, attr: Attribute) -> RequiredProvider:
        expr = unwrap(attr.expr)
        if isinstance(expr, ast.ObjectCons):
            for item in expr.items:
                key = unwrap(item.key)
                text = key.value if isinstance(key, ast.Literal) else traversal_text(key)
                if text not in REQUIRED_PROVIDER_KEYS:
                    self.diags.error(
                        "Invalid required_providers object",
                        detail=('required_providers objects can only contain "version", "source" and '
                                '"configuration_aliases" attributes. To configure a provider, use a "provider" '
                                "block. " + did_you_mean(str(text), REQUIRED_PROVIDER_KEYS)).strip(),
                        range=key.rng)
        return required_provider_entry(name, attr)

    def _conditions(self, blocks: list[Block]) -> list[Condition]:
        out: list[Condition] = []
        for b in blocks:
            cond, msg = b.body.attr("condition"), b.body.attr("error_message")
            if not self._shape.required(b, "condition", "error_message") or cond is None or msg is None:
                continue
            out.append(Condition(cond.expr, msg.expr, cond.expr.rng))
        return out

    # ---- top-level blocks ------------------------------------------------------------------

    def _block_terraform(self, block: Block) -> None:
        body = block.body
        rv = body.attr("required_version")
        if rv is not None:
            self.module.required_version = str(self._shape.constant(rv, str) or "")
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
                self._attributes_only(b.body)
                for name, attr in b.body.attributes.items():
                    self.module.required_providers[name] = self._required_provider(name, attr)
            elif b.type == "cloud":
                self._not_supported(b.rng, 'The "cloud" block',
                                    "ctl keeps state in a backend: configure one with a backend block.")

    def _block_language(self, block: Block) -> None:
        """OpenTofu's ``language`` block: its names are checked, its settings are OpenTofu's own."""

    def _block_required_providers(self, block: Block) -> None:
        self.diags.error("Invalid required_providers block",
                         detail='A "required_providers" block must be nested inside a "terraform" block.',
                         range=block.rng)

    def _block_ephemeral(self, block: Block) -> None:
        self._not_supported(block.rng, "An ephemeral resource",
                            "Read the value with a data source, or pass it in as a variable.")

    def _block_provider(self, block: Block) -> None:
        name = block.labels[0]
        alias = self._shape.constant(block.body.attr("alias"), str)
        cfg = ProviderConfig(name, alias if isinstance(alias, str) else None, block.body, block.rng)
        if self._claim(f"provider:{cfg.key}", "provider configuration", block.rng):
            self.module.providers[cfg.key] = cfg

    def _block_variable(self, block: Block) -> None:
        from engine.config.variables import check_default
        from engine.lang.type_constraints import parse_variable_type

        name = block.labels[0]
        body = block.body
        if not self._shape.valid_name(block, "variable"):
            return
        var = Variable(name, block.rng)
        type_attr = body.attr("type")
        if type_attr is not None:
            type_expr = type_attr.expr
            if isinstance(type_expr, ast.TemplateWrap):
                type_expr = unwrap(type_expr)  # "${map(string)}": python-hcl2 wraps every expression
            if isinstance(type_expr, ast.Literal) and isinstance(type_expr.value, str):
                r = type_expr.rng
                type_expr = parse_expression(type_expr.value, r.filename, r.start.line, text_column(type_expr))
            try:
                var.type = parse_variable_type(type_expr)
            except CtlError as err:
                self.diags.add(err)
        default = body.attr("default")
        if default is not None and self._shape.static(default.expr):
            var.default = default.expr
            check_default(var, self.diags)
        var.description = str(self._shape.constant(body.attr("description"), str) or "")
        var.sensitive = bool(self._shape.constant(body.attr("sensitive"), bool) or False)
        nullable = self._shape.constant(body.attr("nullable"), bool)
        var.nullable = True if nullable is None else bool(nullable)
        self._ephemeral(body, "variable")
        for v in body.blocks_of("validation"):
            cond, msg = v.body.attr("condition"), v.body.attr("error_message")
            if cond is not None:
                self._shape.validation_reads_its_variable(name, cond.expr)
            if not self._shape.required(v, "condition", "error_message") or cond is None or msg is None:
                continue
            var.validations.append(Validation(cond.expr, msg.expr, cond.expr.rng))
        if self._claim(f"variable:{name}", "variable", block.rng):
            self.module.variables[name] = var

    def _block_locals(self, block: Block) -> None:
        self._report_duplicate_attributes(block.body)
        self._attributes_only(block.body)
        for name, attr in block.body.attributes.items():
            if self._claim(f"local:{name}", "local value", attr._rng):  # the whole definition, as Terraform shows it
                self.module.locals[name] = Local(name, attr.expr, attr.rng)

    def _block_output(self, block: Block) -> None:
        name = block.labels[0]
        body = block.body
        value = body.attr("value")
        if not self._shape.required(block, "value") or value is None or not self._shape.valid_name(block, "output"):
            return
        out = Output(name, value.expr, block.rng)
        out.sensitive = bool(self._shape.constant(body.attr("sensitive"), bool) or False)
        out.description = str(self._shape.constant(body.attr("description"), str) or "")
        out.depends_on = self._traversal_list(body.attr("depends_on"))
        out.preconditions = self._conditions(body.blocks_of("precondition"))
        self._ephemeral(body, "output")
        for post in body.blocks_of("postcondition"):
            self.diags.error("Postconditions are not allowed",
                             detail="Output values can only have preconditions, not postconditions.",
                             hint='Write it as a "precondition" block.', range=post.rng)
        if self._claim(f"output:{name}", "output", block.rng):
            self.module.outputs[name] = out

    def _block_resource(self, block: Block, mode: str = "managed") -> None:
        rtype, name = block.labels
        if not self._shape.valid_name(block, "data source" if mode == "data" else "resource"):
            return
        rtype = intern(rtype)  # every resource of a type repeats its label: one string, as in the model's keys
        body = block.body
        self._report_duplicate_attributes(body)
        # Most resources have arguments only: their body is their arguments as it is, not a copy.
        plain = not body.blocks and body.attributes.keys().isdisjoint(RESOURCE_META)
        meta_blocks = META_BLOCKS if mode == "managed" else DATA_META_BLOCKS
        args = body if plain else Body(
            {k: v for k, v in body.attributes.items() if k not in RESOURCE_META},
            [b for b in body.blocks if b.type not in meta_blocks],
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
            res.lifecycle = self._lifecycle(lc, res.mode)
        if res.body.blocks:
            self._dynamic_blocks(res.body)
        if res.mode == "data":
            return
        res.provisioners = decode_provisioners(body.blocks_of("provisioner"), self.diags, self._names)
        conns = body.blocks_of("connection")
        res.connection = conns[0] if conns else None
        if res.connection is not None and res.provisioners:  # as Terraform: checked where it is used
            self._names.body(res.connection.body, CONNECTION, "connection")

    def _dynamic_blocks(self, body: Body) -> None:
        """The ``dynamic`` blocks anywhere in a resource's or provider's arguments: what a dynamic
        block takes is the language's, whatever the block it generates takes."""
        for b in body.blocks:
            if b.type == "dynamic":
                self._names.body(b.body, DYNAMIC, "dynamic")
                for content in b.body.blocks_of("content"):
                    self._dynamic_blocks(content.body)
            elif b.body.blocks:
                self._dynamic_blocks(b.body)

    def _block_data(self, block: Block) -> None:
        self._block_resource(block, "data")

    def _block_module(self, block: Block) -> None:
        name = block.labels[0]
        body = block.body
        source_attr = body.attr("source")
        if not self._shape.required(block, "source") or source_attr is None or not self._shape.valid_name(block, "module instance"):
            return
        source = self._shape.constant(source_attr, str)
        if not isinstance(source, str):
            return
        call = ModuleCall(name, source, block.rng, source_attr.expr.rng)
        call.inputs = {k: v for k, v in body.attributes.items() if k not in MODULE_META}
        call.count = body.attr("count")
        call.for_each = body.attr("for_each")
        call.depends_on = self._traversal_list(body.attr("depends_on"))
        for lc in body.blocks_of("lifecycle"):
            enabled = lc.body.attr("enabled")
            if enabled is not None:
                self._not_supported(enabled.name_rng, 'The module lifecycle argument "enabled"',
                                    "Use count or for_each to decide whether the module is called.")
        providers = body.attr("providers")
        if providers is not None and isinstance(providers.expr, ast.ObjectCons):
            for item in providers.expr.items:
                key = traversal_text(item.key)
                val = traversal_text(item.value)
                if key and val:
                    call.providers[key] = val
        if self._claim(f"module call:{name}", "module call", block.rng):
            self.module.module_calls[name] = call

    def _block_moved(self, block: Block) -> None:
        frm, to = block.body.attr("from"), block.body.attr("to")
        if frm is None or to is None:
            self.diags.error('A "moved" block needs "from" and "to"', range=block.rng)
            return
        from_text, to_text = traversal_text(frm.expr), traversal_text(to.expr)
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
        for_each = block.body.attr("for_each")
        identity = block.body.attr("identity")
        if identity is not None:
            self._not_supported(identity.name_rng, 'Importing by "identity"', 'Name the object with "id".')
            return
        if for_each is not None and to is not None and id_ is not None:
            address = unwrap(to.expr)
            if isinstance(address, ast.Literal) and isinstance(address.value, str):  # JSON: the address as text
                r = address.rng
                address = parse_expression(address.value, r.filename, r.start.line, text_column(address))
            self.module.imports.append(ImportBlock("", id_.expr, block.rng, for_each.expr, address))
            return
        text = traversal_text(to.expr) if to is not None else None
        if to is None or id_ is None or not text:
            self.diags.error('An "import" block needs "to" (a resource instance address) and "id"',
                             range=block.rng, hint='For example: import {\n  to = aws_s3_bucket.logs\n  id = "logs"\n}')
            return
        self.module.imports.append(ImportBlock(text, id_.expr, block.rng))

    def _block_removed(self, block: Block) -> None:
        frm = block.body.attr("from")
        text = traversal_text(frm.expr) if frm is not None else None
        if frm is None or not text:
            self.diags.error('A "removed" block needs "from": the address of a resource or module',
                             range=block.rng)
            return
        if "[" in text:
            self.diags.error("A removed block names a whole resource or module, not an instance",
                             detail=f'"{text}" has an instance key; remove the key.', range=frm.expr.rng)
            return
        for prov in block.body.blocks_of("provisioner"):
            self._not_supported(prov.rng, "A provisioner in a removed block",
                                "Run the command yourself before applying, or keep the resource until it has run.")
        destroy = True
        for lc in block.body.blocks_of("lifecycle"):
            value = self._shape.constant(lc.body.attr("destroy"), bool)
            destroy = True if value is None else bool(value)
        self.module.removed.append(Removed(text, destroy, block.rng))

    # ---- meta-arguments --------------------------------------------------------------------

    def _lifecycle(self, block: Block, mode: str = "managed") -> Lifecycle:
        body = block.body
        if mode == "data":
            for name in MANAGED_ONLY.intersection(body.attributes):
                self.diags.error(
                    "Invalid data resource lifecycle argument",
                    detail=f'The lifecycle argument "{name}" is defined only for managed resources '
                           '("resource" blocks), and is not valid for data resources.',
                    range=body.attributes[name].name_rng)
        for name in ("enabled", "destroy"):
            attr = body.attr(name)
            if attr is not None:
                self._not_supported(attr.name_rng, f'The lifecycle argument "{name}"',
                                    "Use count or for_each to decide whether the object exists."
                                    if name == "enabled" else
                                    'Keep the resource in the configuration, or use a "removed" block with '
                                    "lifecycle { destroy = false } when it is taken out.")
        create_before_destroy = bool(
            self._shape.constant(body.attr("create_before_destroy"), bool) or False
        )
        prevent_destroy = bool(self._shape.constant(body.attr("prevent_destroy"), bool) or False)
        ignore_changes: tuple[str, ...] | str = ()
        ignore = body.attr("ignore_changes")
        if ignore is not None:
            expr = unwrap(ignore.expr)
            if (isinstance(expr, ast.ScopeTraversal) and expr.root == "all" and not expr.steps) or (isinstance(expr, ast.Literal) and expr.value == "all"):
                ignore_changes = "all"
            else:
                ignore_changes = tuple(t for t in (traversal_text(e) for e in self._traversal_list(ignore)) if t)
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
        expr = unwrap(attr.expr)
        if not isinstance(expr, ast.TupleCons):
            self.diags.error("Invalid expression", detail="A static list expression is required.", range=attr.expr.rng)
            return []
        out: list[ast.Expr] = []
        for item in expr.items:
            item = unwrap(item)
            if isinstance(item, ast.Literal) and isinstance(item.value, str):
                r = item.rng
                item = parse_expression(item.value, r.filename, r.start.line, text_column(item))
            if not isinstance(item, ast.ScopeTraversal | ast.RelativeTraversal):
                self.diags.error("Invalid expression", range=item.rng,
                                 detail="A single static variable reference is required: only attribute access and "
                                        "indexing with constant keys. No calculations, function calls, template "
                                        "expressions, etc are allowed here.")
                continue
            out.append(item)
        return out

    def _provider_ref(self, attr: Attribute) -> tuple[str, str | None] | None:
        expr = unwrap(attr.expr)
        if isinstance(expr, ast.Literal) and isinstance(expr.value, str):
            r = expr.rng
            expr = parse_expression(expr.value, r.filename, r.start.line, text_column(expr))
        text = traversal_text(expr)
        if not text:
            self.diags.error('"provider" must be a provider reference such as aws.west', range=attr.expr.rng)
            return None
        name, _, alias = text.partition(".")
        return name, alias or None
