"""Does a claim's sentence print its figure?

``said`` is the sentence as printed and ``figure`` the number in it that the claim is about. A record
whose sentence prints 999,999 while its figure is 196,608 shows readers one number and checks another,
so verify holds every sentence against its figure (see docs/format.md, "said prints its figure").

A sentence prints the figure when one of its numbers, read as check-draft's finder reads a draft
(``workings.draft``: digits grouped by commas or by plain, no-break, narrow or thin spaces, decimals,
"1M", "2.8-trillion", number words, "a quarter", "halves", a percentage), is

- the figure's number as printed (196,608 in "196,608 bytes per token"), with the figure's unit, its
  numerator ("196,608 bytes" for 196,608 B/token) or no unit the finder reads after it ("196,608 GB"
  is not 196,608 B/token, "80 GB" is not 80 GiB), or
- the figure's quantity in the unit or scale the sentence prints ("192 KiB" for 196,608 B/token,
  "million-token" for 1 Mtoken, "halves" for a ratio of 2, "a quarter" for 25 percent), exactly;
- for an ``also_said`` sentence, a rounding of it at the sentence's coarser precision, with its
  qualifier, exactly as check-draft decides that a draft's "1M-token" agrees with 1,010,000 tokens.

Numbers the finder sets aside are not figures of the sentence (a model's name "Llama 3", "Table 2",
a URL), except in a date (a year figure printed "in 2024") or a short line it takes for a heading.
A number whose digits mix two scripts ("196,6٠8", an Arabic-Indic zero among ASCII digits) is no
number: it shows the reader something else. One script throughout (١٩٦٬٦٠٨, full-width) is read.

Most sentences print the figure's digits, which one regular expression finds (``_at_once``); the
finder runs, and is imported, only otherwise, so that verify stays near instant.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from fractions import Fraction

from typing import TYPE_CHECKING

from .draft.digits import DIGITS, decimal_of
from .draft.digits import NUMBER_RUN as _RUN
from .draft.words import read_unit
from .errors import LedgerError
from .figures import MAX_FIGURE, MAX_SENTENCE, Figure, read_figure

if TYPE_CHECKING:
    from .draft.finder import Figure as Printed

# A scale glued or joined to the digits changes the number ("196,608K", "1.5 million"): the finder decides.
_SCALED = re.compile(r"(?:K|k|M|B|bn|T)(?![A-Za-z])|(?:\s++|-)(?i:thousand|million|billion|trillion)\b")
# Where a number may stand in a span the finder sets aside (a name, a reference, a list number, an
# ordinal, code or a link): the finder decides. A superset, kept cheap: a capitalised word or a
# reference word just before, a bracket, slash, colon, hash or dash beside it, an ordinal suffix.
_REFERENCES = frozenset("issue issues table tables figure figures fig. figs. step steps section sections chapter "
                        "chapters part parts episode episodes appendix equation equations eq. eqs. lemma no. lesson "
                        "lessons lecture lectures module modules rtx gtx quadro radeon tpu".split())
# Capitalised words that start sentences and name nothing: no model, machine, month or reference.
_PLAIN_WORDS = frozenset("The A An At In On Of For With By That This These Those Only About Over Under Some So And But "
                         "Or It Its Each Every All Just Nearly Almost Around Roughly From To Up Than More Less Fewer Is "
                         "Was Are Were Now Then Here There We You They He She One Two Both Another Still Yet".split())
_AFTER = re.compile(r"(?:st|nd|rd|th)\b|[\-/–]\d|\s*+[\])]|\s*+(?:min|minute)s?\s++read")
_ANYWHERE = ("`", "://", "www.", "<!--", "](")
_ANYWHERE_FOUND = re.compile("|".join(map(re.escape, _ANYWHERE)))  # one search, not one per mark
_MARKS = frozenset("#[/-–")
_UNGROUPED = re.compile(r"[,\u00a0\u202f\u2009 ]")
_ARXIV = re.compile(r"\d{4}\.\d{4,5}")
_SEPARATORS = {"\u066c": ",", "\u066b": "."}   # Arabic thousands and decimal separators
_SLASH = re.compile(r"(?<![\d/])(\d+)/(\d+)(?![\d/])")
_COUNTED_ASIDE = ("date", "heading")


def _ungrouped(text: str) -> str:
    """``text`` without the separators a number's digits are grouped by (``_UNGROUPED``): in ASCII
    text only the comma and the space can be among them, taken out by two replaces (a fifth of the
    pattern's time)."""
    return text.replace(",", "").replace(" ", "") if text.isascii() else _UNGROUPED.sub("", text)


def missing(sentence: str, figure: Figure, *, rounded: bool = False) -> str | None:
    """None when ``sentence`` prints ``figure``'s number; else what it prints instead, for the message
    ("prints 999,999 bytes per token", "prints no number"). ``rounded``: a rounding of the figure at the
    sentence's precision counts (an ``also_said`` sentence)."""
    text, mixed = _ascii_digits(sentence)
    if _at_once(text, figure):
        return None
    ok, shown = _read(text, figure, rounded)
    if ok:
        return None
    shown += [f"{m}, a number mixing digits of two scripts" for m in mixed]
    if not shown:
        return "prints no number"
    listed = ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")
    return f"prints {listed}"


Asked = tuple[str, str, bool]  # a sentence, the figure's text as the record writes it, and ``rounded``


def answers(data: object) -> dict[Asked, str | None]:
    """``missing`` for a record's sentences against its figure, as its checks will ask
    (``models._prints``: ``said``, and each ``also_said`` sentence rounded), by (sentence, the figure's
    text, rounded). Worked out by the process that read the record (``loader.checked_claims``: at
    thousands of records, a child reading ahead), so that the one checking it looks them up: at
    10,000 claims this check was about a third of checking the records, all of it in the process
    that checks. ``missing`` is a function of the sentence and the figure's text alone, so an answer
    is the one the check would work out. A figure ``read_figure`` refuses gets none (the check
    reports the figure and asks nothing); nor does anything that is not text, or longer than the
    record's checks take (they refuse it and ask nothing)."""
    if not isinstance(data, dict):
        return {}
    text, said, also = data.get("figure"), data.get("said"), data.get("also_said")
    if not isinstance(text, str) or len(text) > MAX_FIGURE:
        return {}
    try:
        figure = read_figure(text)
    except LedgerError:
        return {}
    out: dict[Asked, str | None] = {}
    if isinstance(said, str) and len(said) <= MAX_SENTENCE:
        out[(said, text, False)] = missing(said, figure)
    for sentence in also if isinstance(also, list) else ():
        if isinstance(sentence, str) and len(sentence) <= MAX_SENTENCE:
            out[(sentence, text, True)] = missing(sentence, figure, rounded=True)
    return out


def _at_once(text: str, figure: Figure) -> bool:
    """The figure's digits, standing alone in the sentence: the common case, without the finder."""
    plain = figure.number.replace(",", "").lstrip("+-−")
    if plain not in _ungrouped(text) or _ANYWHERE_FOUND.search(text):
        return False
    for match in DIGITS.finditer(text):
        start, end = match.span()
        if _ungrouped(match.group()) != plain or _SCALED.match(text, end) or _ARXIV.fullmatch(match.group()):
            continue
        before = text[max(0, start - 24):start].rstrip()
        last = before.rsplit(None, 1)[-1] if before else ""
        if last[-1:] in _MARKS or last.lower() in _REFERENCES or _AFTER.match(text, end) \
                or (last[:1].isupper() and last not in _PLAIN_WORDS) \
                or (text[end:end + 1] in (".", ")") and not text[:start].strip()) \
                or not _same_unit(text, end, figure.unit):
            continue
        return True
    return False


def _same_unit(text: str, end: int, unit: str) -> bool:
    """Whether the unit words printed just after a number (if any) are the figure's unit as written, or
    its numerator ("bytes" and "bytes per token" for ``B/token``). Anything else ("GB" for ``B/token``,
    "tokens" for ``B``) is left to the finder's reading, which converts or refuses."""
    read = read_unit(text, end, glued=False)
    return not read.unit or read.unit + read.per == unit \
        or (not read.per and read.unit == unit.split("/")[0] and not _says_per(text[end:read.end], unit))



def _says_per(printed: str, unit: str) -> bool:
    """Whether the words after a number say "per" something other than the figure's unit is per
    ("196,608 bytes per layer" for ``B/token``); the finder's reading decides then."""
    if "/" not in unit or "per" not in printed:  # any spacing: "per\u00a0layer", "per" at a line's end
        return False
    from .draft.match import other_per

    return other_per(printed, unit)


def _read(text: str, figure: Figure, rounded: bool) -> tuple[bool, list[str]]:
    """Whether one of the sentence's numbers, as the finder reads them, prints the figure; else what
    the sentence prints."""
    printed, aside = _numbers(text)
    wanted = (abs(figure.value), figure.unit)
    shown: list[str] = []
    for item in printed:
        if _holds(item, wanted, rounded):
            return True, []
        if item.text not in shown:
            shown.append(item.text)
    return False, shown + list(aside)


@functools.lru_cache(maxsize=4096)  # claims of one sentence (a chart's three figures) read it once
def _numbers(text: str) -> tuple[tuple[Printed, ...], tuple[str, ...]]:
    """Every number of the sentence as the finder reads it (its figures, a year in a date, "1/4",
    number words it does not count as figures: "three modes", "million-token"), and the numbers it
    sets aside as no figure, for the message."""
    from .draft.finder import Figure as Printed
    from .draft.finder import find_figures, spans_in
    from .draft.words import WordNumber, number_at, read_unit, split_words

    found = find_figures(text)
    printed: list[Printed] = list(found.figures)
    covered = spans_in(text, found.figures)
    aside_shown: list[str] = []
    for aside in found.set_aside:  # a year printed as a date, a short line read as a heading
        if aside.reason not in _COUNTED_ASIDE:
            if DIGITS.search(aside.text):
                aside_shown.append(f"{aside.text} (set aside as a {aside.reason}, not a figure)")
        else:
            for number in DIGITS.finditer(aside.text):
                value, step = decimal_of(number.group())
                printed.append(Printed(line=1, column=1, text=number.group(), number=number.group(), value=value,
                                       step=step))
    for number in _SLASH.finditer(text):  # "1/4", which the finder reads as two counts
        if int(number.group(2)):
            printed.append(Printed(line=1, column=1, text=number.group(), number=number.group(),
                                   value=Fraction(int(number.group(1)), int(number.group(2))), kind="ratio"))
    words = split_words(text)
    for index, word in enumerate(words):
        if any(a <= word.start < b for a, b in covered):
            continue
        said = number_at(words, index)
        if said is None and word.text in ("thousand", "million", "billion", "trillion") \
                and (index == 0 or number_at(words, index - 1) is None):
            said = WordNumber(Fraction(10 ** {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}[word.text]),
                              index, index + 1, "cardinal")  # "million-token context": one million
        if said is None:
            continue
        end = words[said.stop - 1].end
        unit = read_unit(text, end, glued=False) if said.kind == "cardinal" else None
        printed.append(Printed(line=1, column=1, text=text[word.start:(unit.end if unit and unit.unit else end)],
                               number=text[word.start:end], value=said.value,
                               unit=(unit.unit + unit.per) if unit and unit.unit else "",
                               kind="ratio" if said.kind in ("fraction", "multiplier") else
                               "quantity" if unit and unit.unit else "count"))
    return tuple(printed), tuple(aside_shown)


def _holds(item: Printed, wanted: tuple[Fraction, str], rounded: bool) -> bool:
    """Whether one printed number is the figure: its number as printed, the same quantity in the
    sentence's unit (either way up for a ratio, as check-draft reads "halves"), or, ``rounded``, the
    figure rounded as the sentence prints it."""
    from .draft import match

    values = {v for v in (item.value, item.upper) if v is not None}
    if wanted[0] in values and (not item.unit or item.unit == wanted[1]):
        return True  # the number as printed, in the figure's unit or with no unit said
    for _, value in match.values_in(wanted, item):
        candidates = [value]
        if item.kind == "ratio" and value and (item.inverse or item.value < 1):
            candidates.append(1 / value)  # "halves" for 2, "a quarter" for 4 times smaller
        if any(c in values for c in candidates) or (rounded and match.agrees(item, value)):
            return True
    return False


def _ascii_digits(sentence: str) -> tuple[str, list[str]]:
    """``sentence`` with each number written in one script's digits (١٩٦٬٦٠٨, full-width) in ASCII, and
    the numbers whose digits mix scripts, spoilt so that they read as no number."""
    if sentence.isascii():
        return sentence, []
    mixed: list[str] = []

    def one(run: re.Match[str]) -> str:
        digits = [ch for ch in run.group() if ch.isdecimal()]
        if all(ch in "0123456789" for ch in digits):
            return run.group()
        zeros = {ord(ch) - unicodedata.decimal(ch) for ch in digits}
        if len(zeros) > 1:
            mixed.append(run.group())
            return "\ufffd" * len(run.group())
        return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else _SEPARATORS.get(ch, ch)
                       for ch in run.group())

    return _RUN.sub(one, sentence), mixed


# Words that make a printed number a bound, before it ("more than 90%", "up to 48 GB", "≥ 8") or after
# it ("90%+", "48 GB or more", "48 layers, at most"). A lower bound says the value is at least the
# number (``bound: at-least``), an upper bound at most (``bound: at-most``). "no more than" is an upper
# bound, though it ends in "more than" (check-draft's finder reads only "more than": it has no need of
# the direction). Text is compared with its runs of whitespace as one space, in any case.
_BOUND_END = r" ?[$€£]?$"  # "up to $5"
# A range's ends are its bounds ("500 to 2,500 tokens", "between 500 and 2,500", "500-2,500"): the low
# end a lower bound, as `new --from-draft` writes its record, the high end an upper one.
_LOW_END_BEFORE = re.compile(r"(?<!\w)(?:between|from)" + _BOUND_END, re.IGNORECASE)
_LOW_END_AFTER = re.compile(r"(?:[^\W\d]+ ?)?(?: ?(?:to|-|–|—) ?)[$€£]?\d", re.IGNORECASE)
_HIGH_END_BEFORE = re.compile(r"(?:\d(?: ?[^\W\d]+)? ?(?:to|-|–|—)"
                              r"|(?<!\w)between [$€£]?\d[\d,.]*(?: ?[^\W\d]+)? and)" + _BOUND_END, re.IGNORECASE)
_LOWER_BEFORE = re.compile(r"(?:(?<!\w)(?:at least|(?:no|not) (?:less|fewer) than|(?<!no )(?<!not )(?:more|greater) "
                           r"than|over|above|upwards of|in excess of|exceeds?|exceeding|(?:a |at )?minimum(?: of)?:?|"
                           r"min\.?:?)|>=?|≥|⩾)" + _BOUND_END, re.IGNORECASE)
_UPPER_BEFORE = re.compile(r"(?:(?<!\w)(?:at most|(?:no|not) more than|up to|(?<!no )(?<!not )(?:less|fewer) than|"
                           r"under|below|as (?:much|many) as|(?:a |at )?maximum(?: of)?:?|max\.?:?)|<=?|≤|⩽)"
                           + _BOUND_END, re.IGNORECASE)
_WORDS = r"(?:[^\W\d]+ ?){0,3}?,? ?"  # the unit's words, if the finder did not read them: "48 layers, at most"
_LOWER_AFTER = re.compile(r"\+|" + _WORDS + r"(?:or (?:more|greater|higher|above|over|up)|and (?:up|above|over)|"
                          r"at (?:the )?least|at minimum|minimum)\b", re.IGNORECASE)
_UPPER_AFTER = re.compile(_WORDS + r"(?:(?<!more )or (?:less|fewer|lower|below|under)|and (?:below|under)|"
                          r"at (?:the )?most|at maximum|maximum|tops)\b", re.IGNORECASE)
BOUND_WORDS = {"at-least": "at least, more than, over, ≥, '90+', 'or more'",
               "at-most": "at most, up to, less than, under, ≤, 'or less'"}


def prints_bound(sentence: str, figure: Figure, bound: str) -> bool:
    """Whether ``sentence`` prints ``figure`` as a bound of the direction ``bound`` (``at-least``: a
    lower bound, "more than 90%"; ``at-most``: an upper one, "up to 48 GB"): a bound word just before
    one of its numbers that prints the figure, or just after it and its unit. ``bound:`` compares a
    figure as a bound; a sentence that states the figure plainly ("4,800 layers") gives it none."""
    text, _ = _ascii_digits(sentence)
    text = re.sub(r"\s+", " ", text)
    before: tuple[re.Pattern[str], ...]
    after: tuple[re.Pattern[str], ...]
    if bound == "at-least":
        before, after = (_LOWER_BEFORE, _LOW_END_BEFORE), (_LOWER_AFTER, _LOW_END_AFTER)
    else:
        before, after = (_UPPER_BEFORE, _HIGH_END_BEFORE), (_UPPER_AFTER,)
    for start, end, printed_end in _spans(text, figure):
        ends = {end, printed_end, read_unit(text, printed_end, glued=False).end}
        if any(b.search(text, max(0, start - 40), start) for b in before) or any(
                a.match(text, _space(text, at)) or a.match(text, at) for a in after for at in ends):
            return True
    return False


def _space(text: str, at: int) -> int:
    return at + 1 if text[at:at + 1] == " " else at


def _spans(text: str, figure: Figure) -> list[tuple[int, int, int]]:
    """Where ``text`` prints ``figure``'s number (its start and end, and the end of the number with its
    scale and unit as the finder read them): its digits standing alone, else the numbers the finder
    reads as the figure (another unit or scale: "192 KiB" for 196,608 B/token, "1M" for 1,000,000)."""
    plain = figure.number.replace(",", "").lstrip("+-−")
    spans = [(m.start(), m.end(), m.end()) for m in DIGITS.finditer(text) if _ungrouped(m.group()) == plain]
    if spans:
        return spans
    printed, _ = _numbers(text)
    wanted = (abs(figure.value), figure.unit)
    for item in printed:
        if _holds(item, wanted, True) and (at := text.find(item.text)) >= 0:
            start = at + max(0, item.text.find(item.number))
            spans.append((start, start + len(item.number), at + len(item.text)))
    return spans
