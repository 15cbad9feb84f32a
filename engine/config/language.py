"""The blocks of the language itself: which arguments and nested blocks each one takes.

One description serves two readers: the JSON and YAML loaders, which must know a block's labels and
nesting to read it, and the name check, which refuses what a block does not take (a misspelt
``prevent_destroy`` would otherwise silently remove a protection).
"""

from __future__ import annotations

from engine.lang.syntax import BlockSchema


def closed(attributes: tuple[str, ...] = (), blocks: dict[str, tuple[int, BlockSchema]] | None = None,
            literal: frozenset[str] = frozenset()) -> BlockSchema:
    """The schema of a block of the language itself: every argument and nested block it takes."""
    return BlockSchema(blocks=blocks or {}, literal_attributes=literal, attributes=frozenset(attributes),
                       other_blocks=False)


OPEN = BlockSchema()  # a body whose names are not the language's (a backend's, a provider's)
CONDITION = closed(("condition", "error_message"))
# ``enabled`` and ``destroy`` are OpenTofu's; they are recognised so that ctl can say it does not
# act on them rather than call them misspelt.
LIFECYCLE = closed(
    ("create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by", "enabled", "destroy"),
    {"precondition": (0, CONDITION), "postcondition": (0, CONDITION)},
)
MANAGED_ONLY = frozenset({"create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by",
                           "destroy"})
# A resource's arguments and nested blocks are its provider's (checked against the provider's
# schema); only the meta-blocks are the language's. Connection blocks are checked only where a
# provisioner uses them, as Terraform does.
RESOURCE = BlockSchema(
    blocks={
        "lifecycle": (0, LIFECYCLE),
        "provisioner": (1, BlockSchema(blocks={"connection": (0, OPEN)})),
        "connection": (0, OPEN),
    }
)
DATA = BlockSchema(blocks={"lifecycle": (0, LIFECYCLE)})  # the managed-only arguments: see _lifecycle
VARIABLE = closed(
    ("description", "default", "type", "sensitive", "nullable", "ephemeral", "const", "deprecated"),
    {"validation": (0, CONDITION)},
    literal=frozenset({"default"}),
)
# ``postcondition`` is named so that it is refused as OpenTofu refuses it, not as a misspelling.
OUTPUT = closed(("description", "value", "depends_on", "sensitive", "ephemeral", "deprecated"),
                  {"precondition": (0, CONDITION), "postcondition": (0, CONDITION)})
TERRAFORM = closed(
    ("required_version", "experiments", "language"),
    {
        "backend": (1, OPEN),
        "cloud": (0, OPEN),
        "required_providers": (0, OPEN),
        "provider_meta": (1, OPEN),
        "encryption": (0, OPEN),
    },
)
MODULE = BlockSchema(blocks={"lifecycle": (0, closed(("enabled",)))}, other_blocks=False)
REMOVED = closed(("from",), {"lifecycle": (0, closed(("destroy",))), "provisioner": (1, OPEN)})

#: What the JSON and YAML readers need to know about top-level blocks, and which names each
#: block of the language takes (``engine.config.names``).
FILE_SCHEMA = BlockSchema(
    blocks={
        "terraform": (0, TERRAFORM),
        "provider": (1, OPEN),
        "variable": (1, VARIABLE),
        "locals": (0, OPEN),
        "output": (1, OUTPUT),
        "resource": (2, RESOURCE),
        "data": (2, DATA),
        "ephemeral": (2, OPEN),
        "required_providers": (0, OPEN),  # misplaced: refused with where it belongs
        "module": (1, MODULE),
        "moved": (0, closed(("from", "to"))),
        "check": (1, closed((), {"assert": (0, CONDITION), "data": (2, DATA)})),
        "import": (0, closed(("to", "id", "provider", "for_each", "identity"))),
        "removed": (0, REMOVED),
        # OpenTofu's: which language edition and OpenTofu versions a module is written for; nothing
        # ctl acts on, but refusing it would refuse a module OpenTofu accepts.
        "language": (0, closed(("edition", "experiments"), {"compatible_with": (0, OPEN)})),
    }
)

REQUIRED_PROVIDER_KEYS = frozenset({"source", "version", "configuration_aliases"})
RESOURCE_META = frozenset({"count", "for_each", "provider", "depends_on"})
META_BLOCKS = frozenset({"lifecycle", "provisioner", "connection"})
DATA_META_BLOCKS = frozenset({"lifecycle"})
MODULE_META = frozenset({"source", "version", "count", "for_each", "depends_on", "providers"})
LABELS = {"ephemeral": 2, "provider": 1, "variable": 1, "output": 1, "resource": 2, "data": 2, "module": 1, "check": 1}
