"""The ``ctl`` command: global options, command registration and the one error boundary.

``app`` is what the console script calls. It runs the Typer application without click's own
error handling so that every failure maps to ctl's exit codes: a usage error exits 64 (click's 2
would read as "changes present" to CI scripts), a ``CtlError`` prints one short message and exits
with its code, and only ``CTL_LOG=debug`` shows a traceback for an unexpected crash.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import click
import typer
from rich.markup import escape

from cli import lifetime, output
from cli.common import remember_args
from cli.options.globals import GlobalOptions
from vocab.errors import CtlError, ExitCode
from vocab.limits import raise_recursion_limit
from vocab.version import VERSION

typer_app = typer.Typer(
    name="ctl",
    help="Declarative infrastructure: plan and apply Terraform-style HCL/YAML configurations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
    suggest_commands=False,  # click already suggests the closest command
)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"ctl {VERSION}\n")
        raise typer.Exit(0)


@typer_app.callback()
def _global(
    ctx: typer.Context,
    chdir: Path = typer.Option(Path("."), "--chdir", "-C", help="Configuration directory (like Terraform's -chdir)."),
    no_color: bool = typer.Option(False, "--no-color", help="Plain output without colour."),
    version: bool = typer.Option(False, "--version", "-v", callback=_version, is_eager=True,
                                 help="Print the version."),
) -> None:
    """Declarative infrastructure: plan and apply Terraform-style HCL/YAML configurations.

    Example: ctl --chdir infra validate
    """
    root = (chdir if chdir.is_absolute() else Path.cwd() / chdir).resolve()
    if chdir != Path(".") and root.is_dir():
        # As Terraform's -chdir: every relative path (--out, --var-file, a plan file) is read from there.
        # (A missing directory is left to the command, which reports it in its own format.)
        os.chdir(root)
    ctx.obj = GlobalOptions(root=root, no_color=no_color or bool(os.environ.get("CTL_NO_COLOR")))
    output.configure(no_color=ctx.obj.no_color, root=ctx.obj.root)


def _register() -> None:
    """Attach every command, in the order ``ctl --help`` lists them."""
    from cli.commands import (
        apply,
        console,
        drift,
        fmt,
        force_unlock,
        graph,
        import_,
        init,
        output,
        plan,
        policy,
        providers,
        reconcile,
        show,
        state,
        taint,
        validate,
        version,
        workspace,
    )

    for command in (init, validate, fmt, plan, apply, drift, reconcile, show, output, console, graph, state, taint,
                    workspace, import_, force_unlock, policy, providers, version):
        command.register(typer_app)


_register()


class _App:
    """Runs the Typer app under ctl's error boundary and exit-code contract."""

    def __call__(self, args: list[str] | None = None) -> None:
        code = run(args)
        sys.exit(code)


def run(args: list[str] | None = None) -> int:
    """Run ``ctl`` with ``args`` and return its exit code (never raises for user errors)."""
    lifetime.let_go()  # what the previous command in this process kept
    command = typer.main.get_command(typer_app)
    if os.environ.get("_CTL_COMPLETE"):  # the shell asking for completions (see cli/completion/__init__.py)
        from cli.completion import answer

        return answer(command, os.environ["_CTL_COMPLETE"])
    from cli import logging_setup
    from cli.options import env_args, single_dash

    logging_setup.configure()  # CTL_LOG / CTL_LOG_PATH
    raise_recursion_limit()  # room for MAX_NESTING levels of expression (vocab/limits.py)
    raw = list(sys.argv[1:] if args is None else args)
    try:
        args = env_args.apply(raw, command)  # CTL_CLI_ARGS, CTL_CLI_ARGS_<command>
        args = single_dash.bool_values(single_dash.double_dashed(args), command)  # -auto-approve, -lock=false
        if isinstance(command, click.Group):
            args = single_dash.root_flags_first(args, command)  # `ctl plan -no-color`
        remember_args(args)
        rv = command.main(args=args, prog_name="ctl", standalone_mode=False)
        return int(rv) if isinstance(rv, int) else 0
    except CtlError as err:
        output.print_error(err)
        return int(err.exit_code)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.UsageError as exc:
        output.stderr().print(f"[bold red]Usage error:[/] {escape(exc.format_message())}")
        if exc.ctx is not None:
            sys.stderr.write(f"Run '{exc.ctx.command_path} --help' for usage.\n")
        return int(ExitCode.USAGE)
    except click.Abort:
        sys.stderr.write("\nInterrupted.\n")
        return int(ExitCode.INTERRUPTED)
    except KeyboardInterrupt:
        sys.stderr.write("\nInterrupted.\n")
        return int(ExitCode.INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        return int(ExitCode.ERROR)
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as exc:  # the last line of defence: one line unless CTL_LOG=debug
        logging.getLogger("cli").error("internal error: %s: %s", type(exc).__name__, exc, exc_info=True)
        if os.environ.get("CTL_LOG", "").lower() == "debug":
            raise
        sys.stderr.write(f"Error: internal error: {type(exc).__name__}: {exc}\n"
                         "Run again with CTL_LOG=debug to see the traceback, and please report it.\n")
        return int(ExitCode.ERROR)
    finally:
        # A large load's cache entries, written while the command went on. Only a load imports
        # the writer, so a Tab press or ``--help`` neither imports it nor has a child to wait for.
        writer = sys.modules.get("engine.config.cache_writer")
        if writer is not None:
            writer.wait_for_writers()


app = _App()
