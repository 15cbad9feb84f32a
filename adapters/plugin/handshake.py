"""go-plugin's launch contract: what a provider is told in its environment and the line it answers.

A provider started by hand only prints a notice that it is a plugin; it serves only when it finds
Terraform's magic cookie in its environment. It picks the newest protocol version from
``PLUGIN_PROTOCOL_VERSIONS`` it supports, listens on a socket and prints one line on stdout::

    CORE-VERSION|PROTOCOL-VERSION|NETWORK|ADDRESS|RPC-KIND|SERVER-CERT

CORE-VERSION is go-plugin's own (always 1), NETWORK ``unix`` or ``tcp``, RPC-KIND ``grpc`` for
every provider Terraform can run today (``netrpc`` is the pre-0.12 protocol 4), and SERVER-CERT is
present when the client asked for mutual TLS. A seventh field appears only when the client asks for
broker multiplexing, which ctl does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE"
MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"
CORE_PROTOCOL_VERSION = 1
SUPPORTED_PROTOCOL_VERSIONS = (5, 6)
# go-plugin's default port range for plugins that listen on TCP (Windows; unix sockets elsewhere).
DEFAULT_MIN_PORT = 10000
DEFAULT_MAX_PORT = 25000


@dataclass(frozen=True, slots=True)
class Handshake:
    """The parsed handshake line; ``server_cert`` is the raw base64 field ('' without TLS)."""

    core_version: int
    protocol_version: int
    network: str
    address: str
    rpc_kind: str
    server_cert: str


class HandshakeLineError(ValueError):
    """The line is not a go-plugin handshake, or offers something ctl cannot speak."""


def plugin_environment(
    base: Mapping[str, str], client_cert_pem: bytes | None, min_port: int, max_port: int
) -> dict[str, str]:
    """The provider's environment: ctl's own plus what makes the provider serve."""
    env = dict(base)
    env[MAGIC_COOKIE_KEY] = MAGIC_COOKIE_VALUE
    env["PLUGIN_PROTOCOL_VERSIONS"] = ",".join(str(v) for v in SUPPORTED_PROTOCOL_VERSIONS)
    env["PLUGIN_MIN_PORT"] = str(min_port)
    env["PLUGIN_MAX_PORT"] = str(max_port)
    if client_cert_pem is not None:
        env["PLUGIN_CLIENT_CERT"] = client_cert_pem.decode("ascii")
    else:
        env.pop("PLUGIN_CLIENT_CERT", None)
    return env


def parse_handshake(line: str) -> Handshake:
    """Check one handshake line; raises ``HandshakeLineError`` saying what is wrong with it."""
    parts = line.strip().split("|")
    if len(parts) < 4:
        raise HandshakeLineError("it is not a plugin handshake line")
    try:
        core, version = int(parts[0]), int(parts[1])
    except ValueError:
        raise HandshakeLineError("its version fields are not numbers") from None
    if core != CORE_PROTOCOL_VERSION:
        raise HandshakeLineError(
            f"it speaks plugin core protocol {core}; ctl speaks {CORE_PROTOCOL_VERSION}"
        )
    if version not in SUPPORTED_PROTOCOL_VERSIONS:
        raise HandshakeLineError(
            f"it offers plugin protocol version {version}; ctl supports versions "
            + " and ".join(str(v) for v in SUPPORTED_PROTOCOL_VERSIONS)
        )
    network, address = parts[2], parts[3]
    if network not in ("unix", "tcp"):
        raise HandshakeLineError(f"it listens on an unknown network type {network!r}")
    rpc_kind = parts[4] if len(parts) >= 5 else "netrpc"
    if rpc_kind != "grpc":
        raise HandshakeLineError(f"it speaks {rpc_kind!r} RPC; ctl speaks only gRPC")
    # go-plugin ignores a short sixth field: old servers put unrelated data there.
    cert = parts[5] if len(parts) >= 6 and len(parts[5]) > 50 else ""
    return Handshake(core, version, network, address, rpc_kind, cert)
