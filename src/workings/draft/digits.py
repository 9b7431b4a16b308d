"""Numbers printed in digits, as the draft finder reads them: one pattern and one reading, shared by
the finder and by verify's check that a claim's sentence prints its figure (``workings.said``), so
that "the sentence prints 196,608" means the same in both. Only ``re`` is imported: verify reads
every claim's sentence with it and must stay near instant.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

# "196,608", "0.33", and thousands grouped by spaces as much of the world prints them ("128 000",
# "100 000+", with a no-break, narrow no-break or thin space too); a group is exactly three digits and
# not the start of a word ("8 128-token" is two).
DIGITS = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})++|\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3}(?![\w-])){1,4}+|\d++)"
                    r"(?:\.\d++)?+(?!\d|[,.]\d)")


def decimal_of(printed: str) -> tuple[Fraction, Fraction]:
    """The exact value of a number ``DIGITS`` matched, and the step it was printed to (0.1 for "198.6")."""
    digits = re.sub(r"[,\s\u00a0\u202f\u2009]", "", printed)
    places = len(digits.split(".", 1)[1]) if "." in digits else 0
    return Fraction(Decimal(digits)), Fraction(1, 10**places)
