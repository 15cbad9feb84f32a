"""The Rego pipeline piece by piece: module checks, the input handed to rego-cpp, values read back,
and the worker process that evaluates user policies."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from policies import isolation
from policies.evaluation import CompiledPolicy
from policies.model import PolicyError
from policies.rego_iteration import check_iteration_in_calls
from policies.rego_module import RegoModule
from policies.rego_results import rule_value
from policies.rego_worker import answer


def module(body: str, name: str = "p.rego") -> RegoModule:
    return RegoModule.read(name, name, "package main\n\nimport rego.v1\n\n" + textwrap.dedent(body).lstrip())


def test_values_come_back_as_json_and_undefined_as_none() -> None:
    m = module("""
        names contains rc.name if some rc in input.items
        total := sum([rc.n | some rc in input.items])
        never if false
    """)
    compiled = CompiledPolicy([m], {}, [("main", "names"), ("main", "total"), ("main", "never")])
    got = compiled.evaluate({"items": [{"name": "a", "n": 1}, {"name": "b", "n": 2}]})
    assert sorted(got[("main", "names")]) == ["a", "b"]
    assert got[("main", "total")] == 3
    assert got[("main", "never")] is None


@pytest.mark.parametrize("text", ['say "hi"', "back\\slash", "line\nbreak", "tab\there", "ünïcödé"])
def test_input_strings_compare_equal_to_the_same_string_in_a_policy(text: str) -> None:
    literal = json.dumps(text, ensure_ascii=False)
    m = module(f"same if input.s == {literal}\n")
    assert CompiledPolicy([m], {}, [("main", "same")]).query({"s": text}, "main", "same") is True


def test_big_integers_and_data_reach_the_policy() -> None:
    m = module("""
        big if input.n > 9007199254740993
        limit := data.ctl.limit
    """)
    compiled = CompiledPolicy([m], {"ctl": {"limit": 5}}, [("main", "big"), ("main", "limit")])
    got = compiled.evaluate({"n": 2**62})
    assert got == {("main", "big"): True, ("main", "limit"): 5}


def test_a_failing_builtin_is_an_error_with_the_rule_location() -> None:
    m = module("""
        deny contains msg if {
            msg := sprintf("%d", [to_number(input.s)])
        }
    """)
    with pytest.raises(PolicyError) as err:
        CompiledPolicy([m], {}, [("main", "deny")]).evaluate({"s": "not a number"})
    assert "built-in function returned an error" in err.value.summary
    assert err.value.range is not None and err.value.range.start.line == 5


def test_rule_value_reads_the_interpreters_answers() -> None:
    assert rule_value(True, "undefined", "main", "deny", ("p.rego", 3)) is None
    assert rule_value(True, '{"expressions":[["a"]]}', "main", "deny", ("p.rego", 3)) == ["a"]
    # rego-cpp quotes a computed string inside sprintf without escaping the quotes
    assert rule_value(True, '{"expressions":[["x "a, b" y"]]}', "main", "deny", ("", 0)) == ['x "a, b" y']
    with pytest.raises(PolicyError):
        rule_value(False, "", "main", "deny", ("p.rego", 3))


@pytest.mark.parametrize(("body", "refused"), [
    ('deny contains "x" if startswith(input.xs[_].t, "a")', "[_]"),
    ('deny contains "x" if {\n    some i\n    startswith(input.xs[i].t, "a")\n}', "[i]"),
    ('deny contains m if m := sprintf("%s", [input.xs[_].t])', "[_]"),
    ('deny contains "x" if {\n    some i\n    input.xs[i]\n    startswith(input.xs[i].t, "a")\n}', None),
    ('deny contains "x" if {\n    t := input.xs[_].t\n    startswith(t, "a")\n}', None),
    ('deny contains m if m := concat(",", [t | t := input.xs[_].t])', None),
    ('deny contains "x" if {\n    some k, v in input.m\n    startswith(input.n[k], v)\n}', None),
    ('f(x) := y if y := x[0]\ndeny contains "x" if f(input.xs)', None),
])
def test_iteration_inside_call_arguments_is_refused(body: str, refused: str | None) -> None:
    m = module(body)
    if refused is None:
        check_iteration_in_calls([m])
        return
    with pytest.raises(PolicyError) as err:
        check_iteration_in_calls([m])
    assert f"iterates inside its arguments ({refused})" in err.value.summary
    assert err.value.range is not None and err.value.range.filename == "p.rego"
    assert "Bind the value" in err.value.hint


def test_worker_answers_values_and_errors_as_json() -> None:
    ok = module('deny contains "x" if input.a == 1\n')
    req = {"modules": [{"path": ok.path, "display": ok.display, "source": ok.source}],
           "data": {}, "rules": [["main", "deny"]], "input": {"a": 1}}
    assert answer(req) == {"values": [["main", "deny", ["x"]]]}
    req["modules"][0]["source"] = "package main\ndeny[msg] { msg := 1 }\n"
    error = answer(req)["error"]
    assert "old Rego syntax" in error["summary"] and error["file"] == "p.rego" and error["line"] == 2


def test_worker_over_stdin_and_stdout() -> None:
    m = module('deny contains "x" if input.a == 1\n')
    req = {"modules": [{"path": m.path, "display": m.display, "source": m.source}],
           "data": {}, "rules": [["main", "deny"]], "input": {"a": 1}}
    done = subprocess.run([sys.executable, "-m", "policies.rego_worker"], input=json.dumps(req).encode(),
                          capture_output=True, timeout=60, check=True)
    assert json.loads(done.stdout) == {"values": [["main", "deny", ["x"]]]}


def test_isolated_errors_keep_file_and_line() -> None:
    bad = RegoModule.read("bad.rego", "policies/bad.rego",
                          'package main\nimport rego.v1\ndeny contains "x" if not_a_builtin(1)\n')
    with pytest.raises(PolicyError) as err:
        isolation.evaluate([bad], {}, [("main", "deny")], {})
    assert err.value.range is not None
    assert (err.value.range.filename, err.value.range.start.line) == ("policies/bad.rego", 3)
    assert "not a built-in function" in err.value.summary
