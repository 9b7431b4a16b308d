"""Numbers written as words: "sixty", "a quarter", "an eighth", "halves",
"one four-hundred-and-thirty-seventh" (1/437), "three or four", "twice".

The parser walks a list of words (no regular expression over the phrase, so nothing can backtrack)
and returns the longest well-formed number starting at a given word, or None. Whether a number word
is a figure at all ("one chat" is not; "four times" is) is the finder's decision, not this module's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
    " sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i >= 2}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}

# Ordinals that name a fraction's denominator. "first" and "second" are left out: "one second" is a
# time, and nobody writes "a first" for a whole.
_ORDINAL_UNITS = {"third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
                  "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
                  "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19}
_ORDINAL_TENS = {"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60,
                 "seventieth": 70, "eightieth": 80, "ninetieth": 90}
_ORDINAL_SCALES = {"hundredth": 100, "thousandth": 10**3, "millionth": 10**6, "billionth": 10**9}
# "first" and "second" do appear inside a longer ordinal ("one hundred and first").
_ORDINAL_TAIL = {**_ORDINAL_UNITS, "first": 1, "second": 2}

MULTIPLIERS = {"twice": Fraction(2), "double": Fraction(2), "doubles": Fraction(2), "doubled": Fraction(2),
               "thrice": Fraction(3), "triples": Fraction(3), "tripled": Fraction(3),
               "quadruples": Fraction(4), "quadrupled": Fraction(4),
               "halve": Fraction(1, 2), "halves": Fraction(1, 2), "halved": Fraction(1, 2),
               "halving": Fraction(1, 2)}

_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class Word:
    text: str      # lower case
    start: int     # offsets in the paragraph
    end: int
    joined: bool   # separated from the previous word by whitespace or one hyphen only


@dataclass(frozen=True)
class WordNumber:
    value: Fraction
    first: int     # index of its first word
    stop: int      # index after its last word
    kind: str      # cardinal | fraction | multiplier


def split_words(text: str) -> list[Word]:
    out: list[Word] = []
    previous_end = None
    for match in _WORD.finditer(text):
        gap = text[previous_end:match.start()] if previous_end is not None else None
        joined = gap is not None and (gap == "-" or (gap.strip() == "" and gap != ""))
        out.append(Word(match.group().lower(), match.start(), match.end(), joined))
        previous_end = match.end()
    return out


def is_number_word(text: str) -> bool:
    t = text.lower()
    return t in _UNITS or t in _TENS or t == "hundred" or t in _SCALES


def cardinal(words: list[Word], i: int) -> WordNumber | None:
    """The cardinal number starting at ``words[i]``: "sixty", "a hundred", "four hundred and two"."""
    total, current, last, j, stop = 0, 0, None, i, None
    while j < len(words):
        word = words[j].text
        if j > i and not words[j].joined:
            break
        if word in ("a", "an") and j == i and j + 1 < len(words) and words[j + 1].text in ("hundred", *_SCALES):
            current, last = 1, "a"
        elif word in _UNITS and last in (None, "tens", "hundred", "scale"):
            if last == "tens" and (_UNITS[word] == 0 or _UNITS[word] > 9):
                break
            current += _UNITS[word]
            last = "unit" if _UNITS[word] < 10 else "teen"
        elif word in _TENS and last in (None, "hundred", "scale"):
            current += _TENS[word]
            last = "tens"
        elif word == "hundred" and last in ("a", "unit", "teen") and current < 100:
            current *= 100
            last = "hundred"
        elif word in _SCALES and last in ("a", "unit", "teen", "tens", "hundred"):
            total += current * _SCALES[word]
            current, last = 0, "scale"
        elif word == "and" and last in ("hundred", "scale") and j + 1 < len(words) \
                and words[j + 1].joined and (words[j + 1].text in _UNITS or words[j + 1].text in _TENS
                                             or words[j + 1].text in _ORDINAL_TAIL):
            j += 1
            continue
        else:
            break
        j += 1
        stop = j
    if stop is None or last == "a":
        return None
    return WordNumber(Fraction(total + current), i, stop, "cardinal")


def ordinal(words: list[Word], i: int) -> WordNumber | None:
    """A denominator: "quarter(s)", "eighth(s)", "four-hundred-and-thirty-seventh"."""
    def single(word: str) -> int | None:
        for table in (_ORDINAL_UNITS, _ORDINAL_TENS, _ORDINAL_SCALES):
            if word in table:
                return table[word]
            if word.endswith("s") and word[:-1] in table:
                return table[word[:-1]]
        return {"quarter": 4, "quarters": 4, "half": 2}.get(word)

    value = single(words[i].text)
    if value is not None:
        return WordNumber(Fraction(value), i, i + 1, "ordinal")
    # A compound ordinal: cardinal words, then the last word an ordinal ("thirty-seventh").
    head = cardinal(words, i)
    if head is None or head.stop >= len(words) or not words[head.stop].joined:
        return None
    tail_index = head.stop + (1 if words[head.stop].text == "and" and head.stop + 1 < len(words) else 0)
    tail = words[tail_index].text
    tail = tail[:-1] if tail.endswith("s") and tail[:-1] in _ORDINAL_TAIL else tail
    if tail in _ORDINAL_TAIL and int(head.value) % 10 == 0:
        return WordNumber(head.value + _ORDINAL_TAIL[tail], i, tail_index + 1, "ordinal")
    if tail in _ORDINAL_TENS and int(head.value) % 100 == 0:
        return WordNumber(head.value + _ORDINAL_TENS[tail], i, tail_index + 1, "ordinal")
    if tail in _ORDINAL_SCALES:
        return WordNumber(head.value * _ORDINAL_SCALES[tail], i, tail_index + 1, "ordinal")
    return None


def number_at(words: list[Word], i: int) -> WordNumber | None:
    """The number written in words starting at ``words[i]``, preferring a fraction ("one eighth",
    "a quarter", "two thirds") over a cardinal ("one"), and None when there is none."""
    word = words[i].text
    if word in MULTIPLIERS:
        return WordNumber(MULTIPLIERS[word], i, i + 1, "multiplier")
    numerator: Fraction | None = None
    if word in ("a", "an", "one"):
        numerator = Fraction(1)
    elif word in _UNITS or word in _TENS:
        numerator = Fraction(_UNITS.get(word, _TENS.get(word, 0)))
    if numerator and i + 1 < len(words) and words[i + 1].joined:
        denominator = ordinal(words, i + 1)
        if denominator is not None and denominator.value > 1:
            return WordNumber(numerator / denominator.value, i, denominator.stop, "fraction")
    return cardinal(words, i)
