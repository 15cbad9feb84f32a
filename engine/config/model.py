"""The configuration model: what a module declares, independent of the syntax it was written in.

Values here are still unevaluated expressions (``engine.lang.ast``): evaluation needs variable
values, state and the dependency order, which later stages provide. Every construct keeps its
source range so every later error can point back at it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.config.provisioners import Provisioner
from engine.lang.ast import Expr, Ranged
from engine.lang.syntax import RELEASED_BODY, Attribute, Block, Body
from engine.lang.types import Type
from vocab.errors import SourceRange
from vocab.positions import Located, as_range


@dataclass(slots=True)
class Validation:
    condition: Expr
    error_message: Expr
    rng: SourceRange


@dataclass(slots=True)
class Variable:
    name: str
    rng: SourceRange
    type: Type | None = None
    default: Expr | None = None
    description: str = ""
    sensitive: bool = False
    nullable: bool = True
    validations: list[Validation] = field(default_factory=list)

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(slots=True)
class Local:
    name: str
    expr: Expr
    rng: SourceRange


@dataclass(slots=True)
class Condition:
    """A ``precondition``/``postcondition`` block."""

    condition: Expr
    error_message: Expr
    rng: SourceRange


@dataclass(slots=True)
class Check:
    """A ``check`` block: assertions about the whole configuration, reported as warnings."""

    name: str
    asserts: list[Condition]
    rng: SourceRange


@dataclass(slots=True)
class Output:
    name: str
    expr: Expr
    rng: SourceRange
    sensitive: bool = False
    description: str = ""
    depends_on: list[Expr] = field(default_factory=list)
    preconditions: list[Condition] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """A ``lifecycle`` block. Immutable, so every resource without one shares ``NO_LIFECYCLE``
    (an object and four lists per resource added up to a visible share of a large configuration)."""

    create_before_destroy: bool = False
    prevent_destroy: bool = False
    ignore_changes: tuple[str, ...] | str = ()  # attribute names, or "all"
    replace_triggered_by: tuple[Expr, ...] = ()
    preconditions: tuple[Condition, ...] = ()
    postconditions: tuple[Condition, ...] = ()


NO_LIFECYCLE = Lifecycle()


@dataclass(slots=True)
class Resource(Ranged):
    """A ``resource`` or ``data`` block (before ``count``/``for_each`` expansion)."""

    mode: str  # "managed" | "data"
    type: str
    name: str
    body: Body  # the arguments: attributes and nested blocks (meta-arguments removed)
    _rng: Located  # the block header, packed as the syntax keeps it (``rng`` builds the range)
    _type_rng: Located  # the type label
    count: Attribute | None = None
    for_each: Attribute | None = None
    provider: tuple[str, str | None] | None = None  # (local name, alias)
    provider_rng: SourceRange | None = None
    # Empty tuples unless the block has these (most have neither): shared, not a list per resource.
    depends_on: Sequence[Expr] = ()
    lifecycle: Lifecycle = NO_LIFECYCLE
    provisioners: Sequence[Provisioner] = ()
    connection: Block | None = None
    # ``aws_s3_bucket.logs`` / ``data.local_file.x`` (relative to its module): made once, as it is
    # read several times per resource by every command (its key, its instances' addresses).
    address: str = field(init=False, repr=False, compare=False)

    @property
    def type_rng(self) -> SourceRange:
        return as_range(self._type_rng)

    @property
    def type_at(self) -> Located:
        """The type label's position as kept: for a range wanted only if something is wrong."""
        return self._type_rng

    def release_body(self) -> None:
        """Let go of the arguments' syntax, for a walk that reads them no more (an apply, once it has
        evaluated them): at scale the syntax is a large share of what an apply holds."""
        self.body = RELEASED_BODY

    def __post_init__(self) -> None:
        prefix = "data." if self.mode == "data" else ""
        self.address = f"{prefix}{self.type}.{self.name}"

    @property
    def provider_name(self) -> str:
        """The local provider name this resource uses (explicit, or implied by its type prefix)."""
        if self.provider is not None:
            return self.provider[0]
        return self.type.split("_", 1)[0]


@dataclass(slots=True)
class ModuleCall:
    name: str
    source: str
    rng: SourceRange
    source_rng: SourceRange
    inputs: dict[str, Attribute] = field(default_factory=dict)
    count: Attribute | None = None
    for_each: Attribute | None = None
    depends_on: list[Expr] = field(default_factory=list)
    providers: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class ProviderConfig:
    name: str
    alias: str | None
    body: Body
    rng: SourceRange

    @property
    def key(self) -> str:
        return f"{self.name}.{self.alias}" if self.alias else self.name


@dataclass(slots=True)
class Moved:
    from_addr: str
    to_addr: str
    rng: SourceRange


@dataclass(slots=True)
class ImportBlock:
    """An ``import`` block: adopt the object ``id`` names at the instance address ``to`` while planning."""

    to: str  # the instance address, as written (keys as literals); "" with ``for_each``
    id: Expr  # evaluated in the root module's scope (variables, locals), and ``each`` with ``for_each``
    rng: SourceRange
    for_each: Expr | None = None  # one import per element: ``to``'s keys and ``id`` read ``each``
    to_expr: Expr | None = None  # with ``for_each``: the address, its keys evaluated per element


@dataclass(slots=True)
class Removed:
    """A ``removed`` block: a resource (or a module's resources) no longer in the configuration.

    ``destroy = false`` forgets the objects (state only); otherwise they are destroyed as any
    resource taken out of the configuration is.
    """

    from_addr: str
    destroy: bool
    rng: SourceRange


@dataclass(slots=True)
class Backend:
    type: str
    body: Body
    rng: SourceRange


@dataclass(slots=True)
class RequiredProvider:
    name: str
    source: str
    version: str
    rng: SourceRange


@dataclass(slots=True)
class Module:
    """One directory of configuration files: the root module or a child module."""

    dir: Path
    files: list[str] = field(default_factory=list)
    variables: dict[str, Variable] = field(default_factory=dict)
    locals: dict[str, Local] = field(default_factory=dict)
    outputs: dict[str, Output] = field(default_factory=dict)
    resources: dict[str, Resource] = field(default_factory=dict)  # keyed by address
    module_calls: dict[str, ModuleCall] = field(default_factory=dict)
    providers: dict[str, ProviderConfig] = field(default_factory=dict)  # keyed "aws" / "aws.west"
    moved: list[Moved] = field(default_factory=list)
    removed: list[Removed] = field(default_factory=list)
    imports: list[ImportBlock] = field(default_factory=list)
    checks: dict[str, Check] = field(default_factory=dict)
    backend: Backend | None = None
    encryption: Body | None = None  # terraform { encryption { … } } (engine/encryption reads it)
    required_version: str | None = None
    required_providers: dict[str, RequiredProvider] = field(default_factory=dict)
    children: dict[str, Module] = field(default_factory=dict)  # module call name -> loaded module

    def walk(self, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Module]]:
        """Every module in the tree with its call path (``()`` for the root)."""
        yield path, self
        for name, child in self.children.items():
            yield from child.walk((*path, name))
