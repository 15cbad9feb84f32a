"""The policy gate: every policy source checked against one plan, with one verdict.

``check_plan`` is what the engine's plan and apply operations (``engine/operations.py``) run after
planning; ``check_plan_json`` is the same check over a plan already in Terraform's JSON shape
(``ctl policy check --plan-json``, including plans written by ``terraform show -json``). Both return
a ``PolicyOutcome`` and never print; ``enforce`` turns a denying outcome into ``PolicyDenied``.

Rego rules follow conftest's conventions: ``deny``, ``violation`` and ``warn`` (and ``deny_*`` …)
in package ``main`` unless other namespaces are asked for, each a set of strings or of objects with
``msg``. The built-in pack is always evaluated in all of its packages.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from policies import isolation, levels, simple
from policies.evaluation import CompiledPolicy, RegoModule
from policies.levels import Level
from policies.loader import BUILTIN, CONFIG_DIR_NAME, PolicySource, load_sources, merged_policy_set
from policies.model import Finding, PolicyError, PolicyOutcome, RuleRef, range_for
from policies.pack_view import FINDINGS_RULE, distinct, may_keep, pack_view
from policies.policy_set import BUILTIN_MODES, PolicySet
from policies.rego_source import is_policy_rule, rule_kind
from policies.rule_errors import RuleFailure, evaluate_tolerating
from policies.secrets import masked, plan_secrets
from vocab.errors import CtlError, PolicyDenied
from vocab.redact import redact_error

DEFAULT_NAMESPACE = "main"


@dataclass
class PolicyOptions:
    policy_dirs: list[Path] = field(default_factory=list)
    builtin: bool = True  # False: leave the built-in pack out (--no-builtin-policies)
    # advisory | enforce | off; None: CTL_BUILTIN_POLICIES, else policy-set.yaml's builtin, else advisory
    builtin_mode: str | None = None
    namespaces: list[str] = field(default_factory=lambda: [DEFAULT_NAMESPACE])
    all_namespaces: bool = False
    override: str | None = None


class PlanDocument(Protocol):
    """A plan as the gate reads it: Terraform's JSON plan document, with the real (unmasked) values.

    The engine owns the plan model and its JSON view; the gate asks only for the document, in the
    two sizes it needs, so this package never imports the engine (``engine.plan.json_view``
    implements it).
    """

    def resource_changes(self, keep: Callable[[str, str, tuple[str, ...]], bool]) -> list[dict[str, Any]]:
        """The ``resource_changes`` entries whose (mode, type, actions) ``keep`` accepts."""
        ...

    def whole(self) -> dict[str, Any]:
        """The whole document: planned values, prior state, configuration and changes."""
        ...


def check_plan(plan: PlanDocument, root_dir: Path, options: PolicyOptions) -> PolicyOutcome:
    """Check a plan's JSON document, in memory only.

    The built-in pack reads only the resource changes, so the whole document (planned values, prior
    state, configuration: most of its size for a large plan) is built only when a user policy is
    there to read it; without one, only the changes the pack's view may keep (``may_keep``).
    """

    def document(whole: bool, with_tags: bool) -> dict[str, Any]:
        if whole:
            return plan.whole()
        return {"resource_changes": plan.resource_changes(
            lambda mode, rtype, actions: may_keep(mode, rtype, actions, with_tags=with_tags))}

    return _check(document, root_dir, options)


def may_read_whole_plan(root_dir: Path, options: PolicyOptions | None) -> bool:
    """Whether a user policy may read the whole plan document, its configuration among it (the
    built-in pack reads only the changes): there may be one when the configuration has a
    ``policies/`` directory or a ``--policy-dir`` is given."""
    return options is not None and (bool(options.policy_dirs) or (root_dir / CONFIG_DIR_NAME).is_dir())


def check_plan_json(doc: dict[str, Any], root_dir: Path, options: PolicyOptions) -> PolicyOutcome:
    """Check a plan in Terraform's JSON shape against every policy source."""
    if not isinstance(doc, dict) or not isinstance(doc.get("resource_changes", []), list):
        raise PolicyError("the plan JSON has no resource_changes list",
                          hint="Give the output of `ctl show --json PLANFILE` or `terraform show -json PLANFILE`.")
    return _check(lambda _whole, _with_tags: doc, root_dir, options)


def _check(document: Callable[[bool, bool], dict[str, Any]], root_dir: Path, options: PolicyOptions) -> PolicyOutcome:
    """Every policy source against the plan ``document(whole, with_tags)`` gives: the whole JSON
    document when a user policy may read any of it, else at least the ``resource_changes`` the
    built-in pack reads (``with_tags``: every resource's tags, when tags are required)."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    sources = load_sources(root_dir, options.policy_dirs, builtin=options.builtin)
    pset = merged_policy_set(sources)
    mode = builtin_mode(options, pset)
    if mode == "off":
        sources = [s for s in sources if not s.builtin]
    timings["load policies"] = time.perf_counter() - started
    outcome = PolicyOutcome(override=options.override or None, sources=[s.name for s in sources],
                            timings=timings, builtin_mode=mode if any(s.builtin for s in sources) else None)
    evaluated: dict[str, int] = {s.name: 0 for s in sources}
    user = [s for s in sources if not s.builtin]
    doc = document(any(s.rego or s.simple for s in user), bool(_required_tags(pset)))
    # What the plan shows as "(sensitive value)" never reaches a finding, an error or a policy's print().
    secrets = plan_secrets(doc)
    try:
        # User Rego runs in a worker process; it starts now, while the built-in pack is evaluated here.
        worker = isolation.start(secrets) if any(s.rego for s in user) else None
        try:
            for src in sources:
                if src.builtin:
                    _run_rego([src], doc, pset, outcome, evaluated, namespaces=None, builtin=True,
                              advise_only=mode == "advisory")
            if worker is not None:
                namespaces = None if options.all_namespaces else (options.namespaces or [DEFAULT_NAMESPACE])
                _run_rego(user, doc, pset, outcome, evaluated, namespaces=namespaces, worker=worker)
        finally:
            if worker is not None:
                worker.close()
        t = time.perf_counter()
        for src in user:
            _run_simple(src, doc, pset, outcome, evaluated)
        timings["simple policies"] = time.perf_counter() - t
    except CtlError as err:
        raise redact_error(err, secrets) from None
    _check_something_ran(user, evaluated, options)
    masked(outcome, secrets)
    outcome.findings.sort(key=lambda f: (_LEVEL_ORDER[f.level], f.rule.rule_id, f.address or "", f.message))
    return outcome


BUILTIN_ENV = "CTL_BUILTIN_POLICIES"


def builtin_mode(options: PolicyOptions, pset: PolicySet) -> str:
    """What the built-in pack does: the flag, else ``CTL_BUILTIN_POLICIES``, else policy-set.yaml, else advise.

    Advisory by default because its findings are advice for most stacks (AWS has encrypted new
    buckets and blocked public access by default since 2023): a configuration Terraform applies
    must not be refused out of the box. ``enforce`` gives each rule its declared level.
    """
    if not options.builtin:
        return "off"
    mode = options.builtin_mode or os.environ.get(BUILTIN_ENV, "").strip().lower() or pset.builtin or "advisory"
    if mode not in BUILTIN_MODES:
        raise PolicyError(f"{BUILTIN_ENV}={mode!r} is not a built-in policy mode",
                          hint=f"Use one of: {', '.join(BUILTIN_MODES)}.")
    return mode


def enforce(outcome: PolicyOutcome) -> None:
    """Stop the run (exit 3) when a mandatory policy failed and no override lifts it."""
    if outcome.denied:
        hard = any(f.level is Level.HARD_MANDATORY for f in outcome.blocking)
        raise PolicyDenied(
            f"{len(outcome.blocking)} mandatory policy check(s) failed",
            hint=("Hard-mandatory policies cannot be overridden: change the configuration." if hard else
                  'Fix the configuration, or pass --policy-override "reason" to accept soft-mandatory failures.'),
        )


_LEVEL_ORDER = {Level.HARD_MANDATORY: 0, Level.SOFT_MANDATORY: 1, Level.ADVISORY: 2}


# -- Rego ----------------------------------------------------------------------------------------


_COMPILED: dict[str, CompiledPolicy] = {}
# Freed before the interpreter tears modules down: regopy's finalizers call functions of its own
# modules, which by then may be gone (a traceback on every exit of the command).
atexit.register(_COMPILED.clear)


def _compiled(modules: list[RegoModule], data: dict[str, Any], rules: list[tuple[str, str]],
              cache: bool) -> CompiledPolicy:
    """The built-in pack's bundle, compiled once per process (a long-running process checks many plans)."""
    if not cache:
        return CompiledPolicy(modules, data, rules)
    key = json.dumps([[m.path, m.source] for m in modules] + [data, rules], sort_keys=True, default=str)
    found = _COMPILED.get(key)
    if found is None:
        found = _COMPILED[key] = CompiledPolicy(modules, data, rules)
    return found


def _run_rego(sources: list[PolicySource], doc: dict[str, Any], pset: PolicySet, outcome: PolicyOutcome,
              evaluated: dict[str, int], *, namespaces: list[str] | None, builtin: bool = False,
              worker: isolation.Worker | None = None, advise_only: bool = False) -> None:
    """Evaluate the Rego rules of ``sources``: the built-in pack here, user policies in ``worker``."""
    modules: list[RegoModule] = []
    owner: dict[str, PolicySource] = {}
    for src in sources:
        for m in src.rego:
            modules.append(m)
            owner[m.path] = src
    rules: list[tuple[str, str]] = []
    refs: dict[tuple[str, str], RuleRef] = {}
    advised: set[tuple[str, str]] = set()  # built-in rules turned advisory (the default mode)
    queries: dict[tuple[str, str], tuple[str, str]] = {}  # rule -> the entry point that gives it
    for m in modules:
        pkg = m.info.package
        if namespaces is not None and pkg not in namespaces:
            continue
        names = m.info.rule_names()
        for name in names:
            if not is_policy_rule(name) or (pkg, name) in refs:
                continue
            rules.append((pkg, name))
            ref = _rule_ref(m, name, owner[m.path], pset)
            if advise_only and not _level_declared(m, name, ref, pset):
                ref = dataclasses.replace(ref, level=Level.ADVISORY)
                advised.add((pkg, name))
            refs[(pkg, name)] = ref
            as_array = builtin and name == "deny" and FINDINGS_RULE in names
            queries[(pkg, name)] = (pkg, FINDINGS_RULE) if as_array else (pkg, name)
    # An advisory rule's own evaluation error is a warning, never the end of the check (rule_errors).
    tolerated = {q for key, q in queries.items() if refs[key].level is Level.ADVISORY}
    if builtin:
        t = time.perf_counter()
        compiled = _compiled(modules, pset.data, list(queries.values()), cache=True)
        outcome.timings["compile built-in pack"] = time.perf_counter() - t
        t = time.perf_counter()
        with_tags = bool(_required_tags(pset))

        def evaluate(part: dict[str, Any], only: list[tuple[str, str]],
                     errors: dict[tuple[str, str], PolicyError]) -> dict[tuple[str, str], Any]:
            return compiled.evaluate(pack_view(part, with_tags=with_tags), only, errors)

        raw, failures = evaluate_tolerating(evaluate, doc, list(queries.values()), tolerated)
        outcome.timings["evaluate built-in pack"] = time.perf_counter() - t
    else:  # in a worker process: a crash of the engine must not take ctl down
        assert worker is not None
        t = time.perf_counter()
        raw, failures = worker.evaluate_tolerating(modules, pset.data, list(dict.fromkeys(queries.values())), doc,
                                                   tolerated)
        outcome.timings["compile and evaluate user policies"] = time.perf_counter() - t
    values = {key: (distinct(raw.get(q)) if q != key else raw.get(q)) for key, q in queries.items()}
    for key in rules:
        ref = refs[key]
        outcome.rules.append(ref)
        evaluated[ref.source] = evaluated.get(ref.source, 0) + 1
        failure = failures.get(queries[key])
        if failure is not None:
            outcome.findings.extend(_cannot_evaluate(ref, failure))
        for message, address, meta in _messages(values.get(key), ref):
            level = levels.resolve(ref.kind, levels.level_from_metadata(meta), ref.level,
                                   policy_set=pset.level_for(ref.rule_id, ref.namespace))
            if key in advised:
                level = Level.ADVISORY
            outcome.findings.append(Finding(ref, message, level, address, meta))


def _cannot_evaluate(ref: RuleRef, failure: RuleFailure) -> list[Finding]:
    """An advisory rule's evaluation error as warnings: one per resource it could not evaluate."""
    meta = {"evaluation_error": failure.reason}
    if not failure.addresses:
        return [Finding(ref, f"the rule could not be evaluated on this plan ({failure.reason}); "
                             "it checked nothing", Level.ADVISORY, None, meta)]
    return [Finding(ref, f"{address}: the rule could not evaluate this resource ({failure.reason}); "
                         "it was not checked by this rule", Level.ADVISORY, address, meta)
            for address in failure.addresses]


def _required_tags(pset: PolicySet) -> Any:
    """The tags policy-set.yaml requires of every resource (``data.ctl.required_tags``), if any."""
    ctl_data = pset.data.get("ctl")
    return ctl_data.get("required_tags") if isinstance(ctl_data, dict) else None


def _level_declared(m: RegoModule, name: str, ref: RuleRef, pset: PolicySet) -> bool:
    """A level set in policy-set.yaml, or declared by the rule itself (``protect``: it fires only on
    resources the user tagged, so it keeps its level even when the built-in pack only advises)."""
    return (pset.level_for(ref.rule_id, ref.namespace) is not None
            or levels.level_from_metadata(m.info.rule_annotations(name)) is not None
            or levels.level_from_metadata(m.info.package_annotations) is not None)


def _rule_ref(m: RegoModule, name: str, src: PolicySource, pset: PolicySet) -> RuleRef:
    pkg = m.info.package
    rule_meta = m.info.rule_annotations(name)
    pkg_meta = m.info.package_annotations
    kind = rule_kind(name)
    level = levels.resolve(kind, pset.level_for(f"{pkg}.{name}", pkg), levels.level_from_metadata(rule_meta),
                           levels.level_from_metadata(pkg_meta))
    custom = rule_meta.get("custom")
    custom = custom if isinstance(custom, dict) else {}
    pkg_custom = pkg_meta.get("custom")
    pkg_custom = pkg_custom if isinstance(pkg_custom, dict) else {}
    return RuleRef(
        rule_id=f"{pkg}.{name}", namespace=pkg, rule=name, kind=kind, source=src.name, file=m.display,
        line=m.info.rule_line(name), level=level,
        title=str(rule_meta.get("title") or pkg_meta.get("title") or ""),
        description=str(rule_meta.get("description") or pkg_meta.get("description") or "").strip(),
        policy_id=str(custom.get("id") or pkg_custom.get("id") or ""),
    )


def _messages(value: Any, ref: RuleRef) -> list[tuple[str, str | None, dict[str, Any]]]:
    """The findings of one rule's value, or an error for a value conftest would not accept."""
    where = range_for(ref.file, ref.line)
    if value is None or value is False:
        return []
    if value is True:
        return [(f"{ref.rule_id} is true", None, {})]
    if isinstance(value, str):
        return [(value, None, {})]
    if isinstance(value, dict):
        raise PolicyError(
            f"data.{ref.rule_id} is an object, not a set of messages",
            range=where,
            detail="This is what a rule in the old syntax (deny[msg] { … }) evaluates to here.",
            hint=f"Use Rego v1: {ref.rule} contains msg if {{ … }}.",
        )
    if not isinstance(value, list):
        raise PolicyError(f"data.{ref.rule_id} must be a set of messages, not {json.dumps(value)[:60]}",
                          range=where)
    out: list[tuple[str, str | None, dict[str, Any]]] = []
    for item in value:
        if isinstance(item, str):
            out.append((item, None, {}))
        elif isinstance(item, dict) and "msg" in item:
            meta = {k: v for k, v in item.items() if k != "msg"}
            address = item.get("address") or item.get("resource")
            out.append((str(item["msg"]), str(address) if address else None, meta))
        else:
            raise PolicyError(
                f"data.{ref.rule_id} produced {json.dumps(item)[:80]}: each result must be a string "
                "or an object with 'msg'", range=where)
    return out


# -- simple policies -----------------------------------------------------------------------------


def _run_simple(src: PolicySource, doc: dict[str, Any], pset: PolicySet, outcome: PolicyOutcome,
                evaluated: dict[str, int]) -> None:
    refs: dict[str, RuleRef] = {}
    for p in src.simple:
        level = levels.resolve("simple", pset.level_for(p.name, f"simple.{p.name}"), p.level)
        refs[p.name] = RuleRef(rule_id=f"simple.{p.name}", namespace="simple", rule=p.name, kind="simple",
                               source=src.name, file=p.file, line=p.line, level=level,
                               title=p.name, description=p.description)
        outcome.rules.append(refs[p.name])
        evaluated[src.name] = evaluated.get(src.name, 0) + 1
    for policy, address, message in simple.evaluate(src.simple, doc):
        ref = refs[policy.name]
        outcome.findings.append(Finding(ref, message, ref.level, address or None, {}))


def _check_something_ran(user: list[PolicySource], evaluated: dict[str, int], options: PolicyOptions) -> None:
    """A policy directory in which no rule was evaluated is an error, not a pass."""
    for src in user:
        if evaluated.get(src.name, 0):
            continue
        if not src.has_policies and not src.explicit:
            continue  # the configuration's policies/ may hold only policy-set.yaml
        packages = sorted({m.info.package for m in src.rego})
        if not src.has_policies:
            summary = f"no policies found in {src.name}"
            detail = "The directory has no .rego files and no simple (YAML) policies."
        else:
            asked = "all namespaces" if options.all_namespaces else "namespace(s) " + ", ".join(
                options.namespaces or [DEFAULT_NAMESPACE])
            summary = f"no policy rule in {src.name} was evaluated"
            detail = (f"Looked for deny, violation and warn rules in {asked}; the policies there are in "
                      f"package(s): {', '.join(packages) or '(none)'}.")
        raise PolicyError(summary, detail=detail,
                          hint="Pass --namespace PACKAGE or --all-namespaces, or name the rules deny, "
                               "violation or warn (conftest's conventions).")


__all__ = ["BUILTIN", "DEFAULT_NAMESPACE", "PolicyOptions", "check_plan", "check_plan_json", "enforce", "pack_view"]
