"""Refusing names a block does not take: a misspelt ``prevent_destory`` must not pass in silence.

A protection written with a typo (``lifecycle { prevent_destory = true }``, ``output { sensitve =
true }``) reads as valid and does nothing, so the resource it was meant to keep can be destroyed and
the secret it was meant to hide printed. Terraform and OpenTofu refuse every name a block of the
language does not take; so does ctl, by the same ``BlockSchema`` the JSON reader uses to tell
blocks from arguments.

The messages follow Terraform's: "Unsupported argument" and "Unsupported block type" for ``.tf``
files, "Extraneous JSON object property" for ``.tf.json`` and ``.tf.yaml`` ones (where an unknown
key cannot be told apart as either), each at the offending name and with a suggestion when a known
name is close.
"""

from __future__ import annotations

from engine.lang.evaluation import did_you_mean, name_suggestion
from engine.lang.syntax import Attribute, Block, BlockSchema, Body
from vocab.errors import Diagnostics
from vocab.positions import SourceRange, as_range

_STRUCTURED_SUFFIXES = (".json", ".yaml", ".yml")
#: What a ``dynamic`` block takes. The blocks it generates are a provider's, which never have labels,
#: so ``labels`` is refused as Terraform refuses it there.
DYNAMIC = BlockSchema(blocks={"content": (0, BlockSchema())}, attributes=frozenset({"for_each", "iterator"}),
                      other_blocks=False)
#: The meta-arguments of a provider block, beside its provider's own.
PROVIDER_META = frozenset({"alias", "version"})


def is_structured(body: Body) -> bool:
    """Whether ``body`` was read from a JSON or YAML file (where keys are not marked as blocks)."""
    return as_range(body._rng).filename.endswith(_STRUCTURED_SUFFIXES)


class NameCheck:
    """Reports the names a body does not take, as Terraform words it for the file's syntax."""

    __slots__ = ("diags", "structured")

    def __init__(self, diags: Diagnostics, *, structured: bool) -> None:
        self.diags = diags
        self.structured = structured

    def body(self, body: Body, schema: BlockSchema, kind: str) -> None:
        """Check ``body`` (of a block of type ``kind``) and every nested block the schema describes."""
        if schema.attributes is not None:
            for name, attr in body.attributes.items():
                if name not in schema.attributes:
                    self.argument(attr, schema, _where(kind))
        for block in body.blocks:
            nested = schema.blocks.get(block.type)
            if nested is not None:
                if nested[1].attributes is not None or block.body.blocks:
                    self.body(block.body, nested[1], block.type)
            elif not schema.other_blocks:
                self.block(block, schema, _where(kind))

    def argument(self, attr: Attribute, schema: BlockSchema, where: str, *,
                 known: frozenset[str] | None = None, advice: str = "") -> None:
        """An argument ``attr`` that the body of ``where`` does not take."""
        name = attr.name
        names = known if known is not None else (schema.attributes or frozenset())
        if self.structured:
            self._extraneous(name, names | frozenset(schema.blocks), where, as_range(attr._name_rng), advice)
            return
        if name in schema.blocks:
            hint = f'Did you mean to define a block of type "{name}"?'
        else:
            hint = _suggestion(name, names)
        self.diags.error("Unsupported argument", detail=_with(f'An argument named "{name}" is not expected here.', hint),
                         hint=advice, range=attr.name_rng)

    def block(self, block: Block, schema: BlockSchema, where: str, *,
              known: frozenset[str] | None = None, advice: str = "") -> None:
        """A nested block that the body of ``where`` does not take."""
        names = known if known is not None else frozenset(schema.blocks)
        attributes = schema.attributes or frozenset()
        if self.structured:
            self._extraneous(block.type, names | attributes, where, as_range(block._rng), advice)
            return
        if block.type in attributes:
            hint = f'Did you mean to define argument "{block.type}"? If so, use the equals sign to assign it a value.'
        else:
            hint = _suggestion(block.type, names)
        self.diags.error("Unsupported block type", detail=_with(f'Blocks of type "{block.type}" are not expected here.', hint),
                         hint=advice, range=as_range(block._rng))

    def _extraneous(self, name: str, names: frozenset[str] | set[str], where: str, rng: SourceRange,
                    advice: str) -> None:
        self.diags.error(f'Extraneous JSON object property "{name}"',
                         detail=_with(f'No argument or block type is named "{name}" in {where}.',
                                      did_you_mean(name, names)),
                         hint=advice, range=rng)


def _suggestion(name: str, names: frozenset[str] | set[str]) -> str:
    """Terraform's "Did you mean" for a misspelt name: a known name within two edits, or ''."""
    near = name_suggestion(name, names)
    return f'Did you mean "{near}"?' if near else ""


def _with(detail: str, suggestion: str) -> str:
    """The detail with the suggestion after it, as Terraform writes it: a hint would not reach
    ``-json`` output, where editors and CI read diagnostics."""
    return f"{detail} {suggestion}" if suggestion else detail


def _where(kind: str) -> str:
    """'"lifecycle" blocks': the place named in a message, made only when there is one."""
    return f'"{kind}" blocks'


def check_provider_body(body: Body, known: frozenset[str], diags: Diagnostics, *, native: str = "") -> None:
    """A provider block against its provider's arguments and nested blocks (``known``).

    Terraform refuses a name the provider's schema lacks before configuring it; without this the
    misspelt argument would be dropped and the provider configured from its defaults. ``native``
    names the provider when a native adapter (which may take fewer arguments than Terraform's
    provider) serves it.
    """
    advice = (f"ctl's native adapter for the {native} provider does not take it; Terraform's provider may. "
              "Run `ctl init` to have the provider's plugin serve it.") if native else ""
    check = NameCheck(diags, structured=is_structured(body))
    schema = BlockSchema(attributes=known | PROVIDER_META, other_blocks=False)
    for name, attr in body.attributes.items():
        if name in known or name in PROVIDER_META:
            continue
        if name == "for_each":
            diags.error("for_each in provider blocks is not supported by ctl",
                        hint="Write one provider block per configuration, each with its own alias.",
                        range=attr.name_rng)
            continue
        check.argument(attr, schema, _where("provider"), known=known, advice=advice)
    for block in body.blocks:
        generated = block.labels[0] if block.type == "dynamic" and block.labels else block.type
        if generated not in known:
            check.block(block, schema, _where("provider"), known=known, advice=advice)
        elif block.type == "dynamic":
            check.body(block.body, DYNAMIC, "dynamic")
