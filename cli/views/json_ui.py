"""``--json`` on plan, apply and destroy: Terraform's streamed machine-readable UI, one JSON object a line.

CI scripts and wrappers written for ``terraform plan -json`` / ``apply -json`` read this stream
unchanged: the first line is a ``version`` message, then, as things happen, ``refresh_start`` /
``refresh_complete``, ``resource_drift``, ``planned_change``, ``change_summary``, ``apply_start``,
``apply_progress`` (every ten seconds of a slow operation), ``apply_complete``, ``apply_errored``,
``outputs`` and ``diagnostic``. Every line carries ``@level``, ``@message``, ``@module`` (``ctl.ui``),
``@timestamp`` (RFC 3339) and ``type``; resource messages carry a ``hook.resource`` or
``change.resource`` object (``addr``, ``module``, ``resource``, ``implied_provider``,
``resource_type``, ``resource_name``, ``resource_key``). Readers skip types they do not know.

While a stream is open, stdout carries nothing else: every diagnostic the command prints through
``cli.output`` becomes a ``diagnostic`` line (warnings from ``output.warn`` too), and the human
renderers are skipped by the commands. Secrets never appear: sensitive outputs and ids are masked.
"""

from __future__ import annotations

import json
import sys
import threading
from datetime import datetime
from typing import Any, TextIO

from cli import output
from cli.progress import ProgressView
from cli.progress.tracker import Ticker, Tracker
from cli.progress.words import format_elapsed, shown_id, verbs
from vocab.errors import Diagnostic
from vocab.version import VERSION

# One encoder for every line (``json.dumps`` with options builds one per call): a large apply
# writes several lines per resource.
_LINE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode

UI_VERSION = "1.2"
MODULE = "ctl.ui"
MASK = "(sensitive value)"
PROGRESS_INTERVAL = 10.0  # seconds between apply_progress messages for one operation

# Terraform's change reasons, by the plan's action_reason.
CHANGE_REASONS = {
    "replace_because_tainted": "tainted",
    "replace_by_request": "requested",
    "replace_because_cannot_update": "cannot_update",
    "replace_by_triggers": "replace_by_triggers",
}


def timestamp() -> str:
    """RFC 3339 with microseconds and the local offset, as Terraform writes ``@timestamp``."""
    return datetime.now().astimezone().isoformat(timespec="microseconds")


def resource_json(address: str) -> dict[str, Any]:
    """The ``resource`` object of a hook or change message, from an instance address."""
    from engine.state.address import AddressError, InstanceAddress

    try:
        addr = InstanceAddress.parse(address)
    except AddressError:
        return {"addr": address, "module": "", "resource": address, "implied_provider": "",
                "resource_type": "", "resource_name": "", "resource_key": None}
    module = addr.module_str
    resource = address[len(module) + 1:] if module else address
    return {
        "addr": address,
        "module": module,
        "resource": resource,
        "implied_provider": addr.type.split("_", 1)[0],
        "resource_type": addr.type,
        "resource_name": addr.name,
        "resource_key": addr.key,
    }


def change_action(actions: tuple[str, ...], previous_address: str | None = None) -> str | None:
    """Terraform's single action word for a plan's action list; ``None`` for an unchanged object."""
    if actions in (("delete", "create"), ("create", "delete")):
        return "replace"
    if actions == ("no-op",):
        return "move" if previous_address else None
    return actions[0] if actions else None


class JsonUI(ProgressView):
    """The JSON-lines view of one run: an engine events callback plus the plan/apply messages."""

    def __init__(self, stream: TextIO | None = None, *, interval: float = PROGRESS_INTERVAL) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._interval = interval
        self._tracker = Tracker()
        self._ticker = Ticker(self._progress)

    # -- writing ----------------------------------------------------------------------------------

    def emit(self, type_: str, message: str, *, level: str = "info", **fields: Any) -> None:
        """Write one message line (flushed at once: a reader follows the run as it happens)."""
        with self._lock:  # the timestamp too: lines from several threads stay in time order
            doc = {"@level": level, "@message": message, "@module": MODULE, "@timestamp": timestamp(),
                   "type": type_, **fields}
            line = _LINE(doc)
            stream = self._stream or sys.stdout
            stream.write(line + "\n")
            stream.flush()

    def version(self) -> None:
        self.emit("version", f"ctl {VERSION}", ctl=VERSION, ui=UI_VERSION)

    def diagnostics(self, diags: list[Diagnostic]) -> None:
        for d in diags:
            label = "Error" if d.severity == "error" else "Warning"
            self.emit("diagnostic", f"{label}: {d.summary}", level="error" if d.severity == "error" else "warn",
                      diagnostic=output.diagnostic_json(d))

    def warn(self, message: str) -> None:
        self.diagnostics([Diagnostic("warning", message)])

    # -- the plan ---------------------------------------------------------------------------------

    def plan(self, plan: Any) -> None:
        """``resource_drift``, ``planned_change``, ``change_summary`` and planned ``outputs``."""
        for c in plan.drift:
            drifted = change_action(tuple(c.actions)) or "update"
            self.emit("resource_drift", f"{c.address}: Drift detected ({drifted})",
                      change=self._change(c, drifted))
        for c in plan.changes:
            planned = change_action(tuple(c.actions), c.previous_address)
            if planned is not None:
                self.emit("planned_change", f"{c.address}: Plan to {planned}", change=self._change(c, planned))
        add, change, remove = plan.counts()
        self.emit("change_summary", f"Plan: {add} to add, {change} to change, {remove} to destroy.",
                  changes={"add": add, "change": change, "import": 0, "remove": remove, "operation": "plan"})
        outputs = {}
        for name, oc in sorted(plan.outputs.items()):
            output_action = change_action(tuple(oc.actions))
            if output_action is not None:
                outputs[name] = {"sensitive": bool(oc.sensitive), "action": output_action}
        if outputs:
            self.emit("outputs", f"Outputs: {len(outputs)}", outputs=outputs)

    @staticmethod
    def _change(c: Any, action: str) -> dict[str, Any]:
        change: dict[str, Any] = {"resource": resource_json(c.address), "action": action}
        if c.previous_address:
            change["previous_resource"] = resource_json(c.previous_address)
        if c.action_reason:
            change["reason"] = CHANGE_REASONS.get(c.action_reason, c.action_reason)
        return change

    def policy(self, results: list[dict[str, Any]]) -> None:
        """Policy findings as diagnostics: failed ones as errors, overridden and advisory ones as warnings."""
        for r in results:
            severity = "error" if r.get("status") == "failed" else "warning"
            detail = f"{r.get('level', '')} policy, {r.get('status', '')}; defined in {r.get('file', '')}:{r.get('line', '')}"
            self.diagnostics([Diagnostic(severity, f"Policy {r.get('rule', '')}: {r.get('message', '')}",
                                         detail=detail, address=r.get("address") or None)])

    # -- the apply --------------------------------------------------------------------------------

    def apply_done(self, mode: str, result: Any, state: Any) -> None:
        """``change_summary`` (operation ``apply`` or ``destroy``) and the ``outputs`` of the new state.

        ``result`` is ``None`` when there was nothing to apply; ``state`` is the state the outputs
        are read from.
        """
        counts = getattr(result, "counts", None) or {"add": 0, "change": 0, "destroy": 0}
        add, change, remove = counts["add"], counts["change"], counts["destroy"]
        ok = result is None or result.ok
        if result is not None and result.interrupted:
            verb = "Apply interrupted"
        elif mode == "destroy":
            verb = "Destroy complete!" if ok else "Destroy failed."
        else:
            verb = "Apply complete!" if ok else "Apply failed."
        text = (f"{verb} Resources: {remove} destroyed." if mode == "destroy" and ok else
                f"{verb} Resources: {add} added, {change} changed, {remove} destroyed.")
        self.emit("change_summary", text, level="info" if ok else "error",
                  changes={"add": add, "change": change, "import": 0, "remove": remove,
                           "operation": "destroy" if mode == "destroy" else "apply"})
        if mode != "destroy" and state is not None and ok:
            self.outputs(state)

    def outputs(self, state: Any) -> None:
        outs = {name: {"sensitive": o.sensitive, "type": o.type,
                       "value": MASK if o.sensitive else o.value}
                for name, o in sorted(state.outputs.items())}
        self.emit("outputs", f"Outputs: {len(outs)}", outputs=outs)

    # -- engine events (the ProgressView interface) -----------------------------------------------

    def __call__(self, event: str, address: str, details: dict[str, Any]) -> None:
        action = str(details.get("action", ""))
        present, noun, _ = verbs(action)
        elapsed = float(details.get("elapsed", 0) or 0)
        ident = shown_id(details.get("id"))
        id_fields = {"id_key": "id", "id_value": ident} if ident else {}
        suffix = f" [id={ident}]" if ident else ""
        resource = resource_json(address) if address else None
        if event == "refresh_start":
            self.emit("refresh_start", f"{address}: Refreshing state...{suffix}",
                      hook={"resource": resource, **id_fields})
        elif event == "refresh_complete":
            self.emit("refresh_complete", f"{address}: Refresh complete{suffix}",
                      hook={"resource": resource, **id_fields})
        elif event == "apply_start":
            with self._lock:
                self._tracker.start(address, action, self._interval)
            self._ticker.ensure_started()
            self.emit("apply_start", f"{address}: {present}...", hook={"resource": resource, "action": action})
        elif event == "apply_complete":
            with self._lock:
                self._tracker.finish(address)
            self.emit("apply_complete", f"{address}: {noun} complete after {format_elapsed(elapsed)}{suffix}",
                      hook={"resource": resource, "action": action, **id_fields,
                            "elapsed_seconds": int(elapsed)})
        elif event == "provision_start":
            self.emit("provision_start", f"{address}: Provisioning with '{details.get('provisioner')}'...",
                      hook={"resource": resource, "provisioner": details.get("provisioner")})
        elif event == "provision_output":
            self.emit("provision_progress", f"{address}: ({details.get('provisioner')}): {details.get('line', '')}",
                      hook={"resource": resource, "provisioner": details.get("provisioner"),
                            "output": details.get("line", "")})
        elif event == "provision_errored":
            self.emit("provision_errored", f"{address}: Provisioning errored",
                      hook={"resource": resource, "provisioner": details.get("provisioner")}, level="error")
        elif event == "apply_errored":
            with self._lock:
                self._tracker.finish(address, str(details.get("error", "")))
            self.emit("apply_errored", f"{address}: {noun} errored after {format_elapsed(elapsed)}",
                      hook={"resource": resource, "action": action, "elapsed_seconds": int(elapsed)})

    def _progress(self) -> None:
        with self._lock:
            due = self._tracker.due(self._interval)
        for address, action, elapsed in due:
            self.emit("apply_progress",
                      f"{address}: Still {verbs(action)[2]}... [{format_elapsed(elapsed)} elapsed]",
                      hook={"resource": resource_json(address), "action": action,
                            "elapsed_seconds": int(elapsed)})

    def close(self) -> None:
        self._ticker.stop()


def start(stream: TextIO | None = None) -> JsonUI:
    """Open the stream for this run: the ``version`` line, and diagnostics routed into the stream."""
    from cli import output

    ui = JsonUI(stream)
    ui.version()
    output.set_diagnostic_sink(ui.diagnostics)
    return ui


def require_approval_source(auto_approve: bool, planfile: object) -> None:
    """``apply --json`` cannot ask a question: it needs ``--auto-approve`` or a saved plan (as Terraform)."""
    from vocab.errors import UsageError

    if not auto_approve and planfile is None:
        raise UsageError("--json needs --auto-approve or a saved plan file",
                         detail="ctl cannot ask for approval while printing machine-readable output.",
                         hint="Run `ctl apply --json --auto-approve`, or `ctl plan --out FILE` and "
                              "`ctl apply --json FILE`.")


__all__ = ["CHANGE_REASONS", "JsonUI", "MODULE", "UI_VERSION", "change_action", "require_approval_source", "resource_json",
           "start", "timestamp"]
