"""A plugin provider's schema is read from the provider once, and each later command reads the cache once.

Reading a schema means starting the provider (seconds for HashiCorp's aws provider), and for a big
cloud provider the cached schema is megabytes of JSON: the aws provider's decodes to about 58 MB of
objects, and a ``ctl plan`` that read it for its validation and again for the plan held both at its
peak. ``ctl init`` starts no provider, as Terraform's does not; the first command that needs the
schema reads it from the provider and caches it, and every later one decodes the cache. Both reads
are logged (``CTL_LOG=info``), so the real ``ctl`` executable, run over HashiCorp's random provider,
shows how often each command did which.
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from engine.plugins.schema_cache import SCHEMA_DIR
from tests.e2e.helpers import Project

RANDOM = "registry.terraform.io/hashicorp/random"
CONFIG = '''
resource "random_string" "x" {
  length  = 6
  special = false
}

import {
  to = random_string.generated
  id = "abcde"
}
'''
IMPORTED = '''
resource "random_string" "y" {
  length  = 5
  special = false
}
'''


FROM_CACHE = "provider schema read from the cache"
FROM_PROVIDER = "provider schema read from the provider"


def _reads(project: Project, log: Path, *args: str) -> Counter[tuple[str, str]]:
    """Run ``ctl ARGS`` (it must succeed) and count the schema reads its log records, per (where
    from, provider)."""
    log.unlink(missing_ok=True)
    project.ok(*args, env={"CTL_LOG": "info", "CTL_LOG_PATH": str(log)})
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []
    return Counter((r["@message"], r.get("provider", "")) for r in records
                   if r["@message"] in (FROM_CACHE, FROM_PROVIDER))


def test_the_schema_is_read_from_the_provider_once_then_from_the_cache_once_a_command(
        tmp_path: Path, real_providers: Path) -> None:
    project = Project(tmp_path / "work")
    project.root.mkdir()
    project.write(CONFIG)
    log = tmp_path / "ctl.log"
    assert _reads(project, log, "init", "-plugin-dir", str(real_providers)) == Counter()  # init reads none
    assert _reads(project, log, "init") == Counter()  # nor does a re-init

    seen: dict[str, Counter[tuple[str, str]]] = {}
    seen["plan --generate-config-out"] = _reads(project, log, "plan", "--generate-config-out", "generated.tf")
    assert 'resource "random_string" "generated"' in project.path("generated.tf").read_text()
    assert seen.pop("plan --generate-config-out") == Counter({(FROM_PROVIDER, RANDOM): 1})  # the first: cached
    seen["validate"] = _reads(project, log, "validate")
    seen["plan"] = _reads(project, log, "plan")
    seen["plan --out"] = _reads(project, log, "plan", "--out", "saved.plan")
    seen["apply saved.plan"] = _reads(project, log, "apply", "saved.plan")
    project.write(CONFIG + IMPORTED)
    seen["import"] = _reads(project, log, "import", "random_string.y", "hello")
    seen["apply"] = _reads(project, log, "apply", "--auto-approve")
    seen["refresh"] = _reads(project, log, "refresh")
    seen["destroy"] = _reads(project, log, "destroy", "--auto-approve")
    once = Counter({(FROM_CACHE, RANDOM): 1})
    assert seen == dict.fromkeys(seen, once)
    assert project.instances() == {}  # the commands did their work: everything made was destroyed


def test_commands_at_once_after_init_each_succeed_and_leave_one_whole_entry(
        tmp_path: Path, real_providers: Path) -> None:
    """Two terminals (or CI jobs on one checkout) running their first commands together: both may
    read the schema from the provider; neither fails, and the cache holds one whole entry that a
    later command reads without starting the provider."""
    project = Project(tmp_path / "work")
    project.root.mkdir()
    project.write(IMPORTED)
    project.ok("init", "-plugin-dir", str(real_providers))
    with ThreadPoolExecutor(3) as pool:
        runs = list(pool.map(lambda args: project.ctl(*args, timeout=120),
                             [("validate",), ("plan",), ("validate", "--json")]))
    assert [run.code for run in runs] == [0, 0, 0], [str(run) for run in runs]
    folder = project.path(str(SCHEMA_DIR))
    assert [p.suffix for p in folder.iterdir()] == [".json"]  # no half-written file left beside it
    log = tmp_path / "ctl.log"
    assert _reads(project, log, "validate") == Counter({(FROM_CACHE, RANDOM): 1})
