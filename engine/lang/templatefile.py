"""``templatefile()``: render a template file with the real template engine.

The function library cannot import the evaluator (the evaluator calls into it), so the walk hands
the library this renderer through ``FunctionContext.render_template``.
"""

from __future__ import annotations

from typing import Any

from engine.lang.eval import EvalContext, evaluate
from engine.lang.hcl import parse_template


def render(text: str, filename: str, variables: dict[str, Any], func_ctx: Any = None) -> Any:
    """Render ``text`` (read from ``filename``) with ``variables`` as the only names in scope."""
    expr = parse_template(text, filename, 1, 1)
    return evaluate(expr, EvalContext(variables=dict(variables), func_ctx=func_ctx))
