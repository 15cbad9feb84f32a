"""Each command reads a plugin provider's cached schema once.

For a big cloud provider the cached schema is megabytes of JSON: HashiCorp's aws provider's decodes
to about 58 MB of objects, and a ``ctl plan`` that read it for its validation and again for the plan
held both at its peak. The schema cache logs every decode (``CTL_LOG=info``), so the real ``ctl``
executable, run over HashiCorp's random provider, shows how often each command decoded it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

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


def _decodes(project: Project, log: Path, *args: str) -> Counter[str]:
    """Run ``ctl ARGS`` (it must succeed) and count the schema decodes its log records, per provider."""
    log.unlink(missing_ok=True)
    project.ok(*args, env={"CTL_LOG": "info", "CTL_LOG_PATH": str(log)})
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return Counter(r.get("provider", "") for r in records
                   if r["@message"] == "provider schema read from the cache")


def test_every_command_decodes_the_providers_schema_once(tmp_path: Path, real_providers: Path) -> None:
    project = Project(tmp_path / "work")
    project.root.mkdir()
    project.write(CONFIG)
    log = tmp_path / "ctl.log"
    project.ok("init", "-plugin-dir", str(real_providers))

    once = Counter({RANDOM: 1})
    seen: dict[str, Counter[str]] = {}
    seen["plan --generate-config-out"] = _decodes(project, log, "plan", "--generate-config-out", "generated.tf")
    assert 'resource "random_string" "generated"' in project.path("generated.tf").read_text()
    seen["validate"] = _decodes(project, log, "validate")
    seen["plan"] = _decodes(project, log, "plan")
    seen["plan --out"] = _decodes(project, log, "plan", "--out", "saved.plan")
    seen["apply saved.plan"] = _decodes(project, log, "apply", "saved.plan")
    project.write(CONFIG + IMPORTED)
    seen["import"] = _decodes(project, log, "import", "random_string.y", "hello")
    seen["apply"] = _decodes(project, log, "apply", "--auto-approve")
    seen["refresh"] = _decodes(project, log, "refresh")
    seen["destroy"] = _decodes(project, log, "destroy", "--auto-approve")
    assert seen == dict.fromkeys(seen, once)
    assert project.instances() == {}  # the commands did their work: everything made was destroyed
