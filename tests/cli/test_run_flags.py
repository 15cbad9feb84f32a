"""plan, apply and destroy share one declaration of their run options (cli/options/run_flags.py)."""

from __future__ import annotations

import typer

from cli.main import typer_app

SHARED = ["--refresh", "--target", "--exclude", "--var", "--var-file", "--lock", "--lock-timeout",
          "--parallelism", "--input", "--policy-dir", "--no-builtin-policies", "--policy-override"]


def _options(name: str) -> dict[str, object]:
    command = typer.main.get_command(typer_app).commands[name]
    return {opt: p for p in command.params for opt in p.opts}


def test_the_three_commands_take_the_shared_options() -> None:
    for name in ("plan", "apply", "destroy"):
        options = _options(name)
        assert all(opt in options for opt in SHARED), name
    assert "--replace" in _options("plan") and "--replace" in _options("apply")
    assert "--replace" not in _options("destroy")


def test_only_plan_leaves_the_state_unlocked_by_default() -> None:
    assert _options("plan")["--lock"].default is False
    assert _options("apply")["--lock"].default is True
    assert _options("destroy")["--lock"].default is True
