"""One rounding rule (figures.round_step): a figure's places, a step's round(), a draft's "about"."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from workings import expr
from workings.figures import Interval, round_step, round_to, rounds_to


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


@given(st.fractions(max_denominator=1000), st.integers(min_value=-3, max_value=3), st.integers(-3, 3))
def test_rounds_to_is_exactly_what_round_step_sends_there(x, places, nudge):
    """The interval a printed figure stands for (draft equations' operands and results) is the
    preimage of the one rounding rule, half-step edges included: nothing is rounded twice over."""
    step = Fraction(1, 10**places) if places >= 0 else Fraction(10 ** -places)
    printed = round_step(x, step) + nudge * step
    for probe in (x, printed - step / 2, printed + step / 2, printed):
        assert (probe in rounds_to(printed, step)) == (round_step(probe, step) == printed)
    assert Fraction(5, 2) in rounds_to(Fraction(3), 1) and Fraction(5, 2) not in rounds_to(Fraction(2), 1)
    assert Fraction(-5, 2) in rounds_to(Fraction(-3), 1) and Fraction(-5, 2) not in rounds_to(Fraction(-2), 1)
    assert rounds_to(Fraction(7), 0) == Interval(Fraction(7), Fraction(7))


def test_intervals_meet_only_on_a_shared_number():
    a = rounds_to(Fraction(2), 1)      # [1.5, 2.5)
    b = rounds_to(Fraction(3), 1)      # [2.5, 3.5)
    assert not a.meets(b) and not b.meets(a)
    assert a.meets(Interval(Fraction(2), Fraction(5, 2))) and b.meets(Interval(Fraction(2), Fraction(5, 2)))
    assert not b.meets(Interval(Fraction(2), Fraction(5, 2), high_in=False))


def test_a_printed_range_stands_for_what_rounds_into_it():
    """check-draft's range reading uses the same rule: "3 to 4 GB" is every value that rounds to
    3, 4 or between; 4.5 would be printed 5 (the old check let the upper half-step edge in)."""
    from workings.draft.finder import find_figures
    from workings.draft.match import agrees

    (figure,) = find_figures("It needs 3 to 4 GB of cache.").figures
    assert (figure.value, figure.upper, figure.step) == (3, 4, 1)
    assert [agrees(figure, Fraction(v, 100)) for v in (249, 250, 300, 449, 450)] == [False, True, True, True, False]


def test_a_rounding_step_coarser_than_the_value_holds_nothing():
    """"100,000,000 tokens" with ``round: ceil`` verified a window of 1,010,000 (rounded up to the
    hundred million, as its trailing zeros read): a step larger than the value is no rounding."""
    from workings.compare import holds
    from workings.figures import read_figure

    assert not holds(read_figure("100,000,000 token"), Fraction(1_010_000), rounding="ceil", within=None, bound=None)
    assert holds(read_figure("2,000,000 token"), Fraction(1_010_000), rounding="ceil", within=None, bound=None)
    assert holds(read_figure("10,000,000"), Fraction(15_150_000), rounding="floor", within=None, bound=None)
    assert holds(read_figure("286,000 token"), Fraction(286_658), rounding="floor", within=None, bound=None)
