"""A faster exact path for the arithmetic that steps do most: ``*`` and ``/``, and ``+`` ``-`` of
values in one unit.

pint says what units are and how they convert; this module only skips the bookkeeping pint does
around every operation (offset-unit checks, upcast types, argument coercion), which cost a fifth of
verify at 10,000 claims. The result is the very object pint would build: a pint Quantity of the same
registry with the product (or quotient, sum) of the exact ``Fraction`` magnitudes and pint's own
``UnitsContainer`` arithmetic for the units. Anything else (two units that need a conversion to add,
``//``, ``**``, a magnitude that is not a Fraction) goes to pint unchanged, so errors and their
messages are pint's. The registry defines no offset units (no degrees Celsius), the only case where
pint's multiplication does more than this. ``tests/test_quick.py`` holds both paths to the same
results on every unit the ledger uses (hypothesis).
"""

from __future__ import annotations

import ast
import functools
import operator
from fractions import Fraction

from . import units

_SLOW = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
         ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}


def make(magnitude: Fraction, container):
    """A pint Quantity of the ledger's registry from an exact magnitude and a UnitsContainer."""
    value = object.__new__(units._quantity_class())
    value._magnitude = magnitude
    value._units = container
    return value


def quantity(magnitude, unit_text: str = ""):
    """``units.quantity`` without pint's constructor: the unit parsed (and cached) by pint."""
    return make(magnitude if type(magnitude) is Fraction else Fraction(magnitude), units.parse_unit(unit_text)._units)


def binary(op: type[ast.operator], a, b):
    """``a op b`` for an ``ast`` operator type, as pint computes it."""
    cls = units._quantity_class()
    ta, tb = type(a), type(b)
    if op is ast.Mult or op is ast.Div:
        mul = op is ast.Mult
        if ta is cls and tb is cls and type(a._magnitude) is Fraction and type(b._magnitude) is Fraction:
            if mul:
                return make(product(a._magnitude, b._magnitude), _times(a._units, b._units))
            return make(a._magnitude / b._magnitude, _over(a._units, b._units))
        if ta is cls and tb is Fraction and type(a._magnitude) is Fraction:
            return make(product(a._magnitude, b) if mul else a._magnitude / b, a._units)
        if ta is Fraction and tb is cls and type(b._magnitude) is Fraction:
            return make(product(a, b._magnitude), b._units) if mul else make(a / b._magnitude, _inverse(b._units))
    elif (op is ast.Add or op is ast.Sub) and ta is cls and tb is cls and (a._units is b._units or a._units == b._units) \
            and type(a._magnitude) is Fraction and type(b._magnitude) is Fraction:
        x, y = a._magnitude, b._magnitude
        if x._denominator == 1 and y._denominator == 1:  # type: ignore[attr-defined]  # whole: as product()
            n, m = x._numerator, y._numerator  # type: ignore[attr-defined]
            return make(_whole(n + m if op is ast.Add else n - m), a._units)
        return make(x + y if op is ast.Add else x - y, a._units)
    return _SLOW[op](a, b)


def product(x: Fraction, y: Fraction) -> Fraction:
    """``x * y`` for two Fractions; two whole numbers (most of a ledger's) without Fraction's
    operator machinery, which is Python code (the gcds of two denominators of 1 are 1)."""
    if x._denominator == 1 and y._denominator == 1:  # type: ignore[attr-defined]
        return _whole(x._numerator * y._numerator)  # type: ignore[attr-defined]
    return x * y


def _whole(n: int) -> Fraction:
    """The Fraction n/1, as ``Fraction(n)`` builds it (its two slots), without its constructor's checks."""
    value = object.__new__(Fraction)
    value._numerator = n  # type: ignore[attr-defined]
    value._denominator = 1  # type: ignore[attr-defined]
    return value


# pint's UnitsContainer arithmetic, once per pair of units: a ledger multiplies the same few units
# over and over, and the shared results make later comparisons of units an identity check.
@functools.lru_cache(maxsize=4096)
def _times(a, b):
    return a * b


@functools.lru_cache(maxsize=4096)
def _over(a, b):
    return a / b


@functools.lru_cache(maxsize=4096)
def _inverse(a):
    return a ** -1
