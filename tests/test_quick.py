"""The fast exact arithmetic path agrees with pint on every unit the ledger uses."""

from __future__ import annotations

import ast
import operator
import re
from fractions import Fraction
from pathlib import Path

import pint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workings import expr, quick, units

REPO = Path(__file__).resolve().parent.parent
OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def ledger_units() -> list[str]:
    """Every unit written in this repository's claims (figures and literal inputs), plus the units
    steps name by themselves; the test fails if the list were empty."""
    found = {"", "B", "token", "Mtoken", "parameter", "USD", "bit", "GB", "GiB", "kB", "KiB", "MB", "MiB", "TB",
             "TiB", "B/token", "GB/token", "KiB/token", "USD/Mtoken", "s", "h", "%"}
    for path in (REPO / "claims").rglob("*.yaml"):
        for match in re.finditer(r"^\s*(?:figure|[a-z_0-9]+):\s*[-\d.,]+\s+([A-Za-z%$][A-Za-z0-9/*^ ]*)$",
                                 path.read_text(encoding="utf-8"), re.MULTILINE):
            text = match.group(1).strip()
            try:
                units.parse_unit(text)
            except Exception:  # noqa: BLE001 - ambiguous (KB) or not a unit: not for this test
                continue
            found.add(text)
    return sorted(found)


UNITS = ledger_units()
fractions = st.fractions(min_value=-10**12, max_value=10**12, max_denominator=10**6)


def slow(magnitude, unit):
    return units.registry().Quantity(Fraction(magnitude), units.parse_unit(unit))


def outcome(fn):
    try:
        value = fn()
    except (pint.errors.PintError, ZeroDivisionError) as exc:
        return ("raises", type(exc), str(exc))
    if units.is_quantity(value):
        return ("quantity", type(value), value.magnitude, type(value.magnitude), value._units)
    return ("number", type(value), value)


def test_the_ledger_names_many_units():
    assert len(UNITS) > 20


@settings(max_examples=400, deadline=None)
@given(a=fractions, b=fractions, ua=st.sampled_from(UNITS), ub=st.sampled_from(UNITS),
       op=st.sampled_from(sorted(OPS, key=lambda o: o.__name__)), bare=st.sampled_from(["", "a", "b"]))
def test_binary_agrees_with_pint(a, b, ua, ub, op, bare):
    left = a if bare == "a" else slow(a, ua)
    right = b if bare == "b" else slow(b, ub)
    fast_left = a if bare == "a" else quick.quantity(a, ua)
    fast_right = b if bare == "b" else quick.quantity(b, ub)
    assert outcome(lambda: quick.binary(op, fast_left, fast_right)) == outcome(lambda: OPS[op](left, right))


@settings(max_examples=100, deadline=None)
@given(a=fractions, unit=st.sampled_from(UNITS))
def test_quantity_is_the_quantity_pint_builds(a, unit):
    fast, built = quick.quantity(a, unit), slow(a, unit)
    assert type(fast) is type(built) and fast.magnitude == built.magnitude and fast._units == built._units
    assert fast == built and str(fast.dimensionality) == str(built.dimensionality)
    assert units.display_form(fast) == units.display_form(built)


@pytest.mark.parametrize("text, message", [
    ("1 * B + 1 * token", "units do not agree: information and token"),
    ("1 * B / token - 2 * B", "units do not agree: information / token and information"),
    ("1 * B / 0", "division by zero"),
    ("1 * B / (0 * token)", "division by zero"),
])
def test_errors_read_as_pints(text, message):
    with pytest.raises(Exception) as caught:
        expr.evaluate(expr.parse(text), {})
    assert str(caught.value) == message


def test_units_that_need_a_conversion_go_to_pint():
    value = expr.evaluate(expr.parse("2 * GB - 1 * GiB"), {})
    assert value.to(units.parse_unit("B")).magnitude == 2 * 10**9 - 2**30


@settings(max_examples=300, deadline=None)
@given(a=fractions, ua=st.sampled_from(UNITS), ub=st.sampled_from(UNITS), squared=st.booleans())
def test_conversion_by_cached_factor_agrees_with_pint(a, ua, ub, squared):
    """units.convert multiplies by pint's factor between the two units, taken once per pair: the same
    exact value as pint's own conversion of the quantity, and the same error for units that do not
    convert (the message names only the units)."""
    value = units.quantity(a, ua)
    if squared:
        value = quick.binary(ast.Mult, value, units.quantity(1, ua))
    try:
        expected: object = units._convert(value, ub)  # pint's conversion of this very quantity
    except Exception as exc:  # noqa: BLE001 - the error is part of what must agree
        expected = (type(exc), str(exc))
    try:
        got: object = units.convert(value, ub)
    except Exception as exc:  # noqa: BLE001
        got = (type(exc), str(exc))
    assert got == expected
    if isinstance(expected, Fraction):
        assert expected == Fraction(value.to(units.parse_unit(ub)).magnitude)


wholes = st.integers(min_value=-10**30, max_value=10**30).map(Fraction)


@settings(max_examples=300, deadline=None)
@given(a=st.one_of(wholes, fractions), b=st.one_of(wholes, fractions), ua=st.sampled_from(UNITS),
       ub=st.sampled_from(UNITS), op=st.sampled_from(sorted(OPS, key=lambda o: o.__name__)),
       bare=st.sampled_from(["", "a", "b"]), same=st.booleans())
def test_binary_agrees_with_pint_on_whole_numbers(a, b, ua, ub, op, bare, same):
    """Whole magnitudes take a shortcut past Fraction's operators (``quick.product``, ``_whole``)."""
    ub = ua if same else ub  # the same unit on both sides: + and - stay on the fast path
    left = a if bare == "a" else slow(a, ua)
    right = b if bare == "b" else slow(b, ub)
    fast_left = a if bare == "a" else quick.quantity(a, ua)
    fast_right = b if bare == "b" else quick.quantity(b, ub)
    assert outcome(lambda: quick.binary(op, fast_left, fast_right)) == outcome(lambda: OPS[op](left, right))


@given(x=st.one_of(wholes, fractions), y=st.one_of(wholes, fractions))
def test_product_is_fractions_product(x, y):
    got, expected = quick.product(x, y), x * y
    assert type(got) is Fraction and got == expected and hash(got) == hash(expected)
    assert (got.numerator, got.denominator) == (expected.numerator, expected.denominator) and repr(got) == repr(expected)
