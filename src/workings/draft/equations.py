"""Equations printed in a draft, checked as exact arithmetic.

"2 × 48 × 8 × 128 × 2 = 196,608" and "5,120 ÷ 40 heads = 128" are claims about arithmetic as much as
about the ledger: a changed factor must be caught even when the result still matches a claim. The
operands may carry a word ("40 heads", "80 GiB"); units are not checked here, only the numbers. An
equation printed with "≈" holds when the result agrees to the places printed (integers: to their
trailing zeros); with "=", a decimal result must agree to its printed places and an integer exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .text import Paragraph

_NUM = r"(?:\d{1,3}(?:,\d{3})++|\d++)(?:\.\d++)?+"
_WORD = r"(?:\s+(?!x\b)[A-Za-z]{1,20}+)?"
_OP = r"\s*+(?:[×*·÷/+−–]|(?<=\s)[-x](?=\s))\s*+"
EQUATION = re.compile(
    rf"(?<![\w.,])(?P<lhs>{_NUM}{_WORD}(?:{_OP}{_NUM}{_WORD}){{1,30}})\s*+(?P<eq>=|≈|~=)\s*+(?P<rhs>{_NUM})(?![\d,]\d)")
_OPERAND = re.compile(rf"{_NUM}")
_OPERATOR = re.compile(rf"{_OP}")


@dataclass(frozen=True, kw_only=True)
class Equation:
    text: str               # as printed: "2 × 48 × 8 × 128 × 2 = 196,608"
    start: int              # offsets in the paragraph
    end: int
    result_start: int       # where the printed result begins
    printed: Fraction       # the result as printed
    computed: Fraction      # the left side, computed exactly
    approximate: bool       # printed with "≈"

    @property
    def holds(self) -> bool:
        return agrees(self.computed, self.printed, self.text[self.result_start - self.start:],
                      approximate=self.approximate)


def number(text: str) -> Fraction:
    return Fraction(Decimal(text.replace(",", "")))


def agrees(computed: Fraction, printed: Fraction, printed_text: str, *, approximate: bool) -> bool:
    digits = printed_text.replace(",", "")
    if "." in digits:
        places = len(digits.split(".", 1)[1])
        step = Fraction(1, 10**places)
    elif approximate:
        zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
        step = Fraction(10) ** zeros
    else:
        return computed == printed
    return abs(computed - printed) * 2 <= step if approximate else _round(computed, step) == printed


def _round(value: Fraction, step: Fraction) -> Fraction:
    """Round half away from zero to a multiple of ``step``, as a person does by hand."""
    scaled = abs(value) / step
    whole = (scaled.numerator * 2 + scaled.denominator) // (scaled.denominator * 2)
    return (whole if value >= 0 else -whole) * step


def evaluate(lhs: str) -> Fraction | None:
    """The value of ``a op b op c ...`` with × ÷ before + −; None on a division by zero."""
    operands = [number(m.group()) for m in _OPERAND.finditer(_strip_words(lhs))]
    operators = [m.group().strip() for m in _OPERATOR.finditer(_strip_words(lhs))]
    if len(operators) != len(operands) - 1:
        return None
    terms: list[Fraction] = [operands[0]]
    signs: list[int] = [1]
    for op, value in zip(operators, operands[1:]):
        if op in "×*·x":
            terms[-1] *= value
        elif op in "÷/":
            if value == 0:
                return None
            terms[-1] /= value
        else:
            terms.append(value)
            signs.append(1 if op == "+" else -1)
    return sum((s * t for s, t in zip(signs, terms)), Fraction(0))


def _strip_words(lhs: str) -> str:
    # Operand words ("40 heads") sit between a number and the next operator; drop them so that the
    # operator pattern sees only numbers and signs. An "x" between spaces is an operator, not a word.
    return re.sub(r"(?<=\d)\s+(?!x\b)[A-Za-z]{1,20}+", "", lhs)


def find(paragraph: Paragraph) -> list[Equation]:
    out = []
    for match in EQUATION.finditer(paragraph.text):
        computed = evaluate(match.group("lhs"))
        if computed is None:
            continue
        out.append(Equation(text=match.group(), start=match.start(), end=match.end(),
                            result_start=match.start("rhs"), printed=number(match.group("rhs")),
                            computed=computed, approximate=match.group("eq") != "="))
    return out
