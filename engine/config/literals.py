"""Expressions the language reads as written, never evaluates: references used as names and
``required_providers`` entries.

``depends_on``, ``provider = aws.west``, ``moved`` and ``import`` addresses and ``ignore_changes``
name things rather than compute values, so they are read from their syntax (with the position of
what they name) while the configuration is decoded, before anything can be evaluated.
"""

from __future__ import annotations

from engine.config.model import RequiredProvider
from engine.lang import ast
from engine.lang.syntax import Attribute


def text_column(lit: ast.Literal) -> int:
    """The column where a string literal's text starts: after the quote of an HCL string.

    An HCL string's range covers its quotes; a JSON/YAML string's range already starts at its text.
    """
    r = lit.rng
    quoted = r.start.line == r.end.line and r.end.column - r.start.column == len(str(lit.value)) + 2
    return r.start.column + 1 if quoted else r.start.column


def unwrap(expr: ast.Expr) -> ast.Expr:
    while isinstance(expr, ast.TemplateWrap | ast.Parens):
        expr = expr.inner
    return expr


def traversal_text(expr: ast.Expr) -> str | None:
    """``aws_s3_bucket.a[0]`` as text, for references used as names rather than values."""
    expr = unwrap(expr)
    if isinstance(expr, ast.Literal) and isinstance(expr.value, str):
        return expr.value
    if not isinstance(expr, ast.ScopeTraversal):
        return None
    out = expr.root
    for step in expr.steps:
        if isinstance(step, ast.AttrStep):
            out += "." + step.name
        elif isinstance(step, ast.SplatStep):
            return None
        else:
            key = unwrap(step.key)
            if not isinstance(key, ast.Literal):
                return None
            out += f'["{key.value}"]' if isinstance(key.value, str) else f"[{key.value}]"
    return out


def required_provider_entry(name: str, attr: Attribute) -> RequiredProvider:
    expr = unwrap(attr.expr)
    source, version = f"hashicorp/{name}", ""
    if isinstance(expr, ast.Literal) and isinstance(expr.value, str):
        version = expr.value
    elif isinstance(expr, ast.ObjectCons):
        for item in expr.items:
            key, val = unwrap(item.key), unwrap(item.value)
            if isinstance(key, ast.Literal) and isinstance(val, ast.Literal):
                if key.value == "source":
                    source = str(val.value)
                elif key.value == "version":
                    version = str(val.value)
    return RequiredProvider(name, source, version, attr.rng)
