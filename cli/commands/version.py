"""``ctl version``: ctl's version, the platform, the installed adapters, and what serves each provider here.

The provider lines are what makes a run reproducible: the plugin version and protocol ``ctl init``
selected, or the native adapter, for every provider this directory's configuration uses. A broken
or missing configuration does not stop it: then only the recorded plugins are listed.
"""

from __future__ import annotations

import sys

import typer

from cli.common import print_json
from cli.options.globals import options
from vocab.errors import ExitCode
from vocab.version import VERSION


def register(app: typer.Typer) -> None:
    app.command("version", help=_HELP)(version_command)


_HELP = """Show ctl's version, its installed adapters and the providers selected for this directory.

Example: ctl version --json | jq .provider_selections
"""


def version_command(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="Print JSON (Terraform's version -json shape)."),
) -> int:
    from adapters.registry import Registry
    from engine.config.loader import load_config
    from engine.plugins.inventory import served
    from vocab.providers import host_os_arch

    root_dir = options(ctx).root
    root, diags = load_config(root_dir) if root_dir.is_dir() else (None, None)
    usable = root if root is not None and root.files and diags is not None and not diags.has_errors else None
    providers = served(root_dir, usable)
    adapters = {p.name: p.source for p in Registry.discover().providers()}
    if json_out:
        print_json({
            "ctl_version": VERSION,
            "platform": host_os_arch(),
            "adapters": adapters,
            "provider_selections": {p.source: p.version for p in providers if p.plugin is not None},
            "providers": [{"source": p.source, "served_by": p.how, "version": p.version or None,
                           "protocol": p.protocol} for p in providers],
        })
        return int(ExitCode.OK)
    lines = [f"ctl {VERSION}", f"on {host_os_arch()}"]
    lines += [f"+ adapter {name} ({source})" for name, source in sorted(adapters.items())]
    for p in providers:
        how = {"native": "native adapter", "missing": "no plugin selected: run ctl init"}.get(
            p.how, "plugin" + (f", protocol {p.protocol}" if p.protocol is not None else ""))
        lines.append(f"+ provider {p.source}{' v' + p.version if p.version else ''} ({how})")
    sys.stdout.write("\n".join(lines) + "\n")
    return int(ExitCode.OK)
