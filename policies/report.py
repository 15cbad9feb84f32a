"""Views of a ``PolicyOutcome``: text, JSON, JUnit XML, SARIF 2.1.0 and GitHub annotations.

Each function returns a string (no colour, no terminal handling); the CLI decides where it goes.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from policies.levels import Level
from policies.model import Finding, PolicyOutcome, status
from vocab.version import VERSION

FORMATS = ("text", "json", "junit", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render(outcome: PolicyOutcome, fmt: str) -> str:
    renderers: dict[str, Callable[[PolicyOutcome], str]] = {
        "text": render_text, "json": render_json, "junit": render_junit, "sarif": render_sarif,
        "github": render_github,
    }
    return renderers[fmt](outcome)


def _label(f: Finding, override: str | None) -> str:
    st = status(f.level, override)
    return {"failed": "FAIL", "overridden": "OVERRIDDEN", "advisory": "WARN"}[st]


def render_text(outcome: PolicyOutcome) -> str:
    lines: list[str] = []
    for f in outcome.findings:
        lines.append(f"{_label(f, outcome.override)} - {f.rule.rule_id} ({f.level.value}) - {f.message}")
    s = outcome.summary()
    if outcome.override_used:
        lines.append(f"Policy override: {outcome.override}")
    if outcome.builtin_mode == "advisory":
        lines.append("Built-in policies are advisory (enforce them with --builtin-policies=enforce, "
                     "CTL_BUILTIN_POLICIES=enforce or `builtin: enforce` in policies/policy-set.yaml).")
    verdict = "denied" if outcome.denied else "passed"
    lines.append(f"Policy check {verdict}: {s['rules']} rules, {s['failed']} failed, "
                 f"{s['overridden']} overridden, {s['advisory']} advisory.")
    return "\n".join(lines) + "\n"


def render_saved(results: list[dict[str, Any]], override: str | None) -> str:
    """The verdict recorded in a saved plan (``ctl show PLANFILE``): one line per finding, then the verdict."""
    labels = {"failed": "FAIL", "overridden": "OVERRIDDEN", "advisory": "WARN"}
    lines = [f"{labels.get(r.get('status', ''), 'FAIL')} - {r.get('rule')} ({r.get('level')}) - {r.get('message')}"
             for r in results]
    failed = sum(1 for r in results if r.get("status") == "failed")
    if override:
        lines.append(f"Policy override: {override}")
    lines.append(f"Policy check when planned: {'denied' if failed else 'passed'}, {failed} failed, "
                 f"{sum(1 for r in results if r.get('status') == 'advisory')} advisory.")
    return "\n".join(lines) + "\n"


def render_json(outcome: PolicyOutcome) -> str:
    return json.dumps({"format_version": "1", "ctl_version": VERSION, **outcome.to_json()}, indent=2) + "\n"


def render_junit(outcome: PolicyOutcome) -> str:
    """One test case per rule that passed and one per finding (as conftest does)."""
    suites = ET.Element("testsuites", name="ctl policy check")
    by_source: dict[str, list[Any]] = {}
    failed_rules = outcome.failed_rule_ids()
    for r in outcome.rules:
        if r.rule_id not in failed_rules:
            by_source.setdefault(r.source, []).append(("pass", r, None))
    for f in outcome.findings:
        by_source.setdefault(f.rule.source, []).append(("finding", f.rule, f))
    total = failures = 0
    for source, cases in by_source.items():
        suite = ET.SubElement(suites, "testsuite", name=source)
        n_fail = 0
        for _kind, rule, finding in cases:
            name = rule.rule_id if finding is None else f"{rule.rule_id}: {finding.message}"
            case = ET.SubElement(suite, "testcase", classname=rule.namespace, name=name, file=rule.file,
                                 line=str(rule.line))
            if finding is not None:
                st = status(finding.level, outcome.override)
                if st == "failed":
                    n_fail += 1
                    fail = ET.SubElement(case, "failure", message=finding.message, type=finding.level.value)
                    fail.text = finding.message
                else:
                    out = ET.SubElement(case, "system-out")
                    out.text = f"{st} ({finding.level.value}): {finding.message}"
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(n_fail))
        suite.set("errors", "0")
        total += len(cases)
        failures += n_fail
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _sarif_level(f: Finding, override: str | None) -> str:
    st = status(f.level, override)
    return "error" if st == "failed" else ("warning" if st == "overridden" else "note")


def _uri(file: str) -> dict[str, str]:
    if file.startswith("builtin/"):
        return {"uri": file[len("builtin/"):], "uriBaseId": "CTL_BUILTIN_POLICIES"}
    return {"uri": file}


def render_sarif(outcome: PolicyOutcome) -> str:
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for r in outcome.rules:
        if r.rule_id in index:
            continue
        index[r.rule_id] = len(rules)
        level = "error" if r.level is not Level.ADVISORY else "note"
        rule: dict[str, Any] = {"id": r.rule_id, "name": r.rule_id,
                                "defaultConfiguration": {"level": level},
                                "properties": {"enforcement": r.level.value, "source": r.source}}
        if r.title:
            rule["shortDescription"] = {"text": r.title}
        if r.description:
            rule["fullDescription"] = {"text": r.description}
        rules.append(rule)
    results = []
    for f in outcome.findings:
        location: dict[str, Any] = {"physicalLocation": {"artifactLocation": _uri(f.rule.file),
                                                         "region": {"startLine": max(f.rule.line, 1)}}}
        if f.address:
            location["logicalLocations"] = [{"fullyQualifiedName": f.address, "kind": "resource"}]
        results.append({
            "ruleId": f.rule.rule_id,
            "ruleIndex": index[f.rule.rule_id],
            "level": _sarif_level(f, outcome.override),
            "message": {"text": f.message},
            "locations": [location],
            "properties": {"enforcement": f.level.value, "status": status(f.level, outcome.override)},
        })
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "ctl", "version": VERSION, "informationUri": "https://github.com/",
                            "rules": rules}},
        "results": results,
        "properties": {"denied": outcome.denied, "override": outcome.override},
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def render_github(outcome: PolicyOutcome) -> str:
    """GitHub Actions workflow commands: ::error / ::warning / ::notice, one per finding."""
    lines = []
    for f in outcome.findings:
        st = status(f.level, outcome.override)
        cmd = "error" if st == "failed" else ("warning" if st == "overridden" else "notice")
        props = [f"title={_gh_escape(f.rule.rule_id + ' (' + f.level.value + ')', True)}"]
        if not f.rule.file.startswith("builtin/"):
            props[:0] = [f"file={_gh_escape(f.rule.file, True)}", f"line={max(f.rule.line, 1)}"]
        lines.append(f"::{cmd} {','.join(props)}::{_gh_escape(f.message)}")
    s = outcome.summary()
    lines.append(f"Policy check {'denied' if outcome.denied else 'passed'}: {s['rules']} rules, "
                 f"{s['failed']} failed, {s['overridden']} overridden, {s['advisory']} advisory.")
    return "\n".join(lines) + "\n"


__all__ = ["FORMATS", "render", "render_github", "render_json", "render_junit", "render_sarif", "render_text"]
