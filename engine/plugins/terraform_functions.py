"""The functions of the built-in ``terraform`` provider: ``provider::terraform::encode_tfvars``,
``decode_tfvars`` and ``encode_expr`` (Terraform 1.8, OpenTofu 1.7).

They need no plugin: the provider is part of the program, so they are served here, beside the
resolver for plugins' functions. Values are written as Terraform's ``hclwrite`` writes them
(objects one attribute a line, lists on one line, keys that are not names quoted) and then laid out
by the same formatter as ``ctl fmt`` (indentation, ``=`` aligned), which is what the references do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from engine.fmt import format_source
from engine.lang.eval import EvalContext, EvalError, evaluate
from engine.lang.hcl import parse_hcl_file
from engine.lang.operators import scalar_to_string
from vocab.errors import CtlError, DiagnosticsError
from vocab.values import Unknown, contains_unknown, deep_unmark, mark, type_name

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_FILENAME = "<decode_tfvars argument>"


class TerraformFunctionError(CtlError):
    """A built-in provider function refused its argument."""


def _string(text: str) -> str:
    """A quoted HCL string that reads back as ``text``: escapes, and ``${``/``%{`` doubled."""
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted.replace("${", "$${").replace("%{", "%%{")


def _expr(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, bool | int | float):
        return scalar_to_string(value) or ""
    if isinstance(value, dict):
        if not value:
            return "{}"
        lines = [f"{k if _NAME.fullmatch(k) else _string(k)} = {_expr(v)}\n" for k, v in sorted(value.items())]
        return "{\n" + "".join(lines) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_expr(v) for v in value) + "]"
    raise TerraformFunctionError(f"cannot encode a value of type {type_name(value)}")


def _formatted(body: str) -> str:
    return format_source(body.encode(), _FILENAME).decode()


def _known(args: list[Any], name: str) -> Any:
    if len(args) != 1:
        raise TerraformFunctionError(f'Function "{name}" takes exactly one argument.')
    value = args[0]
    if value is None:
        raise TerraformFunctionError("argument must not be null")
    if isinstance(value, Unknown) or contains_unknown(value):
        raise _Unknown
    return value


class _Unknown(Exception):
    """The argument is not known yet: so is the result."""


def encode_expr(args: list[Any]) -> Any:
    """The value as an HCL expression, as ``hclwrite.TokensForValue`` writes it."""
    value = _known(args, "encode_expr")
    written = _formatted("x = " + _expr(value) + "\n")
    return written[written.index("=") + 1:].strip(" ").removesuffix("\n")


def encode_tfvars(args: list[Any]) -> Any:
    """An object as the text of a ``.tfvars`` file: one attribute a line, formatted."""
    value = _known(args, "encode_tfvars")
    if not isinstance(value, dict):
        raise TerraformFunctionError(f"invalid value to encode: requires an object, not {type_name(value)}")
    for key in value:
        if not _NAME.fullmatch(key):
            raise TerraformFunctionError(f'invalid variable name "{key}": must be a valid identifier')
    return _formatted("".join(f"{k} = {_expr(v)}\n" for k, v in sorted(value.items())))


def decode_tfvars(args: list[Any]) -> Any:
    """The object a ``.tfvars`` text defines; its values may not refer to anything or call functions."""
    text = _known(args, "decode_tfvars")
    if not isinstance(text, str):
        raise TerraformFunctionError(f"invalid source: requires a string, not {type_name(text)}")
    try:
        body = parse_hcl_file(text.encode(), _FILENAME)
    except DiagnosticsError as exc:
        raise TerraformFunctionError(f"invalid tfvars syntax: {exc.summary}") from None
    if body.blocks:
        raise TerraformFunctionError("invalid tfvars syntax: blocks are not allowed")
    out: dict[str, Any] = {}
    for name, attr in body.attributes.items():
        try:
            out[name] = evaluate(attr.expr, EvalContext(variables={}))
        except EvalError as exc:
            raise TerraformFunctionError(f'invalid expression for variable "{name}": {exc.summary}') from None
    return out


BUILTIN: dict[str, Callable[[list[Any]], Any]] = {
    "encode_expr": encode_expr,
    "encode_tfvars": encode_tfvars,
    "decode_tfvars": decode_tfvars,
}


def builtin(function: str) -> Callable[[list[Any]], Any] | None:
    """``provider::terraform::FUNCTION``, with an unknown argument giving an unknown result and a
    sensitive one a sensitive result (the marks are taken off, and put back on the whole result)."""
    impl = BUILTIN.get(function)
    if impl is None:
        return None

    def call(args: list[Any]) -> Any:
        plain, marks = deep_unmark(args)
        try:
            result = impl(plain)
        except _Unknown:
            result = Unknown("string") if function != "decode_tfvars" else Unknown()
        return mark(result, marks)

    return call
