"""``google_storage_bucket`` lifecycle rules, ``public_access_prevention`` and ``project``, through the
ctl executable against fake-gcs-server.

Emulator limits (fake-gcs-server as pinned in the test extra), measured, not assumed:

* it does not keep ``lifecycle`` at all: rules are accepted on insert and patch but never reported
  back. So the tests put a recording proxy between ctl and the emulator and check the JSON ctl sent
  (``lifecycle.rule`` on insert, a patch replacing the rules on update); and they feed the captured
  request, as Cloud Storage would answer it, through the adapter's refresh to show that a re-plan of
  what the service holds is a no-op. On the emulator itself every plan offers to set the rules again
  (as for labels); the ``kept`` branches take over if it starts keeping them;
* it does not report ``iamConfiguration``, so ``public_access_prevention`` is checked in the request
  and keeps the configured value in state (the API's default, "inherited", when none is configured);
* it ignores the ``project`` of an insert (and never reports a bucket's project, nor does Cloud
  Storage): ``project`` lives in state, and the request shows which project ctl asked for.
"""

from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.gcp.gcp_support import GcsProject
from tests.servers import FakeGcsServer

ADDR = "google_storage_bucket.b"
CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "corpus"
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection"}


class RecordingProxy:
    """Forwards every request to the emulator and records (method, path, JSON body) of each."""

    def __init__(self, target: str) -> None:
        self.target = urllib.parse.urlsplit(target)
        self.requests: list[tuple[str, str, Any]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                try:
                    recorded = json.loads(body) if body else None
                except ValueError:
                    recorded = None  # media bytes
                proxy.requests.append((self.command, self.path, recorded))
                upstream = http.client.HTTPConnection(proxy.target.hostname or "127.0.0.1", proxy.target.port,
                                                  timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                upstream.request(self.command, self.path, body=body or None, headers=headers)
                answer = upstream.getresponse()
                payload = answer.read()
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in _HOP_BY_HOP:
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                upstream.close()

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def bodies(self, method: str, path_part: str) -> list[Any]:
        """JSON bodies of the recorded ``method`` requests whose path contains ``path_part``."""
        return [body for m, path, body in self.requests if m == method and path_part in path]

    def paths(self, method: str) -> list[str]:
        return [path for m, path, _ in self.requests if m == method]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class ProxiedProject(GcsProject):
    """A GcsProject whose ctl runs reach the emulator through a ``RecordingProxy``."""

    def __init__(self, root: Path, server: FakeGcsServer, proxy: RecordingProxy) -> None:
        super().__init__(root, server)
        self.proxy = proxy

    def ctl(self, *args: str, env: Any = None, timeout: float = 120) -> Any:
        return super().ctl(*args, env={"STORAGE_EMULATOR_HOST": self.proxy.url, **(env or {})}, timeout=timeout)


@pytest.fixture
def project(tmp_path: Path, fake_gcs_clean: FakeGcsServer) -> Iterator[ProxiedProject]:
    proxy = RecordingProxy(fake_gcs_clean.url)
    try:
        yield ProxiedProject(tmp_path, fake_gcs_clean, proxy)
    finally:
        proxy.close()


RULES = """
  lifecycle_rule {
    action {
      type          = "SetStorageClass"
      storage_class = "NEARLINE"
    }
    condition {
      age                   = 30
      matches_storage_class = ["STANDARD"]
    }
  }
  lifecycle_rule {
    action {
      type = "Delete"
    }
    condition {
      age                = 365
      with_state         = "ARCHIVED"
      num_newer_versions = 3
      created_before     = "2024-01-02"
    }
  }
  lifecycle_rule {
    action {
      type = "Delete"
    }
    condition {
      age                                     = 0
      days_since_noncurrent_time              = 0
      send_days_since_noncurrent_time_if_zero = true
      with_state                              = "LIVE"
    }
  }
"""

# What the rules above mean to the JSON API: age 0 without send_age_if_zero is "no age condition".
RULES_API = [
    {"action": {"type": "SetStorageClass", "storageClass": "NEARLINE"},
     "condition": {"age": 30, "matchesStorageClass": ["STANDARD"]}},
    {"action": {"type": "Delete"},
     "condition": {"age": 365, "createdBefore": "2024-01-02", "numNewerVersions": 3, "isLive": False}},
    {"action": {"type": "Delete"}, "condition": {"daysSinceNoncurrentTime": 0, "isLive": True}},
]

NO_FLAGS = {"send_age_if_zero": False, "send_num_newer_versions_if_zero": False,
            "send_days_since_custom_time_if_zero": False, "send_days_since_noncurrent_time_if_zero": False}
UNSET = {"age": None, "created_before": None, "with_state": "ANY", "matches_storage_class": None,
         "matches_prefix": None, "matches_suffix": None, "num_newer_versions": None, "custom_time_before": None,
         "days_since_custom_time": None, "days_since_noncurrent_time": None, "noncurrent_time_before": None,
         **NO_FLAGS}

# The rules as plan and state hold them: every condition argument present, unset ones null.
RULES_STATE = [
    {"action": [{"type": "SetStorageClass", "storage_class": "NEARLINE"}],
     "condition": [{**UNSET, "age": 30, "matches_storage_class": ["STANDARD"]}]},
    {"action": [{"type": "Delete", "storage_class": None}],
     "condition": [{**UNSET, "age": 365, "with_state": "ARCHIVED", "num_newer_versions": 3,
                    "created_before": "2024-01-02"}]},
    {"action": [{"type": "Delete", "storage_class": None}],
     "condition": [{**UNSET, "with_state": "LIVE", "days_since_noncurrent_time": 0,
                    "send_days_since_noncurrent_time_if_zero": True}]},
]


def bucket(name: str = "ctl-lifecycle", *, rules: str = RULES, extra: str = "") -> str:
    return f"""
    resource "google_storage_bucket" "b" {{
      name                        = "{name}"
      location                    = "us-central1"
      uniform_bucket_level_access = true
      {extra}
    {rules}
    }}
    """


def inserted(project: ProxiedProject) -> dict[str, Any]:
    """The body of the one bucket insert ctl sent."""
    bodies = project.proxy.bodies("POST", "/storage/v1/b?")
    assert len(bodies) == 1, project.proxy.requests
    return dict(bodies[0])


def kept_lifecycle(project: ProxiedProject, name: str = "ctl-lifecycle") -> Any:
    return project.storage.get_bucket(name)._properties.get("lifecycle")


def refreshed(project: ProxiedProject, answer: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """What refresh makes of a bucket whose API resource is ``answer`` (through the adapter's read)."""
    from adapters.google import bucket as adapter

    sdk_bucket = project.storage.bucket(answer["name"])
    sdk_bucket._set_properties(answer)  # as the SDK does with a GET response
    return adapter._attributes(base, sdk_bucket)


def test_rules_are_sent_on_create_and_a_replan_of_what_gcs_holds_is_a_no_op(project: ProxiedProject) -> None:
    project.configure(bucket())
    planned = project.plan_json()["resource_changes"][0]["change"]["after"]
    assert planned["lifecycle_rule"] == RULES_STATE
    project.proxy.requests.clear()
    project.apply()

    sent = inserted(project)
    assert sent["lifecycle"] == {"rule": RULES_API}
    assert project.storage.lookup_bucket("ctl-lifecycle") is not None

    # Cloud Storage answers with the rules as they were sent: what create then records is the plan,
    # and so is every refresh after it (the send_*_if_zero flags come from state: not an API field)
    state = project.attributes(ADDR)
    answer = {**project.storage.get_bucket("ctl-lifecycle")._properties, "lifecycle": sent["lifecycle"]}
    recorded = refreshed(project, answer, {**state, "lifecycle_rule": planned["lifecycle_rule"]})
    assert recorded["lifecycle_rule"] == RULES_STATE
    assert refreshed(project, answer, recorded) == recorded

    if kept_lifecycle(project):  # an emulator that keeps rules: the real re-plan is a no-op
        assert kept_lifecycle(project) == {"rule": RULES_API}
        assert state["lifecycle_rule"] == RULES_STATE
        project.no_changes()
        return
    assert state["lifecycle_rule"] == []  # what the emulator reported
    change = project.plan_json()["resource_changes"][0]["change"]
    assert change["actions"] == ["update"]  # offered again, in place
    assert change["after"]["lifecycle_rule"] == RULES_STATE


def test_rules_are_updated_in_place_and_removed(project: ProxiedProject) -> None:
    project.configure(bucket())
    project.apply()
    created = project.storage.get_bucket("ctl-lifecycle").time_created

    one_rule = """
      lifecycle_rule {
        action {
          type = "Delete"
        }
        condition {
          age              = 7
          send_age_if_zero = false
          matches_prefix   = ["tmp/"]
        }
      }
    """
    project.configure(bucket(rules=one_rule))
    assert project.actions() == {ADDR: ["update"]}
    project.proxy.requests.clear()
    project.apply()
    patches = project.proxy.bodies("PATCH", "/storage/v1/b/ctl-lifecycle")
    assert [p["lifecycle"] for p in patches if "lifecycle" in p] == [
        {"rule": [{"action": {"type": "Delete"}, "condition": {"age": 7, "matchesPrefix": ["tmp/"]}}]}]
    assert project.storage.get_bucket("ctl-lifecycle").time_created == created  # the same bucket
    if kept_lifecycle(project):
        project.no_changes()

    # no lifecycle_rule block at all: the rules are removed (an empty rule list is sent)
    project.configure(bucket(rules=""))
    project.proxy.requests.clear()
    project.apply()
    patches = project.proxy.bodies("PATCH", "/storage/v1/b/ctl-lifecycle")
    if kept_lifecycle(project) is None and not any("lifecycle" in p for p in patches):
        # the state already said "no rules" (the emulator never reported any): nothing to send
        assert project.attributes(ADDR)["lifecycle_rule"] == []
    else:
        assert [p["lifecycle"] for p in patches if "lifecycle" in p] == [{"rule": []}]
    project.no_changes()


def test_empty_dynamic_rules_and_zero_conditions_plan_like_terraform(project: ProxiedProject) -> None:
    """An empty ``dynamic "lifecycle_rule"`` is no rule; a 0 is sent only with its ``send_*_if_zero``."""
    project.write("""
    provider "google" {
      project = "test"
    }
    variable "rules" {
      default = []
    }
    resource "google_storage_bucket" "b" {
      name                        = "ctl-lifecycle"
      location                    = "US-CENTRAL1"
      uniform_bucket_level_access = true
      dynamic "lifecycle_rule" {
        for_each = var.rules
        content {
          action {
            type = "Delete"
          }
          condition {
            age = lifecycle_rule.value
          }
        }
      }
    }
    """)
    # no rules is an empty list, not null (the corpus counts them with length())
    assert project.plan_json()["resource_changes"][0]["change"]["after"]["lifecycle_rule"] == []
    project.apply()
    assert "lifecycle" not in inserted(project)
    project.no_changes()

    project.configure(bucket(rules="""
      lifecycle_rule {
        action {
          type = "Delete"
        }
        condition {
          send_age_if_zero = true
        }
      }
    """))
    after = project.plan_json()["resource_changes"][0]["change"]["after"]
    assert after["lifecycle_rule"][0]["condition"][0]["age"] == 0  # the flag alone sends age = 0
    project.proxy.requests.clear()
    project.apply()
    patches = project.proxy.bodies("PATCH", "/storage/v1/b/ctl-lifecycle")
    assert [p["lifecycle"] for p in patches if "lifecycle" in p] == [
        {"rule": [{"action": {"type": "Delete"}, "condition": {"age": 0}}]}]


def test_public_access_prevention_and_project(project: ProxiedProject) -> None:
    project.configure(bucket(rules="", extra='public_access_prevention = "enforced"'))
    project.apply()
    sent = inserted(project)
    assert sent["iamConfiguration"]["publicAccessPrevention"] == "enforced"
    assert "project=test" in project.proxy.paths("POST")[0]  # the provider's project
    attrs = project.attributes(ADDR)
    assert attrs["public_access_prevention"] == "enforced" and attrs["project"] == "test"
    project.no_changes()

    # in place
    project.configure(bucket(rules="", extra='public_access_prevention = "inherited"'))
    assert project.actions() == {ADDR: ["update"]}
    project.proxy.requests.clear()
    project.apply()
    patches = project.proxy.bodies("PATCH", "/storage/v1/b/ctl-lifecycle")
    assert [p["iamConfiguration"]["publicAccessPrevention"] for p in patches] == ["inherited"]
    project.no_changes()

    # omitted: computed, the recorded value is kept
    project.configure(bucket(rules=""))
    project.no_changes()

    # another project is another bucket
    project.configure(bucket(rules="", extra='project = "elsewhere"'))
    change = project.plan_json()["resource_changes"][0]["change"]
    assert change["actions"] == ["delete", "create"] and ["project"] in change["replace_paths"]

    # import as PROJECT/NAME records that project, which an unset (computed) project then keeps:
    # no replacement (the update offered is uniform access, not reported by the emulator)
    project.configure(bucket(rules=""))
    project.ok("state", "rm", ADDR)
    project.ok("import", ADDR, "elsewhere/ctl-lifecycle")
    assert project.attributes(ADDR)["project"] == "elsewhere"
    assert project.actions() == {ADDR: ["update"]}


def test_gcs_archive_corpus_sends_its_rules(project: ProxiedProject) -> None:
    """The corpus configuration's dynamic rules reach the API as Terraform would send them. (The
    emulator ignores its "EU" location, so a re-plan there offers replacements: not checked.)"""
    for path in (CORPUS / "gcs_archive").iterdir():
        project.root.joinpath(path.name).write_text(path.read_text())
    project.ok("init")
    project.apply()
    sent = {body["name"]: body for body in project.proxy.bodies("POST", "/storage/v1/b?")}
    assert len(sent) == 6
    assert sent["acme-platform-prod-logs-audit"]["lifecycle"]["rule"] == [
        {"action": {"type": "SetStorageClass", "storageClass": "NEARLINE"}, "condition": {"age": 30}},
        {"action": {"type": "Delete"}, "condition": {"age": 365}},
    ]
    assert sent["acme-platform-prod-backups-redis"]["lifecycle"]["rule"] == [
        {"action": {"type": "SetStorageClass", "storageClass": "COLDLINE"}, "condition": {"age": 7}},
        {"action": {"type": "Delete"}, "condition": {"age": 90, "isLive": False}},
    ]
    assert "lifecycle" not in sent["acme-platform-prod-exports-bigquery"]
    assert all(b["iamConfiguration"]["publicAccessPrevention"] == "enforced" for b in sent.values())
    assert all("project=acme-platform-prod" in p for p in project.proxy.paths("POST"))
    names = {b.name for b in project.storage.list_buckets()}
    assert set(sent) <= names


def test_validate_refuses_an_unknown_action_type(project: ProxiedProject) -> None:
    """The schema knows the API's three actions, so a typo is caught before anything is sent."""
    project.configure(bucket(rules="""
      lifecycle_rule {
        action {
          type = "Remove"
        }
        condition {
          age = 1
        }
      }
    """))
    res = project.ctl("validate")
    assert res.code == 1 and "Traceback" not in res.output, str(res)
    assert 'Invalid value for attribute "lifecycle_rule[0].action[0].type"' in res.output
    assert project.proxy.requests == []
