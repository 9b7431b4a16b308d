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
- **K and M suffixes** ("128K") are read both as 1,000 and as 1,024 (10^6 and 2^20), and so is
  "KB" (the ledger's rule: kB or KiB, ``units.readings``; "kB" and "KiB" are read as printed): an
  equation that holds under one reading only is ``ambiguous``, and says which;
- **names and notes between factors**: "8 KV heads × 128 dim × 2 (K+V) × 2 bytes = 4KB" is one
  product; a few words after a number, or a note in parentheses without digits, may stand before
  "×", "*", "·", "÷" or "/" (not before "+", "-" or "x", which join list items and prose as often);
- **a side cut off**: where an operator stands just before the left side or just after the right
  (a symbol between them, "num_heads × 2 = 4", "= 2 × layers"), the side printed is not the whole
  side, and that link is not checked;
- **printed precision**: a decimal operand ("0.33MB") stands for every value that rounds to it, so a
  chain of rounded steps is not failed for the rounding; a result holds when it agrees to the places
  printed; with "≈" an integer result agrees to its trailing zeros, with "=" exactly. "Rounds to" is
  the ledger's one rule (``figures.rounds_to``, half away from zero): 1.3 stands for [1.25, 1.35), so
  "1.3 × 2 = 2" fails. The intervals carry whether each edge is in them through the arithmetic.

Terms are found by one linear scan and grouped by the operators between them, so the work grows with
the paragraph.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from ..frozen import frozen
from ..figures import Interval, rounds_to
from .text import Paragraph

_NUM = r"(?:\d{1,3}(?:,\d{3})++|\d++)(?:\.\d++)?+"
_BYTES = r"(?:bytes?|[kKMGTP]i?B|B)"
TERM = re.compile(rf"(?<![\w.,])(?P<num>{_NUM})(?P<suffix>[KM](?![A-Za-z]))?+"
                  rf"(?:(?P<unit>\s*+{_BYTES}(?![A-Za-z]))(?:\s*+/\s*+tokens?\b)?+"
                  rf"|\s++(?!x\b)[A-Za-z]{{1,20}}+(?![\w(]))?+")
_OP_GAP = re.compile(r"\s*+(?:[×*·÷/+−–]|(?<=\s)[-x](?=\s))\s*+\Z")
# A factor's name of a few more words, or a note in parentheses ("heads × ", " (K+V) × "), before a
# multiplication or a division: the product goes on.
_NAMED_OP_GAP = re.compile(r"(?:\s++[A-Za-z][A-Za-z_]{0,19}+){0,3}+(?:\s*+\([^()\d\n]{1,20}+\))?+\s*+[×*·÷/]\s*+\Z")
# An operator between a side's first number and an operand before it, or between its last and an
# operand after it, on the same line: the side goes on beyond what was read ("num_heads × 2 = 4"),
# so it is not the side as printed. A footnote's star ("= 42.95GB *") or a bullet has no operand.
_CUT_BEFORE = re.compile(r"[\w)][ \t]*+(?:[×*·÷/+−]|(?<=[ \t])x)[ \t]*+\Z")
_CUT_AFTER = re.compile(r"[ \t]*+(?:[×*·÷/+−]|x(?=[ \t]))[ \t]*+[\w(]")
_REL_GAP = re.compile(r"\s*+(=|≈|~=)\s*+\Z")
_SCALE = {"": 1, "B": 1, "BYTE": 1, "BYTES": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50}
_SUFFIX = {"K": (1000, 1024), "M": (10**6, 2**20)}
_KB = {"decimal": 10**3, "binary": 2**10}  # "KB" as printed: kB or KiB, read as the K suffix is
_READ_AS = {"K and M": ("are read as 1,000 and 1,000,000", "are read as 1,024 and 1,048,576"),
            "KB": ("is read as 1,000 bytes (kB)", "is read as 1,024 bytes (KiB)")}


@frozen
class _Term:
    start: int
    end: int
    number: str
    suffix: str
    scale: int           # to bytes; 1 when no byte unit ("KB": its decimal reading, see ``_factor``)
    unit: str            # the byte unit as printed, "" for none


@frozen(kw_only=True)
class Equation:
    text: str               # as printed: "2 × 48 × 8 × 128 × 2 = 196,608"
    start: int              # offsets in the paragraph
    end: int
    result_start: int       # where the right side begins (numbers before it are not figures)
    printed: Fraction       # the right side as printed (a number in its own unit)
    computed: Fraction      # the left side, computed, in the right side's unit
    approximate: bool       # printed with "≈"
    status: str = "holds"   # holds | fails | ambiguous
    note: str = ""          # ambiguous: which reading of K, M and KB holds; fails: a rounded "=", if so

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
            if _OP_GAP.match(gap) or _NAMED_OP_GAP.match(gap):
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


def _term(match: re.Match[str]) -> _Term:
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
            ops[-1].append(text[sides[-1][-1].end:term.start].strip()[-1])  # the sign, after any name
            sides[-1].append(term)
        else:
            relations.append(join)
            sides.append([term])
            ops.append([])
    out = []
    cut_left = bool(_CUT_BEFORE.search(text, max(0, group[0].start - 40), group[0].start))  # a bounded look back
    cut_right = bool(_CUT_AFTER.match(text, group[-1].end))
    for i, relation in enumerate(relations):
        left, right = sides[i], sides[i + 1]
        if (i == 0 and cut_left) or (i == len(relations) - 1 and cut_right):
            continue  # a side printed only in part: "num_heads × 2 = 4" checks nothing of num_heads
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
    readings = ("decimal", "binary") if any(t.suffix or t.unit == "KB" for t in left + right) else ("decimal",)
    results = []
    for reading in readings:
        computed = _evaluate(left, left_ops, reading)
        printed = _evaluate(right, right_ops, reading)
        if computed is None or printed is None:
            return _equation_of(text, left, right, Fraction(0), Fraction(0), approximate, "fails", "")
        if len(right) == 1:
            printed = _precision(right[0], reading, approximate, exact_left=computed.exact)
        results.append((reading, computed, printed, computed.meets(printed)))
    holding = [r for r in results if r[3]]
    status = "holds" if len(holding) == len(results) else "fails" if not holding else "ambiguous"
    note = ""
    if status == "ambiguous":
        binary = holding[0][0] == "binary"
        read = [name for name, present in (("K and M", any(t.suffix for t in left + right)),
                                           ("KB", any(t.unit == "KB" for t in left + right))) if present]
        note = "holds only if " + " and ".join(f"{name} {_READ_AS[name][binary]}" for name in read)
    elif status == "fails" and not approximate and len(right) == 1 and "." not in right[0].number \
            and any(c.meets(_precision(right[0], r, False, exact_left=False)) for r, c, _, _ in results):
        note = 'the left side rounds to it, but "=" says it is exact: print "≈" if the result is rounded'
    _, first_left, first_right, _ = results[0]
    scale = right[-1].scale if len(right) == 1 and right[-1].unit else 1
    computed_value = (first_left.low + first_left.high) / 2 / scale
    printed_value = number(right[0].number) if len(right) == 1 else (first_right.low + first_right.high) / 2 / scale
    return _equation_of(text, left, right, printed_value, computed_value, approximate, status, note)


def _equation_of(text: str, left: list[_Term], right: list[_Term], printed: Fraction, computed: Fraction,
                 approximate: bool, status: str, note: str) -> Equation:
    # The text ends at the last number (and its K or M): its unit and words are the figure's.
    start, end = left[0].start, right[-1].start + len(right[-1].number) + len(right[-1].suffix)
    return Equation(text=text[start:end], start=start, end=end, result_start=right[0].start, printed=printed,
                    computed=computed, approximate=approximate, status=status, note=note)


def _factor(term: _Term, reading: str) -> Fraction:
    """What one printed unit of the term is, in bytes when it carries a byte unit (a term with no
    unit is taken as it stands: in bytes when the other side is)."""
    factor = Fraction(_SUFFIX[term.suffix][reading == "binary"]) if term.suffix else Fraction(1)
    return factor * (_KB[reading] if term.unit == "KB" else term.scale)


def _value(term: _Term, reading: str) -> Interval:
    """The interval a printed operand stands for: every value that rounds to it at its last place
    (an integer operand is exact)."""
    return rounds_to(number(term.number), _step(term.number)).scaled(_factor(term, reading))


def _evaluate(terms: list[_Term], ops: list[str], reading: str) -> Interval | None:
    """The interval of ``a op b op c ...`` over the intervals of its terms, × ÷ before + −; None on
    a division by an interval holding zero."""
    intervals = [_value(t, reading) for t in terms]
    sums: list[Interval] = [intervals[0]]
    signs = [1]
    for op, term in zip(ops, intervals[1:]):
        if op in ("×", "*", "·", "x"):
            sums[-1] = _corners(sums[-1], term, multiply=True)
        elif op in ("÷", "/"):
            if term.low <= 0 <= term.high:
                return None
            sums[-1] = _corners(sums[-1], term, multiply=False)
        else:
            sums.append(term)
            signs.append(1 if op == "+" else -1)
    low, high, low_in, high_in = Fraction(0), Fraction(0), True, True
    for s, sign in zip(sums, signs):
        if sign > 0:
            low, high, low_in, high_in = low + s.low, high + s.high, low_in and s.low_in, high_in and s.high_in
        else:
            low, high, low_in, high_in = low - s.high, high - s.low, low_in and s.high_in, high_in and s.low_in
    return Interval(low, high, low_in, high_in)


def _corners(a: Interval, b: Interval, *, multiply: bool) -> Interval:
    """``a × b`` or ``a ÷ b`` (``b`` not holding zero): its edges are at the corners, and an edge is
    in the result when the corner's own edges are (or when it is 0 and a factor holds 0)."""
    def op(x: Fraction, y: Fraction) -> Fraction:
        return x * y if multiply else x / y

    if a.exact and b.exact:  # exact operands (the common case): one product, not four
        return Interval(op(a.low, b.low), op(a.low, b.low))
    corners = [(op(x, y), x_in and y_in) for x, x_in in ((a.low, a.low_in), (a.high, a.high_in))
               for y, y_in in ((b.low, b.low_in), (b.high, b.high_in))]
    low, high = min(c[0] for c in corners), max(c[0] for c in corners)
    zero = 0 in a or (multiply and 0 in b)
    low_in = any(i for v, i in corners if v == low) or (low == 0 and zero)
    high_in = any(i for v, i in corners if v == high) or (high == 0 and zero)
    return Interval(low, high, low_in, high_in)


def _precision(term: _Term, reading: str, approximate: bool, *, exact_left: bool) -> Interval:
    """The interval a printed result agrees with, by the one rounding rule (``figures.rounds_to``):
    a decimal to its places; an integer to its trailing zeros with "≈", to itself with "=" (or, when
    the left side is itself rounded, to its unit)."""
    digits = term.number.replace(",", "")
    if "." in digits:
        step = _step(term.number)
    elif approximate:
        step = Fraction(10) ** (len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0)
    else:
        step = Fraction(0) if exact_left else Fraction(1)
    return rounds_to(number(term.number), step).scaled(_factor(term, reading))
