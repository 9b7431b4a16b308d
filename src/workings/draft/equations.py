"""Equations printed in a draft, checked as exact arithmetic.

"2 × 48 × 8 × 128 × 2 = 196,608" and "5,120 ÷ 40 heads = 128" are claims about arithmetic as much as
about the ledger: a changed factor must be caught even when the result still matches a claim. Real
derivations are read as they are printed:

- **chains**: "a = b = c" and "a = b ≈ c" are checked link by link ("MKV=2×80×…×1×2 =2×80×…×2
  =41,943,040,000 bytes"), each link an equation of its own;
- **units**: a side in bytes (B, KB, MB, GB, TB, KiB…GiB, "bytes", "/ token" allowed after) is
  compared in bytes with the other ("× 2 bytes ≈ 838.9 GB", "327,680 = 0.33MB"); a side with no
  byte unit beside one that has it is read as bytes. Other words after a number ("40 heads") are
  names, not units;
- **K and M suffixes** ("128K") are read both as 1,000 and as 1,024 (10^6 and 2^20): an equation
  that holds under one reading only is ``ambiguous``, and says which;
- **printed precision**: a decimal operand ("0.33MB") stands for every value that rounds to it, so a
  chain of rounded steps is not failed for the rounding; a result holds when it agrees to the places
  printed; with "≈" an integer result agrees to its trailing zeros, with "=" exactly.

Terms are found by one linear scan and grouped by the operators between them, so the work grows with
the paragraph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .text import Paragraph

_NUM = r"(?:\d{1,3}(?:,\d{3})++|\d++)(?:\.\d++)?+"
_BYTES = r"(?:bytes?|[kKMGTP]i?B|B)"
TERM = re.compile(rf"(?<![\w.,])(?P<num>{_NUM})(?P<suffix>[KM](?![A-Za-z]))?+"
                  rf"(?:(?P<unit>\s*+{_BYTES}(?![A-Za-z]))(?:\s*+/\s*+tokens?\b)?+"
                  rf"|\s++(?!x\b)[A-Za-z]{{1,20}}+(?![\w(]))?+")
_OP_GAP = re.compile(r"\s*+(?:[×*·÷/+−–]|(?<=\s)[-x](?=\s))\s*+\Z")
_REL_GAP = re.compile(r"\s*+(=|≈|~=)\s*+\Z")
_SCALE = {"": 1, "B": 1, "BYTE": 1, "BYTES": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50}
_SUFFIX = {"K": (1000, 1024), "M": (10**6, 2**20)}


@dataclass(frozen=True)
class _Term:
    start: int
    end: int
    number: str
    suffix: str
    scale: int           # to bytes; 1 when no byte unit
    unit: str            # the byte unit as printed, "" for none


@dataclass(frozen=True, kw_only=True)
class Equation:
    text: str               # as printed: "2 × 48 × 8 × 128 × 2 = 196,608"
    start: int              # offsets in the paragraph
    end: int
    result_start: int       # where the right side begins (numbers before it are not figures)
    printed: Fraction       # the right side as printed (a number in its own unit)
    computed: Fraction      # the left side, computed, in the right side's unit
    approximate: bool       # printed with "≈"
    status: str = "holds"   # holds | fails | ambiguous
    note: str = ""          # for ambiguous: which reading of K/M holds

    @property
    def holds(self) -> bool:
        return self.status == "holds"


def number(text: str) -> Fraction:
    return Fraction(Decimal(text.replace(",", "")))


def _step(text: str) -> Fraction:
    digits = text.replace(",", "")
    return Fraction(1, 10 ** len(digits.split(".", 1)[1])) if "." in digits else Fraction(0)


def find(paragraph: Paragraph) -> list[Equation]:
    text = paragraph.text
    terms = [_term(m) for m in TERM.finditer(text)]
    out: list[Equation] = []
    group: list[_Term] = []
    joins: list[str] = []   # between group[i] and group[i+1]: "op" or the relation sign
    for term in terms:
        if group:
            gap = text[group[-1].end:term.start]
            if _OP_GAP.match(gap):
                group.append(term)
                joins.append("op")
                continue
            if rel := _REL_GAP.match(gap):
                group.append(term)
                joins.append(rel.group(1))
                continue
            out.extend(_links(text, group, joins))
        group, joins = [term], []
    out.extend(_links(text, group, joins))
    return out


def _term(match: re.Match) -> _Term:
    unit = (match.group("unit") or "").strip()
    return _Term(start=match.start(), end=match.end(), number=match.group("num"), suffix=match.group("suffix") or "",
                 scale=_SCALE.get(unit.upper(), 1), unit=unit)


def _links(text: str, group: list[_Term], joins: list[str]) -> list[Equation]:
    """The equations of one run of terms: each relation sign joins the expression before it to the
    one after it."""
    if "op" not in joins and len(group) < 2:
        return []
    sides: list[list[_Term]] = [[group[0]]]
    ops: list[list[str]] = [[]]
    relations: list[str] = []
    for term, join in zip(group[1:], joins):
        if join == "op":
            ops[-1].append(text[sides[-1][-1].end:term.start].strip())
            sides[-1].append(term)
        else:
            relations.append(join)
            sides.append([term])
            ops.append([])
    out = []
    for i, relation in enumerate(relations):
        left, right = sides[i], sides[i + 1]
        if len(left) == 1 and len(right) == 1 and not (left[0].unit or right[0].unit) \
                and not (left[0].suffix or right[0].suffix):
            continue  # "= 5 = 5": no arithmetic to check
        if len(left) == 1 and len(right) > 1:
            # "327,680 = 0.33MB / token x 131072 = 42.95GB": the number is restated, then used.
            if left[0].unit or right[0].unit or left[0].suffix or right[0].suffix:
                out.append(_equation(text, left, [], right[:1], [], relation))
            continue
        out.append(_equation(text, left, ops[i], right, ops[i + 1], relation))
    return out


def _equation(text: str, left: list[_Term], left_ops: list[str], right: list[_Term], right_ops: list[str],
              relation: str) -> Equation:
    approximate = relation != "="
    readings = ("decimal", "binary") if any(t.suffix for t in left + right) else ("decimal",)
    results = []
    for reading in readings:
        low_l, high_l = _evaluate(left, left_ops, reading)
        low_r, high_r = _evaluate(right, right_ops, reading)
        if low_l is None or low_r is None:
            return _equation_of(text, left, right, Fraction(0), Fraction(0), approximate, "fails", "")
        if len(right) == 1:
            low_r, high_r = _precision(right[0], low_r, approximate, exact_left=low_l == high_l)
        results.append((reading, low_l, high_l, low_r, high_r, low_l <= high_r and low_r <= high_l))
    holding = [r for r in results if r[5]]
    status = "holds" if len(holding) == len(results) else "fails" if not holding else "ambiguous"
    note = ""
    if status == "ambiguous":
        reading = holding[0][0]
        note = f"holds only if K and M are read as {'1,000 and 1,000,000' if reading == 'decimal' else '1,024 and 1,048,576'}"
    first = results[0]
    scale = right[-1].scale if len(right) == 1 and right[-1].unit else 1
    computed = (first[1] + first[2]) / 2 / scale
    printed = number(right[0].number) if len(right) == 1 else (first[3] + first[4]) / 2 / scale
    return _equation_of(text, left, right, printed, computed, approximate, status, note)


def _equation_of(text, left, right, printed, computed, approximate, status, note) -> Equation:
    # The text ends at the last number (and its K or M): its unit and words are the figure's.
    start, end = left[0].start, right[-1].start + len(right[-1].number) + len(right[-1].suffix)
    return Equation(text=text[start:end], start=start, end=end, result_start=right[0].start, printed=printed,
                    computed=computed, approximate=approximate, status=status, note=note)


def _value(term: _Term, reading: str) -> tuple[Fraction, Fraction]:
    """The interval a printed term stands for, in bytes when it carries a byte unit (a term with no
    unit is taken as it stands: in bytes when the other side is)."""
    value, step = number(term.number), _step(term.number)
    factor = Fraction(_SUFFIX[term.suffix][reading == "binary"]) if term.suffix else Fraction(1)
    factor *= term.scale
    return (value - step / 2) * factor, (value + step / 2) * factor


def _evaluate(terms: list[_Term], ops: list[str], reading: str):
    """(low, high) of ``a op b op c ...`` over the intervals of its terms, × ÷ before + −; (None,
    None) on a division by an interval holding zero."""
    intervals = [_value(t, reading) for t in terms]
    sums: list[tuple[Fraction, Fraction]] = [intervals[0]]
    signs = [1]
    for op, (low, high) in zip(ops, intervals[1:]):
        a, b = sums[-1]
        if op in ("×", "*", "·", "x"):
            if a == b and low == high:  # exact operands (the common case): one product, not four
                sums[-1] = (a * low,) * 2
                continue
            products = (a * low, a * high, b * low, b * high)
            sums[-1] = (min(products), max(products))
        elif op in ("÷", "/"):
            if low <= 0 <= high:
                return None, None
            if a == b and low == high:
                sums[-1] = (a / low,) * 2
                continue
            quotients = (a / low, a / high, b / low, b / high)
            sums[-1] = (min(quotients), max(quotients))
        else:
            sums.append((low, high))
            signs.append(1 if op == "+" else -1)
    low = sum((s[0] if sign > 0 else -s[1] for s, sign in zip(sums, signs)), Fraction(0))
    high = sum((s[1] if sign > 0 else -s[0] for s, sign in zip(sums, signs)), Fraction(0))
    return low, high


def _precision(term: _Term, low: Fraction, approximate: bool, *, exact_left: bool) -> tuple[Fraction, Fraction]:
    """The interval a printed result agrees with: its places (already in ``low``/high for a decimal);
    for an integer, its trailing zeros with "≈", itself with "=" (or, when the left side is itself
    rounded, its half unit)."""
    digits = term.number.replace(",", "")
    factor = Fraction(_SUFFIX[term.suffix][0]) if term.suffix else Fraction(1)
    factor *= term.scale
    value = number(term.number) * factor
    if "." in digits:
        step = _step(term.number) * factor
        # Half away from zero, as a person rounds: the upper edge belongs to the next value.
        return value - step / 2, value + step / 2 - Fraction(1, 10**30) * factor
    if approximate:
        zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
        step = Fraction(10) ** zeros * factor
        return value - step / 2, value + step / 2
    if exact_left:
        return value, value
    return value - factor / 2, value + factor / 2
