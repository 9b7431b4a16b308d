"""One rounding rule (figures.round_step): a figure's places, a step's round(), a draft's "about"."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from workings import expr
from workings.figures import round_step, round_to


def test_half_rounds_away_from_zero_everywhere():
    assert round_step(Fraction(5, 2), 1) == 3 and round_step(Fraction(-5, 2), 1) == -3
    assert round_to(Fraction(125, 1000), 2) == Fraction(13, 100)
    assert round_to(Fraction(-125, 1000), 2) == Fraction(-13, 100)
    assert round_to(Fraction(1250), -2) == 1300  # to hundreds
    assert round_step(Fraction(1249), 100) == 1200
    assert round_step(Fraction(199), 100, "floor") == 100 and round_step(Fraction(101), 100, "ceil") == 200
    assert round_step(Fraction(-101), 100, "floor") == -200 and round_step(Fraction(-199), 100, "ceil") == -100
    # a step's round() is the same rule (Python's own round() would give 2 for 2.5)
    assert expr.evaluate(expr.parse("round(5 / 2)"), {}) == 3
    assert expr.evaluate(expr.parse("round(-5 / 2)"), {}) == -3


@given(st.fractions(max_denominator=10**6), st.integers(min_value=-6, max_value=6))
def test_round_to_places_is_round_step_by_a_power_of_ten(value, places):
    step = Fraction(1, 10**places) if places >= 0 else Fraction(10 ** -places)
    for mode in ("nearest", "floor", "ceil"):
        got = round_to(value, places, mode)
        assert got == round_step(value, step, mode)
        assert abs(got - value) <= (step / 2 if mode == "nearest" else step)
        assert (got / step).denominator == 1
