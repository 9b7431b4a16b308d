"""The restricted evaluator: agrees with plain arithmetic, refuses everything else."""

from __future__ import annotations

import operator
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workings import expr, units
from workings.errors import ExpressionError, UnitError

numbers = st.integers(min_value=-10_000, max_value=10_000)


@st.composite
def expressions(draw, depth=0):
    """A random arithmetic expression as text, with its value by plain Fraction arithmetic."""
    if depth > 3 or draw(st.booleans()):
        n = draw(numbers)
        return f"({n})", Fraction(n)
    op = draw(st.sampled_from(["+", "-", "*", "/"]))
    left_text, left = draw(expressions(depth=depth + 1))
    right_text, right = draw(expressions(depth=depth + 1))
    if op == "/" and right == 0:
        return left_text, left
    value = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}[op](left, right)
    return f"({left_text} {op} {right_text})", value


@given(expressions())
@settings(max_examples=300)
def test_agrees_with_plain_arithmetic(case):
    text, expected = case
    assert Fraction(expr.evaluate(expr.parse(text), {})) == expected


@given(numbers, st.integers(min_value=0, max_value=8))
def test_powers_are_exact(base, exponent):
    assert expr.evaluate(expr.parse(f"({base}) ** {exponent}"), {}) == Fraction(base) ** exponent


REFUSED = [
    ("__import__('os')", "only these calls are allowed: abs, ceil, floor, max, min, round"),
    ("open('x')", "only these calls are allowed: abs, ceil, floor, max, min, round"),
    ("layers.__class__", "Attribute is not allowed in an expression"),
    ("x[0]", "Subscript is not allowed in an expression"),
    ("lambda: 1", "Lambda is not allowed in an expression"),
    ("[1, 2]", "List is not allowed in an expression"),
    ("'text'", "only numbers are allowed, not 'text'"),
    ("True", "only numbers are allowed, not True"),
    ("1 if 1 else 2", "IfExp is not allowed in an expression"),
    ("(x := 1)", "NamedExpr is not allowed in an expression"),
    ("[i for i in (1,)]", "ListComp is not allowed in an expression"),
    ("min(a=1)", "min() takes plain arguments"),
    ("2 ** 65", "exponents must be whole numbers between -64 and 64"),
    ("2 ** 0.5", "exponents must be whole numbers between -64 and 64"),
    ("10 ** 64 ** 64", "exponents must be whole numbers between -64 and 64"),
    ("1 < 2", "comparisons belong in check:, not in a step"),
    ("_secret", "name '_secret' is not allowed"),
    ("1 +", "not an arithmetic expression: '1 +'"),
    ("1 << 3", "operator LShift is not allowed"),
    ("~1", "operator Invert is not allowed"),
    ("f'{1}'", "JoinedStr is not allowed in an expression"),
]


@pytest.mark.parametrize("text,message", REFUSED)
def test_refuses_everything_outside_the_allow_list(text, message):
    with pytest.raises(ExpressionError) as info:
        expr.evaluate(expr.parse(text), {"x": Fraction(1), "layers": Fraction(1)})
    assert str(info.value) == message


@given(st.text(max_size=40))
@settings(max_examples=300)
def test_any_text_is_evaluated_or_refused_cleanly(text):
    try:
        expr.evaluate(expr.parse(text), {})
    except (ExpressionError, UnitError):
        pass


def test_limits():
    with pytest.raises(ExpressionError, match="longer than 1000"):
        expr.parse("1+" * 600 + "1")
    with pytest.raises(ExpressionError, match="nested deeper"):
        expr.parse("-" * 60 + "1")
    with pytest.raises(ExpressionError, match="beyond 4096 bits"):
        expr.evaluate(expr.parse("x * x"), {"x": Fraction(2) ** 3000})
    with pytest.raises(ExpressionError, match="division by zero"):
        expr.evaluate(expr.parse("1 / (2 - 2)"), {})


def test_units_are_checked():
    env = {"value_bytes": units.quantity(2, "B")}
    assert expr.evaluate(expr.parse("value_bytes * 48 / token"), env) == units.quantity(96, "B/token")
    with pytest.raises(UnitError) as info:
        expr.evaluate(expr.parse("value_bytes + token"), env)
    assert str(info.value) == "units do not agree: information and token"
    with pytest.raises(UnitError):
        expr.evaluate(expr.parse("value_bytes < value_bytes / token", allow_compare=True), env)


def test_unknown_names_say_what_was_expected():
    with pytest.raises(ExpressionError) as info:
        expr.evaluate(expr.parse("layres * 2"), {})
    assert str(info.value) == "unknown name 'layres': not an input, an earlier step or a unit"


def test_floor_rounds_in_the_reduced_unit():
    value = expr.evaluate(expr.parse("floor((80 * GiB - 27.5 * GiB) / (196608 * B / token))"), {})
    assert value == units.quantity(286720, "token")


def test_multiplication_symbols_from_print():
    assert expr.evaluate(expr.parse("2 × 48 ÷ 4 − 1"), {}) == 23


def test_odd_names_are_refused_before_pint_sees_them():
    with pytest.raises(ExpressionError, match="unknown name"):
        expr.evaluate(expr.parse("A·"), {})
