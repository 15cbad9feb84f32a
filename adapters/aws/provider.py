"""``provider "aws"``: its arguments, and the clients one configuration builds.

The arguments are Terraform's, so provider blocks port unchanged. Arguments ctl does not implement
(``assume_role``, ``allowed_account_ids`` …) are refused rather than ignored: ignoring them would
quietly act on another account or role than the user asked for. Nested blocks (``endpoints``,
``default_tags``) arrive as lists of objects, as the configuration walk evaluates every block.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from adapters.aws.errors import describe_sdk_error
from adapters.aws.session import DEFAULT_MAX_RETRIES, RETRY_MODES, SERVICES, AwsClients, Settings
from adapters.base import AdapterError, Provider

_STR: dict[str, Any] = {"type": ["string", "null"]}
_BOOL: dict[str, Any] = {"type": ["boolean", "null"]}


def _block(props: dict[str, Any]) -> dict[str, Any]:
    """A nested block: one object, or (as the walk produces it) a list of at most one object."""
    obj = {"type": "object", "properties": props, "additionalProperties": False}
    return {"anyOf": [{"type": "array", "items": obj, "maxItems": 1}, obj, {"type": "null"}]}


CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "region": _STR,
        "profile": _STR,
        "access_key": _STR,
        "secret_key": _STR,
        "token": _STR,
        "endpoints": _block({name: _STR for name in SERVICES}),
        "s3_use_path_style": _BOOL,
        "skip_credentials_validation": _BOOL,
        # Accepted for portability; ctl never calls the metadata API or account lookups on its own.
        "skip_metadata_api_check": _BOOL,
        "skip_region_validation": _BOOL,
        "skip_requesting_account_id": _BOOL,
        "max_retries": {"type": ["integer", "null"], "minimum": 0},
        "retry_mode": {"enum": [*RETRY_MODES, None]},
        "default_tags": _block({"tags": {"type": ["object", "null"], "additionalProperties": {"type": "string"}}}),
    },
    "additionalProperties": False,
}


class AwsProvider(Provider):
    """The aws provider; ``configure`` returns an ``AwsClients`` shared by all of its resources."""

    def configure(self, config: dict[str, Any], workdir: Path) -> AwsClients:
        settings = settings_from(config)
        try:
            clients = AwsClients(settings)
        except Exception as exc:  # botocore's ProfileNotFound and friends
            raise AdapterError(f'Cannot configure provider "aws": {describe_sdk_error(exc)}',
                               hint="Check the profile name and the shared config files.") from None
        if not clients.region:
            raise AdapterError(
                'Cannot configure provider "aws": no region is set',
                hint='Set region = "us-east-1" (for example) in the provider block, or AWS_REGION.',
            )
        if not settings.skip_credentials_validation:
            try:
                clients.identity()
            except Exception as exc:  # no credentials, wrong keys, endpoint unreachable
                raise AdapterError(
                    f'Cannot configure provider "aws": validating the credentials failed: '
                    f"{describe_sdk_error(exc)}",
                    hint="Set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or a profile, check the sts endpoint, "
                         "or set skip_credentials_validation = true.",
                ) from None
        return clients


def settings_from(config: dict[str, Any]) -> Settings:
    """Validate a provider block's arguments and reduce them to ``Settings``."""
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(CONFIG_SCHEMA).iter_errors(config), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        where = ".".join(str(p) for p in first.path) or "provider block"
        raise AdapterError(
            f'Invalid provider "aws" configuration ({where}): {first.message}',
            hint="Supported arguments: " + ", ".join(sorted(CONFIG_SCHEMA["properties"])) + ".",
        )
    endpoints = _one_block(config.get("endpoints"))
    tags = _one_block(config.get("default_tags")).get("tags") or {}
    retries = config.get("max_retries")
    retry_mode = config.get("retry_mode") or os.environ.get("AWS_RETRY_MODE") or "standard"
    if retry_mode not in RETRY_MODES:
        raise AdapterError(f'Invalid provider "aws" configuration: AWS_RETRY_MODE={retry_mode!r}',
                           hint="Set it to standard or adaptive, or unset it.")
    return Settings(
        region=config.get("region") or None,
        profile=config.get("profile") or None,
        access_key=config.get("access_key") or None,
        secret_key=config.get("secret_key") or None,
        token=config.get("token") or None,
        endpoints={k: v for k, v in endpoints.items() if v},
        s3_use_path_style=config.get("s3_use_path_style"),
        skip_credentials_validation=bool(config.get("skip_credentials_validation")),
        max_retries=DEFAULT_MAX_RETRIES if retries is None else int(retries),
        retry_mode=retry_mode,
        default_tags={str(k): str(v) for k, v in tags.items()},
    )


def _one_block(value: Any) -> dict[str, Any]:
    if isinstance(value, list):
        return dict(value[0]) if value else {}
    return dict(value) if isinstance(value, dict) else {}
