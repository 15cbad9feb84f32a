"""A hypothesis strategy for expressions of the configuration language, well-formed and otherwise.

Expressions are built from the grammar's pieces (literals, references into a small scope,
operators, calls of every function the language has, conditionals, ``for`` expressions, splats,
templates) and nested up to a few levels, so the evaluator sees values of every type meet every
operator and function. Some are ill-typed on purpose: those must be refused with a message, not
crash.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from engine.lang.functions.registry import function_names

FUNCTIONS = sorted(n for n in function_names() if n not in ("timestamp", "uuid", "bcrypt", "plantimestamp"))
REFERENCES = ["var.names", "var.n", "var.m", "var.m.x", "var.s", "var.none", "local.objs", "local.objs[0].name",
              "var.names[*]", "local.objs[*].port", "var.m[\"k\"]"]
OPERATORS = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||"]

numbers = st.one_of(st.integers(-10**6, 10**6), st.sampled_from(["0.1", "1e3", "2.5e-3", "-0", "1e400", "9" * 40]))
strings = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
leaves = st.one_of(
    numbers.map(str),
    strings.map(lambda s: json.dumps(s).replace("${", "$${").replace("%{", "%%{")),
    st.sampled_from(["true", "false", "null", "[]", "{}"]),
    st.sampled_from(REFERENCES),
)


def _compose(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    args = st.lists(inner, max_size=3)
    return st.one_of(
        st.tuples(inner, st.sampled_from(OPERATORS), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["!", "-"]), inner).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(FUNCTIONS), args, st.booleans()).map(
            lambda t: f"{t[0]}({', '.join(t[1])}{'...' if t[2] and t[1] else ''})"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
        args.map(lambda items: "[" + ", ".join(items) + "]"),
        args.map(lambda items: "{" + ", ".join(f"k{i} = {v}" for i, v in enumerate(items)) + "}"),
        st.tuples(inner, inner).map(lambda t: f"[for i, x in {t[0]} : {t[1]}]"),
        st.tuples(inner, inner).map(lambda t: f"{{for k, v in {t[0]} : tostring(k) => {t[1]}...}}"),
        inner.map(lambda e: f"({e})[*].name"),
        inner.map(lambda e: f'"pre-${{{e}}}-%{{ if {e} }}y%{{ else }}n%{{ endif }}"'),
        st.tuples(inner, inner).map(lambda t: f"({t[0]})[{t[1]}]"),
        inner.map(lambda e: f"try({e}, can({e}))"),
    )


expressions = st.recursive(leaves, _compose, max_leaves=12)
