"""What a plan is: the changes to make, the state they were computed against, and why.

Values inside a plan keep the expression language's wrappers: ``Unknown`` for values known only
after apply and ``Marked`` for secrets. Renderers (human text, Terraform's plan JSON) decide how
to show them; the policy engine sees them unmasked in memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.state.model import State

CREATE, UPDATE, DELETE, READ, NOOP, FORGET = "create", "update", "delete", "read", "no-op", "forget"

ACTIONS_CREATE = (CREATE,)
ACTIONS_UPDATE = (UPDATE,)
ACTIONS_DELETE = (DELETE,)
ACTIONS_READ = (READ,)
ACTIONS_NOOP = (NOOP,)
ACTIONS_REPLACE = (DELETE, CREATE)  # destroy, then create (the default)
ACTIONS_REPLACE_CBD = (CREATE, DELETE)  # create_before_destroy
ACTIONS_FORGET = (FORGET,)  # dropped from state, the object left alone (removed { destroy = false })


@dataclass
class ResourceChange:
    """One planned change of one resource instance (Terraform's ``resource_changes[]`` entry)."""

    address: str
    module_address: str
    mode: str  # "managed" | "data"
    type: str
    name: str
    index: int | str | None
    provider: str  # provider["registry.terraform.io/hashicorp/aws"]
    actions: tuple[str, ...]
    before: dict[str, Any] | None  # prior attributes (marked), None when the object is new
    after: dict[str, Any] | None  # planned attributes (marked, may hold Unknown), None on delete
    replace_paths: list[list[str | int]] = field(default_factory=list)
    action_reason: str | None = None
    previous_address: str | None = None  # set when a ``moved`` block renamed it
    dependencies: list[str] = field(default_factory=list)  # resource addresses it depends on
    create_before_destroy: bool = False
    schema_version: int = 0
    deposed: str | None = None  # the key of a deposed object this change destroys
    importing_id: str | None = None  # an import block adopts the object this plan, from this ID

    def release_values(self) -> None:
        """Let go of ``before`` and ``after`` once applied, for an apply that reads them no more:
        a large apply's state takes the memory instead. Its address and actions stay for the summary."""
        self.before = self.after = None

    @property
    def is_replace(self) -> bool:
        return self.actions in (ACTIONS_REPLACE, ACTIONS_REPLACE_CBD)

    @property
    def is_noop(self) -> bool:
        return self.actions == ACTIONS_NOOP


@dataclass
class OutputChange:
    name: str
    actions: tuple[str, ...]
    before: Any
    after: Any  # may be Unknown
    sensitive: bool = False
    # The type of ``after`` in cty's JSON type encoding, known when ``after`` is: ``after`` is plain
    # data, which has lost the types of the nulls inside it. None when unknown, and in a plan file
    # written before plans recorded it.
    type: Any = None


@dataclass
class Plan:
    """A complete plan, as saved with ``--out`` and applied later."""

    changes: list[ResourceChange]
    drift: list[ResourceChange]  # objects changed outside ctl, found by refresh
    outputs: dict[str, OutputChange]
    prior_state: State  # the refreshed state the plan was computed against
    lineage: str  # of the stored state (the saved-plan staleness check)
    serial: int  # of the stored state; -1 when there was no state yet
    config_hash: str  # of every configuration file (a changed configuration is refused)
    variables: dict[str, Any] = field(default_factory=dict)  # root variable values (marked)
    workspace: str = "default"
    mode: str = "normal"  # "normal" | "destroy" | "refresh-only"
    timestamp: str = ""
    targets: list[str] = field(default_factory=list)
    excludes: list[str] = field(default_factory=list)
    policy_results: list[dict[str, Any]] = field(default_factory=list)
    policy_override: str | None = None
    errored: bool = False
    configuration: dict[str, Any] = field(default_factory=dict)  # Terraform's plan JSON "configuration"
    # How the plan makes its "configuration" when first asked (decoded from a plan file, or built
    # from the configuration just planned): see configuration_json.
    configuration_later: Callable[[], dict[str, Any]] | None = field(default=None, repr=False, compare=False)

    def release_configuration(self) -> None:
        """Let go of the "configuration" view for a caller that reads the plan no more as a
        document (an apply, once its policies are checked): a large plan file keeps a sizeable text
        of it. Asking for it afterwards is a bug, and says so."""
        self.configuration, self.configuration_later = {}, _released_configuration

    def configuration_json(self, *, keep: bool = True) -> dict[str, Any]:
        """Terraform's "configuration" object, made when first asked. A plan read from a file keeps
        it as text until a user policy or ``ctl show --json`` asks: decoded, it is many objects that an
        apply never reads. A plan just made builds it from the configuration only for a user
        policy, JSON output or a saved plan, since building it costs time and memory."""
        if self.configuration_later is None:
            return self.configuration
        if not keep:  # made for one use (saving the plan): nothing holds it after
            return self.configuration_later()
        self.configuration = self.configuration_later()
        self.configuration_later = None
        return self.configuration

    def counts(self) -> tuple[int, int, int]:
        """(add, change, destroy) as Terraform's summary line counts them."""
        add = change = destroy = 0
        for c in self.changes:
            if c.actions == ACTIONS_CREATE:
                add += 1
            elif c.actions == ACTIONS_UPDATE:
                change += 1
            elif c.actions == ACTIONS_DELETE:
                destroy += 1
            elif c.is_replace:
                add += 1
                destroy += 1
        return add, change, destroy

    @property
    def has_changes(self) -> bool:
        """True when applying would change infrastructure, outputs, or (refresh-only) the state.

        A ``moved`` rename is a change too: only applying it records the new address in state.
        """
        if any(not c.is_noop or c.previous_address or c.importing_id for c in self.changes):
            return True
        if any(o.actions != ACTIONS_NOOP for o in self.outputs.values()):
            return True
        return self.mode == "refresh-only" and bool(self.drift)


def _released_configuration() -> dict[str, Any]:
    raise RuntimeError("the plan's configuration was released after its last use")
