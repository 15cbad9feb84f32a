"""The CLI configuration's installation settings: ``provider_installation`` and ``plugin_cache_dir``.

Read from ``CTL_CLI_CONFIG_FILE``, else Terraform's ``TF_CLI_CONFIG_FILE``, else ``~/.terraformrc``,
so a team's existing Terraform set-up (mirrors for air-gapped CI, a shared cache) applies to ctl
unchanged, and its ``credentials`` blocks give private registries their tokens (see ``credentials``).
Other settings of that file (checkpoint, credentials helpers) are not ctl's and are ignored.
The cache directory may also come from ``CTL_PLUGIN_CACHE_DIR`` or ``TF_PLUGIN_CACHE_DIR``, which
win over the file, as Terraform's variable does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engine.install.constants import constant
from engine.install.sources import Patterns
from engine.lang.hcl import parse_hcl_file
from engine.lang.syntax import Body
from vocab.errors import CtlError

CONFIG_ENV = ("CTL_CLI_CONFIG_FILE", "TF_CLI_CONFIG_FILE")
CACHE_ENV = ("CTL_PLUGIN_CACHE_DIR", "TF_PLUGIN_CACHE_DIR")
METHODS = ("filesystem_mirror", "network_mirror", "direct")


@dataclass(frozen=True)
class MethodConfig:
    kind: str  # one of METHODS
    location: str = ""  # the mirror's path or URL
    patterns: Patterns = field(default_factory=Patterns)


@dataclass
class CliConfig:
    path: Path | None = None
    methods: list[MethodConfig] | None = None  # None: no provider_installation block (implied sources)
    cache_dir: Path | None = None
    credentials: dict[str, str] = field(default_factory=dict)  # hostname -> token


def config_path(env: Mapping[str, str]) -> Path | None:
    for name in CONFIG_ENV:
        if env.get(name):
            return Path(env[name]).expanduser()
    home = env.get("HOME")
    rc = Path(home) / ".terraformrc" if home else Path.home() / ".terraformrc"
    return rc if rc.is_file() else None


def read_cli_config(env: Mapping[str, str] | None = None) -> CliConfig:
    env = os.environ if env is None else env
    path = config_path(env)
    config = CliConfig(path)
    if path is not None:
        try:
            src = path.read_bytes()
        except FileNotFoundError:  # as for Terraform: a configuration file that is not there is empty
            src = b""
        except OSError as exc:
            raise CtlError(f"cannot read the CLI configuration {path}: {exc.strerror}",
                           hint="Fix the path in CTL_CLI_CONFIG_FILE / TF_CLI_CONFIG_FILE.") from None
        body = parse_hcl_file(src, str(path))
        cache = _string(body, "plugin_cache_dir")
        config.cache_dir = Path(cache).expanduser() if cache else None
        blocks = body.blocks_of("provider_installation")
        if len(blocks) > 1:
            raise CtlError("only one provider_installation block is allowed", range=blocks[1].rng)
        if blocks:
            config.methods = [_method(b.type, b.body, b) for b in blocks[0].body.blocks]
        for block in body.blocks_of("credentials"):
            if len(block.labels) != 1:
                raise CtlError('a credentials block is written credentials "HOSTNAME" { token = "…" }',
                               range=block.rng)
            config.credentials[block.labels[0]] = _string(block.body, "token")
    for name in CACHE_ENV:
        if env.get(name):
            config.cache_dir = Path(env[name]).expanduser()
            break
    return config


def _method(kind: str, body: Body, block: object) -> MethodConfig:
    rng = getattr(block, "rng", None)
    if kind not in METHODS:
        raise CtlError(f'Unknown installation method "{kind}"', range=rng,
                       hint="provider_installation takes filesystem_mirror, network_mirror and direct blocks.")
    patterns = Patterns(_strings(body, "include"), _strings(body, "exclude"))
    if kind == "direct":
        return MethodConfig(kind, "", patterns)
    key = "path" if kind == "filesystem_mirror" else "url"
    location = _string(body, key)
    if not location:
        raise CtlError(f'{kind} needs "{key}"', range=rng)
    return MethodConfig(kind, location, patterns)


def _value(body: Body, name: str) -> object:
    return constant(body, name, "the CLI configuration")


def _string(body: Body, name: str) -> str:
    value = _value(body, name)
    if value is not None and not isinstance(value, str):
        raise CtlError(f'"{name}" must be a string', range=body.attributes[name].expr.rng)
    return value or ""


def _strings(body: Body, name: str) -> list[str]:
    value = _value(body, name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CtlError(f'"{name}" must be a list of provider address patterns',
                       range=body.attributes[name].expr.rng)
    return list(value)
