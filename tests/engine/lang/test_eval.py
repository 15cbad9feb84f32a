"""Behaviour of the expression evaluator, on syntax trees built by hand (independent of the parser)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.lang import ast
from engine.lang.eval import EvalContext, EvalError, Reference, evaluate, references, render_template
from vocab.errors import CtlError, Pos, SourceRange
from vocab.values import UNKNOWN, ListValue, Marked, Unknown, is_marked, is_unknown, unmark

# --- tiny tree builders ----------------------------------------------------------------------------


def _r(line: int = 1, col: int = 1) -> SourceRange:
    return SourceRange("main.tf", Pos(line, col), Pos(line, col + 1))


R = _r()


def lit(v: Any, line: int = 1) -> ast.Literal:
    return ast.Literal(_r(line), v)


def _steps(steps: tuple) -> tuple[ast.Step, ...]:
    out: list[ast.Step] = []
    for s in steps:
        if isinstance(s, str):
            out.append(ast.AttrStep(s, R))
        elif isinstance(s, ast.Expr):
            out.append(ast.IndexStep(s, s.rng))
        else:
            out.append(ast.IndexStep(lit(s), R))
    return tuple(out)


def ref(root: str, *steps: Any, line: int = 1) -> ast.ScopeTraversal:
    """``root.a[0]...``: str steps are attributes, anything else an index."""
    return ast.ScopeTraversal(_r(line), root, _steps(steps))


def at(name: str, line: int) -> ast.AttrStep:
    return ast.AttrStep(name, _r(line))


def call(name: str, *args: ast.Expr, expand: bool = False, line: int = 1) -> ast.FunctionCall:
    return ast.FunctionCall(_r(line), name, tuple(args), expand)


def op(o: str, left: ast.Expr, right: ast.Expr) -> ast.BinaryOp:
    return ast.BinaryOp(R, o, left, right)


def tpl(*parts: ast.TemplatePart) -> ast.Template:
    return ast.Template(R, tuple(parts))


def obj(**items: ast.Expr) -> ast.ObjectCons:
    return ast.ObjectCons(R, tuple(ast.ObjectItem(lit(k), v) for k, v in items.items()))


def tup(*items: ast.Expr) -> ast.TupleCons:
    return ast.TupleCons(R, tuple(items))


def for_(
    coll: ast.Expr,
    value: ast.Expr,
    *,
    v: str = "v",
    k: str | None = None,
    key: ast.Expr | None = None,
    cond: ast.Expr | None = None,
    group: bool = False,
) -> ast.ForExpr:
    return ast.ForExpr(R, k, v, coll, key, value, cond, group)


def boom(line: int = 9) -> ast.ScopeTraversal:
    """An expression that always fails (reads an undeclared name)."""
    return ref("undeclared_thing", line=line)


def ev(expr: ast.Expr, functions: dict | None = None, **variables: Any) -> Any:
    return evaluate(expr, EvalContext(variables, functions=functions if functions is not None else {}))


def err(expr: ast.Expr, functions: dict | None = None, **variables: Any) -> EvalError:
    with pytest.raises(EvalError) as info:
        ev(expr, functions, **variables)
    return info.value


S = Marked  # a sensitive value


# --- names, attributes, indexes ------------------------------------------------------------------


def test_literals_evaluate_to_themselves() -> None:
    assert [ev(lit(x)) for x in (None, True, 3, 1.5, "s")] == [None, True, 3, 1.5, "s"]


def test_attribute_and_index_steps_walk_nested_values() -> None:
    var = {"net": {"subnets": [{"cidr": "10.0.0.0/24"}, {"cidr": "10.0.1.0/24"}]}}
    assert ev(ref("var", "net", "subnets", 1, "cidr"), var=var) == "10.0.1.0/24"


def test_list_index_accepts_numeric_string_and_integral_float() -> None:
    assert ev(ref("var", "l", "1"), var={"l": ["a", "b"]}) == "b"
    assert ev(ref("var", "l", 1.0), var={"l": ["a", "b"]}) == "b"


def test_map_index_converts_number_key_to_string() -> None:
    assert ev(ref("var", "m", 1), var={"m": {"1": "one"}}) == "one"


def test_undeclared_name_is_reported_with_range_and_suggestion() -> None:
    e = err(ref("vra", "x", line=4), var={"x": 1})
    assert e.summary == 'Reference to undeclared name "vra"'
    assert e.range == _r(4)
    assert '"var"' in e.hint


def test_missing_attribute_names_the_attribute_and_points_at_the_step() -> None:
    expr = ast.ScopeTraversal(R, "var", (at("o", 1), at("nmae", 7)))
    e = err(expr, var={"o": {"name": "x"}})
    assert e.summary == "Unsupported attribute"
    assert 'does not have an attribute named "nmae"' in str(e)
    assert e.range == _r(7)
    assert '"name"' in e.hint


def test_attribute_of_a_tuple_of_objects_suggests_a_splat() -> None:
    e = err(ref("var", "l", "id"), var={"l": [{"id": 1}]})
    assert e.detail == "This value does not have any attributes."  # HCL's words for a tuple
    assert "[*].id" in e.hint


def test_attribute_of_a_list_of_objects_asks_which_was_meant() -> None:
    e = err(ref("var", "l", "id"), var={"l": ListValue([{"id": 1}])})
    assert "list of objects" in e.detail and "[*].id" in e.hint


def test_attribute_of_null_is_an_error() -> None:
    e = err(ref("var", "o", "a"), var={"o": None})
    assert "null" in e.summary


def test_index_out_of_range_and_missing_key_are_invalid_index() -> None:
    e1 = err(ref("var", "l", 5), var={"l": [1, 2]})
    e2 = err(ref("var", "m", lit("nope")), var={"m": {"yes": 1}})
    e3 = err(ref("var", "l", -1), var={"l": [1, 2]})
    assert e1.summary == e2.summary == e3.summary == "Invalid index"
    assert e1.detail == e2.detail == "The given key does not identify an element in this collection value."
    assert e2.hint == ""  # nothing close to suggest


def test_indexing_null_or_string_is_an_error() -> None:
    assert "null" in err(ref("var", "n", 0), var={"n": None}).summary
    assert err(ref("var", "s", 0), var={"s": "abc"}).summary == "Invalid index"


def test_unknown_propagates_through_attribute_and_index() -> None:
    assert ev(ref("aws_x", "a", "arn", 0, "b"), aws_x={"a": UNKNOWN}) is UNKNOWN
    assert is_unknown(ev(ref("var", "l", ref("var", "i")), var={"l": [1], "i": UNKNOWN}))


def test_marked_collection_marks_the_element_and_leaves_siblings_alone() -> None:
    var = {"secret": S({"pw": "hunter2"}), "mixed": ["a", S("b")]}
    r = ev(ref("var", "secret", "pw"), var=var)
    assert isinstance(r, Marked) and r.value == "hunter2"
    assert ev(ref("var", "mixed", 0), var=var) == "a"
    assert isinstance(ev(ref("var", "mixed", 1), var=var), Marked)


def test_marked_index_key_marks_the_result() -> None:
    assert isinstance(ev(ref("var", "l", ref("var", "i")), var={"l": ["a"], "i": S(0)}), Marked)


# --- operators -----------------------------------------------------------------------------------


def test_arithmetic_converts_numeric_strings_and_normalizes_results() -> None:
    assert ev(op("+", lit("5"), lit(1))) == 6
    r = ev(op("/", lit(10), lit(2)))
    assert r == 5 and isinstance(r, int)
    assert ev(op("/", lit(10), lit(4))) == 2.5
    assert ev(op("+", lit(0.1), lit(0.2))) == 0.3
    assert ev(op("*", lit(1.5), lit(2))) == 3


def test_remainder_has_the_sign_of_the_dividend() -> None:
    assert ev(op("%", lit(-5), lit(3))) == -2
    assert ev(op("%", lit(7), lit(3))) == 1


def test_arithmetic_on_non_number_points_at_the_bad_operand() -> None:
    e = err(op("+", lit("abc", line=3), lit(1, line=4)))
    assert "Unsuitable value for left operand: a number is required" in str(e)
    assert e.range == _r(3)
    e = err(op("-", lit(1, line=3), lit(True, line=4)))
    assert "right operand" in e.detail and e.range == _r(4)
    null = err(op("*", lit(None), lit(2)))
    assert (null.summary, null.detail) == ("Operation failed", "Error during operation: argument must not be null.")


def test_division_by_zero_is_an_error_and_the_remainder_by_zero_is_the_dividend() -> None:
    assert "divide by zero" in str(err(op("/", lit(1), lit(0))))
    assert [ev(op("%", lit(n), lit(0))) for n in (5, -5, 0, 5.5)] == [5, -5, 0, 5.5]


def test_type_errors_win_over_unknown_operands() -> None:
    err(op("+", lit("abc"), ref("var", "u")), var={"u": UNKNOWN})


def test_equality_is_structural_without_conversion() -> None:
    assert ev(op("==", lit(1), lit(1.0))) is True
    assert ev(op("==", lit("1"), lit(1))) is False
    assert ev(op("==", lit(True), lit(1))) is False
    assert ev(op("!=", lit(None), lit(None))) is False
    assert (
        ev(op("==", ref("var", "a"), ref("var", "b")), var={"a": {"x": [1, 2]}, "b": {"x": [1, 2.0]}}) is True
    )
    assert ev(op("==", ref("var", "a"), ref("var", "b")), var={"a": {"x": 1}, "b": {"y": 1}}) is False


def test_equality_with_unknowns_is_unknown_unless_a_difference_is_certain() -> None:
    assert is_unknown(ev(op("==", ref("var", "u"), lit(1)), var={"u": UNKNOWN}))
    same_len = {"a": [UNKNOWN, 1], "b": [2, 1]}
    assert is_unknown(ev(op("==", ref("var", "a"), ref("var", "b")), var=same_len))
    differs = {"a": [UNKNOWN, 1], "b": [2, 3]}
    assert ev(op("==", ref("var", "a"), ref("var", "b")), var=differs) is False
    assert ev(op("==", ref("var", "a"), ref("var", "b")), var={"a": [UNKNOWN], "b": [1, 2]}) is False


def test_equality_with_a_deeply_marked_operand_is_marked() -> None:
    r = ev(op("==", ref("var", "a"), lit(None)), var={"a": {"k": S("x")}})
    assert r == Marked(False)


def test_comparisons_need_numbers() -> None:
    assert ev(op("<", lit(1), lit("2"))) is True
    assert ev(op(">=", lit(2), lit(2))) is True
    assert "a number is required" in str(err(op("<", lit("a"), lit(1))))


def test_logical_operators_are_strict_about_bools() -> None:
    assert ev(op("&&", lit(True), lit("true"))) is True
    assert "bool required, but have number" in str(err(op("||", lit(0), lit(True))))
    assert "a bool is required" in str(err(op("&&", lit(True), lit(""))))


def test_logical_operators_short_circuit() -> None:
    assert ev(op("&&", lit(False), boom())) is False
    assert ev(op("||", lit(True), boom())) is True
    err(op("&&", lit(True), boom()))


def test_logical_operators_with_unknowns() -> None:
    u = {"u": UNKNOWN}
    assert ev(op("&&", ref("var", "u"), lit(False)), var=u) is False
    assert is_unknown(ev(op("&&", ref("var", "u"), lit(True)), var=u))
    assert ev(op("||", ref("var", "u"), lit(True)), var=u) is True
    assert is_unknown(ev(op("||", lit(False), ref("var", "u")), var=u))


def test_unary_operators() -> None:
    assert ev(ast.UnaryOp(R, "-", lit("3"))) == -3
    assert ev(ast.UnaryOp(R, "!", lit(False))) is True
    assert is_unknown(ev(ast.UnaryOp(R, "-", ref("var", "u")), var={"u": UNKNOWN}))
    assert ev(ast.UnaryOp(R, "!", ref("var", "s")), var={"s": S(True)}) == Marked(False)
    e = err(ast.UnaryOp(R, "!", lit("yes", line=5)))
    assert e.range == _r(5)


def test_marks_and_unknowns_combine_through_operators() -> None:
    var = {"s": S(2), "u": UNKNOWN}
    assert ev(op("*", ref("var", "s"), lit(3)), var=var) == Marked(6)
    r = ev(op("+", ref("var", "s"), ref("var", "u")), var=var)
    assert isinstance(r, Marked) and is_unknown(r)


# --- conditionals --------------------------------------------------------------------------------


def test_conditional_evaluates_only_the_chosen_branch() -> None:
    assert ev(ast.Conditional(R, lit(True), lit("a"), boom())) == "a"
    assert ev(ast.Conditional(R, lit("false"), boom(), lit("b"))) == "b"


def test_conditional_with_unknown_or_marked_condition() -> None:
    assert ev(ast.Conditional(R, ref("var", "u"), boom(), boom()), var={"u": UNKNOWN}) is UNKNOWN
    r = ev(ast.Conditional(R, ref("var", "s"), lit("a"), lit("b")), var={"s": S(True)})
    assert r == Marked("a")


def test_conditional_requires_a_bool() -> None:
    e = err(ast.Conditional(R, lit(1, line=2), lit("a"), lit("b")))
    assert e.summary == "Incorrect condition type" and e.range == _r(2)
    assert err(ast.Conditional(R, lit(None), lit("a"), lit("b"))).summary == "Null condition"


# --- splat ---------------------------------------------------------------------------------------


def _splat(src: ast.Expr, *each: Any, full: bool = True) -> ast.Splat:
    return ast.Splat(R, src, _steps(each), full)


def test_splat_maps_steps_over_list_elements() -> None:
    var = {"l": [{"id": "a", "tags": ["x"]}, {"id": "b", "tags": ["y"]}]}
    assert ev(_splat(ref("var", "l"), "id"), var=var) == ["a", "b"]
    assert ev(_splat(ref("var", "l"), "tags", 0), var=var) == ["x", "y"]
    assert ev(_splat(ref("var", "l"), "id", full=False), var=var) == ["a", "b"]


def test_splat_over_null_single_value_and_map() -> None:
    assert ev(_splat(ref("var", "n"), "id"), var={"n": None}) == []
    assert ev(_splat(ref("var", "o"), "id"), var={"o": {"id": "x"}}) == ["x"]
    assert ev(_splat(ref("var", "s")), var={"s": "one"}) == ["one"]


def test_splat_over_unknown_and_marked_sources() -> None:
    assert ev(_splat(ref("var", "u"), "id"), var={"u": UNKNOWN}) is UNKNOWN
    assert ev(_splat(ref("var", "l"), "id"), var={"l": [{"id": UNKNOWN}]}) == [UNKNOWN]
    r = ev(_splat(ref("var", "l"), "id"), var={"l": S([{"id": "a"}])})
    assert r == Marked(["a"])


# --- tuple and object constructors ---------------------------------------------------------------


def test_object_constructor_evaluates_keys_to_strings() -> None:
    expr = ast.ObjectCons(
        R,
        (
            ast.ObjectItem(lit("plain"), lit(1)),
            ast.ObjectItem(ast.Parens(R, ref("var", "k")), lit(2)),
            ast.ObjectItem(lit(3), tup(lit(True))),
        ),
    )
    assert ev(expr, var={"k": "dyn"}) == {"plain": 1, "dyn": 2, "3": [True]}


def test_object_constructor_key_errors_and_unknown_keys() -> None:
    null_key = ast.ObjectCons(R, (ast.ObjectItem(lit(None, line=6), lit(1, line=7)),))
    e = err(null_key)
    assert e.summary == "Null value as key" and e.range == _r(7)  # at the value, as HCL points
    tuple_key = ast.ObjectCons(R, (ast.ObjectItem(tup(lit(1)), lit(1, line=7)),))
    e = err(tuple_key)
    assert (e.summary, e.detail) == ("Incorrect key type", "Can't use this value as a key: string required, but have tuple.")
    unknown_key = ast.ObjectCons(R, (ast.ObjectItem(ref("var", "u"), lit(1)),))
    assert ev(unknown_key, var={"u": UNKNOWN}) is UNKNOWN


def test_unknown_and_marked_values_nest_inside_constructors() -> None:
    r = ev(obj(a=ref("var", "u"), b=tup(ref("var", "s"), lit(1))), var={"u": UNKNOWN, "s": S("x")})
    assert r == {"a": UNKNOWN, "b": [Marked("x"), 1]}
    assert not isinstance(r, Marked)


# --- for expressions -----------------------------------------------------------------------------


def test_for_over_list_binds_index_and_value() -> None:
    expr = for_(ref("var", "l"), tpl(ref("i"), ":", ref("v")), k="i")
    assert ev(expr, var={"l": ["a", "b"]}) == ["0:a", "1:b"]


def test_for_over_map_iterates_in_sorted_key_order() -> None:
    expr = for_(ref("var", "m"), ref("k"), k="k")
    assert ev(expr, var={"m": {"b": 1, "a": 2}}) == ["a", "b"]
    single = for_(ref("var", "m"), ref("v"))
    assert ev(single, var={"m": {"b": 1, "a": 2}}) == [2, 1]


def test_for_object_form_with_filter() -> None:
    expr = for_(ref("var", "l"), op("*", ref("v"), lit(10)), key=ref("v"), cond=op(">", ref("v"), lit(1)))
    assert ev(expr, var={"l": [1, 2, 3]}) == {"2": 20, "3": 30}


def test_for_filter_must_be_bool() -> None:
    e = err(for_(ref("var", "l"), ref("v"), cond=ref("v")), var={"l": [1]})
    assert (e.summary, e.detail) == ("Invalid 'for' condition",
                                     "The 'if' clause value is invalid: bool required, but have number.")


def test_for_duplicate_keys_are_an_error_unless_grouping() -> None:
    key = ast.UnaryOp(R, "!", op("==", op("%", ref("v"), lit(2)), lit(0)))
    e = err(for_(ref("var", "l"), ref("v"), key=ast.Parens(_r(8), key)), var={"l": [1, 2, 3]})
    assert e.summary == "Duplicate object key" and "..." in e.hint and e.range == _r(8)
    grouped = for_(ref("var", "l"), ref("v"), key=key, group=True)
    assert ev(grouped, var={"l": [1, 2, 3]}) == {"true": [1, 3], "false": [2]}


def test_for_over_unknown_or_marked_collection() -> None:
    assert ev(for_(ref("var", "u"), boom()), var={"u": UNKNOWN}) is UNKNOWN
    r = ev(for_(ref("var", "l"), ref("v")), var={"l": S([1, 2])})
    assert r == Marked([1, 2])


def test_for_with_unknown_filter_or_key_is_unknown() -> None:
    var = {"l": [1, 2], "u": UNKNOWN}
    assert ev(for_(ref("var", "l"), ref("v"), cond=ref("var", "u")), var=var) is UNKNOWN
    assert ev(for_(ref("var", "l"), ref("v"), key=ref("var", "u")), var=var) is UNKNOWN


def test_for_over_null_or_string_is_an_error() -> None:
    assert "null" in err(for_(ref("var", "n"), ref("v")), var={"n": None}).summary
    assert "non-iterable" in err(for_(ref("var", "s"), ref("v")), var={"s": "abc"}).summary


def test_for_variables_shadow_outer_names_without_leaking() -> None:
    expr = tup(for_(ref("var", "l"), ref("v")), ref("v"))
    assert ev(expr, var={"l": [1, 2]}, v="outer") == [[1, 2], "outer"]


def test_nested_for_sees_outer_iteration_variable() -> None:
    inner = for_(ref("o", "items"), tpl(ref("o", "name"), "-", ref("i")), v="i")
    expr = for_(ref("var", "l"), inner, v="o")
    var = {"l": [{"name": "a", "items": [1, 2]}, {"name": "b", "items": [3]}]}
    assert ev(expr, var=var) == [["a-1", "a-2"], ["b-3"]]


# --- templates -----------------------------------------------------------------------------------


def test_template_interpolation_formats_numbers_and_bools_like_terraform() -> None:
    expr = tpl(ref("a"), " ", ref("b"), " ", ref("c"), " ", ref("d"))
    assert ev(expr, a=1, b=1.5, c=True, d=1e20) == "1 1.5 true 100000000000000000000"


def test_template_rejects_null_and_collections() -> None:
    e = err(tpl("x", ref("n", line=3)), n=None)
    assert e.summary == "Invalid template interpolation value" and "null" in e.detail and e.range == _r(3)
    e = err(tpl("x", ref("l")), l=[1])
    assert "string required" in e.detail


def test_template_with_unknown_part_is_an_unknown_string() -> None:
    r = ev(tpl("arn:", ref("u")), u=UNKNOWN)
    assert isinstance(r, Unknown) and r.type_hint == "string"


def test_template_with_marked_part_is_marked() -> None:
    assert ev(tpl("pw=", ref("s")), s=S("hunter2")) == Marked("pw=hunter2")
    r = ev(tpl(ref("s"), ref("u")), s=S("x"), u=UNKNOWN)
    assert isinstance(r, Marked) and is_unknown(r)


def test_template_if_and_for_directives() -> None:
    body = ("- ", ref("k"), "=", ref("v"), ast.TemplateIf(op("==", ref("k"), lit("b")), ("!",), (), R), "\n")
    expr = tpl("items:\n", ast.TemplateFor("k", "v", ref("var", "m"), body, R))
    assert ev(expr, var={"m": {"b": 2, "a": 1}}) == "items:\n- a=1\n- b=2!\n"


def test_template_directive_over_unknown_is_unknown() -> None:
    expr = tpl("x", ast.TemplateFor(None, "v", ref("u"), (ref("v"),), R))
    assert is_unknown(ev(expr, u=UNKNOWN))
    expr = tpl("x", ast.TemplateIf(ref("u"), ("a",), ("b",), R))
    assert is_unknown(ev(expr, u=UNKNOWN))


def test_template_wrap_and_parens_return_the_value_unconverted() -> None:
    assert ev(ast.TemplateWrap(R, ref("l")), l=[1, 2]) == [1, 2]
    assert ev(ast.Parens(R, lit(5))) == 5
    ctx = EvalContext({"name": "web", "ports": [80]})
    assert render_template(tpl("host-", ref("name")), ctx) == "host-web"
    assert render_template(ast.TemplateWrap(R, ref("ports")), ctx) == [80]


# --- function calls ------------------------------------------------------------------------------


class _BadArgument(CtlError):
    """What a function raises for a bad argument (the library's FunctionError has the same shape)."""

    def __init__(self, message: str, arg_index: int | None = None) -> None:
        super().__init__(message)
        self.arg_index = arg_index


def _upper(args: list) -> Any:
    v, marks = unmark(args[0])
    if isinstance(v, Unknown):
        return args[0]
    if not isinstance(v, str):
        raise _BadArgument("a string is required", arg_index=0)
    return Marked(v.upper(), marks) if marks else v.upper()


FUNCS = {"upper": _upper, "concat": lambda args: [x for a in args for x in a], "argc": len}


def test_function_call_receives_evaluated_arguments() -> None:
    assert ev(call("upper", tpl("a", ref("x"))), FUNCS, x="b") == "AB"
    assert ev(call("concat", tup(lit(1)), tup(lit(2), lit(3))), FUNCS) == [1, 2, 3]


def test_expand_final_spreads_the_last_list() -> None:
    assert ev(call("argc", lit("a"), ref("l"), expand=True), FUNCS, l=[1, 2, 3]) == 4
    assert ev(call("argc", ref("l"), expand=True), FUNCS, l=UNKNOWN) is UNKNOWN
    e = err(call("argc", lit(1, line=2), expand=True), FUNCS)
    assert e.summary == "Invalid expanding argument value" and e.range == _r(2)


def test_expand_final_of_a_sensitive_unknown_is_a_sensitive_unknown() -> None:
    secret = Marked(UNKNOWN, frozenset({"sensitive"}))
    result = ev(call("argc", lit("a"), ref("l"), expand=True), FUNCS, l=secret)
    assert is_marked(result) and is_unknown(unmark(result)[0])


def test_unknown_function_suggests_a_close_name() -> None:
    e = err(call("uper", lit("a"), line=3), FUNCS)
    assert e.summary == "Call to unknown function"
    assert 'no function named "uper"' in e.detail
    assert '"upper"' in e.hint and e.range == _r(3)


def test_function_errors_point_at_the_bad_argument() -> None:
    e = err(call("upper", lit(5, line=7), line=6), FUNCS)
    assert e.summary == "Invalid function argument"
    assert 'Call to function "upper" failed: a string is required' in e.detail
    assert e.range == _r(7)


def test_try_returns_the_first_argument_that_succeeds() -> None:
    assert ev(call("try", boom(), ref("var", "m", "a"), lit("d")), var={"m": {"a": 1}}) == 1
    assert ev(call("try", ref("var", "m", "zz"), lit("default")), var={"m": {}}) == "default"
    assert ev(call("try", call("upper", lit(5)), lit("fallback")), FUNCS) == "fallback"


def test_try_fails_when_every_argument_fails_and_waits_for_unknowns() -> None:
    e = err(call("try", boom(), boom(), line=4))
    assert e.range == _r(4) and "undeclared_thing" in e.detail
    assert ev(call("try", ref("var", "o"), lit("d")), var={"o": {"id": UNKNOWN}}) is UNKNOWN
    assert ev(call("try", ref("var", "s"), lit("d")), var={"s": S("x")}) == Marked("x")


def test_can_reports_whether_an_expression_evaluates() -> None:
    assert ev(call("can", ref("var", "m", "a")), var={"m": {"a": 1}}) is True
    assert ev(call("can", ref("var", "m", "b")), var={"m": {"a": 1}}) is False
    assert ev(call("can", op("+", lit("x"), lit(1)))) is False
    r = ev(call("can", ref("var", "u")), var={"u": UNKNOWN})
    assert isinstance(r, Unknown) and r.type_hint == "bool"


def test_marked_arguments_reach_functions_and_results_stay_marked() -> None:
    assert ev(call("upper", ref("s")), FUNCS, s=S("pw")) == Marked("PW")
    spread = ev(call("args", ref("l"), expand=True), {"args": list}, l=S([1, 2]))
    assert spread == [Marked(1), Marked(2)]
    assert is_marked(ev(tup(call("upper", ref("s"))), FUNCS, s=S("pw")))


# --- references ----------------------------------------------------------------------------------


def test_references_keep_leading_static_steps() -> None:
    expr = op("+", ref("aws_instance", "web", 0, "id", line=2), ref("var", "m", "k", ref("local", "i"), "z"))
    assert references(expr) == (
        Reference("aws_instance", ("web", 0, "id"), _r(2)),
        Reference("var", ("m", "k"), R),
        Reference("local", ("i",), R),
    )


def test_references_stop_at_splat_and_see_inside_every_construct() -> None:
    expr = tup(
        ast.Splat(R, ref("aws_subnet", "a"), _steps(("id",)), True),
        call("try", ref("data", "x", "y"), lit(1)),
        ast.Conditional(R, ref("var", "c"), tpl("a", ref("local", "t")), obj(k=ref("module", "m", "out"))),
    )
    assert [(x.root, x.parts) for x in references(expr)] == [
        ("aws_subnet", ("a",)),
        ("data", ("x", "y")),
        ("var", ("c",)),
        ("local", ("t",)),
        ("module", ("m", "out")),
    ]


def test_references_exclude_names_bound_by_for_expressions() -> None:
    expr = for_(ref("var", "l"), op("+", ref("x", "a"), ref("k")), v="x", k="k", cond=ref("var", "on"))
    assert [(x.root, x.parts) for x in references(expr)] == [("var", ("l",)), ("var", ("on",))]
    shadowed = tup(for_(ref("var", "l"), ref("v")), ref("v"))
    assert [x.root for x in references(shadowed)] == ["var", "v"]


def test_references_exclude_names_bound_by_template_for() -> None:
    expr = tpl(
        ast.TemplateFor(None, "item", ref("var", "items"), (ref("item", "name"), ref("local", "sep")), R)
    )
    assert [(x.root, x.parts) for x in references(expr)] == [("var", ("items",)), ("local", ("sep",))]


def test_context_child_chains_without_copying() -> None:
    parent = EvalContext({"var": {"a": 1}}, functions={})
    child = parent.child({"each": {"key": "k"}})
    expr = tup(ref("var", "a"), ref("each", "key"))
    assert evaluate(expr, child) == [1, "k"]
    parent.variables["var"] = {"a": 2}
    assert evaluate(expr, child) == [2, "k"]
    with pytest.raises(EvalError):
        evaluate(ref("each"), parent)


def test_errors_about_sensitive_collections_do_not_echo_their_keys() -> None:
    e = err(ref("var", "m", ref("var", "k")), var={"m": {"db_password": 1}, "k": S("db_passwrd")})
    assert "db_passwrd" not in str(e) and "db_password" not in e.hint


def test_legacy_numeric_attribute_indexes_a_list() -> None:
    assert ev(ref("var", "l", "1"), var={"l": ["a", "b"]}) == "b"


def test_references_are_worked_out_once_while_remembered() -> None:
    from engine.lang.references import remembered

    expr = op("+", ref("var", "a"), ref("local", "b"))
    with remembered():
        first = references(expr)
        assert references(expr) is first  # the same answer, not walked again
        other = op("+", ref("var", "a"), ref("local", "b"))
        assert references(other) == first and references(other) is not first  # an equal but other expression
    assert references(expr) == first and references(expr) is not first  # outside: worked out afresh


def test_forgetting_what_was_remembered_lets_the_expressions_go() -> None:
    import sys

    from engine.lang.references import forget_remembered, remembered

    with remembered():
        expr = op("+", ref("var", "a"), ref("local", "b"))
        first = references(expr)
        held = sys.getrefcount(expr)  # the memo holds every expression it saw
        forget_remembered()
        assert sys.getrefcount(expr) == held - 1
        again = references(expr)
        assert again == first and again is not first  # worked out afresh, and remembered again
        assert references(expr) is again
