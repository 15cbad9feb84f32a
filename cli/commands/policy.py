"""``ctl policy check`` and ``ctl policy test``: the policy gate for CI, and tests for policies."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from cli import output
from cli.options.globals import options
from cli.options.policy import (
    BUILTIN_MODE_HELP,
    NO_BUILTIN_HELP,
    OVERRIDE_HELP,
    POLICY_DIR_HELP,
    gate_options,
)
from vocab.errors import ExitCode, UsageError

_CHECK_HELP = """Check a plan against the policies: the built-in pack, ./policies/ and --policy-dir.

Reads a plan saved with `ctl plan --out FILE`, or plan JSON (`--plan-json FILE`, from
`ctl show --json` or `terraform show -json`).

Exit codes: 0 passed (or only advisory/overridden findings), 1 error, 3 a mandatory policy failed.

Example: ctl policy check --plan-json plan.json --format sarif > policy.sarif
"""
_TEST_HELP = """Run the test_* rules of Rego policies (like `opa test`); default DIR: ./policies.

Example: ctl policy test policies/
"""

policy_app = typer.Typer(help="Check plans against policies, and test policies.", no_args_is_help=True,
                         suggest_commands=False)


def register(app: typer.Typer) -> None:
    app.add_typer(policy_app, name="policy")


@policy_app.command("check", help=_CHECK_HELP)
def check_command(
    ctx: typer.Context,
    planfile: Path = typer.Argument(None, help="A plan saved with `ctl plan --out FILE`."),
    plan_json: Path = typer.Option(None, "--plan-json", help="Plan JSON (ctl show --json / terraform show -json)."),
    fmt: str = typer.Option("text", "--format", help="text, json, junit, sarif or github."),
    policy_dir: list[Path] = typer.Option(None, "--policy-dir", help=POLICY_DIR_HELP),
    no_builtin: bool = typer.Option(False, "--no-builtin-policies", help=NO_BUILTIN_HELP),
    builtin_mode: str = typer.Option(None, "--builtin-policies", metavar="MODE", help=BUILTIN_MODE_HELP),
    namespace: list[str] = typer.Option(None, "--namespace", help="Rego package to evaluate (default: main; repeatable)."),
    all_namespaces: bool = typer.Option(False, "--all-namespaces", help="Evaluate every Rego package."),
    override: str = typer.Option(None, "--policy-override", help=OVERRIDE_HELP),
) -> int:
    from policies.gate import check_plan, check_plan_json
    from policies.report import FORMATS, render

    if fmt not in FORMATS:
        raise UsageError(f"unknown --format {fmt!r}", hint=f"Use one of: {', '.join(FORMATS)}.")
    if (planfile is None) == (plan_json is None):
        raise UsageError("give either a saved plan file or --plan-json FILE",
                         hint="Save a plan with: ctl plan --out tfplan && ctl policy check tfplan")
    opts = options(ctx)
    gopts = gate_options(policy_dir, no_builtin, override, namespace, all_namespaces, builtin_mode)
    if planfile is not None:
        from engine.plan.json_view import PolicyDocument
        from engine.plan.planfile import load_plan

        plan = load_plan(planfile if planfile.is_absolute() else Path.cwd() / planfile)
        if gopts.override is None and plan.policy_override:
            gopts.override = plan.policy_override
        outcome = check_plan(PolicyDocument(plan), opts.root, gopts)
    else:
        outcome = check_plan_json(_read_json(plan_json), opts.root, gopts)
    sys.stdout.write(render(outcome, fmt))
    if outcome.override_used and fmt != "text":
        output.warn(f"Soft-mandatory policy failures overridden: {outcome.override}")
    return int(ExitCode.POLICY_DENIED if outcome.denied else ExitCode.OK)


def _read_json(path: Path) -> dict[str, Any]:
    from vocab.errors import CtlError

    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
        doc = json.loads(text)
    except OSError as exc:
        raise CtlError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CtlError(f"{path} is not JSON: {exc}",
                       hint="Write plan JSON with: ctl show --json tfplan > plan.json") from None
    if not isinstance(doc, dict):
        raise CtlError(f"{path} is not a plan in JSON (expected an object)")
    return doc


@policy_app.command("test", help=_TEST_HELP)
def test_command(
    ctx: typer.Context,
    directory: Path = typer.Argument(None, help="Directory of policies and *_test.rego files."),
    builtin: bool = typer.Option(False, "--builtin", help="Test the built-in policy pack instead."),
    run_filter: str = typer.Option(None, "--run", help="Only tests whose package.rule matches this regex."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List passing tests too."),
) -> int:
    from policies.loader import BUILTIN, BUILTIN_DIR, display_path
    from policies.testing import run_tests

    opts = options(ctx)
    if builtin:
        path, name = BUILTIN_DIR, BUILTIN
    else:
        path = directory if directory is not None else opts.root / "policies"
        path = path if path.is_absolute() else Path.cwd() / path
        name = display_path(path)
    run = run_tests(path, name=name, builtin=builtin, run_filter=run_filter)
    con = output.stdout()
    for r in run.results:
        if not r.passed:
            why = f": {r.error}" if r.error else ""
            con.out(f"FAIL {r.name} ({r.file}:{r.line}){why}", highlight=False)
        elif verbose:
            con.out(f"PASS {r.name} ({r.seconds * 1000:.1f} ms)", highlight=False)
    passed = len(run.results) - len(run.failed)
    con.out(f"{passed} passed, {len(run.failed)} failed", highlight=False)
    return int(ExitCode.ERROR if run.failed else ExitCode.OK)
