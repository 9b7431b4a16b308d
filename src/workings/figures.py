"""Printed numbers: reading them exactly, and writing them for display.

A printed number carries its own precision: ``198.6`` was rounded to tenths, ``196,608`` is exact,
and ``286,000`` printed as "about" a capacity is rounded to thousands. ``read_figure`` keeps both
the value and that precision; ``format_number`` is the one place display rounding happens.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from decimal import Decimal
from fractions import Fraction

from .frozen import frozen
from .errors import LedgerError

ASCII_DIGITS = "0123456789"
# A record's limits on what it prints (``models``, and ``said.answers`` where a record is read)
MAX_SENTENCE = 2000  # the longest said or also_said sentence a record may give
MAX_FIGURE = 200  # the longest figure as printed
# Characters some styles group digits with ("196 608", "196'608"): refused with their name, not read as a unit.
_GROUPING = {" ", "\u00a0", "\u202f", "\u2009", "\u2007", "\u200a", "'", "\u2019", "_", "\u00b7", "\u02d9"}


def _describe(mark: str) -> str:
    return "a space" if mark == " " else f"{mark!r} (U+{ord(mark):04X} {unicodedata.name(mark, '')})".replace(" )", ")")


# 1,010,000 | 1010000 | 198.6 | 0.003 | .5 | 1/4 | -3 | 1e6 is not accepted: print what was printed.
_NUMBER = re.compile(
    r"""^(?P<sign>[-+−]?)
        (?:(?P<num>\d+)/(?P<den>\d+)
          |(?P<int>\d{1,3}(?:,\d{3})+|\d+)?(?:\.(?P<frac>\d+))?)
        (?P<rest>.*)$""",
    re.VERBOSE | re.ASCII,
)


@frozen(kw_only=True)
class Figure:
    """A figure as printed: ``value`` exact, ``places`` the decimals printed (negative for
    trailing zeros of an integer that were rounded away), ``unit`` the unit text that follows."""

    text: str
    number: str
    value: Fraction
    places: int
    unit: str
    is_fraction: bool = False

    @property
    def trailing_zeros(self) -> int:
        digits = self.number.replace(",", "").lstrip("-+−")
        if "." in digits or "/" in digits:
            return 0
        return len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0


def read_figure(text: str) -> Figure:
    """Split ``"196,608 B/token"`` into an exact number, its printed precision and its unit."""
    if not isinstance(text, str):
        raise LedgerError(f"expected the figure as printed, in quotes; got {text!r}")
    return _read_figure(text)


@functools.lru_cache(maxsize=65536)
def _read_figure(text: str) -> Figure:
    """``read_figure`` once per distinct text: a claim's figure is read when it is validated, compared
    and cited (a Figure is frozen, so sharing it is safe; errors are raised again, never cached)."""
    stripped = text.strip()
    other = None  # ASCII text holds no digit but 0-9: the search is for the others
    if not stripped.isascii():
        other = next((ch for ch in stripped if ch.isdecimal() and ch not in ASCII_DIGITS), None)
    if other is not None:  # Python reads '١٩٦' and '１９６' as 196: a figure must not look like one number and be another
        raise LedgerError(f"{text!r} has the digit {other!r} ({unicodedata.name(other, 'a digit')}), not one of 0-9: "
                          "write the figure's number in ASCII digits (said keeps the sentence as printed)")
    match = _NUMBER.match(stripped)
    if not match or not (match.group("int") or match.group("frac") or match.group("num")):
        raise LedgerError(f"expected a number then a unit, like '196,608 B/token'; got {text!r}")
    sign = -1 if match.group("sign") in ("-", "−") else 1
    rest = match.group("rest")
    if len(rest) > 1 and rest[0] in _GROUPING and rest[1] in ASCII_DIGITS:
        mark = rest[0]
        groups = re.match(r"(?:" + re.escape(mark) + r"[0-9]{3})+(?![0-9])", rest)
        shown = (f"as {match.group('int') or ''}{groups.group(0).replace(mark, ',')}"
                 if groups and "," not in (match.group("int") or "") else "with commas")
        raise LedgerError(f"{text!r}: the number's digits are grouped with {_describe(mark)}; write it {shown} or "
                          "without grouping (said keeps the sentence as printed)")
    if rest and not rest[0].isspace() and rest[0] not in "%$":
        # "200x" or "1,01": a number must end where its unit starts
        if rest[0] in ",.0123456789":
            raise LedgerError(f"malformed number in {text!r}")
    unit = rest.strip()
    number = stripped[: len(stripped) - len(rest)].strip()
    if match.group("num"):
        den = int(match.group("den"))
        if den == 0:
            raise LedgerError(f"division by zero in the figure {text!r}")
        return Figure(text=stripped, number=number, value=sign * Fraction(int(match.group("num")), den),
                      places=0, unit=unit, is_fraction=True)
    digits = (match.group("int") or "0").replace(",", "")
    frac = match.group("frac") or ""
    if len(digits) + len(frac) <= _SHORT:  # the ASCII digits as a whole number over a power of ten: exact
        value = Fraction(int(digits + frac), 10 ** len(frac))
    else:  # (int() refuses very long digit strings; Decimal reads any)
        value = Fraction(Decimal(f"{digits}.{frac}" if frac else digits))
    return Figure(text=stripped, number=number, value=-value if sign < 0 else value, places=len(frac), unit=unit)


_SHORT = 1000  # digits read by int(): far below Python's limit on converting text to int (4,300 digits)


def round_to(value: Fraction, places: int, mode: str = "nearest") -> Fraction:
    """``value`` rounded to ``places`` decimals (negative: to tens, hundreds...); see ``round_step``."""
    return round_step(value, Fraction(1) / Fraction(10) ** places, mode)


def round_step(value: Fraction, step: Fraction | int, mode: str = "nearest") -> Fraction:
    """``value`` rounded to a whole multiple of ``step``: the one rounding rule of the ledger (a
    figure's places, a step's ``round()``, a draft's "about 200").

    ``nearest`` rounds half away from zero, as people do by hand; ``floor``/``ceil`` as named."""
    scaled = Fraction(value) / step
    if mode == "floor":
        whole = scaled.numerator // scaled.denominator
    elif mode == "ceil":
        whole = -((-scaled.numerator) // scaled.denominator)
    else:
        whole = (abs(scaled.numerator) * 2 + scaled.denominator) // (scaled.denominator * 2)
        whole = whole if scaled >= 0 else -whole
    return whole * Fraction(step)


@frozen
class Interval:
    """The numbers from ``low`` to ``high``, each edge in the set or not."""
    low: Fraction
    high: Fraction
    low_in: bool = True
    high_in: bool = True

    @property
    def exact(self) -> bool:
        """One number."""
        return self.low == self.high and self.low_in and self.high_in

    def __contains__(self, x: Fraction | int) -> bool:
        return (self.low < x or x == self.low and self.low_in) and (x < self.high or x == self.high and self.high_in)

    def scaled(self, factor: Fraction | int) -> Interval:
        """Times a positive factor."""
        return Interval(self.low * factor, self.high * factor, self.low_in, self.high_in)

    def meets(self, other: Interval) -> bool:
        """Whether some number is in both."""
        low, low_in = max((self.low, self.low_in), (other.low, other.low_in), key=lambda e: (e[0], not e[1]))
        high, high_in = min((self.high, self.high_in), (other.high, other.high_in), key=lambda e: (e[0], e[1]))
        return low < high or (low == high and low_in and high_in)


def rounds_to(value: Fraction, step: Fraction | int) -> Interval:
    """Every number ``round_step(·, step)`` sends to ``value``: what a figure printed to ``step``
    stands for (``step`` 0: the value itself). Each half-step edge belongs to the value that
    ``round_step`` gives it, so 1.25 is in 1.3's interval and 1.35 is not."""
    if not step:
        return Interval(value, value)
    low, high = value - Fraction(step) / 2, value + Fraction(step) / 2
    return Interval(low, high, round_step(low, step) == value, round_step(high, step) == value)


def format_number(value: Fraction, places: int | None = None, *, max_places: int = 6, grouping: bool = True) -> str:
    """Display a number with thousands separators.

    Integers are shown whole, never rounded. Other values are shown to ``places`` decimals when
    given, else to as many as needed up to ``max_places`` (trailing zeros dropped). ``grouping=False``
    drops the thousands separators, for a figure printed without them (a year: 2024)."""
    if not grouping:
        return format_number(value, places, max_places=max_places).replace(",", "")
    if type(value) is not Fraction:
        value = Fraction(value)
    if value.denominator == 1 and (places is None or places <= 0):
        return f"{value.numerator:,}"
    if places is None:
        exact = _exact_decimals(value, max_places)
        places = exact if exact is not None else max_places
        text = _fixed(round_to(value, places), places)
        if exact is None:
            return text if "." not in text else text.rstrip("0").rstrip(".")
        return text
    if places < 0:
        return f"{round_to(value, places).numerator:,}"
    return _fixed(round_to(value, places), places)


def _exact_decimals(value: Fraction, limit: int) -> int | None:
    """The fewest decimals that show ``value`` exactly, if within ``limit``: a fraction terminates
    when its denominator has no prime factors but 2 and 5."""
    den, twos, fives = value.denominator, 0, 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1 or max(twos, fives) > limit:
        return None
    return max(twos, fives)


def _fixed(value: Fraction, places: int) -> str:
    sign = "-" if value < 0 else ""
    scaled = abs(value) * 10**places
    whole = scaled.numerator // scaled.denominator
    int_part, frac_part = divmod(whole, 10**places) if places else (whole, 0)
    text = f"{int_part:,}"
    if places:
        text += "." + str(frac_part).rjust(places, "0")
    return sign + text


def format_exact(value: Fraction) -> str:
    """The exact value: a decimal when it terminates within 12 places, else ``a/b``."""
    places = _exact_decimals(value, 12)
    if places is not None:
        return format_number(value, places)
    return f"{value.numerator}/{value.denominator}"
