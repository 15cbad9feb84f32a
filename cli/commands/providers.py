"""``ctl providers`` and ``ctl providers schema --json``: what the configuration needs, and how.

``ctl providers`` draws Terraform's requirement tree (each module with its own constraints) and
lists the providers the state records; ``schema --json`` prints every provider's schema in
Terraform's document format, so tools written for ``terraform providers schema -json`` work.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cli.common import print_json_line
from cli.options.globals import options
from engine.config.model import Module
from vocab.errors import CtlError, ExitCode

providers_app = typer.Typer(
    name="providers",
    help="Show the providers the configuration requires and how each is served.",
    invoke_without_command=True,
    rich_markup_mode=None,
    suggest_commands=False,
)


def register(app: typer.Typer) -> None:
    app.add_typer(providers_app, name="providers")


def _configuration(root_dir: Path) -> Module:
    from engine.config.loader import load_config
    from vocab.errors import DiagnosticsError

    root, diags = load_config(root_dir)
    if diags.has_errors:
        raise DiagnosticsError(diags.items)
    if not root.files:
        raise CtlError(f"no configuration files in {root_dir}", hint="Run ctl providers in a configuration directory.")
    return root


@providers_app.callback()
def tree_command(ctx: typer.Context) -> int:
    """Show the providers required by the configuration (per module) and by the state.

    Each provider line shows the version constraints that module declares; the last section says
    how this directory serves each one: native adapter, plugin (version, protocol), both, or not
    yet (run `ctl init`).

    Example: ctl providers
    """
    if ctx.invoked_subcommand is not None:
        return int(ExitCode.OK)
    from engine.plugins.inventory import provider_tree, render_tree, served
    from engine.state_tools.access import read_state

    root_dir = options(ctx).root
    root = _configuration(root_dir)
    lines = ["", "Providers required by configuration:", *render_tree(provider_tree(root)), ""]
    in_state = sorted({_source_of(r.provider) for r in read_state(root_dir).resources})
    if in_state:
        lines += ["Providers required by state:", "", *(f"    provider[{s}]" for s in in_state), ""]
    lines += ["Providers served:", ""]
    for provider in served(root_dir, root):
        lines.append(f"    provider[{provider.source}] {_how(provider.how, provider.version, provider.protocol)}")
    sys.stdout.write("\n".join(lines) + "\n\n")
    return int(ExitCode.OK)


def _how(how: str, version: str, protocol: int | None) -> str:
    """A plugin's protocol is shown once known: from its first schema read (init starts no provider)."""
    if how == "missing":
        return "- no plugin selected: run `ctl init`"
    if how == "native":
        return "- native adapter"
    return f"- plugin v{version}" + (f" (protocol {protocol})" if protocol is not None else "")


def _source_of(provider_address: str) -> str:
    """``provider["registry.terraform.io/hashicorp/aws"].west`` → ``registry.terraform.io/hashicorp/aws``."""
    start, end = provider_address.find('"'), provider_address.rfind('"')
    return provider_address[start + 1:end] if 0 <= start < end else provider_address


@providers_app.command("schema", help="""Print the schemas of the configuration's providers.

The document has Terraform's format (format_version, provider_schemas keyed by source address):
plugins' schemas as the provider reports them, native adapters' converted from their JSON Schema.

Example: ctl providers schema --json | jq '.provider_schemas | keys'""")
def schema_command(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="Print JSON (required; the only format)."),
) -> int:
    if not json_out:
        raise CtlError("ctl providers schema needs --json", hint="Run ctl providers schema --json.",
                       exit_code=ExitCode.USAGE)
    from engine.plugins.schema_doc import providers_schema

    root_dir = options(ctx).root
    print_json_line(providers_schema(root_dir, _configuration(root_dir)))
    return int(ExitCode.OK)


_PLATFORM_HELP = "A target platform OS_ARCH (repeatable; default: this machine's), e.g. linux_amd64."


@providers_app.command("lock", help="""Record provider hashes for several platforms in .terraform.lock.hcl.

Every provider the configuration requires (or those named) is resolved as `ctl init` would, its
package for each platform fetched and verified, and its hashes added to the lock file, so a lock
file written on one machine verifies what the others install.

Example: ctl providers lock -platform=linux_amd64 -platform=darwin_arm64""")
def lock_command(
    ctx: typer.Context,
    providers: list[str] = typer.Argument(None, metavar="[PROVIDER]...",
                                          help="Source addresses to lock (default: all the configuration requires)."),
    platform: list[str] = typer.Option(None, "--platform", metavar="OS_ARCH", help=_PLATFORM_HELP),
    fs_mirror: list[str] = typer.Option(None, "--fs-mirror", metavar="DIR",
                                        help="Take packages from this filesystem mirror only (repeatable)."),
    net_mirror: list[str] = typer.Option(None, "--net-mirror", metavar="URL",
                                         help="Take packages from this network mirror only (repeatable)."),
) -> int:
    from engine.install.commands import lock_providers

    root_dir = options(ctx).root
    entries = lock_providers(root_dir, _configuration(root_dir), platforms=list(platform or []),
                             fs_mirrors=list(fs_mirror or []), net_mirrors=list(net_mirror or []),
                             names=list(providers or []))
    for entry in entries:
        sys.stdout.write(f"- {entry.address} v{entry.version}: {len(entry.hashes)} hash(es)\n")
    sys.stdout.write("Updated .terraform.lock.hcl.\n")
    return int(ExitCode.OK)


@providers_app.command("mirror", help="""Copy the configuration's providers into a filesystem mirror directory.

The directory gets each package as HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip,
plus the network mirror protocol's index.json and VERSION.json, so it serves air-gapped machines as a
filesystem_mirror or, behind any HTTPS file server, as a network_mirror.

Example: ctl providers mirror -platform=linux_amd64 /srv/providers""")
def mirror_command(
    ctx: typer.Context,
    target: Path = typer.Argument(..., metavar="DIR", help="The mirror directory (created if needed)."),
    platform: list[str] = typer.Option(None, "--platform", metavar="OS_ARCH", help=_PLATFORM_HELP),
) -> int:
    from engine.install.commands import mirror_providers

    root_dir = options(ctx).root
    copied = mirror_providers(root_dir, _configuration(root_dir), target, platforms=list(platform or []))
    for address, version in copied:
        sys.stdout.write(f"- Mirrored {address} v{version}\n")
    sys.stdout.write(f"Mirror written to {target}.\n")
    return int(ExitCode.OK)
