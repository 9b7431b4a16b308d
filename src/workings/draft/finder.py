"""Find every figure in a draft: its line, the text as printed, an exact value, the unit in the
ledger's unit names, and the qualifier ("about", "more than") it was printed with.

A figure is a number with what it counts: "196,608 bytes per token", "198.6 GB", "6.7 times",
"more than 90%", "$0.003 per million tokens", "2.8-trillion-parameter", "552B", "a quarter",
"halves", "one four-hundred-and-thirty-seventh". Bare numbers in prose ("48 layers", "the other 24")
are figures too, of kind ``count``; number words are figures only with a unit or as a fraction or
multiplier ("one chat" is not a figure, "four times" is). What is not a figure is set aside with a
reason (see ``setaside``). Equations are found by ``equations`` and listed beside the figures.
"""

from __future__ import annotations

import bisect
import re
from fractions import Fraction

from ..frozen import frozen
from . import setaside
from .digits import DIGITS, ByScript
from .digits import decimal_of as _decimal
from .text import Paragraph, paragraphs, sentence_at, sentence_index, sentences
from .words import WordNumber, number_at, read_unit, scale_of, split_words

_QUALIFIER_WORDS = (r"(?i:\b(about|around|roughly|approximately|approx\.|nearly|almost|just\s+under|just\s+over"
                    r"|(?:no|not)\s+(?:more|greater|less|fewer)\s+than|over"
                    r"|more\s+than|less\s+than|fewer\s+than|at\s+least|at\s+most|up\s+to|under|below|above|some)\s*+")
_QUALIFIER = ByScript(  # Korean, Chinese and Japanese "about" only in a text holding their characters
    _QUALIFIER_WORDS + r"|(~|≈)\s*+)$",
    _QUALIFIER_WORDS + r"|(~|≈|대략|(?<![가-힣])약|大约|(?<![节節预預予契要制集公条條签簽合婚])[约約])\s*+)$")
# ("절약 40 GB" is saving, "节约" and "節約" too; "予約", "契約", "要約": booking, contract, summary)
_QUALIFIER_NAMES = {"around": "about", "roughly": "about", "approximately": "about", "approx.": "about",
                    "some": "about", "~": "about", "≈": "about",
                    "약": "about", "대략": "about", "约": "about", "約": "about", "大约": "about",
                    "almost": "nearly", "just under": "nearly",
                    "over": "more than", "above": "more than", "just over": "more than",
                    "fewer than": "less than", "under": "less than", "below": "less than", "up to": "at most",
                    "no more than": "at most", "not more than": "at most", "no greater than": "at most",
                    "not greater than": "at most", "no less than": "at least", "not less than": "at least",
                    "no fewer than": "at least", "not fewer than": "at least"}
_FROM = re.compile(r"(?i:\bfrom\s++(?:about\s++|around\s++|roughly\s++)?+\$?)$")
_BETWEEN = re.compile(r"(?i:\bbetween\s++\$?)$")
_RANGE = re.compile(r"\s*+(?:to|or|–|—|-)\s*+(?=\$?\d|[A-Za-z])")
_RANGE_AND = re.compile(r"\s++and\s++(?=\$?\d|[A-Za-z])")
# A symbolic formula: an operator beside a letter ("2 × layers", "2 x batch_size x ..."). Markdown
# emphasis ("**Corvid-22B**") is no operator: a "*" must have a space on one side.
_FORMULA = re.compile(r"[×÷]\s*+[A-Za-z]|[A-Za-z]\s*+[×÷]|(?<=\s)\*\s++[A-Za-z]|[A-Za-z]\s++\*(?=\s)"
                      r"|(?<=\s)[xX]\s++[A-Za-z_(]|[A-Za-z_)]\s++[xX](?=\s)")
_HALF = re.compile(r"(?i:\b(?:in|by)\s++)$")
_DEVICES = re.compile(r"\s++(?:[A-Z]{1,2}\d{2,3}[A-Z]?s|GPUs|cards|accelerators)\b")
# Inline LaTeX: a "$" opening math ("$2 \\cdot 80$", "$2N$"), not dollars: a LaTeX command, a brace
# or a letter-named factor, then the closing "$", on the line ("$0.60 per 1M ... max_tokens" is dollars).
_MATH = re.compile(r"[^$\n]{0,80}?(?:\\[A-Za-z]|[{}^]|(?<=\d)[A-Za-z](?=\$))[^$\n]{0,80}?\$")
_PRECISION = re.compile(r"(?i:[\s-]++precision\b)")
# A minus sign before a number, itself at a line's or a cell's start or after a space or a bracket ("-4.6
# GB", "| −4.6 GB |", "(-2%)"); not a hyphen inside a word, a range or a date ("Qwen-14B", "70-80", "2024-12")
_NEGATIVE = re.compile(r"(?:^|(?<=[\s(\[|:=*]))[-\u2212]$")


@frozen(kw_only=True)
class Figure:
    """A figure as printed. ``value`` is exact, in ``unit`` (a ledger unit expression such as
    ``B/token``, ``GiB``, ``USD/Mtoken``, ``percent``; empty for a pure number). A range
    ("500 to 2,500") has ``upper``. ``step`` is the resolution printed (0.1 for "198.6"), None for
    words, which are exact. ``inverse``: "437 times smaller" reads as 1/437."""

    line: int
    column: int
    text: str
    number: str
    value: Fraction
    unit: str = ""
    kind: str = "count"  # quantity | ratio | count
    upper: Fraction | None = None
    qualifier: str | None = None
    inverse: bool = False
    step: Fraction | None = None
    sentence: str = ""
    context: str = ""  # the sentence with the one before and the one after it
    heading: bool = False
    offset: int = -1   # where ``text`` starts in ``sentence`` (-1: not known)

    @property
    def shown(self) -> str:
        """``text`` as a reader is shown it: a run of blanks (where a tie comment stood, "198.6 <!-- claim: ... -->
        GB") as one space. ``text`` itself keeps them, as it is found in ``sentence`` at ``offset``."""
        return " ".join(self.text.split())


@frozen(kw_only=True)
class SetAside:
    line: int
    column: int
    text: str
    reason: str
    sentence: str = ""


@frozen(kw_only=True)
class PrintedEquation:
    line: int
    column: int
    text: str
    printed: Fraction
    computed: Fraction
    holds: bool
    sentence: str = ""
    status: str = ""        # holds | fails | ambiguous (K, M or KB read one way only)
    note: str = ""
    computed_side: str = "left"  # "right" where the result is printed first ("640 GB = 8 × 80 GB")


@frozen(kw_only=True)
class Found:
    figures: tuple[Figure, ...]
    equations: tuple[PrintedEquation, ...]
    set_aside: tuple[SetAside, ...]
    sentences: tuple[str, ...] = ()  # every sentence of the draft, in order
    paragraphs: tuple[int, ...] = ()  # for each of those, the index of its paragraph
    rows: tuple[int, ...] = ()  # for each of those, the table row it stands in (-1: none)
    headings: tuple[int, ...] = ()  # for each of those, its heading's level ("## ..." 2; a plain one 1; 0: none)
    items: tuple[int, ...] = ()  # for each of those, its list item's indent (-1: none)


def find_figures(text: str, *, markdown: bool = False, front_matter: bool | None = None) -> Found:
    figures: list[Figure] = []
    printed: list[PrintedEquation] = []
    skipped: list[SetAside] = []
    every: list[str] = []
    where: list[int] = []
    rows: list[int] = []
    headings: list[int] = []
    items: list[int] = []
    for number, paragraph in enumerate(paragraphs(text, markdown=markdown, front_matter=front_matter)):
        if not paragraph.code:
            split = sentences(paragraph)
            every.extend(s.text for s in split)
            where.extend([number] * len(split))
            rows.extend(paragraph.first_line + bisect.bisect_right(paragraph.starts, s.start) - 1 if paragraph.table
                        else -1 for s in split)
            headings.extend([_level(paragraph)] * len(split))
            items.extend([paragraph.item] * len(split))
        _scan(paragraph, figures, printed, skipped)
    return Found(figures=tuple(figures), equations=tuple(printed), set_aside=tuple(skipped),
                 sentences=tuple(every), paragraphs=tuple(where), rows=tuple(rows),
                 headings=tuple(headings), items=tuple(items))


def _level(paragraph: Paragraph) -> int:
    """A heading's level: its "#"s in Markdown ("## ..." is 2), 1 for a plain-text heading; 0 for no heading."""
    if not paragraph.heading:
        return 0
    text = paragraph.text.lstrip(" ")
    return paragraph.level or len(text) - len(text.lstrip("#")) or 1


def spans_in(text: str, figures) -> list[tuple[int, int]]:
    """(start, end) in ``text`` of each of ``figures`` (found by the finder in ``text``, in order)."""
    spans, cursor = [], 0
    for figure in figures:
        start = text.find(figure.sentence, max(0, cursor - len(figure.sentence))) if figure.sentence else -1
        at = start + figure.offset if start >= 0 and figure.offset >= 0 else -1
        if at < 0 or not text.startswith(figure.text, at):
            at = text.find(figure.text, cursor)
        if at < 0:
            continue
        spans.append((at, at + len(figure.text)))
        cursor = at + len(figure.text)
    return spans


def _equations(paragraph: Paragraph) -> list:
    """``equations.find``: an equation is a relation sign ("=", "≈", "~=") between two terms, so a
    paragraph without one holds none, and ``equations`` is imported only for one that has (verify
    reads a claim's sentence with the finder, and a sentence rarely prints an equation)."""
    if "=" not in paragraph.text and "≈" not in paragraph.text:
        return []
    from . import equations

    return equations.find(paragraph)


def _scan(paragraph: Paragraph, figures: list[Figure], printed: list[PrintedEquation],
          skipped: list[SetAside]) -> None:
    """Every figure, equation and set-aside of one paragraph. Whatever is per sentence (its text,
    its context) is built once per sentence and shared by its figures, so that a sentence with
    thousands of figures costs no more than its length times a constant."""
    text = paragraph.text
    split = sentences(paragraph)
    formulas = {s.start for s in split if _FORMULA.search(s.text)}
    contexts: dict[int, str] = {}

    def context_of(at: int) -> str:
        if at not in contexts:
            contexts[at] = " ".join(x.text for x in split[max(0, at - 1):at + 2])
        return contexts[at]

    def where(offset: int) -> dict:
        return {"line": paragraph.line_of(offset), "column": paragraph.column_of(offset),
                "sentence": sentence_at(split, offset).text if split else ""}

    spans = setaside.find(paragraph)
    for span in spans:
        skipped.append(SetAside(text=span.text, reason=span.reason, **where(span.start)))
    span_starts = [span.start for span in spans]  # in order, not overlapping
    found_equations = [eq for eq in _equations(paragraph)  # an equation struck through is withdrawn too
                       if not _inside(spans, span_starts, eq.start, lambda span: span.end if span.reason == "struck"
                                      else -1)]
    equation_starts = [eq.start for eq in found_equations]  # in order, not overlapping
    for eq in found_equations:
        printed.append(PrintedEquation(text=eq.text, printed=eq.printed, computed=eq.computed, holds=eq.holds,
                                       status=eq.status, note=eq.note, computed_side=eq.computed_side,
                                       **where(eq.start)))
    words = split_words(text)
    candidates: list[tuple[int, object]] = [(m.start(), m) for m in DIGITS.finditer(text)]
    for index, word in enumerate(words):
        if (number := number_at(words, index)) is not None:
            candidates.append((word.start, number))
        elif word.text == "half" and _HALF.search(text[max(0, word.start - 8):word.start]) \
                and not _PRECISION.match(text, word.end):  # "in half precision" names a format
            candidates.append((word.start, WordNumber(Fraction(1, 2), index, index + 1, "fraction")))
    candidates.sort(key=lambda c: c[0])
    consumed = 0
    for start, candidate in candidates:
        if start < consumed or _inside(spans, span_starts, start, lambda span: span.end):
            continue
        at = bisect.bisect_right(equation_starts, start) - 1
        if at >= 0 and found_equations[at].operands_from <= start < found_equations[at].operands_to:
            continue  # an operand ("2 × 48 × ... = 196,608": the 48), not a figure
        read = _read(text, candidate, words)
        if read is None:
            continue
        figure_start, end, fields = read
        info = where(start)
        at = sentence_index(split, start) if split else 0
        sentence = split[at] if split else None
        bare = fields["kind"] == "count"
        scaled = text[end - 1:end].isalpha()  # "128K", "1M": a scaled count is a figure even in a heading
        if bare and paragraph.heading and not scaled:
            skipped.append(SetAside(text=fields["number"], reason="heading", **info))
        elif (not fields["unit"] and fields["kind"] == "count" and sentence is not None
              and sentence.start in formulas and _operand(text, figure_start, end)):
            skipped.append(SetAside(text=fields["number"], reason="formula", **info))
        else:
            figure_text = text[figure_start:end].strip()
            offset = -1
            if sentence is not None:
                offset = text.find(figure_text, figure_start, end) - sentence.text_start
                if not 0 <= offset <= len(sentence.text) - len(figure_text):
                    offset = -1
            figures.append(Figure(text=figure_text, heading=paragraph.heading,
                                  context=context_of(at) if split else "", offset=offset, **info, **fields))
        consumed = end


_OPERATOR_BEFORE = re.compile(r"(?:[×÷*]|(?<![\w.])[xX])\s*+$")
_OPERATOR_AFTER = re.compile(r"\s*+(?:\([^()\n]{0,40}+\)\s*+)?(?:[×÷*]|[xX](?=\s))")


def _operand(text: str, start: int, end: int) -> bool:
    """Whether the bare number at ``text[start:end]`` is an operand of a symbolic formula ("2 ×
    layers", "x 2 (FP16 bytes) ="): an operator right before or after it. The sentence's other
    numbers ("a 7B model with 32 layers") stay figures; so does a scaled count ("64K × (K, V)")."""
    if text[end - 1:end].isalpha():  # "64K"
        return False
    return bool(_OPERATOR_BEFORE.search(text, max(0, start - 4), start)
                or _OPERATOR_AFTER.match(text, end, min(len(text), end + 48)))


def _inside(items: list, starts: list[int], position: int, end_of) -> bool:
    """Whether ``position`` falls in one of ``items`` (in order, not overlapping), from its start
    up to ``end_of(item)``: a bisection, not a scan, so that many spans cost little."""
    at = bisect.bisect_right(starts, position) - 1
    return at >= 0 and position < end_of(items[at])


def _read(text: str, candidate, words) -> tuple[int, int, dict] | None:
    """Read one figure from a number candidate: qualifier and currency before it, a range, the unit
    and any "per ..." after it. Returns (start of the figure's text, its end, Figure fields)."""
    if isinstance(candidate, re.Match):
        start, end = candidate.span()
        value, step = _decimal(candidate.group())
        kind_of_number = "digits"
    else:
        start, end = words[candidate.first].start, words[candidate.stop - 1].end
        value, step, kind_of_number = candidate.value, None, candidate.kind
    figure_start = start
    currency = start > 0 and text[start - 1] == "$" and not _MATH.match(text, start)
    if currency:
        figure_start -= 1
    if kind_of_number == "digits" and _NEGATIVE.search(text, max(0, figure_start - 2), figure_start):
        value, figure_start = -value, figure_start - 1  # "-4.6 GB" of headroom is a shortfall, not 4.6 GB
    elif kind_of_number == "digits" and step == 1 and (over := _OVER.match(text, end)) \
            and value < (denominator := int(over.group(1))) and not _OVER_BEFORE.search(text, max(0, start - 2), start):
        value, step, end, kind_of_number = value / denominator, None, over.end(), "fraction"  # "1/437", "1/4"
    left = text[max(0, figure_start - 40):figure_start]
    qualifier = None
    if match := _QUALIFIER.search(left):
        said = re.sub(r"\s+", " ", (match.group(1) or match.group(2)).lower())
        qualifier = _QUALIFIER_NAMES.get(said, said)
        figure_start -= len(match.group())
    upper = None
    number_end = end
    glued = kind_of_number == "digits"
    if not _FROM.search(left + ("$" if currency else "")) and kind_of_number in ("digits", "cardinal"):
        pattern = _RANGE_AND if _BETWEEN.search(text[max(0, start - 12):start]) else _RANGE
        if (joint := pattern.match(text, end)) and (second := _number_at(text, joint.end(), words)):
            if read_unit(text, end, glued=glued).unit == "" and second[0] > value:
                upper, step_hi, number_end = second
                step = step_hi if step is None or (step_hi and step_hi < step) else step
    unit = read_unit(text, number_end, glued=glued, currency=currency)  # "50-100M tokens": both in millions
    if kind_of_number == "cardinal" and (value == 1 and upper is None or not unit.unit and unit.kind == "count") \
            and not _DEVICES.match(text, number_end):
        return None  # "one chat", "two caches": counting words, not figures ("four H100s" is one)
    scale = scale_of(unit)
    fields = {
        "number": text[start:number_end],
        "value": value * scale,
        "upper": upper * scale if upper is not None else None,
        "unit": unit.unit + unit.per if unit.unit else "",
        "kind": "ratio" if kind_of_number in ("fraction", "multiplier") or unit.kind == "ratio"
        else "quantity" if unit.unit else "count",
        "qualifier": qualifier,
        "inverse": unit.inverse,
        "step": step * scale if step is not None else None,
    }
    return figure_start, unit.end, fields


# A proper fraction written with a slash ("1/437 of V1's cache", "a quarter (1/4)"): one number, not two; not
# a date ("12/25/2024"), a score ("24/7") or a path
_OVER = re.compile(r"/(\d{1,6}+)(?![\w/]|[.,]\d)")
_OVER_BEFORE = re.compile(r"[\w/]/\Z")


def _number_at(text: str, pos: int, words) -> tuple[Fraction, Fraction | None, int] | None:
    """The number starting at ``pos`` (digits, or words), for the far end of a range."""
    if pos < len(text) and text[pos] == "$":
        pos += 1
    if match := DIGITS.match(text, pos):
        value, step = _decimal(match.group())
        return value, step, match.end()
    index = _word_index(words, pos)
    if index < len(words) and words[index].start == pos:
        number = number_at(words, index)
        if number is not None and number.kind == "cardinal":
            return number.value, None, words[number.stop - 1].end
    return None


def _word_index(words, pos: int) -> int:
    low, high = 0, len(words)
    while low < high:
        middle = (low + high) // 2
        if words[middle].start < pos:
            low = middle + 1
        else:
            high = middle
    return low
