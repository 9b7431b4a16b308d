"""Holding a recomputed value against the figure as printed.

The printed string sets the precision (see ``figures.read_figure``); the record may say how the
author rounded (``round``), a tolerance (``within``), or that the figure is a bound (``bound``).
Unit readings are never passed silently: "KB" is tried as kB and as KiB and the reading that holds
is reported, and a figure that holds only with SI and IEC prefixes swapped is drift with a message
saying so, unless the record states that reading (``reading:``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .frozen import frozen
from . import units
from .errors import UnitError
from .figures import Figure, format_number, read_figure, round_to
from .report import Comparison, Message, Quantity

_PLACE_NAMES = {-1: "tens", -2: "hundreds", -3: "thousands", -4: "ten thousands", -5: "hundred thousands",
                -6: "millions", -9: "billions"}


@frozen(kw_only=True)
class Outcome:
    comparison: Comparison
    status: str  # verified | drift
    messages: tuple[Message, ...] = ()


def rule_for(figure: Figure, *, rounding: str | None, within: Fraction | None, bound: str | None) -> tuple[str, int | None]:
    """A description of the rule and the decimal places it rounds to (None: no rounding)."""
    if within is not None:
        return f"within {format_number(within * 100)}%", None
    if bound == "at-least":
        return "at least the printed value", None
    if bound == "at-most":
        return "at most the printed value", None
    if figure.is_fraction:
        return "exact", None
    places = figure.places if figure.places else (-figure.trailing_zeros if rounding else 0)
    mode = rounding or "nearest"
    if places > 0:
        return f"{_mode_word(mode)} to {places} decimal{'s' if places > 1 else ''}", places
    if places < 0:
        return f"{_mode_word(mode)} to {_PLACE_NAMES.get(places, f'10^{-places}')}", places
    return ("exact" if rounding is None else f"{_mode_word(mode)} to a whole number"), 0


def _mode_word(mode: str) -> str:
    return {"floor": "rounded down", "ceil": "rounded up"}.get(mode, "rounded")


def holds(figure: Figure, recomputed: Fraction, *, rounding: str | None, within: Fraction | None,
          bound: str | None) -> bool:
    printed: Fraction = figure.value
    if within is not None:
        return abs(recomputed - printed) <= within * abs(printed)
    if bound == "at-least":
        return recomputed >= printed
    if bound == "at-most":
        return recomputed <= printed
    _, places = rule_for(figure, rounding=rounding, within=within, bound=bound)
    if places is None or (places == 0 and rounding is None):  # an integer as printed is exact
        return recomputed == printed
    if places < 0 and Fraction(10) ** -places > abs(recomputed):
        return False  # a step coarser than the value is no rounding: 1,010,000 "rounded up" to 100,000,000
    return round_to(recomputed, places, rounding or "nearest") == printed


def compare_figure(text: str, value: Any, *, rounding: str | None = None, within: Fraction | None = None,
                   bound: str | None = None, reading: str | None = None) -> Outcome:
    """Compare ``value`` (a pint quantity) with the printed figure ``text``.

    Raises UnitError when the figure's unit cannot describe the value at all (B vs B/token)."""
    figure = read_figure(text)
    rule, places = rule_for(figure, rounding=rounding, within=within, bound=bound)
    whole = figure.number.lstrip("+-−").split(".")[0]
    grouped = "," in figure.number or len(whole) <= 3  # "2024" printed plainly is shown plainly

    def attempt(unit: str) -> tuple[bool, Quantity]:
        converted = units.convert(value, unit)
        return holds(figure, converted, rounding=rounding, within=within, bound=bound), _shown(converted, unit, grouped)

    if reading:
        allowed = set(units.readings(figure.unit)) | {units.other_reading(figure.unit)}
        if reading not in allowed - {None, figure.unit}:
            raise UnitError(f"reading: {reading} is not another reading of the printed {figure.unit or 'number'} "
                            "(only KB as kB or KiB, and SI and IEC prefixes swapped, such as GB as GiB)")
        ok, shown = attempt(reading)
        message = Message(kind="ambiguous", text=f"printed {figure.unit or 'as a pure number'}, read as {reading} as the record states"
                          + f": {shown.display} {'holds' if ok else 'does not hold'}"
                          + ("" if ok else _hint(figure, shown.value, rounding=rounding, within=within, bound=bound)))
        return Outcome(comparison=Comparison(printed=figure.text, unit=reading, recomputed=shown, rule=rule, holds=ok),
                       status="verified" if ok else "drift", messages=(message,))

    readings = units.readings(figure.unit)
    if len(readings) > 1:  # "KB": try kB and KiB
        tried = [(unit, *attempt(unit)) for unit in readings]
        good = [t for t in tried if t[1]]
        pick = good[0] if good else tried[0]
        others = ", ".join(f"{t[2].display}" for t in tried if t is not pick)
        if good:
            text_ = (f"{figure.unit} is ambiguous: it holds read as {pick[0]} ({pick[2].display}), "
                     f"not as {', '.join(t[0] for t in tried if t is not pick)} ({others})") if len(good) == 1 else \
                f"{figure.unit} is ambiguous; it holds under every reading"
        else:
            text_ = f"{figure.unit} is ambiguous, and it holds under no reading ({', '.join(t[2].display for t in tried)})"
        comparison = Comparison(printed=figure.text, unit=pick[0], recomputed=pick[2], rule=rule, holds=bool(good))
        return Outcome(comparison=comparison, status="verified" if good else "drift",
                       messages=(Message(kind="ambiguous", text=text_),))

    ok, shown = attempt(figure.unit)
    comparison = Comparison(printed=figure.text, unit=figure.unit, recomputed=shown, rule=rule, holds=ok)
    if ok:
        return Outcome(comparison=comparison, status="verified")
    messages = [Message(kind="drift", text=f"printed {figure.text}, recomputed {shown.display} ({rule})"
                        + _hint(figure, shown.value, rounding=rounding, within=within, bound=bound))]
    swapped = units.other_reading(figure.unit)
    if swapped:
        other_ok, other = attempt(swapped)
        if other_ok:
            messages.append(Message(kind="ambiguous", text=(
                f"it would hold if {figure.unit} were read as {swapped} ({other.display}); if that is what the "
                f"author meant, state it with 'reading: {swapped}'")))
    return Outcome(comparison=comparison, status="drift", messages=tuple(messages))


# Tolerances a hint may suggest, in percent: a figure further off than 1% is more likely wrong than
# approximate, and no tolerance is suggested for it.
_TOLERANCES = (Fraction(1, 10), Fraction(1, 5), Fraction(1, 2), Fraction(1))


def _hint(figure: Figure, recomputed: Fraction, *, rounding: str | None, within: Fraction | None,
          bound: str | None) -> str:
    """What one rule would make the figure hold, as text to follow the drift message ('' if none).

    A rounding mode that holds is named (``round: nearest`` for "437" printed for 437.21); when no
    rounding does, and the figure was printed rounded (decimals, or two trailing zeros or more) and is
    within 1% of the value, the smallest usual tolerance that holds. A count printed to the unit gets no
    tolerance hint."""
    if bound is not None or within is not None or figure.is_fraction:
        return ""
    modes = [m for m in ("nearest", "floor", "ceil") if m != (rounding or None)
             and holds(figure, recomputed, rounding=m, within=None, bound=None)]
    if modes:
        rules = " or ".join(f"'round: {m}' ({rule_for(figure, rounding=m, within=None, bound=None)[0]})" for m in modes)
        return f"; it would hold with {rules}, if the author rounded"
    if not figure.value or not (figure.places or figure.trailing_zeros >= 2):
        return ""  # a count printed to the unit ("196,680") is not "about" another: no tolerance is suggested
    off = abs(recomputed - figure.value) / abs(figure.value) * 100
    tolerance = next((t for t in _TOLERANCES if off <= t), None)
    if tolerance is None:
        return ""
    shown = format_number(off, 2)
    shown = "less than 0.01" if shown == "0.00" else shown  # a drift of 1e-17 is not "0.00% off"
    return (f"; it would hold with 'within: {format_number(tolerance)}%' ({shown}% off), "
            "if the figure is meant as approximate")


def _join(number: str, unit: str) -> str:
    return f"{number} {unit}".strip()


def _shown(converted: Fraction, unit: str, grouped: bool) -> Quantity:
    """The recomputed value as the figure's unit shows it; once per distinct (value, unit, grouping):
    claims of a ledger recompute the same values, and the Quantity is frozen, so they share one (and
    its JSON text, ``workings.jsonline``)."""
    key = (converted.numerator, converted.denominator, unit, grouped)
    known = _SHOWN.get(key)
    if known is None:
        if len(_SHOWN) >= 65536:
            _SHOWN.clear()
        known = _SHOWN[key] = Quantity(value=converted, unit=unit, display=_join(format_number(converted, grouping=grouped), unit))
    return known


_SHOWN: dict[tuple[int, int, str, bool], Quantity] = {}
