"""The adapter interface: how ctl talks to a kind of infrastructure.

A *provider* (``local``, ``random``, ``aws`` …) is a package-level object found through the
``ctl.adapters`` entry-point group; it owns a set of *resource types* and *data sources*. The engine
only ever calls the methods below, always from a worker thread of the apply walker, so
implementations must be thread-safe across different resources (one client per provider
configuration is shared by all of its resources).

Contracts every resource type keeps (the shared contract suite in ``tests/adapters`` checks them):

* ``read`` returns ``None`` when the object is gone — never raises for "not found".
* ``create`` returns the full attribute dict, computed attributes included.
* ``delete`` of an object that is already gone succeeds (deletes are idempotent).
* ``find`` looks an object up by the arguments planned for it, so that an object created by an
  apply killed before it could record the result is adopted instead of created twice.
* Errors a user can act on are raised as ``AdapterError`` (a ``CtlError``) with the resource address.
* Cloud SDKs are imported inside ``configure`` or the operations, never at module import, so that
  ``ctl --help`` stays fast.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vocab.errors import CtlError
from vocab.schema.form import Block


class AdapterError(CtlError):
    """An operation on a real object failed; the message says which object and what to do."""


class PartialResult(AdapterError):
    """A create or update failed after the object was (partly) made: ``result`` is what exists now.

    The engine records it as tainted, as Terraform does, so the next plan replaces it instead of
    losing track of it.
    """

    def __init__(self, message: str, *, result: dict[str, Any], **kw: Any) -> None:
        super().__init__(message, **kw)
        self.result = result


@dataclass
class AdapterContext:
    """What an operation may use: the configured provider client, paths, and a cancel flag."""

    provider_config: dict[str, Any]
    client: Any = None  # whatever Provider.configure returned; shared by the provider's resources
    workdir: Path = field(default_factory=Path.cwd)  # the configuration directory
    address: str = ""  # the resource address the operation is for (for error messages)
    cancelled: threading.Event = field(default_factory=threading.Event)
    stored_schema_version: int | None = None  # on refresh: the schema version the state was written with
    # ctl's own files (state, its backup/history/journal/lock, .ctl/): no resource may write or delete
    # them (see vocab/reserved_paths.py).
    reserved_paths: tuple[Path, ...] = ()
    # Reports a warning (summary, detail, and optionally the SourceRange it is about) to the user with
    # the run's other diagnostics; None: log it.
    warn: Callable[..., None] | None = None
    # A provider plugin's private data for the object: what state holds (in), what it returns (out).
    private: bytes = b""
    new_private: bytes | None = None
    # The configuration's resource block (engine.config.model.Resource): where a diagnostic points.
    resource: Any = None
    # Texts of the sensitive values among the arguments: cut out of whatever a provider says.
    secrets: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ArgumentProblem:
    """One thing wrong with a resource's arguments, found before any provider call.

    ``path`` is where it is (``("rule", 0, "port")``), ``argument`` the name an "Unsupported
    argument" is about; the engine turns it into a diagnostic at that argument's file:line.
    """

    path: tuple[str | int, ...]
    summary: str
    detail: str
    argument: str | None = None
    severity: str = "error"  # a provider's own check may also warn (a deprecated argument)


class ResourceType:
    """Base class for a managed resource type or (with ``mode = "data"``) a data source.

    Subclasses set the class attributes and override the operations they support.
    ``schema`` is a JSON Schema (draft 2020-12) of the *arguments* (``properties``; ``required``)
    plus the computed attributes. Nested blocks are arrays of objects, as in Terraform's state.
    """

    name: str = ""
    mode: str = "managed"  # "managed" | "data"
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    computed: frozenset[str] = frozenset()  # attributes the adapter sets (unknown until apply)
    replace_on: frozenset[str] = frozenset()  # argument names whose change forces replacement
    sensitive: frozenset[str] = frozenset()  # attributes that are always sensitive
    sensitive_follows: dict[str, str] = {}  # attribute -> the attribute whose sensitivity it copies
    schema_version: int = 0
    id_attribute: str = "id"
    state_only: bool = False  # the object lives only in state (random values, sleeps): nothing to find
    remote_plan: bool = False  # planning waits on another process (a plugin): instances plan concurrently
    # The arguments in the provider schema form, as a plugin reports them; the engine checks a type
    # that has one with Terraform's decoder (vocab.schema.decode). None: only ``schema`` describes it.
    block: Block | None = None

    def from_state(self, attributes: dict[str, Any]) -> dict[str, Any]:
        """Attributes read back from a state file, as this type's own answers give them.

        JSON has one array for a list, a set and a tuple, and one object for a map and an object;
        a type that knows its attributes' types restores the collections they are. Default: as read.
        """
        return attributes

    def plan(self, ctx: AdapterContext, prior: dict[str, Any] | None, planned: dict[str, Any]) -> dict[str, Any]:
        """Fill in computed attributes of a planned object.

        Default: on create every computed attribute not given in configuration is unknown; on
        update computed attributes keep their prior values. Override when a computed value can
        be known at plan time or changes with an update.
        """
        from vocab.values import UNKNOWN

        out = dict(planned)
        for attr in self.computed:
            if out.get(attr) is not None:
                continue
            out[attr] = UNKNOWN if prior is None else prior.get(attr)
        return out

    def requires_replace(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any],
                         changed: list[str]) -> list[list[str | int]]:
        """Paths whose change from ``prior`` to ``planned`` forces a replacement (``-/+``).

        ``changed`` lists the top-level attributes that differ. Native types name them in
        ``replace_on``; a provider plugin answers from its own plan.
        """
        return [[k] for k in changed if k in self.replace_on]

    def read(self, ctx: AdapterContext, attrs: dict[str, Any]) -> dict[str, Any] | None:
        """Refresh: the object's current attributes, or None when it no longer exists."""
        return attrs

    def create(self, ctx: AdapterContext, planned: dict[str, Any]) -> dict[str, Any]:
        raise AdapterError(f"{self.name} cannot be created", address=ctx.address)

    def update(self, ctx: AdapterContext, prior: dict[str, Any], planned: dict[str, Any]) -> dict[str, Any]:
        raise AdapterError(f"{self.name} cannot be updated in place", address=ctx.address)

    def delete(self, ctx: AdapterContext, prior: dict[str, Any]) -> None:
        return None

    def import_(self, ctx: AdapterContext, resource_id: str) -> dict[str, Any]:
        raise AdapterError(f"{self.name} does not support import", address=ctx.address)

    def import_id(self, ctx: AdapterContext, identity: dict[str, Any]) -> str | None:
        """The ``ctl import`` ID of the object that ``identity`` (planned arguments) names, if any.

        Computed from the arguments alone, without calling the cloud. None when they name no
        object by themselves (a bucket with only a ``bucket_prefix``, an ID the cloud assigns).
        """
        return None

    def findable(self, ctx: AdapterContext, identity: dict[str, Any]) -> bool:
        """Whether ``find`` can look for the object these planned arguments describe.

        When not, the user is asked to check and import by hand; when it can and finds nothing,
        nothing was created and the next apply creates it.
        """
        return self.import_id(ctx, identity) is not None

    def find(self, ctx: AdapterContext, identity: dict[str, Any]) -> dict[str, Any] | None:
        """After a crash: the object an interrupted create may have made, or None.

        ``identity`` holds the planned arguments that were known and not sensitive when the create
        started. The default imports the object ``import_id`` names and refreshes it, so a type
        gets recovery by saying how its arguments make an import ID.
        """
        resource_id = self.import_id(ctx, identity)
        if not resource_id:
            return None
        return self.read(ctx, self.import_(ctx, resource_id))


@dataclass
class Provider:
    """A family of resource types, registered under the ``ctl.adapters`` entry-point group."""

    name: str  # local name, e.g. "aws"; resource types are prefixed "<name>_"
    source: str  # e.g. "registry.terraform.io/hashicorp/aws" (written into state as Terraform does)
    # Read-only to the engine: a plugin builds its types on first lookup (adapters/plugin/bridge.py).
    resources: Mapping[str, ResourceType] = field(default_factory=dict)
    data_sources: Mapping[str, ResourceType] = field(default_factory=dict)
    config_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})

    def configure(self, config: dict[str, Any], workdir: Path) -> Any:
        """Build the client shared by this provider's resources (SDK imports belong here)."""
        return None

    def release(self, client: Any) -> None:
        """Let go of a client ``configure`` built, once the operation that used it is over.

        Native clients need nothing; a plugin's client owns a provider process, which must not
        outlive the plan or apply that started it.
        """

    def validate_arguments(self, workdir: Path, configs: Sequence[tuple[ResourceType, dict[str, Any]]],
                           provider_configs: Sequence[dict[str, Any]] = (),
                           ) -> tuple[list[list[ArgumentProblem]], list[list[ArgumentProblem]]]:
        """The provider's own checks of resource and data source arguments, one list per config, and
        of its own configuration blocks (``provider_configs``), one list per block.

        Terraform's validate asks every provider to check each block's arguments, values a plan
        could give unknown, without configuring it: its validators (a length of at least 1, two
        arguments that conflict, an ARN that is not one) run then, not first at plan. A native
        adapter's checks are its schema checks (``engine.schema.check``), already made, so
        it has nothing to add.
        """
        return [[] for _ in configs], [[] for _ in provider_configs]

    def state_name(self) -> str:
        """The ``provider`` string Terraform writes into state: ``provider["<source>"]``."""
        return f'provider["{self.source}"]'
