"""``provisioner`` blocks of a resource, decoded: which kind, when it runs, what a failure does.

ctl runs ``local-exec`` provisioners (a command on the machine running ctl), the escape hatch most
configurations use. ``remote-exec`` and ``file`` need a ``connection`` to the object and are refused
when the configuration is loaded, not half-way through an apply. ``when`` and ``on_failure`` take
Terraform's keywords (``destroy``; ``continue`` or ``fail``), read without evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config.names import NameCheck
from engine.lang import ast
from engine.lang.syntax import Attribute, Block, BlockSchema, Body
from vocab.errors import Diagnostics, SourceRange

LOCAL_EXEC = "local-exec"
#: What a ``connection`` block takes: every argument of every connection type, as Terraform checks it.
CONNECTION = BlockSchema(
    attributes=frozenset({
        "type", "host", "user", "password", "port", "timeout", "script_path", "target_platform",
        "private_key", "certificate", "host_key", "agent", "agent_identity",
        "proxy_scheme", "proxy_host", "proxy_port", "proxy_user_name", "proxy_user_password",
        "bastion_host", "bastion_host_key", "bastion_port", "bastion_user", "bastion_password",
        "bastion_private_key", "bastion_certificate", "https", "insecure", "use_ntlm", "cacert",
    }),
    other_blocks=False,
)
ARGUMENTS = frozenset({"command", "interpreter", "working_dir", "environment", "quiet"})
KEYWORDS = frozenset({"when", "on_failure"})
_PROVISIONER = BlockSchema(blocks={"connection": (0, CONNECTION)}, attributes=ARGUMENTS | KEYWORDS, other_blocks=False)


@dataclass(frozen=True)
class Provisioner:
    type: str
    body: Body  # the arguments (``when`` and ``on_failure`` included, never evaluated)
    rng: SourceRange
    when: str = "create"  # "create" or "destroy"
    on_failure: str = "fail"  # "fail" or "continue"

    def arguments(self) -> dict[str, Attribute]:
        return {n: a for n, a in self.body.attributes.items() if n not in KEYWORDS}


def decode_provisioners(blocks: list[Block], diags: Diagnostics, names: NameCheck | None = None) -> list[Provisioner]:
    """The provisioners ctl runs; ``names`` reports what a block does not take (its nested blocks,
    the arguments of its ``connection``)."""
    names = names if names is not None else NameCheck(diags, structured=False)
    out = []
    for block in blocks:
        kind = block.labels[0] if block.labels else ""
        if kind != LOCAL_EXEC:
            diags.error(f'Provisioner "{kind}" is not supported', range=block.rng,
                        detail="ctl runs local-exec provisioners only; remote-exec and file need a connection "
                               "to the object, which ctl does not open.",
                        hint="Use a local-exec provisioner, or configure the object through its provider.")
            continue
        for name, attr in block.body.attributes.items():
            if name not in ARGUMENTS | KEYWORDS:
                diags.error(f'Unsupported argument "{name}" in a local-exec provisioner', range=attr.name_rng,
                            hint="local-exec takes command, interpreter, working_dir, environment and quiet.")
        for nested in block.body.blocks:
            if nested.type == "connection":
                names.body(nested.body, CONNECTION, "connection")
            else:
                names.block(nested, _PROVISIONER, 'a "provisioner" block')
        if "command" not in block.body.attributes:
            diags.error('The local-exec provisioner needs "command"', range=block.rng)
        when = _keyword(block.body.attr("when"), ("create", "destroy"), "create", diags)
        on_failure = _keyword(block.body.attr("on_failure"), ("fail", "continue"), "fail", diags)
        out.append(Provisioner(kind, block.body, block.rng, when, on_failure))
    return out


def _keyword(attr: Attribute | None, allowed: tuple[str, ...], default: str, diags: Diagnostics) -> str:
    if attr is None:
        return default
    expr = attr.expr
    if isinstance(expr, ast.ScopeTraversal) and not expr.steps and expr.root in allowed:
        return expr.root
    if isinstance(expr, ast.Literal) and expr.value in allowed:  # JSON and YAML specs spell it as a string
        return str(expr.value)
    diags.error(f'"{attr.name}" must be one of: {", ".join(allowed)}', range=expr.rng,
                hint=f"Write the keyword itself, e.g. {attr.name} = {allowed[-1]}.")
    return default
