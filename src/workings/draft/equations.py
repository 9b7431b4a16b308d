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
  "KB" (the ledger's rule: kB or KiB, ``units.readings``; "kB" and "KiB" are read as printed), the
  two alike or apart ("128K tokens × 320 KB = 41.9 GB" holds with K as 1,000 and KB as 1,024): an
  equation that holds under both alike readings holds; under some readings only, it is
  ``ambiguous``, and says which;
- **model sizes and multiples**: "70B params", "1.8T parameters" and "70 billion" count parameters;
  a "B" is bytes ("64B + 64B = 128B") unless only billions hold ("70B × 2 = 140 GB": the two
  readings are a billion apart); a count beside bytes alone ("70B params ≈ 140 GB", "Llama 3 8B =
  16 GB") and a scale on the result only ("70 × 2 = 140 billion") are not checked; "128k" and "1m"
  before tokens or a context are K and M ("2k = 16" is algebra); "8x 80 GB", "8x H100 80GB", "8x
  A100-80GB", "2x RTX 3090 24GB" and "4x 4090 24GB" multiply (a device's name may stand between the
  count and its memory; a card's number is no operand); "160 KB per token" is a size as "160 KB/token"
  is; a percent is a hundredth ("90% × 80 GB"); a count named beside bytes alone ("64 heads = 32 GB"),
  bits beside bytes with no "/ 8", and a failing side after a count in words that the count times it
  makes ("8 GPUs each with 80 GB = 640 GB") are not checked;
- **readings of K, M, MB**: K and M are read as 1,024 and 1,048,576 only on a power of two or a
  multiple of 16 ("128K", "1M", "160K"; "671M" is 671,000,000); an abbreviated result after "="
  ("= 671M") agrees to its last digit; where no reading holds but MB, GB, TB read as MiB, GiB, TiB
  would ("2,621,440 bytes = 2.5 MB"), the equation is ``ambiguous`` and says so;
- **what is not arithmetic**: units of time, compute and power are not converted ("2x 1,000 ms = 2
  s" is not checked); a unit or name on the next line is not the number's; a side after an
  operator and a few names ("weights 140 GB + KV 40 GB = 180 GB"), after a comma ("per token, ×
  4,096"), after a word's slash ("weights/2", "w/8") or after a lone non-ASCII letter (a "×"
  mis-decoded: "70B Γ 2") is cut; an arrow or "≥" before a side is not;
- **running derivations**: "= 4,096 bytes per layer × 80 layers = 327,680 bytes" gives a result and
  goes on with it: where the whole middle side does not hold, its first number is the link's result;
- **names and notes between factors**: "8 KV heads × 128 dim × 2 (K+V) × 2 bytes = 4KB" is one
  product; a few words after a number, or a note in parentheses without digits, may stand before
  "×", "*", "·" (or "⋅", "∙"), "÷", or a spaced "/" or "x" (not before "+" or "-", which join list
  items and prose as often);
- **brackets, LaTeX and exponents**: "2 * (46) * (16 * 144) * 1e6 * 1 byte ≈ 200 GB" and
  "$2 \\cdot 80 \\cdot 2048 = 327,680 \\text{ GB}$" are read as printed: brackets first, then × ÷,
  then + −; a bracket opened before a side's first number or closed after its last that pairs with
  nothing in the side is the text's ("(2 × 3 = 6)"); a side whose brackets do not pair up otherwise,
  or nest deeper than ``_DEEPEST``, is not checked;
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
from typing import Any

from ..frozen import frozen
from ..figures import Interval, rounds_to
from .digits import CJK, ByScript
from .setaside import CARD, CARD_BEFORE, CARD_MEMORY, CARD_MODEL, CARD_NOT_BEFORE, SUPERSCRIPTS, powered
from .text import Paragraph

# "327,680", "327{,}680", "327\,680" and a thin or no-break space between groups of three; "1e6" too
_NUM = (r"(?:\d{1,3}(?:(?:,|\{,\}|\\,|[\u00a0\u202f\u2009](?=\d{3}(?!\d)))\d{3})++|\d++)"
        r"(?:\.\d++)?+(?:[eE][+-]?+\d{1,2}+(?!\w|\.\d))?+")
# "2 gigabytes" too, and bytes in Chinese, Japanese and Korean ("14,000,000,000 字节", "バイト", "바이트")
_CJK_BYTES = ("字节", "字節", "バイト", "바이트")
_BYTES = r"(?:(?:[Kk]ilo|[Mm]ega|[Gg]iga|[Tt]era|[Pp]eta)?bytes?|[kKMGTP]i?B|B|kib|mib|gib|tib|kb|mb|gb|tb|" + "|".join(_CJK_BYTES) + ")"
# "128K", "1M", "24G" (not before a word: "4G network"); "128k" and "1m" before tokens or a context ("2k =
# 16" is algebra); "70B params" and "1.8T parameters" before a count of parameters
_SUFFIXES = (r"[KM](?![A-Za-z])|G(?![A-Za-z]|\s++[A-Za-z])|[km](?=(?:\s*+|-)(?:tokens?|context|ctx)\b)"
             r"|[BT](?=\s*+(?:[Pp]arams?|[Pp]arameters?)\b)|[ \u00a0\u202f\u2009]?+%")  # "90% × 80 GB": a hundredth
# A whole number raised to a power of one or two digits: "10^9", "2^{30}", "2**30", "1024 ** 3", "1024³",
# "10⁹" (read as the number it is: ``_powered``); a decimal base ("1.5^2") is not read so.
_SUPERSCRIPTS = SUPERSCRIPTS
_POWERED = powered()  # "10^9", "2**30", "1024³" (``setaside.powered``)
_POWER_PARTS = re.compile(rf"(\d++)(?:\^\{{?+|[ \t]*+\*\*[ \t]*+)?+(\d++|[{_SUPERSCRIPTS}]++)\}}?+")
_TERM_REST = (rf"(?P<num>{_POWERED}|{_NUM})(?P<suffix>{_SUFFIXES})?+"
              rf"(?:\s++(?P<scale>(?i:thousand|million|billion|trillion))\b)?+"
              rf"(?:(?P<unit>\s*+(?:\$\s*+)?+(?:\\(?:text|mathrm)\{{\s*+)?+{_BYTES}(?![A-Za-z])"
              rf"(?:\s*+\}})?+)(?:\s*+/\s*+tokens?\b|\s++per\s++tokens?\b)?+"
              rf"|\s++(?P<name>(?!x\b)[A-Za-z]{{1,20}}+)(?![\w(]))?+")
TERM = ByScript(r"(?<![\w.,])" + _TERM_REST, rf"(?:(?<![\w.,])|(?<=[{CJK}]))" + _TERM_REST)
_UNIT = re.compile(rf"{_BYTES}(?![A-Za-z])")  # the byte unit inside a term's unit ("\text{ GB}": GB)
# Between two numbers of one expression: closing brackets, one operator (LaTeX's \cdot, \times and
# \div too), opening brackets. Between two sides: closing brackets, the relation, opening brackets.
# "8x 80 GB": an x glued to the number before it multiplies too.
_SIGN = r"(?P<op>[×*·⋅∙÷/+−]|(?<=\s)[-x–](?=\s)|\Ax(?=\s)|\\(?:cdot|times|div)(?![A-Za-z]))"
# "8x H100 80GB", "4 × A100 40 GB": what is multiplied may be named by a device before its number.
_DEVICE = (r"(?:(?<=[×x*])\s*+(?:NVIDIA[ \t]++|Tesla[ \t]++)?+"
           rf"(?:[A-Z]{{1,3}}\d{{1,4}}[A-Za-z]{{0,2}}\d?|(?:RTX|GTX)[ \t]++A?\d{{4}}(?:[ \t]++(?:Ti|Ada))?+"
           rf"|{CARD}(?:s|{CARD_MODEL})?+)"
           r"(?:['’]s)?+(?:[ \t]++(?:SXM\d?|NVL|PCIe))?+(?:[ \t]*+[×*])?+(?:\s++|-))?+")  # "8x 4090 × 24 GB"
_AFTER_OF = re.compile(r"[ \t]++(?:the[ \t]++)?+\Z")  # "20% of the 80 GB"
# "24 GB RTX 4090 × 2", "80 GB H100 × 8": or after the memory, before the count
_DEVICE_AFTER = (r"(?:[ \t]++(?:NVIDIA[ \t]++)?+(?:(?:RTX|GTX)[ \t]++A?\d{4}(?:" + CARD_MODEL + r")?+"
                 r"|[AHBL]\d{2,3}[A-Za-z]?)(?:[ \t]++(?:SXM\d?|NVL|PCIe))?+(?=[ \t]*+[×x*]))?+")
_OP_GAP = re.compile(rf"{_DEVICE_AFTER}\s*+(?P<close>(?:\)\s*+)*+){_SIGN}{_DEVICE}\s*+(?P<open>(?:\(\s*+)*+)\Z")
# A factor's name of a few more words, or a note in parentheses ("heads × ", " (K+V) × "), before a
# multiplication or a division: the product goes on.
# A note in brackets after a term of a sum ("14GB (weights) + 14GB (gradients) + 28GB (Adam) = 56GB"): the sum
# goes on (a name before "+" still cuts: "weights 140 GB + KV 40 GB" is ``_CUT_BEFORE``'s)
_NOTED_SUM_GAP = re.compile(r"\s*+\([^()\d\n]{1,20}+\)\s*+(?P<op>[+−]|(?<=\s)-(?=\s))\s*+(?P<open>)(?P<close>)\Z")
_NAMED_OP_GAP = re.compile(r"(?:\s++(?!x\b)[A-Za-z][A-Za-z_]{0,19}+){0,3}+(?:\s*+\([^()\d\n]{1,20}+\))?+"
                           r"\s*+(?P<op>[×*·⋅∙÷]|(?<=\s)[/x](?=\s))\s*+(?P<open>)(?P<close>)\Z")
# An operator between a side's first number and an operand before it, or between its last and an
# operand after it, on the same line: the side goes on beyond what was read ("num_heads × 2 = 4"),
# so it is not the side as printed. A footnote's star ("= 42.95GB *") or a bullet has no operand.
# "*" and "/" only spaced as operators are ("n * 2", "n*2"): "is *2 × 64 = 128*" is italics, and
# "= 120 tokens/s" a unit; after a side, "/" only before a number ("= 20 GB / GPU" is per GPU). A
# bold operand ("**32 layers** × 8 heads ...") is an operand too, and a power ("10^9", "2^30",
# "10⁹", "1024 ** 3", "2**30": "**" spaced on both sides or neither; bold's has a space on one side
# only) is not read: a side beside one is cut. So is a side after an operator and a few names
# ("140 GB + KV 40 GB = 180 GB"), after a comma ("per token, × 4,096 ≈ 2.1 GB"), after a word's
# slash ("weights/2", "w/8") and after a lone non-ASCII letter between numbers (a "×" mis-decoded:
# "70B Γ 2", "70B Ã— 2"; an arrow or "≥" is no operand).
_CUT_BEFORE = re.compile(r"(?:[\w)}*,][ \t]*+(?:[×·⋅∙÷+−]|\\(?:cdot|times|div))[ \t]*+"
                         r"(?:[A-Za-z][\w-]{0,19}+[ \t]++){0,3}+"
                         r"|[\w)}](?:[ \t]++(?:[*/]|x)[ \t]++|\*)|[A-Za-z_)}]/|\^[ \t]*+[-−–(]?+|[\^_]\{"
                         r"|[\d)](?:[ \t]++\*\*[ \t]++|\*\*)[-−(]?+"
                         r"|\d[A-Za-z]{0,2}[ \t]++(?=[^\x00-\x7f])[^\W\d_][^\x00-\x7f\s]?+[ \t]++"
                         r"|(?<![\w.,–-])\d++(?:[.,]\d++)*+[–-])\Z")
_CUT_AFTER = re.compile(r"(?:[ \t]*+(?:[×·⋅∙÷+−]|\\(?:cdot|times|div)(?![A-Za-z]))[ \t]*+"
                        r"|[ \t]++(?:\*|x)[ \t]++|[ \t]++/[ \t]++(?=[\d(])|\*(?=\w))[\w(\\]"
                        r"|[\^⁰¹²³⁴⁵⁶⁷⁸⁹]|(?:[ \t]++\*\*[ \t]++|\*\*)\d|[–-]\d")
# A note in brackets may stand before the relation on the same line ("2 bytes (FP16) = 4,096"): it
# holds no number (a digit only inside a name: "(8B) = 32" is an aside's end, not a note). A note
# that ends a line ("≈ 256 MB (in float32)" then "≈ 128 MB (in float16)") ends the run (``find``):
# the next line is another reading, not the next step.
_REL_GAP = re.compile(r"(?:[ \t]++(?:GPU|card|node|device|accelerator)s\b)?+"  # "8 × 80 GB GPUs = 640 GB"
                      r"\s*+(?P<close>(?:\)\s*+)*+)(?:(?P<note>\((?:[^()\d\n]|(?<=[A-Za-z0-9])\d){1,30}+\))\s*+)?+"
                      r"(?:<br\s*+/?>\s*+|\$\s*+)?+"
                      r"(?P<op>[=≈][ \t]*+(?:~|약|대략|约|約|大约)|=|≈|~=)[ \t]*+\$?+"  # "= 약 200 KB": about
                      r"\s*+(?P<open>(?:\(\s*+)*+)\Z")
# "RTX 4090", "Radeon 7900": a card's number is its name, no operand ("4x RTX 4090 = 96 GB")
# Units of time, compute, power and frequency: their prefixes are not read, so "1,000 ms = 1 s" is not checked
_OTHER_UNIT = re.compile(r"[kMGTPE]?FLOP[Ss]?|[mµun]?s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?"
                         r"|[kMGT]?W|[kMGT]?Hz|[kMGT]?bps")
_PREFIXED = re.compile(r"[kMGTPEmµun](?:FLOP|W|Hz|bps|s\Z)")  # "TFLOPs", "ms", "kW": a prefix before a unit
_ASSIGNED = re.compile(r"[ \t]*+[=:]")  # after a word: the word is named, not the number before it
# unless an operator stands before the number: "8 × 80" then "GB = 640 GB" is 80 GB ("head dim 128" then
# "bytes = 2 × ..." is not 128 bytes)
_OPERATOR_BEFORE = re.compile(r"(?:[×*·⋅∙÷/+−]|\s[x-])[ \t]*+\Z")
_HARDWARE_BEFORE = re.compile(r"\b(?:RTX|GTX|Quadro|Radeon|RX|Arc)[ \t]++\Z")
# "2x 3090 = 48 GB": a card's bare number after a count and "x" names the card (its memory is not printed)
_CARD_AFTER_COUNT = re.compile(CARD_BEFORE + r"\Z")
# after a spaced "×" only with the card's memory after it, or a result in GB: "2 × 3090 24 GB", "2 × 3090 × 24
# GB", "2 × 3090 = 48 GB" (not "3 × 1080 = 3240 pixels")
_SPACED_COUNT = re.compile(r"(?<![\d.,])\d{1,3}+[ \t]++[x×][ \t]*+\Z")
_MEMORY_AFTER = re.compile(rf"(?:[ \t]*+[×x*])?+{CARD_MEMORY}|[ \t]*+[=≈][ \t]*+~?+{CARD_MEMORY}")
_CARD_TERM = re.compile(rf"{CARD}(?:s|{CARD_MODEL})?+(?:[ \t]++(?:GPU|card)s?+\b)?+{CARD_NOT_BEFORE}(?![\w.,])")
# A number, then "each" or "every" in the clause before a side of one number, a count of devices "with"
# it, or "dual": "8 GPUs each with 80 GB", "each of the 4 cards has 24 GB", "2x B200 GPUs with 192 GB",
# "dual 3090 24 GB". The side is a factor's only where that count times it is the result (``_factor_in_words``).
_FACTOR_IN_WORDS = re.compile(r"(?:(?<![\d.,])\d[^\d\n.;!?]{0,40}?\b(?:each|every|apiece)\b"
                              r"|\b(?:[Ee]ach|[Ee]very)\b[^\d\n.;!?]{0,30}?\d"
                              r"|(?<![\d.,])\d++[x×]?+[ \t]++(?:[A-Z][\w-]{0,10}+[ \t]++)?"
                              r"(?:GPU|card|device|node|chip|accelerator)s?+[ \t]++(?:with|of|at|having|carrying)\b"
                              r"|(?i:\b(?:dual|twin|quad)\b)(?:[ \t]++[^\s.;!?]{1,12}+){0,2}?)"
                              r"[^\d\n.;!?]{0,30}+\Z")
_CLAUSE_COUNT = re.compile(r"(?<![\w.,])\d{1,4}+(?![\d.,]\d)|(?i:\b(?:two|three|four|six|eight|dual|twin|quad)\b)")
_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "six": 6, "eight": 8, "dual": 2, "twin": 2, "quad": 4}
_DEEPEST = 12  # brackets within brackets a side may hold
_LARGEST = Fraction(10) ** 40  # no printed size comes near: beyond it, or finer than its inverse, nothing is checked
_OPENS_BEFORE = re.compile(r"(?:\(\s*+)++\Z")  # brackets opened just before a run's first number
_CLOSES_AFTER = re.compile(r"(?:\s*+\))++")    # and closed just after its last
_MULTIPLY, _DIVIDE = frozenset("×*·⋅∙x") | {"\\cdot", "\\times"}, frozenset("÷/") | {"\\div"}
_SCALE = {"": 1, "B": 1, "BYTE": 1, "BYTES": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50}
# "kilobytes" is read as "KB" is (kB or KiB), "gigabytes" as "GB" (or GiB where nothing else holds)
_SPELLED = {"kilo": "KB", "mega": "MB", "giga": "GB", "tera": "TB", "peta": "PB"}
_SUFFIX: dict[str, tuple[int | Fraction, int | Fraction]] = {
    "K": (1000, 1024), "k": (1000, 1024), "M": (10**6, 2**20), "m": (10**6, 2**20), "G": (10**9, 2**30),
    "B": (10**9, 10**9), "T": (10**12, 10**12), "%": (Fraction(1, 100), Fraction(1, 100))}
_READ_TWO_WAYS = frozenset("KkMmG")  # suffixes read both as powers of 1,000 and of 1,024 ("24G": 24 GB or GiB)
_SCALE_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_KB = {"decimal": 10**3, "binary": 2**10}  # "KB" as printed: kB or KiB
# How K and M are read, how KB is, how MB, GB...: "decimal" or "binary" each; a glued "B": "bytes"
# or "billions"; and the byte units: "bytes", or "printed" (each number in its own unit, ``_in_its_unit``)
_Reading = tuple[str, str, str, str, str]
_BIG_AS = {"MB": "MiB (1,048,576 bytes)", "GB": "GiB (1,073,741,824 bytes)", "TB": "TiB (2^40 bytes)",
           "PB": "PiB (2^50 bytes)"}
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
    name: str = ""       # the word after the number when it is no byte unit ("values", "layers")
    times: int = 1       # a scale word after the number: "70 billion" is 70 times 10^9
    glued: bool = False  # "70B", "70 B": a B after the number, bytes or billions (``_equation``)
    number_end: int = 0  # where the number, its K or M and its scale word end ("7 billion")
    powered: bool = False  # printed as a power ("2^30", "1024³"): ``number`` is the number it is


@frozen(kw_only=True)
class Equation:
    text: str               # as printed: "2 × 48 × 8 × 128 × 2 = 196,608"
    start: int              # offsets in the paragraph
    end: int
    operands_from: int      # the numbers from here up to ``operands_to`` are operands, not figures:
    operands_to: int        # the left side's, or the right side's when the result is printed first
    printed: Fraction       # the right side as printed (a number in its own unit)
    computed: Fraction      # the left side, computed, in the right side's unit
    approximate: bool       # printed with "≈"
    status: str = "holds"   # holds | fails | ambiguous
    note: str = ""          # ambiguous: which reading of K, M and KB holds; fails: a rounded "=", if so
    computed_side: str = "left"  # the side computed: "right" when the result is printed first

    @property
    def holds(self) -> bool:
        return self.status == "holds"


def _powered(text: str) -> str:
    """A printed number, with a power ("10^9", "1024³") worked out: "1000000000", "1073741824"."""
    parts = _POWER_PARTS.fullmatch(text)
    if parts is None or not any(c in text for c in "^*" + _SUPERSCRIPTS) or parts.group(2) == text:
        return text
    exponent = parts.group(2).translate(str.maketrans(_SUPERSCRIPTS, "0123456789"))
    return str(int(parts.group(1)) ** int(exponent))


def number(text: str) -> Fraction:
    return Fraction(Decimal(_digits(text)))


def _digits(text: str) -> str:
    """A printed number without its thousands separators: "327,680", LaTeX's "327{,}680" and "327\\,680",
    and a thin or no-break space between groups."""
    return re.sub(r"[,{}\\\u00a0\u202f\u2009]", "", text)


def _step(text: str) -> Fraction:
    """The place a printed operand is rounded to (0: an integer, exact); "1.5e6": 100,000."""
    mantissa, _, exponent = _digits(text).lower().partition("e")
    if "." not in mantissa:
        return Fraction(0)
    return Fraction(10) ** (int(exponent or 0) - len(mantissa.split(".", 1)[1]))


def find(paragraph: Paragraph) -> list[Equation]:
    text = paragraph.text
    terms = [_term(m, paragraph) for m in TERM.finditer(text)  # a bounded look back
             if not _HARDWARE_BEFORE.search(text, max(0, m.start() - 20), m.start())
             and not _card(text, m)]
    out: list[Equation] = []
    group: list[_Term] = []
    joins: list[_Join] = []   # between group[i] and group[i+1]: an operator or a relation, and brackets
    for term in terms:
        if group:
            gap = text[group[-1].end:term.start]
            if group[-1].suffix == "%" and text.endswith("of", 0, group[-1].end) and _AFTER_OF.match(gap):
                group.append(term)  # "20% of 80 GB", "20% of the 80 GB": of a percent, a product
                joins.append(_Join("op", "×", 0, 0))
                continue
            if _PER_SCALED.match(text, group[-1].end):
                joined = None  # "= $1.46 / 1M tokens": a price per million tokens, not a division
            elif joined := _OP_GAP.match(gap) or _NAMED_OP_GAP.match(gap) or _NOTED_SUM_GAP.match(gap):
                kind = "op"
            elif (joined := _REL_GAP.match(gap)) and joined["note"] and (
                    not joins or joins[-1].kind != "op" or paragraph.line_of(group[-1].end + joined.end("note"))
                    != paragraph.line_of(group[-1].end + joined.start("op"))):
                # a note qualifies a product ("2,048 values * 2 bytes (FP16) = 4,096"), not one number
                # ("GPT-3 175B (FP16) = 350 GB"), and one that ends its line ("≈ 256 MB (in float32)")
                # leaves the next line another reading
                joined = None
            elif joined:
                kind = "relation"
            if joined:
                group.append(term)
                joins.append(_Join(kind, joined["op"], joined["close"].count(")"), joined["open"].count("(")))
                continue
            out.extend(_links(text, group, joins))
        group, joins = [term], []
    out.extend(_links(text, group, joins))
    return out


# "/ 1M tokens", "/ 1K requests" after a number: what it is per, not a divisor
_PER_SCALED = re.compile(r"[ \t]*+/[ \t]*+1[ \t]?(?:[KkMB]|thousand|million|billion)[ \t]++"
                         r"(?:tokens?|requests?|queries|calls|users?|words|characters)\b")


@frozen
class _Join:
    kind: str       # "op" or "relation"
    sign: str       # "×", "\\cdot", "=", "≈"...
    closes: int     # brackets closed before the sign
    opens: int      # and opened after it


class _Unreadable(Exception):
    """A side whose brackets do not pair up, or that ends on an operator: not checked."""


def _term(match: re.Match[str], paragraph: Paragraph) -> _Term:
    unit = found.group() if (found := _UNIT.search(match.group("unit") or "")) else ""
    if unit in _CJK_BYTES:
        unit = "bytes"
    elif unit in ("kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib"):  # "800kb", "192 kib": bytes in lower
        unit = unit.upper() if len(unit) == 2 else unit[0].upper() + "i" + "B"   # case, as the finder reads them
    elif len(unit) > 5:  # "kilobytes", "Gigabyte": as their symbols
        unit = _SPELLED[unit[:4].lower()]
    suffix = "%" if (match.group("suffix") or "").endswith("%") else match.group("suffix") or ""
    name = "" if suffix == "%" and match.group("name") == "of" else match.group("name") or ""  # "20% of ..."
    number_end = match.end("scale") if match.group("scale") else match.end("suffix") if match.group("suffix") \
        else match.end("num")
    times = _SCALE_WORDS[match.group("scale").lower()] if match.group("scale") else 1
    value = _powered(match.group("num"))  # "2^30" as the number it is, worked out once
    powered = value != match.group("num")
    if (unit or name) and paragraph.line_of(number_end) != paragraph.line_of(match.end() - 1) \
            and _ASSIGNED.match(paragraph.text, match.end()) \
            and not _OPERATOR_BEFORE.search(paragraph.text, max(0, match.start() - 20), match.start()):
        # a paragraph's lines are joined, but "num_layers = 40" then "bytes = 2" are two lines (a
        # word wrapped to the next line is still the number's: "= 1.34" then "GB in total", and
        # "8 × 80" then "GB = 640 GB")
        return _Term(start=match.start(), end=number_end, number=value, suffix=suffix, scale=1, unit="",
                     number_end=number_end, times=times, powered=powered)
    return _Term(start=match.start(), end=match.end(), number=value, suffix=suffix,
                 name=name, times=times, number_end=number_end, powered=powered,
                 scale=_SCALE.get(unit.upper(), 1), unit=unit, glued=unit == "B")


def _card(text: str, match: re.Match[str]) -> bool:
    """A card's bare number after a count glued to its "x" or after "dual": "2x 3090 = 48 GB" (the card's
    memory not printed) and "4x 4090 24GB = 96GB" (printed: ``_DEVICE`` names what is multiplied) read no
    3090 or 4090, nor "2 × 3090 24 GB = 48 GB" and "2 × 3090 = 48 GB" (after a spaced "×" only with the
    card's memory or a result in GB after it); "3 × 1080 = 3240", "2x 2080 × 2" and "4x 3070 tokens" do."""
    if match["suffix"] or match["unit"] or match["scale"] \
            or match["name"] not in (None, "Ti", "XT", "XTX", "SUPER", "Super", "GPU", "GPUs", "card", "cards"):
        return False
    card = _CARD_TERM.match(text, match.start())
    before = max(0, match.start() - 12)
    return card is not None and bool(_CARD_AFTER_COUNT.search(text, before, match.start()) or (
        _SPACED_COUNT.search(text, before, match.start()) and _MEMORY_AFTER.match(text, card.end())))


def _counts(term: _Term) -> bool:
    """A number scaled as a count is: "70B params", "1.8T parameters", "70 billion"."""
    return term.times > 1 or term.suffix in ("B", "T")


def _skipped(left: list[_Term], right: list[_Term]) -> bool:
    """Links with no arithmetic to check, or none that can be read: "= 5 = 5"; a count against bytes
    alone ("70B params ≈ 140 GB", "64 heads = 32 GB": the bytes per parameter or head are not printed);
    a scale on the result only ("70 × 2 = 140 billion": the operands' scale was left out); a unit this
    reader does not convert, and another on the other side ("2x 1,000 ms = 2 s", "2.5x 989 TFLOPS ≈ 2.5
    PFLOPS"; "2 × 30 = 60 s" and "8 GPUs × 700 W = 5,600 W" are checked)."""
    units = any(t.unit for t in left + right)
    if len(left) == 1 and len(right) == 1:
        one, two = left[0], right[0]
        if not units and not (one.suffix or two.suffix or _counts(one) or _counts(two) or one.powered or two.powered):
            return True  # "= 5 = 5"; but a power is worked out ("2^30 = 1,073,741,824")
        if (_counts(one) and two.unit and not one.unit) or (_counts(two) and one.unit and not two.unit):
            return True
        if any((a.name or a.suffix == "%") and not a.unit and b.unit for a, b in ((one, two), (two, one))):
            return True  # "MHA 64 heads = 32 GB": a count named beside bytes, the bytes per head not printed
    if len(left) > 1 and len(right) == 1 and _counts(right[0]) and not any(_counts(t) or t.unit for t in left):
        return True
    other = [{t.name for t in side if _OTHER_UNIT.fullmatch(t.name)} for side in (left, right)]
    if any(_PREFIXED.match(name) for name in other[0] ^ other[1]):
        return True  # "2 × 70B × 1,000 tokens = 140 TFLOPs": a prefix this reader does not convert
    return not units and all(other) and other[0] != other[1]


_Token = tuple[Any, ...]  # ("n", a _Term), ("op", its sign), ("(",) or (")",)


def _links(text: str, group: list[_Term], joins: list[_Join]) -> list[Equation]:
    """The equations of one run of terms: each relation sign joins the expression before it to the
    one after it. Brackets opened just before the run's first number and closed just after its last
    belong to it; a side whose brackets do not pair up once those outside it are left is not read."""
    if all(j.kind != "op" for j in joins) and len(group) < 2:
        return []
    before = _OPENS_BEFORE.search(text, max(0, group[0].start - 40), group[0].start)
    after = _CLOSES_AFTER.match(text, group[-1].end)
    tokens: list[list[_Token]] = [[("(",)] * (before.group().count("(") if before else 0) + [("n", group[0])]]
    sides: list[list[_Term]] = [[group[0]]]
    relations: list[str] = []
    for term, join in zip(group[1:], joins):
        tokens[-1] += [(")",)] * join.closes
        if join.kind == "op":
            tokens[-1] += [("op", join.sign)]
            sides[-1].append(term)
        else:
            relations.append(join.sign)
            tokens.append([])
            sides.append([term])
        tokens[-1] += [("(",)] * join.opens + [("n", term)]
    tokens[-1] += [(")",)] * (after.group().count(")") if after else 0)
    out: list[Equation | None] = []
    run_start = before.start() if before else group[0].start
    cut_left = bool(_CUT_BEFORE.search(text, max(0, run_start - 40), run_start))  # a bounded look back
    cut_right = bool(_CUT_AFTER.match(text, after.end() if after else group[-1].end))
    for i, relation in enumerate(relations):
        left, right = sides[i], sides[i + 1]
        if (i == 0 and cut_left) or (i == len(relations) - 1 and cut_right):
            continue  # a side printed only in part: "num_heads × 2 = 4" checks nothing of num_heads
        left_tokens = _paired(tokens[i], i == 0, False)
        right_tokens = _paired(tokens[i + 1], False, i + 2 == len(tokens))
        if left_tokens is None or right_tokens is None or _aside(left_tokens) or _aside(right_tokens):
            continue
        if _skipped(left, right) or _bits_beside_bytes(left_tokens + right_tokens) \
                or _percent_as_times(text, left, right):
            continue
        if len(left) == 1 and len(right) > 1:
            # the result printed first ("640 GB = 8 × 80 GB", "1,128 GB = 8 × 141 GB = 1.1 TB"; a
            # number with no unit or scale names a plan: "Option 2 = 4 × 80 GB"), or, before another
            # link, the number restated, then used ("327,680 = 0.33MB / token x 131072 = 42.95GB")
            first = _equation(text, left, left_tokens, right, right_tokens, relation, result_first=True) \
                if (left[0].unit or left[0].suffix or left[0].times > 1) and not _skipped(right, left) else None
            restated = None
            if i + 1 < len(relations) and (first is None or first.status == "fails") and right_tokens[0][0] == "n" \
                    and (left[0].unit or right[0].unit or left[0].suffix or right[0].suffix):
                restated = _equation(text, left, left_tokens, right[:1], [("n", right[0])], relation)
            # a failing restatement says less than the whole failing ("1,000 GB = 8 × 141 GB = ...")
            out.append(restated if restated is not None and (first is None or restated.status != "fails") else first)
            continue
        equation = _equation(text, left, left_tokens, right, right_tokens, relation)
        if equation is not None and equation.status == "fails" and i == 0 and len(left) == 1 \
                and _factor_in_words(text, run_start, equation, right):
            continue  # "8 GPUs each with 80 GB = 640 GB": the factor is in words, the side not printed
        if equation is not None and equation.status == "fails" and i + 1 < len(relations) \
                and right_tokens[0][0] == "n":
            # a running derivation: "2 × 8 × 128 × 2 = 4,096 bytes per layer × 80 layers = 327,680
            # bytes" gives a result, then goes on with it; the next link checks what it goes on to
            step = _equation(text, left, left_tokens, right[:1], [("n", right[0])], relation)
            if step is not None and (step.status != "fails" or right[0].unit or right[0].name):
                equation = step  # "= 4,096 bytes per layer × ...": its verdict is on the result it gives
        out.append(equation)
    return [equation for equation in out if equation is not None]


def _factor_in_words(text: str, run_start: int, equation: Equation, right: list[_Term]) -> bool:
    """Whether a failing side of one number is one factor of its result, the other a count in words
    just before it: "8 GPUs each with 80 GB = 640 GB" (8 × 80), not "8 GPUs each with 80 GB = 600 GB"
    nor "each of 8 GPUs has 80 GB = 8,000 MB" (a conversion, wrong)."""
    words = _FACTOR_IN_WORDS.search(text, max(0, run_start - 60), run_start)
    if words is None or len(right) != 1 or equation.computed == 0:
        return False
    # "= 640" to the unit, "= 1.5" to a tenth, "≈ 600" to its hundreds (the one rounding rule: ``_precision``)
    digits = _digits(right[0].number).lower().partition("e")[0]
    place = _step(right[0].number) or (Fraction(10) ** (len(digits) - len(digits.rstrip("0")))
                                       if equation.approximate and digits.strip("0") else Fraction(1))
    for count in _CLAUSE_COUNT.finditer(text, words.start(), run_start):
        value = _COUNT_WORDS.get(count.group().lower()) or int(count.group())
        if abs(value * equation.computed - equation.printed) <= place / 2:
            return True
    return False


def _percent_as_times(text: str, left: list[_Term], right: list[_Term]) -> bool:
    """A percent against one bare number ("25% = 1.25x", "1 in 4 = 25%", "90% = 9 out of 10", "50% =
    0.5"): a rate restated in other words, not arithmetic."""
    if len(left) != 1 or len(right) != 1 or "%" not in (left[0].suffix, right[0].suffix):
        return False
    other = right[0] if left[0].suffix == "%" else left[0]
    return not (other.unit or other.suffix or other.times > 1)


# "bits", "Gb", "Mbit", "gigabits": a "b" in lower case after a prefix is bits ("8 × 24 Gb = 192 GB" is 24 GB)
_BITS = re.compile(r"[KkMGTP]i?b|(?:[kKMGTP]|[Kk]ilo|[Mm]ega|[Gg]iga|[Tt]era|[Pp]eta)?bits?")


def _bits_beside_bytes(tokens: list[_Token]) -> bool:
    """Bits and bytes in one link with no division by 8 printed: "70B × 4 bits = 35 GB", "16 bits = 2
    bytes" and "8 × 24 Gb = 24 GB" convert bits to bytes, which this reader does not; "70B × 4 bits / 8 =
    35 GB" divides."""
    terms = [t[1] for t in tokens if t[0] == "n"]
    if not any(t.name and _BITS.fullmatch(t.name) for t in terms) or not any(t.unit for t in terms):
        return False
    return not any(a[0] == "op" and a[1] in _DIVIDE and b[0] == "n" and number(b[1].number) == 8
                   and not (b[1].name or b[1].unit or b[1].suffix) for a, b in zip(tokens, tokens[1:]))


def _cut(term: _Term, reading: _Reading) -> Interval:
    """What an approximate printed result covers if it was cut short (floor or ceiling) at its
    place rather than rounded: within one step either way, the printed value itself included."""
    place = _precision(term, reading, True, exact_left=False)
    step = (place.high - place.low) / _factor(term, reading)
    value = number(term.number)
    return Interval(value - step, value + step, False, False).scaled(_factor(term, reading))


def _counted_not_bytes(side: list[_Term], other: list[_Term]) -> str:
    """Where ``side`` names what it counts ("1M tokens × 80 layers") and holds no byte unit while
    ``other`` is in bytes, what to say: it was read as bytes, and the factor between is not printed."""
    names = list(dict.fromkeys(t.name for t in side if t.name))
    if not names or any(t.unit for t in side) or not any(t.unit for t in other):
        return ""
    per = " per ".join(name[:-1] if name.endswith("s") and len(name) > 3 else name for name in names)
    return (f"one side counts {' and '.join(names)}, the other bytes: it was read as bytes; "
            f"the bytes per {per} are not printed")


def _aside(tokens: list[_Token]) -> bool:
    """A side that is one number in brackets ("Llama-3 (8B) = 32 × ...", "One H100 (80 GB) ≈ 2 × 40
    GB") is an aside in the text, not a side."""
    return len(tokens) == 3 and tokens[0][0] == "(" and tokens[2][0] == ")"


def _paired(tokens: list[_Token], first: bool, last: bool) -> list[_Token] | None:
    """A side's tokens with the brackets that pair up: an opening one at the start of the run's first
    side or a closing one at the end of its last, left unpaired, belongs to the text around it ("(2 ×
    3 = 6)") and is dropped; any other unpaired bracket ("Total (weights 140 GB + KV 40 GB) = 180
    GB": the side would be "40 GB)"), or brackets nested deeper than ``_DEEPEST``, None."""
    depth, kept = 0, list(tokens)
    for index, token in enumerate(tokens):
        depth += {"(": 1, ")": -1}.get(token[0], 0)
        if depth > _DEEPEST:  # no printed derivation nests so deep; the evaluation would recurse as deep
            return None
        if depth < 0:  # closed more than was opened: only the text's brackets after the run may follow
            if not last or any(t[0] != ")" for t in tokens[index:]):
                return None
            kept, depth = list(tokens[:index]), 0
            break
    while depth and first and kept and kept[0][0] == "(":
        kept, depth = kept[1:], depth - 1
    return None if depth else kept


def _equation(text: str, left: list[_Term], left_tokens: list[_Token], right: list[_Term],
              right_tokens: list[_Token], relation: str, *, result_first: bool = False) -> Equation | None:
    """The verdict on one link; ``result_first``: the left side is the printed result ("640 GB = 8 ×
    80 GB"), read with the precision a result has."""
    printed_tokens = (left_tokens, right_tokens)
    if result_first:
        left, left_tokens, right, right_tokens = right, right_tokens, left, left_tokens
    approximate = relation != "="
    if approximate and len(right) == 1 and not _digits(right[0].number).strip("0.") and "." not in right[0].number:
        return None  # "≈ 0": negligible, said of any small value; nothing to check ("198 GB ≈ 0 TB" held)
    suffixed = [t for t in left + right if t.suffix in _READ_TWO_WAYS]
    scaled = bool(suffixed) and all(map(_maybe_binary, suffixed))  # "100K + 28K = 128K": all alike
    kb = any(t.unit == "KB" for t in left + right)
    both: tuple[str, ...] = ("decimal", "binary")
    readings = [(k, b, "decimal", "bytes", "bytes")
                for k in (both if scaled else both[:1]) for b in (both if kb else both[:1])]

    def other(readings: list[_Reading]) -> list[tuple[_Reading, Interval, Interval, bool]] | None:
        """Another reading tried: None where it cannot be read (it scales past ``_LARGEST``)."""
        try:
            return outcomes(readings)
        except _Unreadable:
            return None

    def outcomes(readings: list[_Reading]) -> list[tuple[_Reading, Interval, Interval, bool]] | None:
        out = []
        for reading in readings:
            computed, printed = _evaluate(left_tokens, reading), _evaluate(right_tokens, reading)
            if computed is None or printed is None:
                return None
            if len(right) == 1:
                printed = _precision(right[0], reading, approximate, exact_left=computed.exact)
            out.append((reading, computed, printed, computed.meets(printed) and _near(computed, printed)))
        return out

    if scaled and any(t.times > 1 for t in left + right):
        # a scale in words is a power of 1,000: K and M beside it that hold so are read so ("1 million =
        # 1M"); held only as powers of 1,024, they are as ambiguous as ever ("128K ≈ 131 thousand")
        decimal = [r for r in readings if r[0] == "decimal"]
        if (as_words := other(decimal)) is not None and all(r[3] for r in as_words):
            scaled, readings = False, decimal
    try:
        found = outcomes(readings)
    except _Unreadable:
        return None
    if found is None:
        return _equation_of(text, *printed_tokens, Fraction(0), Fraction(0), approximate, "fails", "", result_first)
    results = found
    if not any(r[3] for r in results) and any(t.glued for t in left + right):
        # "70B × 2 = 140 GB": a B glued to a number counts billions where it is no byte ("64B + 64B =
        # 128B" is); the two readings are a billion apart, so no equation holds under both
        glued = [t for t in left + right if t.glued]
        closest = results
        for chosen in ["billions"] + ([f"billions@{t.start}" for t in glued] if 1 < len(glued) <= 4 else []):
            billions = other([(k, b, m, chosen, u) for k, b, m, _, u in readings])
            if billions is not None and any(r[3] for r in billions):
                results = billions  # "13B × 2B = 26GB": the first B counts, the second is bytes
                break
            if billions is not None and _off(billions[0]) < _off(closest[0]):
                closest = billions
        else:
            if closest is not results and len(left) == 1 and len(right) == 1:
                return None  # "Llama 3 8B = 16 GB": a model's size named beside its bytes ("512 B = 1 KB" fails)
            results = closest  # failing, "70B × 2 = 150 GB" says 140, not 0.00000014
    printed_unit = None
    if not any(r[3] for r in results) and _in_its_unit(left_tokens, left, right):
        printed_unit = other([(k, b, m, g, "printed") for k, b, m, g, _ in readings])
        if printed_unit is not None and (any(r[3] for r in printed_unit) or (
                not any(t.unit for t in left) and _off(printed_unit[0]) < _off(results[0]))):
            results = printed_unit  # failing, "70 x 3 / 8 = 26 GB" is 26.25 (GB), not 0.000000026
    # K and KB read alike (both as 1,000 or both as 1,024): holding under each is holding; under
    # some reading only, or only with the two read apart (K as 1,024, KB as 1,000), is ambiguous
    alike = [r for r in results if not (scaled and kb) or r[0][0] == r[0][1]]
    holding = [r for r in alike if r[3]] or [r for r in results if r[3]]
    status = "holds" if all(r[3] for r in alike) else "fails" if not holding else "ambiguous"
    note = ""
    big = sorted({t.unit for t in left + right if t.unit in _BIG_AS}, key=list(_BIG_AS).index)
    if status == "fails" and big:
        # "2,621,440 bytes = 2.5 MB": MB printed for MiB, as KB is printed for KiB
        b_read = ("bytes", "billions") if any(t.glued for t in left + right) else ("bytes",)
        iec = other([(k, "binary", "binary", g, "bytes") for k in (both if scaled else both[:1]) for g in b_read])
        if iec is not None and (holding := [r for r in iec if r[3]]):
            status = "ambiguous"  # "70B × 2 bytes ≈ 130 GB": 140 billion bytes are 130 GiB
    implied = (_implied_unit(left, right, printed_unit) or _one_side_binary(left, right, results)) \
        if status == "fails" else None
    if implied:
        status = "ambiguous"
    elif status == "ambiguous":
        (k, b, m, _, _) = holding[0][0]
        read = [f"K and M {_READ_AS['K and M'][k == 'binary']}"] * scaled + [f"KB {_READ_AS['KB'][b == 'binary']}"] * kb
        read += [f"{unit} is read as {_BIG_AS[unit]}" for unit in big if m == "binary"]
        note = "holds only if " + " and ".join(read)
    if implied:
        note = implied
    elif status == "fails" and not approximate and len(right) == 1 and "." not in right[0].number \
            and any(c.meets(_precision(right[0], r, False, exact_left=False)) and _within_a_percent(c, right[0], r)
                    for r, c, _, _ in results):
        note = 'the left side rounds to it, but "=" says it is exact: print "≈" if the result is rounded'
    elif status == "fails" and (counted := _counted_not_bytes(left, right) or _counted_not_bytes(right, left)):
        note = counted
    elif status == "fails" and approximate and len(right) == 1 and any(
            c.meets(_cut(right[0], r)) and _near(c, _cut(right[0], r)) for r, c, _, _ in results):
        note = "the left side is cut short to it, not rounded: print the rounded number, or say it is cut"
    _, first_left, first_right, _ = results[0]
    scale = _factor(right[0], results[0][0]) if len(right) == 1 else 1  # "= 1K": the left side in K
    computed_value = (first_left.low + first_left.high) / 2 / scale
    printed_value = number(right[0].number) if len(right) == 1 else (first_right.low + first_right.high) / 2 / scale
    if result_first:
        note = note.replace("the left side", "the right side")
    return _equation_of(text, *printed_tokens, printed_value, computed_value, approximate, status, note, result_first)


def _equation_of(text: str, left: list[_Token], right: list[_Token], printed: Fraction, computed: Fraction,
                 approximate: bool, status: str, note: str, result_first: bool = False) -> Equation:
    # The text begins at the first number or the bracket before it, and ends at the last number (and
    # its K or M) or the bracket after it: the last number's unit and words are the figure's.
    numbers = [t[1] for t in left + right if t[0] == "n"]
    start = numbers[0].start
    for _ in range(next(i for i, t in enumerate(left) if t[0] == "n")):
        start = text.rindex("(", 0, start)
    end = numbers[-1].number_end
    for _ in range(len(right) - 1 - max(i for i, t in enumerate(right) if t[0] == "n")):
        end = text.index(")", end) + 1
    right_start = next(t[1] for t in right if t[0] == "n").start
    operands = (right_start, end) if result_first else (start, right_start)
    return Equation(text=text[start:end], start=start, end=end, operands_from=operands[0], operands_to=operands[1],
                    printed=printed, computed=computed, approximate=approximate, status=status, note=note,
                    computed_side="right" if result_first else "left")


def _factor(term: _Term, reading: _Reading) -> Fraction:
    """What one printed unit of the term is, in bytes when it carries a byte unit (a term with no
    unit is taken as it stands: in bytes when the other side is)."""
    if term.glued and reading[3] in ("billions", f"billions@{term.start}"):
        return Fraction(10**9 * term.times)
    if reading[4] == "printed":
        return (Fraction(_SUFFIX[term.suffix][reading[0] == "binary"]) if term.suffix else Fraction(1)) * term.times
    binary = reading[0] == "binary"
    factor = Fraction(_SUFFIX[term.suffix][binary]) if term.suffix else Fraction(1)
    if term.unit in _BIG_AS and reading[2] == "binary":
        return factor * term.times * _SCALE[term.unit[0] + "IB"]
    return factor * term.times * (_KB[reading[1]] if term.unit == "KB" else term.scale)


def _one_side_binary(left: list[_Term], right: list[_Term],
                     results: list[tuple[_Reading, Interval, Interval, bool]]) -> str | None:
    """Two sizes in one unit, MB, GB, TB or PB, with nothing else on either side, that agree only with one
    of them read as MiB, GiB, TiB or PiB: "~26GB ≈ 24GB" (26 billion bytes are 24.2 GiB), what a page
    prints for a size and what a tool reports of it. ``ambiguous``, naming the side, not failing."""
    if len(left) != 1 or len(right) != 1 or left[0].suffix or right[0].suffix or left[0].times != 1 \
            or right[0].times != 1 or left[0].unit.upper() != right[0].unit.upper() or left[0].unit.upper() not in _BIG_AS:
        return None
    unit = left[0].unit.upper()
    ratio = Fraction(_SCALE[unit[0] + "IB"], _SCALE[unit])  # a binary unit over its decimal one: 1.07 for GB
    for side in ("right", "left"):  # the side read as binary holds ``ratio`` times the bytes
        if results and all(c.meets(p.scaled(ratio)) if side == "right" else c.scaled(ratio).meets(p)
                           for _, c, p, _ in results):
            return f"holds only if the {side} side's {left[0].unit} is read as {_BIG_AS[unit]}"
    return None


_SI_STEPS = ("B", "KB", "MB", "GB", "TB", "PB")
_IEC_STEPS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def _implied_unit(left: list[_Term], right: list[_Term],
                  as_printed: list[tuple[_Reading, Interval, Interval, bool]] | None) -> str | None:
    """Where a left side names no unit and its number is the printed result's in the unit 1,000 or 1,024
    times smaller, what it holds under: "1.53 * 3072 = 4.59 GB" holds with the
    1.53 in MiB (1.53 MiB × 3,072 = 4.59 GiB), "0.5 × 3000 = 1.5 GB" with the 0.5 in MB. The author
    left the unit out; the check cannot tell which was meant, so the equation is ``ambiguous``, not
    failing (it said "the left side is 4,700.16, not 4.59"). One step only: "1 * 8 * 4096 * 128 = 4GB"
    (4 MiB, a formula short of its layers and bytes) still fails, where reading the left side in KiB
    would excuse it."""
    if as_printed is None or len(right) != 1 or any(t.unit or t.name for t in left):
        return None  # a side that names a count or another unit ("32 layers × 128 = 4 GB") says what it is
    unit = right[0].unit.upper()
    si = [u.upper() for u in _SI_STEPS].index(unit) if unit in ("KB", "MB", "GB", "TB", "PB") else None
    iec = [u.upper() for u in _IEC_STEPS].index(unit) if unit in ("KIB", "MIB", "GIB", "TIB", "PIB") else None
    for base in (1000, 1024):
        place = si if base == 1000 or iec is None else iec
        if place is None:
            continue
        if all(c.scaled(Fraction(1, base)).meets(p) for _, c, p, _ in as_printed):
            steps = _SI_STEPS if base == 1000 else _IEC_STEPS
            read = f" and {_SI_STEPS[place]} is read as {_IEC_STEPS[place]}" if base == 1024 and iec is None else ""
            return f"holds only if the left side, which names no unit, is in {steps[place - 1]}{read}"
    return None


NEAR = Fraction(1, 5)  # how far a result may stand from what its side computes, beyond agreeing in rounding


def _near(computed: Interval, printed: Interval) -> bool:
    """Whether the middles of the two agree within ``NEAR`` of the computed one: the rounding of a result
    to its trailing zeros ("2 × 250 ≈ 1,000") or of an operand to its one digit ("0.01 × 1,000,000 =
    14,000", "0.2 MB × 1,010,000 = 250 GB") lets any value within half a step agree, up to twice the
    value; a reader takes "≈ 1,000" and "= 250 GB" for closer than that."""
    middle = (computed.low + computed.high) / 2
    aim = (printed.low + printed.high) / 2
    return abs(aim - middle) <= abs(middle) * NEAR


def _off(result: tuple[_Reading, Interval, Interval, bool]) -> Fraction:
    """How far a computed side is from the printed one, as a ratio either way (1,000 times too small
    is as far as 1,000 times too big: "1.5 × 3000 = 4.5 GB" is 4,500 GB, not 0.0000045 GB, by this
    measure as by the other). 0 where the two are equal; a side of zero, or of the other sign, is
    farther than any ratio."""
    _, computed, printed = result[:3]
    aim, got = (printed.low + printed.high) / 2, (computed.low + computed.high) / 2
    if not aim or not got or (aim > 0) != (got > 0):
        return Fraction(10**30) + abs(got - aim)
    ratio = got / aim
    return max(ratio, 1 / ratio) - 1


def _within_a_percent(computed: Interval, result: _Term, reading: _Reading) -> bool:
    """Whether a computed side is within 1% of a printed result: "= 328 KB" for 327.68 kB was rounded;
    "2,048 × 256 = 1M" (524,288) was not, though 1M stands for 0.5M up to 1.5M."""
    printed = number(result.number) * _factor(result, reading)
    return abs((computed.low + computed.high) / 2 - printed) * 100 <= abs(printed)


def _in_its_unit(left_tokens: list[_Token], left: list[_Term], right: list[_Term]) -> bool:
    """Whether a result in a byte unit may be read in its own unit: the left side holds no unit ("8 ×
    80 = 640 GB", "70 x 16 / 8 = 140 GB": the GB is the whole side's), or is in bytes divided by a
    power of 1,000 or 1,024 ("14,000,000,000 bytes ÷ (1024×1024×1024) ≈ 13.04 GB": the division is
    the conversion)."""
    if len(right) != 1 or not right[0].unit:
        return False
    if not any(t.unit for t in left):
        return True
    if any(t.unit and t.scale != 1 for t in left):
        return False
    after_division = False
    for token in left_tokens:
        if token[0] == "op":
            after_division = token[1] in _DIVIDE
        elif token[0] == "n" and after_division and not token[1].suffix \
                and number(token[1].number) in _CONVERSIONS and not token[1].unit:
            return True
    return False


_CONVERSIONS = frozenset(Fraction(base) ** power for base in (1000, 1024) for power in (1, 2, 3, 4))


def _maybe_binary(term: _Term) -> bool:
    """Whether a K or M may stand for 1,024 or 1,048,576 here: a whole number that is a power of two
    or a multiple of 16 ("128K", "1M", "160K"); "671M" and "1.3M" are read only as powers of 1,000,
    and so is every K and M of an equation that prints one of them."""
    digits = _digits(term.number)
    if not digits.isdigit():
        return False
    value = int(digits)
    return value > 0 and (value & (value - 1) == 0 or value % 16 == 0)


def _value(term: _Term, reading: _Reading) -> Interval:
    """The interval a printed operand stands for: every value that rounds to it at its last place
    (an integer operand is exact)."""
    return rounds_to(number(term.number), _step(term.number)).scaled(_factor(term, reading))


def _evaluate(tokens: list[_Token], reading: _Reading) -> Interval | None:
    """The interval of a side over the intervals of its numbers: brackets first, then × ÷, then
    + −; None on a division by an interval holding zero. _Unreadable where the tokens are no
    expression (an operator with nothing after it, a bracket out of place)."""
    at = 0

    def peek() -> _Token | None:
        return tokens[at] if at < len(tokens) else None

    def operand() -> Interval | None:
        nonlocal at
        token = peek()
        at += 1
        if token is not None and token[0] == "n":
            return _bounded(_value(token[1], reading))
        if token is None or token[0] != "(":
            raise _Unreadable
        inner = total()
        if peek() != (")",):
            raise _Unreadable
        at += 1
        return inner

    def product() -> Interval | None:
        nonlocal at
        value = operand()
        while (token := peek()) is not None and token[0] == "op" and (token[1] in _MULTIPLY or token[1] in _DIVIDE):
            at += 1
            factor = operand()
            if value is None or factor is None:
                value = None
            elif token[1] in _DIVIDE:
                value = None if factor.low <= 0 <= factor.high else _bounded(_corners(value, factor, multiply=False))
            else:
                value = _bounded(_corners(value, factor, multiply=True))
        return value

    def total() -> Interval | None:
        nonlocal at
        value = product()
        while (token := peek()) is not None and token[0] == "op":
            at += 1
            term = product()
            sign = 1 if token[1] == "+" else -1
            value = None if value is None or term is None else _bounded(_added(value, term, sign))
        return value

    value = total()
    if at != len(tokens):
        raise _Unreadable
    return value


def _bounded(value: Interval | None) -> Interval | None:
    """``value``, unless a bound is beyond ``_LARGEST`` or finer than its inverse ("9e99 × 9e99 × ..."):
    _Unreadable, before the exact arithmetic grows with every factor."""
    if value is not None and any(abs(x) > _LARGEST or x.denominator > _LARGEST for x in (value.low, value.high)):
        raise _Unreadable
    return value


def _added(a: Interval, b: Interval, sign: int) -> Interval:
    """``a + b`` (sign 1) or ``a - b`` (sign -1): an edge is in the result when both edges it comes
    from are."""
    if sign > 0:
        return Interval(a.low + b.low, a.high + b.high, a.low_in and b.low_in, a.high_in and b.high_in)
    return Interval(a.low - b.high, a.high - b.low, a.low_in and b.high_in, a.high_in and b.low_in)


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


def _precision(term: _Term, reading: _Reading, approximate: bool, *, exact_left: bool) -> Interval:
    """The interval a printed result agrees with, by the one rounding rule (``figures.rounds_to``):
    a decimal to its places; an integer to its trailing zeros with "≈", to itself with "=" (or, when
    the left side is itself rounded, to its unit); a whole zero to itself."""
    digits, _, exponent = _digits(term.number).lower().partition("e")
    unit = Fraction(10) ** int(exponent or 0)  # "2e9": the digits count in billions
    if "." in digits:
        step = _step(term.number)
    elif not digits.strip("0"):
        step = Fraction(0)  # a whole zero has no digit to round to: "196,608 × 1,010,000 ≈ 0 TB" is no result
    elif approximate:
        step = unit * Fraction(10) ** (len(digits) - len(digits.rstrip("0")))
    else:  # "= 671M" abbreviates: it agrees to its last digit (of three or more: "= 1M" is exact)
        abbreviated = term.suffix not in ("", "%") and len(digits.lstrip("0")) >= 3
        step = Fraction(0) if exact_left and not abbreviated else unit
    return rounds_to(number(term.number), step).scaled(_factor(term, reading))
