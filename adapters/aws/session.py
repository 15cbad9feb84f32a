"""The client one ``provider "aws"`` configuration shares across all of its resources.

``AwsClients`` holds one boto3 Session and builds each service client once, on first use, under a
lock: the apply walker calls in from many threads, and boto3 sessions are not safe to build clients
from concurrently (the clients themselves are). boto3 is imported here, inside the constructor, so
importing the provider package (``ctl --help``, Tab completion, ``ctl validate``) never loads it.

Endpoints resolve per service the way Terraform's provider does: the ``endpoints`` block first,
then ``AWS_ENDPOINT_URL_<SERVICE>``, then ``AWS_ENDPOINT_URL``, else AWS's own endpoint. Retries
(throttling, 5xx, dropped connections) are botocore's "standard" retry mode, never a loop here.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SERVICES: tuple[str, ...] = ("s3", "sqs", "sns", "dynamodb", "iam", "sts")
DEFAULT_MAX_RETRIES = 5
# "adaptive" adds botocore's client-side rate limiter: after throttling, a token bucket shared by
# every thread using the client slows the calls down to what the service accepts.
RETRY_MODES = ("standard", "adaptive")
# Connections per service client: above the walker's usual parallelism, so threads never queue
# for a connection (botocore's default is 10).
MAX_POOL_CONNECTIONS = 64


@dataclass
class Settings:
    """A provider configuration reduced to what building clients needs (all plain values)."""

    region: str | None = None
    profile: str | None = None
    access_key: str | None = None
    secret_key: str | None = None
    token: str | None = None
    endpoints: dict[str, str] = field(default_factory=dict)
    s3_use_path_style: bool | None = None
    skip_credentials_validation: bool = False
    max_retries: int = DEFAULT_MAX_RETRIES
    retry_mode: str = "standard"
    default_tags: dict[str, str] = field(default_factory=dict)


class AwsClients:
    """One boto3 Session and its service clients; what ``AdapterContext.client`` holds for aws."""

    def __init__(self, settings: Settings, env: Mapping[str, str] | None = None) -> None:
        import boto3.session

        self.settings = settings
        # The configuration is fixed when it is configured: endpoint variables are read now,
        # not whenever a client happens to be built later.
        source = os.environ if env is None else env
        self._env = {k: v for k, v in source.items() if k.startswith("AWS_ENDPOINT_URL")}
        self.session = boto3.session.Session(
            profile_name=settings.profile,
            region_name=settings.region,
            aws_access_key_id=settings.access_key,
            aws_secret_access_key=settings.secret_key,
            aws_session_token=settings.token,
        )
        self.region: str = self.session.region_name or ""
        self.session.get_credentials()  # resolved (and kept) now, like the endpoints
        self.default_tags: dict[str, str] = dict(settings.default_tags)
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._identity: dict[str, str] | None = None

    # ---- endpoints and clients -------------------------------------------------------------

    def endpoint(self, service: str) -> str | None:
        """The endpoint URL for ``service``, or None for AWS's own."""
        explicit = self.settings.endpoints.get(service)
        if explicit:
            return explicit
        specific = self._env.get(f"AWS_ENDPOINT_URL_{service.upper()}")
        return specific or self._env.get("AWS_ENDPOINT_URL") or None

    def path_style(self) -> bool:
        """S3 path-style addressing: as configured, else whenever the endpoint is an IP or localhost.

        Virtual-hosted addressing puts the bucket name into the host name, which cannot resolve
        for ``127.0.0.1`` or ``localhost`` endpoints (local emulators), so those default to paths.
        """
        import ipaddress
        from urllib.parse import urlsplit

        if self.settings.s3_use_path_style is not None:
            return self.settings.s3_use_path_style
        endpoint = self.endpoint("s3")
        if not endpoint:
            return False
        host = urlsplit(endpoint).hostname or ""
        if host == "localhost" or host.endswith(".localhost"):
            return True
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return False
        return True

    def client(self, service: str) -> Any:
        """The shared client for ``service`` (built once; boto3 clients are thread-safe)."""
        with self._lock:
            found = self._clients.get(service)
            if found is None:
                found = self._build(service)
                self._clients[service] = found
            return found

    def _build(self, service: str) -> Any:
        from botocore.config import Config

        options: dict[str, Any] = {
            # max_retries counts retries (Terraform's meaning); total_max_attempts counts the first
            # attempt too (botocore's own "max_attempts" would mean retries, one more than asked).
            "retries": {"mode": self.settings.retry_mode,
                        "total_max_attempts": max(0, self.settings.max_retries) + 1},
            "max_pool_connections": MAX_POOL_CONNECTIONS,
            "connect_timeout": 10,
            "read_timeout": 60,
            "user_agent_extra": "ctl",
        }
        if service == "s3":
            options["s3"] = {"addressing_style": "path" if self.path_style() else "auto"}
        return self.session.client(service, region_name=self.region, endpoint_url=self.endpoint(service),
                                   config=Config(**options))

    # ---- identity --------------------------------------------------------------------------

    def identity(self) -> dict[str, str]:
        """STS GetCallerIdentity (account, ARN, user id), asked once per configuration."""
        with self._lock:
            cached = self._identity
        if cached is not None:
            return cached
        found = self.client("sts").get_caller_identity()
        identity = {"account_id": found["Account"], "arn": found["Arn"], "user_id": found["UserId"]}
        with self._lock:
            self._identity = identity
        return identity

    # ---- naming helpers --------------------------------------------------------------------

    @property
    def partition(self) -> str:
        if self.region.startswith("cn-"):
            return "aws-cn"
        if self.region.startswith("us-gov-"):
            return "aws-us-gov"
        return "aws"

    @property
    def dns_suffix(self) -> str:
        return "amazonaws.com.cn" if self.partition == "aws-cn" else "amazonaws.com"
