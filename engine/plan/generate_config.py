"""``ctl plan --generate-config-out=FILE``: resource blocks written for import targets that have none.

Each object an ``import`` block names, where the root module declares no resource for it, is read
through its adapter and written as a ``resource`` block of its arguments (computed-only attributes
left out, lists of objects as nested blocks, sensitive values as ``null # sensitive`` for the user to
fill in), then formatted as ``ctl fmt`` formats. The plan that follows loads the file like any other, so it shows the
import. HCL is written by python-hcl2's writer, the same library that parses ctl's oracle tests.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from engine.plan.imports import Target, import_targets, read_target
from engine.providers import Providers
from engine.schema import argument_names, repeated_block
from vocab.errors import CtlError, Diagnostics, DiagnosticsError
from vocab.values import Marked, deep_unmark

HEADER = "# __generated__ by ctl\n# Please review these resources and move them into your main configuration files.\n"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def generate(root_dir: Path, out: Path, *, var_args: Any, environ: Any, prompt: Any, workspace: str,
             registry: Any) -> list[str]:
    """Write ``out`` for the import targets without configuration; returns their addresses."""
    from engine.validate import load_and_evaluate

    loaded = load_and_evaluate(root_dir, var_args=var_args, environ=environ, prompt=prompt, registry=registry,
                               workspace=workspace, require_all_variables=True)
    if loaded.diags.has_errors or loaded.root is None or loaded.walk is None:
        raise DiagnosticsError(loaded.diags.items)
    diags = Diagnostics()
    targets = [t for t in import_targets(loaded.root, loaded.walk.scopes[()][0].ctx, diags) if t.resource is None]
    if diags.has_errors:
        raise DiagnosticsError(diags.items)
    if not targets:
        return []
    check_destination(root_dir, out, loaded.root, workspace)
    for target in targets:
        if target.address.module:
            raise CtlError(f"Cannot generate configuration for {target.address}: it is in a child module",
                           range=target.block.rng, hint="Write the resource block in that module yourself.")
    providers = Providers(registry, loaded.walk.provider_configs, loaded.root.dir)
    blocks = [render_block(t, *read_target(t, registry, providers)[:2]) for t in targets]
    text = format_hcl(HEADER + "".join(blocks), str(out)).encode()
    try:  # O_EXCL and O_NOFOLLOW: never through a symlink, never over a file made since the check
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    except FileExistsError:
        raise CtlError(f"--generate-config-out: {out} already exists",
                       hint="Name a new file; ctl does not overwrite configuration.") from None
    except OSError as exc:
        raise CtlError(f"--generate-config-out: cannot create {out}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(text)
    return [str(t.address) for t in targets]


def check_destination(root_dir: Path, out: Path, root: Any, workspace: str) -> None:
    """Refuse a file the plan would not read, or one that is ctl's own.

    The plan that follows loads the generated blocks with the rest of the root module, so the file
    must be a new ``.tf`` file directly in the configuration directory: written anywhere else it
    would be left out of that plan (and of every later one). The state, its backup, journal and
    lock, Terraform's state and lock file, and ``.ctl/`` are refused by name, whether or not they
    exist yet.
    """
    from backends.base import LocalStateFile
    from engine.session import open_store
    from vocab.reserved_paths import is_reserved, reserved_paths

    name = f"--generate-config-out: {out}"
    if os.path.lexists(out):
        raise CtlError(f"{name} already exists", hint="Name a new file; ctl does not overwrite configuration.")
    config_dir = Path(os.path.realpath(root_dir))
    if Path(os.path.realpath(out.parent)) != config_dir:
        raise CtlError(f"{name} is outside the configuration directory {config_dir}",
                       hint="Name a new .tf file directly in the configuration directory, so the plan reads it.")
    try:
        store = open_store(root_dir, root)
    except CtlError:
        store = None
    state_file = store.state_path(workspace) if isinstance(store, LocalStateFile) else None
    own = (*reserved_paths(state_file, root_dir),
           *(config_dir / n for n in ("ctl.tfstate", "terraform.tfstate", ".terraform.lock.hcl", ".terraform")))
    if is_reserved(out, own):
        raise CtlError(f"{name} is one of ctl's own files (state, backup, journal, lock or .ctl/)",
                       hint="Name a new .tf file for the generated configuration.")
    if not out.name.endswith(".tf") or out.name.startswith("."):
        raise CtlError(f"{name} is not a .tf file, so the plan would not read it",
                       hint="Name a new file ending in .tf, such as generated.tf.")


def render_block(target: Target, rt: Any, attrs: dict[str, Any]) -> str:
    """One resource block (python-hcl2's writer), with sensitive arguments as ``null # sensitive``."""
    from hcl2.api import reverse_transform, writes
    from hcl2.builder import Builder

    plain: dict[str, Any] = {}
    nested: dict[str, list[dict[str, Any]]] = {}
    secret: list[str] = []
    for name in argument_names(rt):
        if name in rt.computed or name not in attrs:
            continue
        value = attrs[name]
        if isinstance(value, Marked):
            secret.append(name)
            continue
        value = deep_unmark(value)[0]
        if repeated_block(rt, name) and isinstance(value, list):
            nested[name] = [v for v in value if isinstance(v, dict)]
        else:
            plain[name] = _hcl_value(value)
    builder = Builder()
    block = builder.block("resource", [target.address.type, target.address.name], **plain)
    for name, items in nested.items():
        for item in items:
            block.block(name, **{k: _hcl_value(v) for k, v in item.items()})
    text = writes(reverse_transform(builder.build())).rstrip()
    if secret:
        assert text.endswith("}")
        text = text[:-1] + "".join(f"  {name} = null # sensitive\n" for name in secret) + "}"
    return f'\n# __generated__ by ctl from "{target.id}"\n{text}\n'


def _hcl_value(value: Any) -> Any:
    """A value python-hcl2's writer prints as the same value: templates escaped, odd keys quoted."""
    if isinstance(value, str):
        return value.replace("${", "$${").replace("%{", "%%{")
    if isinstance(value, list):
        return [_hcl_value(v) for v in value]
    if isinstance(value, dict):
        return {(k if _IDENTIFIER.match(k) else '"' + k.replace('"', '\\"') + '"'): _hcl_value(v)
                for k, v in value.items()}
    return value


def format_hcl(text: str, filename: str) -> str:
    """The writer's output in ctl fmt's canonical layout (Terraform's)."""
    from engine.fmt import format_source

    return format_source(text.encode(), filename).decode()
