"""``--timings`` / ``CTL_TIMINGS=1`` end to end: the real ``ctl`` says where a plan or an apply spent its time.

The configuration has a resource that is slow on purpose (``time_sleep``), one of HashiCorp's
``random`` provider served as a plugin from ``../shared/providers``, and a module: the slow resource
must head the table, every resource must be in it, the waits must be there, and the same report
must reach the JSON UI and the GitHub job summary. Without the option, nothing of it appears.

The traces of the same runs are checked twice: against a loopback OTLP/HTTP receiver in this file
(quick, and it sees the raw request bytes), and against the OpenTelemetry Collector's own OTLP
receiver built from the Go module proxy (``tests/otel_collector.py``), over HTTP and gRPC.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import REPO, Project, background, communicate, release_lock, take_lock

MIRROR = REPO.parent / "shared" / "providers"

CONFIG = """
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
  }
}

resource "time_sleep" "slow" {
  create_duration = "1500ms"
}

resource "random_pet" "name" {
  length = 2
}

module "m" {
  source = "./mod"
  name   = random_pet.name.id
}
"""

MODULE = """
variable "name" {
  type = string
}

resource "terraform_data" "inner" {
  input = var.name
}
"""


def _need_mirror() -> None:
    if not (MIRROR / "registry.terraform.io" / "hashicorp" / "random").is_dir():
        reason = f"HashiCorp's providers are not at {MIRROR} (see its README)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    _need_mirror()
    project = Project(tmp_path)
    project.write(CONFIG)
    (tmp_path / "mod").mkdir()
    project.write(MODULE, "mod/main.tf")
    project.ok("init", "-plugin-dir", str(MIRROR))
    return project


def _rows(stderr: str) -> list[list[str]]:
    """The table's rows (what, kind…, seconds) as printed on standard error."""
    lines = stderr.split("Timings (total ", 1)[1].splitlines()[1:]
    return [line.split() for line in lines if line.startswith("  ") and line.rstrip().endswith("s")]


def _json_timings(stdout: str) -> dict[str, Any]:
    messages = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    (timings,) = [m["timings"] for m in messages if m["type"] == "timings"]
    return timings


def test_the_slowest_resource_heads_the_table_after_an_apply_and_a_plan(project: Project) -> None:
    applied = project.ok("apply", "--auto-approve", "--timings")
    assert "Apply complete!" in applied.stdout and "Timings" not in applied.stdout  # the report is on stderr
    rows = _rows(applied.stderr)
    resources = [r for r in rows if r[0] not in ("waiting",) and r[1] not in ("phase",)]
    assert resources[0][:3] == ["time_sleep.slow", "apply", "create"], applied
    assert float(resources[0][-1].rstrip("s")) >= 1.5
    assert {r[0] for r in resources} >= {"time_sleep.slow", "random_pet.name", "module.m.terraform_data.inner"}
    phases = [r[0] for r in rows if r[1] == "phase"]
    assert phases[0] == "load" and phases.index("plan") < phases.index("apply") < phases.index("persist")
    assert {" ".join(r[:3]) for r in rows if r[0] == "waiting"} == \
        {"waiting on lock", "waiting on providers", "waiting on backend", "waiting on cloud"}

    planned = project.ctl("plan", "--detailed-exitcode", env={"CTL_TIMINGS": "1"})
    assert planned.code == 0, planned
    steps = {(r[0], r[1]) for r in _rows(planned.stderr) if r[0] != "waiting" and r[1] != "phase"}
    assert ("random_pet.name", "refresh") in steps and ("module.m.terraform_data.inner", "plan") in steps
    assert not any(step == "apply" for _, step in steps)


def test_without_the_option_nothing_is_shown(project: Project) -> None:
    for result in (project.ok("apply", "--auto-approve"), project.ok("plan")):
        assert "Timings" not in result.output and "waiting on" not in result.output


def test_the_json_ui_and_the_job_summary_carry_the_report(project: Project, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    applied = project.ok("apply", "--auto-approve", "--json", "--timings",
                         env={"GITHUB_STEP_SUMMARY": str(summary)})
    timings = _json_timings(applied.stdout)
    slowest = timings["slowest_resources"][0]
    assert (slowest["address"], slowest["step"], slowest["action"]) == ("time_sleep.slow", "apply", "create")
    assert slowest["seconds"] >= 1.5 and timings["total_seconds"] >= slowest["seconds"]
    assert next(p["name"] for p in timings["phases"]) == "load"
    assert set(timings["waiting"]) == {"lock", "providers", "backend", "cloud"}
    text = summary.read_text()
    assert "### Timings" in text and "| `time_sleep.slow` | apply create |" in text
    assert all(f"| waiting on {kind} | wait |" in text for kind in ("lock", "providers", "backend", "cloud"))

    no_option = project.ok("plan", "--json", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert '"type":"timings"' not in no_option.stdout
    assert summary.read_text().count("### Timings") == 1


def test_time_waiting_for_the_state_lock_is_reported(project: Project) -> None:
    project.ok("apply", "--auto-approve")
    lock_id = take_lock(project, "someone else's run")
    started = time.monotonic()
    proc = project.start("plan", "--lock", "--lock-timeout", "60s", "--json", "--timings")
    with background(proc):
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the version line: written before loading, so before the lock is tried
        assert '"type":"version"' in first, first
        time.sleep(3.0)
        release_lock(project, lock_id)
        planned = communicate(proc)
    ran = time.monotonic() - started
    assert planned.code == 0, planned
    waited = _json_timings(first + planned.stdout)["waiting"]["lock"]
    # At least one retry (the lock outlasted loading, which comes between the version line and the first
    # try), and no more than the whole run. Retries back off 1, 2, 4 s, so the figure is 1, 3 or 7 s
    # depending on when the unlock (a ctl process of its own, slow on a loaded machine) lands.
    assert 1.0 <= waited < ran, (ran, planned)


# ---- OpenTelemetry traces -------------------------------------------------------------------------
#
# The collector here is a loopback OTLP/HTTP receiver the test starts: it decodes each export request
# with OpenTelemetry's own protobuf classes, as a collector's otlpreceiver does, and keeps the raw
# bytes too, so a test can check that no secret went over the wire.

SECRET = "s3cr3t-token-value-0451"

TRACED_CONFIG = CONFIG + f"""
variable "token" {{
  type      = string
  sensitive = true
  default   = "{SECRET}"
}}

resource "terraform_data" "uses_secret" {{
  input = var.token
}}
"""

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_SPAN = "00f067aa0ba902b7"


class _Collector:
    """A loopback OTLP/HTTP trace receiver: every export request, raw and decoded into spans."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
            ExportTraceServiceResponse,
        )

        self.raw: list[bytes] = []
        self.spans: list[dict[str, Any]] = []
        self.services: set[str] = set()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    import gzip

                    body = gzip.decompress(body)
                collector.raw.append(body)
                request = ExportTraceServiceRequest.FromString(body)
                for rs in request.resource_spans:
                    for kv in rs.resource.attributes:
                        if kv.key == "service.name":
                            collector.services.add(kv.value.string_value)
                    for ss in rs.scope_spans:
                        for span in ss.spans:
                            collector.spans.append({
                                "name": span.name, "id": span.span_id.hex(), "parent": span.parent_span_id.hex(),
                                "trace": span.trace_id.hex(), "status": span.status.code,
                                "start": span.start_time_unix_nano, "end": span.end_time_unix_nano,
                                "attrs": {kv.key: kv.value.string_value or kv.value.int_value
                                          for kv in span.attributes}})
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def named(self, name: str) -> list[dict[str, Any]]:
        return [s for s in self.spans if s["name"] == name]

    def parent_name(self, span: dict[str, Any]) -> str:
        (parent,) = [s["name"] for s in self.spans if s["id"] == span["parent"]] or ["<outside>"]
        return parent


@pytest.fixture
def collector() -> Any:
    c = _Collector()
    yield c
    c.close()


def _otel(collector: _Collector, **extra: str) -> dict[str, str]:
    return {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint, "OTEL_SERVICE_NAME": "infra-pipeline", **extra}


def test_an_apply_and_a_plan_are_each_one_trace_with_the_expected_tree(project: Project,
                                                                       collector: _Collector) -> None:
    project.write(TRACED_CONFIG)
    project.ok("apply", "--auto-approve",
               env=_otel(collector, TRACEPARENT=f"00-{TRACE_ID}-{PARENT_SPAN}-01"))
    assert collector.services == {"infra-pipeline"}
    (root,) = collector.named("ctl apply")
    assert root["parent"] == PARENT_SPAN and {s["trace"] for s in collector.spans} == {TRACE_ID}
    assert root["attrs"]["ctl.command"] == "apply"
    children = {s["name"] for s in collector.spans if s["parent"] == root["id"]}
    assert {"load", "state.lock", "state.read", "plan", "policy", "apply", "persist"} <= children
    assert {collector.parent_name(s) for s in collector.named("state.write")} == {"persist"}
    for part in ("parse", "graph", "evaluate"):
        assert [collector.parent_name(s) for s in collector.named(part)] == ["load"]
    assert [collector.parent_name(s) for s in collector.named("diff")] == ["plan"]

    applied = {s["attrs"]["ctl.resource.address"]: s for s in collector.named("resource.apply")}
    assert set(applied) == {"time_sleep.slow", "random_pet.name", "module.m.terraform_data.inner",
                            "terraform_data.uses_secret"}
    pet = applied["random_pet.name"]
    assert collector.parent_name(pet) == "apply"
    assert pet["attrs"]["ctl.resource.action"] == "create" and pet["attrs"]["ctl.resource.outcome"] == "ok"
    assert "hashicorp/random" in pet["attrs"]["ctl.provider"]
    assert applied["module.m.terraform_data.inner"]["attrs"]["ctl.module"] == "module.m"
    slow = applied["time_sleep.slow"]
    assert slow["end"] - slow["start"] >= 1.5e9
    planned = collector.named("resource.plan")
    assert {collector.parent_name(s) for s in planned} == {"diff"} and len(planned) == 4
    by_id = {s["id"]: s for s in collector.spans}

    def random_calls(operation: str) -> list[dict[str, Any]]:
        return [s for s in collector.named(f"provider.{operation}") if "hashicorp/random" in s["attrs"]["ctl.provider"]]

    # Each provider call is a span under the resource step that made it: the plan's under the
    # resource's plan, the apply's (which plans once more before applying) under its apply.
    plan_calls = random_calls("PlanResourceChange")
    assert {(collector.parent_name(s), by_id[s["parent"]]["attrs"]["ctl.resource.address"]) for s in plan_calls} \
        == {("resource.plan", "random_pet.name"), ("resource.apply", "random_pet.name")}
    (create,) = random_calls("ApplyResourceChange")
    assert create["attrs"]["rpc.system"] == "grpc" and create["attrs"]["ctl.rpc.outcome"] == "ok"
    assert collector.parent_name(create) == "resource.apply"
    assert by_id[create["parent"]]["attrs"]["ctl.resource.address"] == "random_pet.name"
    assert not any(SECRET.encode() in raw for raw in collector.raw)

    collector.spans.clear()
    project.ok("plan", env=_otel(collector))
    (root,) = collector.named("ctl plan")
    assert root["parent"] == "" and "apply" not in {s["name"] for s in collector.spans}
    refreshed = collector.named("resource.refresh")
    assert len(refreshed) == 4 and {collector.parent_name(s) for s in refreshed} == {"refresh"}
    assert [collector.parent_name(s) for s in collector.named("refresh")] == ["plan"]
    by_id = {s["id"]: s for s in collector.spans}
    reads = [s for s in collector.named("provider.ReadResource") if "hashicorp/random" in s["attrs"]["ctl.provider"]]
    assert len(reads) == 1 and by_id[reads[0]["parent"]]["attrs"]["ctl.resource.address"] == "random_pet.name"
    assert not any(SECRET.encode() in raw for raw in collector.raw)


def test_a_failed_command_is_a_trace_marked_as_failed(project: Project, collector: _Collector) -> None:
    project.write(CONFIG + '\nresource "terraform_data" "bad" {\n  input = file("missing.txt")\n}\n')
    failed = project.ctl("plan", env=_otel(collector))
    assert failed.code == 1 and "Traceback" not in failed.output, failed
    (root,) = collector.named("ctl plan")
    assert root["status"] == 2  # STATUS_CODE_ERROR
    assert root["attrs"]["error.type"]


def test_an_unreachable_collector_costs_at_most_its_timeout_and_one_warning(project: Project) -> None:
    """A port nobody listens on, and one that takes connections but never answers (over HTTP and
    gRPC): the run succeeds, with one warning, no later than the exporter's timeout allows."""
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        refused = s.getsockname()[1]
    silent = socket.socket()  # the kernel takes the connections; nobody ever reads or answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)
    started = time.monotonic()
    project.ok("plan")
    baseline = time.monotonic() - started
    try:
        for port, protocol in ((refused, "http/protobuf"), (silent.getsockname()[1], "http/protobuf"),
                               (silent.getsockname()[1], "grpc")):
            started = time.monotonic()
            planned = project.ok("plan", env={"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
                                              "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
                                              "OTEL_EXPORTER_OTLP_TIMEOUT": "2"})
            took = time.monotonic() - started
            assert took < baseline + 2 + 3, (protocol, port, took, baseline)
            warnings = [line for line in planned.stderr.splitlines() if "trace" in line.lower()]
            assert len(warnings) == 1 and f"127.0.0.1:{port}" in warnings[0], planned
    finally:
        silent.close()


def test_with_tracing_off_the_sdk_is_not_even_imported(project: Project) -> None:
    quiet = project.ok("plan", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert "opentelemetry.sdk" not in quiet.stderr
    traced = project.ok("plan", env={"PYTHONPROFILEIMPORTTIME": "1", "OTEL_TRACES_EXPORTER": "console"})
    assert "opentelemetry.sdk" in traced.stderr
    version = project.ok("--version", env={"PYTHONPROFILEIMPORTTIME": "1", "OTEL_TRACES_EXPORTER": "otlp"})
    assert "opentelemetry" not in version.stderr


# ---- the same, received by the OpenTelemetry Collector's own OTLP receiver ------------------------


@pytest.mark.parametrize("protocol", ["http/protobuf", "grpc"])
def test_the_collector_receives_the_span_tree_of_an_apply(project: Project, tmp_path: Path, protocol: str) -> None:
    from tests.otel_collector import running

    project.write(TRACED_CONFIG)
    with running(tmp_path) as collector:
        endpoint = collector.http_endpoint if protocol == "http/protobuf" else collector.grpc_endpoint
        project.ok("apply", "--auto-approve",
                   env={"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
                        "OTEL_SERVICE_NAME": "infra-pipeline", "TRACEPARENT": f"00-{TRACE_ID}-{PARENT_SPAN}-01"})
        spans = collector.wait_for("ctl apply")
    by_id = {s["id"]: s for s in spans}

    def parent(span: dict[str, Any]) -> str:
        return by_id[span["parent"]]["name"] if span["parent"] in by_id else span["parent"]

    (root,) = [s for s in spans if s["name"] == "ctl apply"]
    assert parent(root) == PARENT_SPAN and {s["trace"] for s in spans} == {TRACE_ID}
    assert {s["service"] for s in spans} == {"infra-pipeline"}
    assert {s["name"] for s in spans if s["parent"] == root["id"]} >= \
        {"load", "state.lock", "state.read", "plan", "policy", "apply", "persist"}
    applied = {s["attrs"]["ctl.resource.address"]: s for s in spans if s["name"] == "resource.apply"}
    assert {parent(s) for s in applied.values()} == {"apply"}
    pet = applied["random_pet.name"]["attrs"]
    assert (pet["ctl.resource.action"], pet["ctl.resource.outcome"]) == ("create", "ok")
    assert "hashicorp/random" in pet["ctl.provider"]
    assert applied["module.m.terraform_data.inner"]["attrs"]["ctl.module"] == "module.m"
    assert {parent(s) for s in spans if s["name"] == "resource.plan"} == {"diff"}
    assert not any(SECRET in line for line in collector.raw)


FAILING = """
resource "local_file" "bad" {
  filename = "${path.module}/mod"
  content  = var.token
}
"""


def test_the_collector_receives_the_span_tree_of_a_plan_and_an_apply_with_a_module_a_plugin_and_s3(
        tmp_path: Path, moto_server_clean: Any) -> None:
    """One configuration with a module, HashiCorp's random provider as a plugin and its state in S3
    (on moto): the spans the collector's file export holds have the expected parents, names and
    attributes, for an apply, a locked plan, and an apply that fails, none of them with the secret."""
    from tests.e2e.test_e2e_backends import project_for, s3_remote
    from tests.otel_collector import running

    _need_mirror()
    remote = s3_remote(moto_server_clean)
    app = project_for(tmp_path / "app", remote, TRACED_CONFIG)
    (app.root / "mod").mkdir()
    app.write(MODULE, "mod/main.tf")
    app.ok("init", "-plugin-dir", str(MIRROR), *remote.init_args)
    with running(tmp_path) as collector:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.http_endpoint, "OTEL_SERVICE_NAME": "infra-pipeline"}
        app.ok("apply", "--auto-approve", env=env)
        applied = collector.wait_for("ctl apply")
        timed = app.ok("plan", "--lock", "--timings", env=env)
        planned = [s for s in collector.wait_for("ctl plan") if s["trace"] != applied[0]["trace"]]
        app.write(TRACED_CONFIG + FAILING)
        failed = app.ctl("apply", "--auto-approve", env=env)
        assert failed.code == 1 and "Traceback" not in failed.output, failed
        spans = collector.wait_for("ctl apply", count=2)
        seen = {s["trace"] for s in applied}
        failing = [s for s in spans if s["trace"] not in seen and s["trace"] != planned[0]["trace"]]
    assert remote.state()["resources"]
    assert not any(SECRET in line for line in collector.raw)

    # The plan's report: the S3 requests (lock, read, unlock) are time waiting on the cloud, part of the
    # time waiting on the backend and the lock.
    waited = {r[2]: float(r[-1].rstrip("s")) for r in _rows(timed.stderr) if r[0] == "waiting"}
    assert 0 < waited["cloud"] <= waited["backend"] + waited["lock"], timed.stderr

    # The apply: phases and state operations under the root, each module's loading under parse.
    tree = _Tree(applied)
    (root,) = tree.named("ctl apply")
    assert tree.children(root) >= {"load", "state.lock", "state.read", "plan", "policy", "apply", "persist",
                                    "state.unlock"}
    modules = {s["attrs"].get("ctl.module", ""): s for s in tree.named("load.module")}
    assert set(modules) == {"", "module.m"} and {tree.parent(s)["name"] for s in modules.values()} == {"parse"}
    assert (modules[""]["attrs"]["ctl.module.dir"], modules[""]["attrs"]["ctl.module.files"]) == (".", "2")
    assert (modules["module.m"]["attrs"]["ctl.module.dir"], modules["module.m"]["attrs"]["ctl.module.files"]) == \
        ("mod", "1")
    for name, parent in (("state.lock", "ctl apply"), ("state.read", "ctl apply"), ("state.write", "persist"),
                         ("state.unlock", "ctl apply")):
        (op,) = tree.named(name)
        assert tree.parent(op)["name"] == parent, name
        assert (op["attrs"]["ctl.backend"], op["attrs"]["ctl.workspace"]) == ("s3", "default"), name
        assert op["status"] == 0, name

    # Each resource's plan under diff, its apply under apply, each provider call under its step.
    steps = {(s["name"], s["attrs"]["ctl.resource.address"]): s for s in tree.named("resource.plan", "resource.apply")}
    assert {tree.parent(s)["name"] for (step, _), s in steps.items() if step == "resource.plan"} == {"diff"}
    assert {tree.parent(s)["name"] for (step, _), s in steps.items() if step == "resource.apply"} == {"apply"}
    pet = steps[("resource.apply", "random_pet.name")]["attrs"]
    assert (pet["ctl.resource.action"], pet["ctl.resource.outcome"]) == ("create", "ok")
    assert pet["ctl.provider"].endswith('registry.terraform.io/hashicorp/random"]')
    inner = steps[("resource.apply", "module.m.terraform_data.inner")]["attrs"]
    assert (inner["ctl.module"], inner["ctl.resource.action"]) == ("module.m", "create")
    calls = [s for s in applied if s["name"].startswith("provider.") and "hashicorp/random" in s["attrs"]["ctl.provider"]]
    (create,) = [s for s in calls if s["name"] == "provider.ApplyResourceChange"]
    assert (tree.parent(create)["name"], tree.parent(create)["attrs"]["ctl.resource.address"]) == \
        ("resource.apply", "random_pet.name")
    assert (create["attrs"]["rpc.system"], create["attrs"]["ctl.rpc.outcome"]) == ("grpc", "ok")
    plans = [tree.parent(s) for s in calls if s["name"] == "provider.PlanResourceChange"]
    assert {(p["name"], p["attrs"].get("ctl.resource.address")) for p in plans} == \
        {("resource.plan", "random_pet.name"), ("resource.apply", "random_pet.name")}

    # The locked plan: the lock, the read and the unlock in S3; each refresh's read under its step.
    tree = _Tree(planned)
    (root,) = tree.named("ctl plan")
    assert tree.children(root) >= {"load", "state.lock", "state.read", "plan", "policy", "state.unlock"}
    assert "apply" not in {s["name"] for s in planned} and not tree.named("state.write")
    assert {s["attrs"]["ctl.backend"] for s in tree.named("state.lock", "state.read", "state.unlock")} == {"s3"}
    refreshed = tree.named("resource.refresh")
    assert len(refreshed) == 4 and {tree.parent(s)["name"] for s in refreshed} == {"refresh"}
    (read,) = [s for s in planned if s["name"] == "provider.ReadResource" and "hashicorp/random" in s["attrs"]["ctl.provider"]]
    assert tree.parent(read)["attrs"]["ctl.resource.address"] == "random_pet.name"

    # The failed apply: the root and the failed step in error, with the message the user saw, masked.
    tree = _Tree(failing)
    (root,) = tree.named("ctl apply")
    assert root["status"] == 2  # STATUS_CODE_ERROR
    assert (root["attrs"]["error.type"], root["message"]) == ("ApplyFailed", "1 operation failed: local_file.bad")
    (step,) = [s for s in tree.named("resource.apply") if s["attrs"]["ctl.resource.address"] == "local_file.bad"]
    assert step["status"] == 2 and step["attrs"]["ctl.resource.outcome"] == "failed"
    (event,) = step["events"]
    assert event["name"] == "exception" and event["attrs"]["exception.type"] == step["attrs"]["error.type"]
    message = event["attrs"]["exception.message"]
    assert message and message == step["message"] and "\n" not in message
    assert message in failed.output  # the first line of what the user was shown


class _Tree:
    """The spans of one trace, by name and by parent."""

    def __init__(self, spans: list[dict[str, Any]]) -> None:
        self.spans = spans
        self.by_id = {s["id"]: s for s in spans}

    def named(self, *names: str) -> list[dict[str, Any]]:
        return [s for s in self.spans if s["name"] in names]

    def parent(self, span: dict[str, Any]) -> dict[str, Any]:
        return self.by_id.get(span["parent"], {"name": "<outside>", "attrs": {}})

    def children(self, span: dict[str, Any]) -> set[str]:
        return {s["name"] for s in self.spans if s["parent"] == span["id"]}
