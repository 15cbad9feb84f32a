"""Input variable values: where they come from, in which order they win, and checking them.

Precedence, later wins (Terraform's): defaults < ``CTL_VAR_name``/``TF_VAR_name`` environment
variables < ``terraform.tfvars`` < ``terraform.tfvars.json`` < ``*.auto.tfvars(.json)`` in name
order < ``--var-file``/``--var`` in command-line order. Values for primitive-typed variables from
the environment or ``--var`` are taken as strings; complex ones are parsed as expressions.
Every value remembers where it came from, so a type mismatch says so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config.model import Variable
from engine.lang import ast
from engine.lang.conditions import failed_condition
from engine.lang.eval import EvalContext, EvalError, evaluate
from engine.lang.hcl import parse_expression, parse_hcl_file
from engine.lang.types import ConversionError, Primitive, convert
from vocab.errors import CtlError, Diagnostics, SourceRange
from vocab.values import SENSITIVE, UNKNOWN, Null, mark


@dataclass(frozen=True, slots=True)
class RawValue:
    """A value given for a variable, before conversion to its declared type."""

    value: Any = None
    expr: ast.Expr | None = None  # evaluated with no variables in scope, when set
    text: str | None = None  # a string that is parsed as an expression for complex types
    source: str = ""  # "terraform.tfvars", "environment variable TF_VAR_x", "--var", "default"
    rng: SourceRange | None = None


def env_values(environ: Mapping[str, str]) -> dict[str, RawValue]:
    """``TF_VAR_name`` then ``CTL_VAR_name`` (ours wins when both are set)."""
    out: dict[str, RawValue] = {}
    for prefix in ("TF_VAR_", "CTL_VAR_"):
        for key, text in environ.items():
            if key.startswith(prefix) and len(key) > len(prefix):
                name = key[len(prefix) :]
                out[name] = RawValue(text=text, source=f"environment variable {key}")
    return out


def file_values(path: Path, display: str) -> dict[str, RawValue]:
    """Values from a ``.tfvars`` (HCL) or ``.tfvars.json`` file."""
    try:
        src = path.read_bytes()
    except OSError as exc:
        raise CtlError(f"Cannot read variables file {display}: {exc.strerror}") from None
    out: dict[str, RawValue] = {}
    if path.name.endswith(".json"):
        try:
            data = json.loads(src)
        except json.JSONDecodeError as exc:
            raise CtlError(f"{display}:{exc.lineno}:{exc.colno}: Invalid JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise CtlError(f"{display}: a variables file must hold an object")
        for name, value in data.items():
            out[name] = RawValue(value=value, source=display)
        return out
    body = parse_hcl_file(src, display)
    for name, attr in body.attributes.items():
        out[name] = RawValue(expr=attr.expr, source=display, rng=attr.expr.rng)
    for block in body.blocks:
        raise CtlError(f"{block.rng}: blocks are not allowed in a variables file")
    return out


def collect_values(
    root: Path,
    var_args: list[tuple[str, str]],
    environ: Mapping[str, str] | None = None,
) -> dict[str, RawValue]:
    """All given values, precedence applied. ``var_args`` are ("var", "k=v") / ("var-file", path)."""
    environ = os.environ if environ is None else environ
    values = env_values(environ)
    for name in ("terraform.tfvars", "terraform.tfvars.json"):
        p = root / name
        if p.is_file():
            values.update(file_values(p, name))
    autos = sorted(p for p in root.iterdir() if p.name.endswith((".auto.tfvars", ".auto.tfvars.json")))
    for p in autos:
        values.update(file_values(p, p.name))
    for kind, arg in var_args:
        if kind == "var-file":
            p = Path(arg) if Path(arg).is_absolute() else root / arg
            values.update(file_values(p, arg))
            continue
        name, sep, text = arg.partition("=")
        if not sep or not name:
            raise CtlError(f'Invalid --var "{arg}": expected NAME=VALUE', hint='For example: --var region=eu-west-1')
        values[name.strip()] = RawValue(text=text, source="--var")
    return values


def resolve_root_variables(
    variables: Mapping[str, Variable],
    given: Mapping[str, RawValue],
    diags: Diagnostics,
    *,
    prompt: Callable[[Variable], str] | None = None,
) -> dict[str, Any]:
    """Final values of the root module's variables; problems go to ``diags``."""
    out: dict[str, Any] = {}
    for name, raw in given.items():
        if name not in variables and raw.source == "--var":
            diags.error(f'Value for undeclared variable "{name}"',
                        detail="A variable named like this is not declared in the root module.",
                        hint=f'Declare it with: variable "{name}" {{}}')
        elif name not in variables and raw.source.endswith((".tfvars", ".json")):
            diags.warning(f'Value for undeclared variable "{name}"',
                          detail=f"{raw.source} sets it, but the root module does not declare it.", range=raw.rng)
    for name, var in variables.items():
        given_raw = given.get(name)
        if given_raw is None and var.default is None:
            if prompt is None:
                diags.error(f'No value for required variable "{name}"',
                            detail=f'The root module variable "{name}" has no default, and no value was given.',
                            hint=f"Set it with --var {name}=VALUE, a .tfvars file or CTL_VAR_{name}.",
                            range=var.rng)
                continue
            given_raw = RawValue(text=prompt(var), source="input")
        try:
            out[name] = finalize(var, given_raw)
        except CtlError as err:
            diags.add(err)
            out[name] = UNKNOWN  # reported once here; unknown keeps it from failing again downstream
    return out


def check_default(var: Variable, diags: Diagnostics) -> None:
    """A default that does not fit the variable's type is refused when the configuration is read, as
    Terraform and OpenTofu refuse it, so ``validate`` reports it too, not only a plan that uses it."""
    if var.type is None or var.default is None:
        return
    try:
        value = evaluate(var.default, EvalContext(variables={}))
    except CtlError:
        return  # not a constant: reported where the default is evaluated
    try:
        convert(value, var.type)
    except ConversionError as exc:
        diags.error("Invalid default value for variable", range=var.default.rng,
                    detail=f"This default value is not compatible with the variable's type constraint: {exc.summary}.")


def finalize(var: Variable, raw: RawValue | None, value_from: Any = None, *, given: bool = False) -> Any:
    """Convert a value to the variable's type, apply defaults, nullability and sensitivity."""
    if raw is not None:
        value = _raw_to_value(var, raw)
        source, rng = raw.source, raw.rng
    elif given:
        value, source, rng = value_from, "module call", None
    else:
        value, source, rng = None, "default", None
    if (value is None or type(value) is Null) and var.default is not None and \
            ((raw is None and not given) or not var.nullable):
        value = evaluate(var.default, EvalContext(variables={}))
        source, rng = "default", var.default.rng
    if var.type is not None:
        try:
            value = convert(value, var.type)
        except ConversionError as exc:
            shown = f"given by {source}" if source != "default" else "its default"
            raise CtlError(
                f'Invalid value for input variable "{var.name}"',
                detail=f"The value {shown} is not suitable: {exc.summary}"
                       f"{' at ' + exc.path if getattr(exc, 'path', '') else ''}; "
                       f"the variable is declared as {var.type} at {var.rng}.",
                range=rng or var.rng,
            ) from None
    if var.sensitive:
        value = mark(value, frozenset({SENSITIVE}))
    return value


def _raw_to_value(var: Variable, raw: RawValue) -> Any:
    if raw.expr is not None:
        try:
            return evaluate(raw.expr, EvalContext(variables={}))
        except EvalError as err:
            raise CtlError(
                f'Invalid value for input variable "{var.name}"',
                detail=f"Variables files may only hold constant values: {err.summary}",
                range=raw.rng,
            ) from None
    if raw.text is not None:
        primitive = var.type is None or isinstance(var.type, Primitive)
        if primitive:
            return raw.text
        expr = parse_expression(raw.text, raw.source)
        try:
            return evaluate(expr, EvalContext(variables={}))
        except EvalError as err:
            raise CtlError(f'Invalid value for input variable "{var.name}" from {raw.source}: {err.summary}') from None
    return raw.value


def check_validations(var: Variable, value: Any, ctx_vars: dict[str, Any], diags: Diagnostics,
                      make_ctx: Callable[[dict[str, Any]], EvalContext]) -> None:
    """Run a variable's ``validation`` blocks; a false condition reports its ``error_message``."""
    for v in var.validations:
        ctx = make_ctx({"var": {**ctx_vars, var.name: value}})
        try:
            msg = failed_condition(v, ctx)
        except CtlError as err:
            diags.add(err)
            continue
        if msg is not None:
            diags.error(
                "Invalid value for variable",
                detail=f"{msg}\n\nThis was checked by the validation rule at {v.rng}.",
                range=v.rng,
                address=f"var.{var.name}",
            )
