"""Comparison rules, table-driven: the printed string sets the precision."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workings import units
from workings.compare import compare_figure
from workings.errors import UnitError
from workings.figures import format_number, read_figure

CASES = [
    # printed, recomputed (magnitude, unit), options, status
    ("196,608 B/token", (196608, "B/token"), {}, "verified"),
    ("196,609 B/token", (196608, "B/token"), {}, "drift"),
    ("196,680 B/token", (196608, "B/token"), {}, "drift"),  # swapped digits
    ("192 KiB/token", (196608, "B/token"), {}, "verified"),
    ("198.6 GB", (198_574_080_000, "B"), {}, "verified"),
    ("198.5 GB", (198_574_080_000, "B"), {}, "drift"),
    ("184.9 GiB", (198_574_080_000, "B"), {}, "verified"),
    ("184.9 GB", (198_574_080_000, "B"), {}, "drift"),  # GB printed where GiB is meant
    ("81.40", ("81.37", ""), {}, "drift"),
    ("81.4", ("81.37", ""), {}, "verified"),
    ("6.7", (Fraction(198_574_080_000, 29_540_067_328), ""), {}, "verified"),
    ("6.8", (Fraction(198_574_080_000, 29_540_067_328), ""), {}, "drift"),
    ("286,000 token", (286720, "token"), {"rounding": "floor"}, "verified"),
    ("287,000 token", (286720, "token"), {"rounding": "ceil"}, "verified"),
    ("286,000 token", (286720, "token"), {}, "drift"),  # an integer is exact unless round: says otherwise
    ("3.6", (Fraction(16, 9, ), ""), {}, "drift"),
    ("3.6", (Fraction(32, 9), ""), {}, "verified"),  # 16 bits / 4.5 bits
    ("1/4", (Fraction(890, 3514), ""), {"within": Fraction(5, 100)}, "verified"),
    ("1/4", (Fraction(890, 3514), ""), {}, "drift"),
    ("1/4", (Fraction(890, 2000), ""), {"within": Fraction(5, 100)}, "drift"),
    ("90 %", ("93.3", "%"), {"bound": "at-least"}, "verified"),
    ("90 %", ("88", "%"), {"bound": "at-least"}, "drift"),
    ("0.9", ("0.933", ""), {"bound": "at-least"}, "verified"),
    ("100 GB", (101, "GB"), {"bound": "at-most"}, "drift"),
    ("100 GB", (99, "GB"), {"bound": "at-most"}, "verified"),
    ("800 KB/token", (819200, "B/token"), {}, "verified"),  # holds as KiB, reported as ambiguous
    ("820 KB/token", (819200, "B/token"), {}, "drift"),
    ("80 GiB", (80, "GB"), {"reading": "GB"}, "verified"),
    ("0.003 USD/Mtoken", ("0.003", "USD/Mtoken"), {}, "verified"),
    ("0.003 USD/Mtoken", ("0.0036", "USD/Mtoken"), {}, "drift"),
]


@pytest.mark.parametrize("printed,recomputed,options,status", CASES)
def test_comparison_rules(printed, recomputed, options, status):
    magnitude, unit = recomputed
    outcome = compare_figure(printed, units.quantity(Fraction(magnitude), unit), **options)
    assert outcome.status == status, outcome


def test_kb_reports_the_reading_that_holds():
    outcome = compare_figure("800 KB/token", units.quantity(819200, "B/token"))
    assert [m.text for m in outcome.messages] == [
        "KB/token is ambiguous: it holds read as KiB/token (800 KiB/token), not as kB/token (819.2 kB/token)"]
    assert outcome.comparison.unit == "KiB/token"


def test_si_iec_swap_is_drift_with_the_other_reading_named():
    outcome = compare_figure("184.9 GB", units.quantity(198_574_080_000, "B"))
    assert outcome.status == "drift"
    assert outcome.messages[1].text == ("it would hold if GB were read as GiB (184.936523 GiB); if that is what "
                                        "the author meant, state it with 'reading: GiB'")


def test_wrong_dimension_is_an_error_not_a_drift():
    with pytest.raises(UnitError) as info:
        compare_figure("196,608 B", units.quantity(196608, "B/token"))
    assert str(info.value) == "B/token cannot be compared with B (information / token vs information)"


@given(st.integers(min_value=0, max_value=10**12), st.integers(min_value=1, max_value=4))
def test_a_value_always_verifies_against_its_own_rounded_print(n, places):
    value = Fraction(n, 10**places) + Fraction(1, 10**(places + 2))
    printed = format_number(value, places)
    assert compare_figure(printed, units.dimensionless(value)).status == "verified"


@given(st.integers(min_value=1, max_value=10**9))
def test_integers_are_exact(n):
    printed = format_number(Fraction(n))
    assert read_figure(printed).value == n
    assert compare_figure(printed, units.dimensionless(n + 1)).status == "drift"


def test_an_integer_as_printed_is_exact_unless_the_record_says_how_it_was_rounded():
    assert compare_figure("36", units.dimensionless(Fraction("36.4"))).status == "drift"
    assert compare_figure("36", units.dimensionless(Fraction("36.4")), rounding="nearest").status == "verified"


@given(sign=st.sampled_from(["", "-", "+", "−"]),
       whole=st.one_of(st.integers(0, 10**30), st.integers(0, 10**1200)),
       frac=st.one_of(st.none(), st.text("0123456789", min_size=1, max_size=40),
                      st.text("0123456789", min_size=995, max_size=1010)),
       grouped=st.booleans(), unit=st.sampled_from(["", " B/token", " GB", "%"]))
def test_a_figure_is_read_exactly_whatever_its_length_and_sign(sign, whole, frac, grouped, unit):
    """The value read is the printed decimal exactly (Decimal's reading: the one the short path's whole
    number over a power of ten must equal), at every length on either side of the short path's."""
    from decimal import Decimal, localcontext

    digits = f"{whole:,}" if grouped else str(whole)
    printed = f"{sign}{digits}" + (f".{frac}" if frac is not None else "") + unit
    figure = read_figure(printed)
    with localcontext() as context:
        context.prec = 5000
        exact = Fraction(Decimal(digits.replace(",", "") + (f".{frac}" if frac is not None else "")))
    assert figure.value == (-exact if sign in ("-", "−") else exact)
    assert type(figure.value) is Fraction and figure.places == (len(frac) if frac is not None else 0)
    assert figure.unit == unit.strip()


def test_a_figure_longer_than_python_converts_to_a_whole_number_is_still_read():
    from decimal import Decimal

    for digits in ("7" * 5000, "3" * 2500 + "." + "1" * 2500):
        assert read_figure(f"{digits} B").value == Fraction(Decimal(digits))
