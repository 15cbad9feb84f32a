"""Numbers at Terraform's precision: what a user sees in equality, text and copies of values.

The values themselves are checked against Terraform 1.0.3 by the expression corpus
(tests/e2e/test_e2e_expressions_vs_terraform.py); these pin the properties the rest of ctl relies on.
"""

from __future__ import annotations

import copy
import json
import pickle
from fractions import Fraction

from engine.lang import numbers
from engine.lang.operators import binary, format_number


def test_fractions_compare_as_terraform_compares_them() -> None:
    assert binary("==", binary("+", numbers.parse("0.1"), numbers.parse("0.2")), numbers.parse("0.3")) is True
    assert binary("==", binary("-", numbers.parse("0.3"), numbers.parse("0.1")), numbers.parse("0.2")) is False
    assert binary("*", binary("/", 2, 3), 3) == 2 and type(binary("*", binary("/", 2, 3), 3)) is int


def test_text_has_the_fewest_digits_that_read_back() -> None:
    assert format_number(numbers.parse("0.5")) == "0.5"
    assert format_number(numbers.parse("-2.5e-3")) == "-0.0025"
    two_thirds = format_number(binary("/", 2, 3))
    assert two_thirds.startswith("0.666") and two_thirds.endswith("67") and len(two_thirds) == 156
    assert numbers.parse(two_thirds) == binary("/", 2, 3)


def test_a_big_float_is_a_float_outside_the_language_and_keeps_its_value_when_copied() -> None:
    third = binary("/", 1, 3)
    assert isinstance(third, float) and json.dumps(third) == "0.3333333333333333"
    for clone in (copy.deepcopy(third), pickle.loads(pickle.dumps(third))):
        assert numbers.exact(clone) == numbers.exact(third)


def test_rounding_keeps_512_bits_and_ties_go_to_even() -> None:
    assert numbers.rounded(Fraction(2**512 + 1)) == 2**512  # the tie rounds down to the even mantissa
    assert numbers.rounded(Fraction(2**513 + 2)) == 2**513  # one unit in the last place is 2 there
    assert numbers.rounded(Fraction(2**513 + 6)) == 2**513 + 8
    whole = numbers.parse("12345678901234567890.5")
    assert float(whole).is_integer() and numbers.exact(whole).denominator == 2  # the double alone would lie
