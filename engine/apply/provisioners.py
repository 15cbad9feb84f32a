"""Running ``local-exec`` provisioners: after an object is created, or before it is destroyed.

The command runs through its interpreter (``/bin/sh -c`` by default) in the configuration directory
(or ``working_dir``, relative to it), with ctl's environment plus ``environment``; its output, stdout
and stderr merged, is passed on line by line as it comes. Arguments are evaluated with ``self``
(the object's attributes), ``count.index`` and ``each`` bound. Output is suppressed when an argument
is sensitive, as Terraform does, and a failure's message never quotes a sensitive command.
"""

from __future__ import annotations

import collections
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config.provisioners import Provisioner
from engine.graph import Graph
from engine.lang.eval import EvalContext, evaluate
from engine.lang.types import BOOL, STRING, ListType, MapType, convert
from engine.plan.hooks import static_address
from engine.running_commands import RUNNING
from vocab.errors import CtlError
from vocab.types import plain_data
from vocab.values import deep_unmark, is_marked

DEFAULT_INTERPRETER = ("/bin/sh", "-c")
SUPPRESSED = "(output suppressed due to sensitive value in config)"
_TAIL = 10  # lines of output a failure's message repeats
_TYPES = {"command": STRING, "working_dir": STRING, "interpreter": ListType(STRING),
          "environment": MapType(STRING), "quiet": BOOL}
Emit = Callable[[str], None]


class ProvisionerFailed(CtlError):
    """A provisioner's command could not run or exited non-zero."""


@dataclass(frozen=True)
class Command:
    argv: list[str]
    cwd: Path
    environment: dict[str, str]
    quiet: bool
    sensitive: bool

    def shown(self) -> str:
        return "(sensitive value)" if self.sensitive else "[" + " ".join(f'"{a}"' for a in self.argv) + "]"


def prepare(provisioner: Provisioner, ctx: EvalContext, root_dir: Path, address: str) -> Command:
    """The command with its arguments evaluated and converted; an error names the argument."""
    values: dict[str, Any] = {}
    sensitive = False
    for name, attr in provisioner.arguments().items():
        value = convert(evaluate(attr.expr, ctx), _TYPES[name], path=name)
        sensitive = sensitive or is_marked(value)
        values[name] = plain_data(deep_unmark(value)[0])
    command = values.get("command")
    if not isinstance(command, str) or command == "":
        raise ProvisionerFailed(f"{address}: the local-exec provisioner's command is empty", range=provisioner.rng)
    interpreter = [str(a) for a in values.get("interpreter") or DEFAULT_INTERPRETER]
    working = values.get("working_dir")
    cwd = root_dir / working if working else root_dir
    env = {str(k): str(v) for k, v in (values.get("environment") or {}).items() if v is not None}
    return Command([*interpreter, command], cwd, env, bool(values.get("quiet")), sensitive)


def run(command: Command, address: str, emit: Emit) -> None:
    """Run to completion, streaming output; raises ``ProvisionerFailed`` on a non-zero exit."""
    if command.sensitive:
        emit(SUPPRESSED)
    elif not command.quiet:
        emit(f"Executing: {command.shown()}")
    tail: collections.deque[str] = collections.deque(maxlen=_TAIL)
    RUNNING.prepare()
    try:
        process = subprocess.Popen(command.argv, cwd=command.cwd, env={**os.environ, **command.environment},
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, errors="replace", bufsize=1, process_group=0)
    except OSError as exc:
        raise ProvisionerFailed(f"{address}: local-exec provisioner error: cannot run {command.argv[0]}: "
                                f"{exc.strerror or exc}",
                                hint="Check the interpreter and working_dir of the provisioner.") from None
    assert process.stdout is not None
    RUNNING.add(process.pid)
    try:
        with process:
            for raw in process.stdout:
                line = raw.rstrip("\n")
                if not command.sensitive:
                    tail.append(line)
                    emit(line)
            status = process.wait()
    finally:
        cancelled = RUNNING.remove(process.pid)
    if cancelled:
        raise ProvisionerFailed(f"{address}: local-exec provisioner cancelled by the interrupt",
                                hint="The object stays tainted; the next apply replaces it.")
    if status != 0:
        detail = "" if command.sensitive else f"Command: {command.shown()}"
        if tail:
            detail += "\nLast output:\n  " + "\n  ".join(tail)
        raise ProvisionerFailed(f"{address}: local-exec provisioner error: the command exited with status {status}",
                                detail=detail.strip(),
                                hint="Fix the command; the object stays tainted and the next apply replaces it.")


def run_all(provisioners: list[Provisioner], when: str, ctx: EvalContext, root_dir: Path, address: str,
            emit: Emit, warn: Callable[[CtlError], None], starting: Emit | None = None) -> None:
    """Run the provisioners for ``when`` in order; ``on_failure = continue`` turns a failure into a warning."""
    for provisioner in provisioners:
        if provisioner.when != when:
            continue
        if starting is not None:
            starting(provisioner.type)
        try:
            run(prepare(provisioner, ctx, root_dir, address), address, emit)
        except CtlError as err:
            if provisioner.on_failure != "continue":
                raise
            warn(err)


def destroy_context(fixed: dict[str, Any], func_ctx: Any, key: Any, before: Any) -> EvalContext:
    """What a destroy-time provisioner may refer to when the walk did not evaluate its resource
    (``ctl destroy``): ``self``, ``count.index`` or ``each.key``, ``path`` and ``terraform``, as in
    Terraform, which forbids every other reference there."""
    bindings: dict[str, object] = {**fixed, "self": before}
    if isinstance(key, int):
        bindings["count"] = {"index": key}
    elif isinstance(key, str):
        bindings["each"] = {"key": key}
    return EvalContext(bindings, func_ctx)


class ResourceProvisioners:
    """The provisioners of each resource of a graph, by the resource's address.

    Asked about four times per instance during an apply, so a configuration without any answers
    without parsing the instance's address.
    """

    def __init__(self, graph: Graph | None) -> None:
        self._graph = graph
        self._by_resource: dict[str, list[Provisioner]] | None = None  # only those that have any

    def of(self, addr: str, when: str) -> list[Provisioner]:
        """The ``when`` (create or destroy) provisioners of the resource ``addr`` is an instance of."""
        if self._by_resource is None:
            nodes = self._graph.nodes.items() if self._graph is not None else ()
            self._by_resource = {str(n): found for n, res in nodes if (found := getattr(res, "provisioners", None))}
        if not self._by_resource:
            return []
        return [p for p in self._by_resource.get(static_address(addr), ()) if p.when == when]
