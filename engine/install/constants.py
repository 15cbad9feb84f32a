"""Constant attributes of the files installation reads (the lock file, the CLI configuration)."""

from __future__ import annotations

from engine.config.syntax import Body
from engine.errors import CtlError
from engine.lang.eval import EvalContext, evaluate


def constant(body: Body, name: str, where: str) -> object:
    """The value of attribute ``name`` (None when absent); anything but a constant is an error."""
    attr = body.attributes.get(name)
    if attr is None:
        return None
    try:
        return evaluate(attr.expr, EvalContext(variables={}))
    except CtlError:
        raise CtlError(f'"{name}" in {where} must be a constant', range=attr.expr.rng) from None
