"""``ctl drift adopt``: rewrite the configuration's literals to what changed outside ctl.

Exit 0 when the configuration now matches what was read (or nothing drifted), 2 when some drift
remains that adopt does not write (values set by expressions, sensitive values, deleted objects:
each is named with the reason), 1 on an error, with no file changed.
"""

from __future__ import annotations

import difflib
import os
import sys

import typer

from cli import output
from cli.commands.drift.group import drift_app
from cli.common import VAR_FILE_HELP, VAR_HELP
from cli.completion.completers import complete_addresses
from cli.options import run as run_options
from cli.options.globals import options
from vocab.errors import ExitCode

_HELP = """Rewrite the configuration so it matches what changed outside ctl.

Only values written as literals in a resource block are changed, in place: comments and layout
stay. A value set by an expression is left alone; adopt says where it comes from (a variable's
default, a tfvars line, a locals entry) and what reality has. Sensitive values are not written
unless --allow-sensitive is given.

Exit codes: 0 configuration matches, 1 error (nothing written), 2 some drift left to adopt by hand.

Example: ctl drift adopt aws_s3_bucket.logs --dry-run
"""


@drift_app.command("adopt", help=_HELP)
def adopt_command(
    ctx: typer.Context,
    addresses: list[str] = typer.Argument(None, metavar="[ADDR]...", help="Adopt only these resources or modules.",
                                          autocompletion=complete_addresses),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the patch as a unified diff; write nothing."),
    allow_sensitive: bool = typer.Option(False, "--allow-sensitive",
                                         help="Write values the state marks sensitive into the files too."),
    var: list[str] = typer.Option(None, "--var", help=VAR_HELP),
    var_file: list[str] = typer.Option(None, "--var-file", help=VAR_FILE_HELP),
) -> int:
    from engine.drift.run import run_adopt
    from engine.plan.targets import check_addresses

    check_addresses("ADDR", list(addresses or []))
    opts = options(ctx)
    run = run_options.build(opts.root, mode="refresh-only", var=var, var_file=var_file, input_flag=False,
                            take_lock=False)
    report, adoption = run_adopt(run, list(addresses or []), allow_sensitive=allow_sensitive, write=not dry_run)
    con = output.stderr() if dry_run else output.stdout()  # with --dry-run, stdout is the patch alone

    def say(text: str) -> None:
        con.print(text, markup=False, highlight=False, soft_wrap=True)

    if dry_run:
        for file, (old, new) in sorted(adoption.shown_files.items()):  # secrets masked
            name = os.path.relpath(file)
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                                       f"a/{name}", f"b/{name}"))
        sys.stdout.flush()
    if not report.objects:
        say("No drift: the configuration has nothing to adopt.")
        return int(ExitCode.OK)
    verb = "Would adopt" if dry_run else "Adopted"
    for e in adoption.edits:
        say(f"{verb} {e.address} {e.name} = {e.shown} ({os.path.relpath(e.file)}:{e.line})")
    for n in adoption.notes:
        name = f" {n.name}" if n.name else ""
        say(f"{'Not adopted' if n.remains else 'Skipped'}: {n.address}{name} {n.message}")
    if not adoption.edits:
        say("No file changed.")
    return int(ExitCode.CHANGES_PRESENT if adoption.unresolved else ExitCode.OK)
