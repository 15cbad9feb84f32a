"""Turning SDK failures into errors a user can act on, and "not found" into None.

Every AWS call of the adapters goes through ``call``: a failure becomes an ``AdapterError`` naming
the resource address, the object and the API operation, with a hint where the error code has an
obvious remedy — never a botocore traceback. The error codes that mean "the object is gone" are
listed per call, because each service spells them differently (``NoSuchBucket``, ``404``,
``NoSuchEntity``, ``ResourceNotFoundException``, ``AWS.SimpleQueueService.NonExistentQueue`` …).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from adapters.base import AdapterContext, AdapterError

_HINTS: dict[str, str] = {
    "AccessDenied": "Check that the credentials may perform this operation.",
    "AccessDeniedException": "Check that the credentials may perform this operation.",
    "BucketAlreadyExists": "Bucket names are global: choose another name.",
    "BucketAlreadyOwnedByYou": "The bucket exists already: adopt it with `ctl import ADDRESS BUCKET`.",
    "EntityAlreadyExists": "It exists already: adopt it with `ctl import ADDRESS NAME`.",
    "QueueAlreadyExists": "A queue with this name and other attributes exists: import it or rename.",
    "ResourceInUseException": "It exists already (or is busy): import it or choose another name.",
    "DeleteConflict": "Other objects still use it; remove them first (for roles: force_detach_policies).",
    "BucketNotEmpty": "Empty the bucket first, or set force_destroy = true.",
    "InvalidClientTokenId": "Check AWS_ACCESS_KEY_ID / the profile's credentials.",
    "SignatureDoesNotMatch": "Check AWS_SECRET_ACCESS_KEY / the profile's credentials.",
    "ExpiredToken": "Refresh the session credentials.",
    "MalformedPolicyDocument": "Check the policy JSON.",
    "MalformedPolicy": "Check the policy JSON.",
}


def error_code(exc: BaseException) -> str:
    """The AWS error code of a botocore ClientError ("" for anything else)."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return ""
    return str(response.get("Error", {}).get("Code", ""))


def describe_sdk_error(exc: BaseException) -> str:
    """One line: ``Code: message`` for service errors, botocore's own text otherwise."""
    code = error_code(exc)
    if code:
        message = getattr(exc, "response", {}).get("Error", {}).get("Message", "") or ""
        return f"{code}: {message}".rstrip(": ")
    return str(exc) or type(exc).__name__


def sdk_error(ctx: AdapterContext, what: str, operation: str, exc: BaseException) -> AdapterError:
    """The ``AdapterError`` for a failed call ``operation`` on the object ``what``."""
    code = error_code(exc)
    hint = _HINTS.get(code, "")
    if not code and "Could not connect" in str(exc):
        hint = "Check the endpoint (provider endpoints block or AWS_ENDPOINT_URL) and the network."
    if not code and "Unable to locate credentials" in str(exc):
        hint = "Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile."
    return AdapterError(f"{operation} on {what} failed: {describe_sdk_error(exc)}", hint=hint,
                        address=ctx.address or None)


def call(ctx: AdapterContext, what: str, fn: Callable[..., Any], /, *, missing: Collection[str] = (),
         **kwargs: Any) -> Any:
    """``fn(**kwargs)``; None when the error code is in ``missing``; an ``AdapterError`` otherwise.

    ``what`` names the object for messages (``S3 bucket "logs"``).
    """
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return fn(**kwargs)
    except ClientError as exc:
        if error_code(exc) in missing:
            return None
        raise sdk_error(ctx, what, _operation(fn), exc) from None
    except BotoCoreError as exc:
        raise sdk_error(ctx, what, _operation(fn), exc) from None


def _operation(fn: Callable[..., Any]) -> str:
    """The API operation of a bound boto3 client method (``head_bucket`` -> ``HeadBucket``)."""
    name = getattr(fn, "__name__", "call")
    return "".join(part.capitalize() for part in name.split("_"))


def pages(ctx: AdapterContext, what: str, client: Any, operation: str, /, *, missing: Collection[str] = (),
          **kwargs: Any) -> list[dict[str, Any]]:
    """Every page of a paginated list operation ([] when the code is in ``missing``)."""
    from botocore.exceptions import BotoCoreError, ClientError

    op = "".join(part.capitalize() for part in operation.split("_"))
    try:
        return list(client.get_paginator(operation).paginate(**kwargs))
    except ClientError as exc:
        if error_code(exc) in missing:
            return []
        raise sdk_error(ctx, what, op, exc) from None
    except BotoCoreError as exc:
        raise sdk_error(ctx, what, op, exc) from None
