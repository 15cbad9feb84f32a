"""API tokens for private registries and mirrors, found where Terraform finds them.

For a hostname, in Terraform's order: a ``TF_TOKEN_<host>`` environment variable (dots written as
``_``, hyphens as ``__``: ``TF_TOKEN_registry_example__corp_com`` for ``registry.example-corp.com``),
then a ``credentials "HOST" { token = "…" }`` block of the CLI configuration, then the credentials
file ``terraform login`` writes (``~/.terraform.d/credentials.tfrc.json``). The token goes only to
that host, as ``Authorization: Bearer``, and never into a message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from vocab.errors import CtlError

ENV_PREFIX = "TF_TOKEN_"


def env_name(hostname: str) -> str:
    """The variable that holds ``hostname``'s token (a host with a port has none)."""
    return ENV_PREFIX + hostname.lower().replace("-", "__").replace(".", "_")


def _host_of(variable: str) -> str:
    encoded = variable[len(ENV_PREFIX):]
    return "-".join(part.replace("_", ".") for part in encoded.split("__")).lower()


@dataclass(frozen=True)
class Credentials:
    """Tokens by hostname (lower-cased), from every source, the first source winning."""

    tokens: dict[str, str] = field(default_factory=dict)

    def token_for(self, hostname: str) -> str | None:
        return self.tokens.get(hostname.lower())


def gather(configured: Mapping[str, str], env: Mapping[str, str]) -> Credentials:
    """Tokens from the environment, then ``configured`` (the CLI configuration), then the file."""
    tokens: dict[str, str] = {}
    for name, value in env.items():
        if name.startswith(ENV_PREFIX) and value:
            tokens.setdefault(_host_of(name), value)
    for host, token in configured.items():
        tokens.setdefault(host.lower(), token)
    for host, token in _from_file(env).items():
        tokens.setdefault(host.lower(), token)
    return Credentials(tokens)


def _from_file(env: Mapping[str, str]) -> dict[str, str]:
    home = env.get("HOME")
    path = (Path(home) if home else Path.home()) / ".terraform.d" / "credentials.tfrc.json"
    try:
        doc = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise CtlError(f"cannot read the credentials file {path}: {exc}",
                       hint="Fix or remove it (`terraform login` writes it).") from None
    entries = doc.get("credentials") if isinstance(doc, dict) else None
    if not isinstance(entries, dict):
        return {}
    return {host: entry["token"] for host, entry in entries.items()
            if isinstance(entry, dict) and isinstance(entry.get("token"), str)}


def refused(host: str, exc: CtlError, credentials: Credentials) -> str | None:
    """The hint for a registry or mirror that answered 401/403, or None for another failure."""
    if getattr(exc, "status", None) not in (401, 403):
        return None
    if credentials.token_for(host) is None:
        block = f'credentials "{host}" {{ token = "…" }} to the CLI configuration (or run `terraform login`)'
        if ":" in host:  # a port: no environment variable can name it
            return f"{host} wants a token: add {block}."
        return f"{host} wants a token: set {env_name(host)}, or add {block}."
    return f"The token ctl sent to {host} was refused: check that it is current and may read the provider."
