"""Numbers printed in digits, as the draft finder reads them: one pattern and one reading, shared by
the finder and by verify's check that a claim's sentence prints its figure (``workings.said``), so
that "the sentence prints 196,608" means the same in both. Only ``re`` is imported: verify reads
every claim's sentence with it and must stay near instant.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

# Chinese, Japanese and Korean run words together: "显存约40GB", "約40GB" (about 40 GB), "共32层" (32
# layers). A digit right after a Han character, kana or a Hangul syllable starts a number, where after a
# Latin letter ("H100", "fp16") it does not.
CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff66-\uff9f"
FIRST_CJK = "\u3040"  # no character of ``CJK`` comes before it


def has_cjk(text: str) -> bool:
    """Whether ``text`` may hold a character of ``CJK``: one at ``FIRST_CJK`` or after (found in C)."""
    return not text.isascii() and max(text) >= FIRST_CJK


class ByScript:
    """A pattern whose CJK part is compiled only when a text holding a CJK character is first read.

    ``re`` compiles a character class by marking each of its characters in a map, in Python: the
    classes of Han characters and Hangul syllables (about 40,000 characters) cost every command
    that imports the draft finder about 1.5 ms each at import (verify included, for its sentence
    check), for texts that mostly hold none. ``full`` is the pattern; ``plain`` is the same without
    its CJK alternatives (with the same groups), which matches exactly what ``full`` matches in a
    text holding no CJK character, or None where ``full`` can match nothing in such a text. Each
    text is sent to one of the two (``has_cjk``, remembered for the last text: the finder matches
    one paragraph at many places)."""

    __slots__ = ("pattern", "flags", "_plain", "_full", "_text", "_chosen")

    def __init__(self, plain: str | None, full: str, flags: int = 0):
        self.pattern, self.flags = full, flags
        self._plain = None if plain is None else re.compile(plain, flags)
        self._full: re.Pattern[str] | None = None
        self._text: str | None = None
        self._chosen: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        """The whole pattern (compiled on first use)."""
        if self._full is None:
            self._full = re.compile(self.pattern, self.flags)
        return self._full

    def _for(self, text: str) -> re.Pattern[str] | None:
        if text is self._text:
            return self._chosen
        chosen = self.compiled() if has_cjk(text) else self._plain
        self._text, self._chosen = text, chosen
        return chosen

    @property
    def groupindex(self) -> Any:
        return (self._plain or self.compiled()).groupindex

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        chosen = self._for(text)
        return iter(()) if chosen is None else chosen.finditer(text, pos, endpos)

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        chosen = self._for(text)
        return None if chosen is None else chosen.search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        chosen = self._for(text)
        return None if chosen is None else chosen.match(text, pos, endpos)


# "196,608", "0.33", and thousands grouped by spaces as much of the world prints them ("128 000",
# "100 000+", with a no-break, narrow no-break or thin space too); a group is exactly three digits and
# not the start of a word ("8 128-token" is two). No letter (but a CJK one), digit, "." or "," stands
# before the number: asked just after its first digit (the two characters ending there), so that the
# pattern starts with a digit and the regex engine skips in C to where one stands, where the same test
# before the digit, first, was tried at every character of the text (``tests/test_draft_digits.py``
# holds the two patterns to the same matches).
_DIGITS_REST = (r"(?:\d{0,2}(?:,\d{3})++|\d{0,2}(?:[ \u00a0\u202f\u2009]\d{3}(?![\w-])){1,4}+|\d*+)"
                r"(?:\.\d++)?+(?!\d|[,.]\d)")
DIGITS = ByScript(r"\d(?<![\w.,]\d)" + _DIGITS_REST, r"\d(?:(?<![\w.,]\d)|(?<=[" + CJK + r"]\d))" + _DIGITS_REST)


def decimal_of(printed: str) -> tuple[Fraction, Fraction]:
    """The exact value of a number ``DIGITS`` matched, and the step it was printed to (0.1 for "198.6")."""
    digits = re.sub(r"[,\s\u00a0\u202f\u2009]", "", printed)
    places = len(digits.split(".", 1)[1]) if "." in digits else 0
    return Fraction(Decimal(digits)), Fraction(1, 10**places)


# A run of digits with the separators a number is printed with, in any script (Arabic separators too).
NUMBER_RUN = re.compile(r"\d+(?:[,.\u066b\u066c\u00a0\u202f\u2009]\d+)*")


def mixed_scripts(text: str) -> list[str]:
    """The numbers in ``text`` whose digits come from two scripts ("196,6\u06608": an Arabic-Indic
    zero among ASCII digits). Python reads such a number as 196,608, but a reader sees a stray
    character; a number wholly in one script's digits is not listed."""
    if text.isascii():
        return []
    out = []
    for run in NUMBER_RUN.finditer(text):
        zeros = {ord(ch) - unicodedata.decimal(ch) for ch in run.group() if ch.isdecimal()}
        if len(zeros) > 1:
            out.append(run.group())
    return out
