"""Numbers printed in digits, as the draft finder reads them: one pattern and one reading, shared by
the finder and by verify's check that a claim's sentence prints its figure (``workings.said``), so
that "the sentence prints 196,608" means the same in both. Only ``re`` is imported: verify reads
every claim's sentence with it and must stay near instant.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from fractions import Fraction

# Chinese, Japanese and Korean run words together: "显存约40GB", "約40GB" (about 40 GB), "共32层" (32
# layers). A digit right after a Han character, kana or a Hangul syllable starts a number, where after a
# Latin letter ("H100", "fp16") it does not.
CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff66-\uff9f"

# "196,608", "0.33", and thousands grouped by spaces as much of the world prints them ("128 000",
# "100 000+", with a no-break, narrow no-break or thin space too); a group is exactly three digits and
# not the start of a word ("8 128-token" is two). No letter (but a CJK one), digit, "." or "," stands
# before the number: asked just after its first digit (the two characters ending there), so that the
# pattern starts with a digit and the regex engine skips in C to where one stands, where the same test
# before the digit, first, was tried at every character of the text (``tests/test_draft_digits.py``
# holds the two patterns to the same matches).
DIGITS = re.compile(r"\d(?:(?<![\w.,]\d)|(?<=[" + CJK + r"]\d))"
                    r"(?:\d{0,2}(?:,\d{3})++|\d{0,2}(?:[ \u00a0\u202f\u2009]\d{3}(?![\w-])){1,4}+|\d*+)"
                    r"(?:\.\d++)?+(?!\d|[,.]\d)")


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
