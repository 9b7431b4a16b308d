"""Numbers written as words: "sixty", "a quarter", "an eighth", "halves",
"one four-hundred-and-thirty-seventh" (1/437), "three or four", "twice".

The parser walks a list of words (no regular expression over the phrase, so nothing can backtrack)
and returns the longest well-formed number starting at a given word, or None. Whether a number word
is a figure at all ("one chat" is not; "four times" is) is the finder's decision, not this module's.

Units: the words a figure is printed with, read into the ledger's unit names.

"bytes per token" is ``B`` per ``token``, "GB" is ``GB``, "KB" stays ``KB`` (the ledger reports it as
ambiguous), "per million tokens" is per ``Mtoken``, "%" and "percent" are ``percent``, "times" and
"-fold" make a ratio. A letter glued to the number scales it: "1M" is a million, "552B" is 552
billion (of parameters: in this field a glued B counts parameters; bytes are written "bytes" or with
a space, "2 B"). Every pattern is anchored at the end of the number and matches at most a few words.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..frozen import frozen

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
    " sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i >= 2}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}

# Ordinals read as the cardinal they name, for fractions' denominators ("an eighth", "one
# four-hundred-and-thirty-seventh"). "first" and "second" only end a longer one ("hundred and first").
_AS_CARDINAL = {"first": "one", "second": "two", "third": "three", "fourth": "four", "fifth": "five",
                "sixth": "six", "seventh": "seven", "eighth": "eight", "ninth": "nine", "tenth": "ten",
                "eleventh": "eleven", "twelfth": "twelve", "thirteenth": "thirteen", "fourteenth": "fourteen",
                "fifteenth": "fifteen", "sixteenth": "sixteen", "seventeenth": "seventeen",
                "eighteenth": "eighteen", "nineteenth": "nineteen", "twentieth": "twenty", "thirtieth": "thirty",
                "fortieth": "forty", "fiftieth": "fifty", "sixtieth": "sixty", "seventieth": "seventy",
                "eightieth": "eighty", "ninetieth": "ninety", "hundredth": "hundred", "thousandth": "thousand",
                "millionth": "million", "billionth": "billion"}

MULTIPLIERS = {"twice": Fraction(2), "double": Fraction(2), "doubles": Fraction(2), "doubled": Fraction(2),
               "thrice": Fraction(3), "triples": Fraction(3), "tripled": Fraction(3),
               "quadruples": Fraction(4), "quadrupled": Fraction(4),
               "halve": Fraction(1, 2), "halves": Fraction(1, 2), "halved": Fraction(1, 2),
               "halving": Fraction(1, 2)}

_WORD = re.compile(r"[A-Za-z]+")
_LONGEST = 32  # words in a number written out


@frozen
class Word:
    text: str      # lower case
    start: int     # offsets in the paragraph
    end: int
    joined: bool   # separated from the previous word by whitespace or one hyphen only


@frozen
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
    # A written number is a few words long ("four hundred and thirty-seven thousand two hundred and
    # one" is eleven); looking further would make "one thousand one thousand ..." quadratic.
    while j < min(len(words), i + _LONGEST):
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
                and words[j + 1].joined and (words[j + 1].text in _UNITS or words[j + 1].text in _TENS):
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
    """A denominator: "quarter(s)", "eighth(s)", "four-hundred-and-thirty-seventh", "thousandth".

    The ordinal word is read as its cardinal ("seventh" as "seven", "hundredth" as "hundred") and
    the whole phrase as a cardinal, so "one-thousand-two-hundredth" is 1,200."""
    special = {"quarter": 4, "quarters": 4, "half": 2}
    if words[i].text in special:
        return WordNumber(Fraction(special[words[i].text]), i, i + 1, "ordinal")
    j = i
    # A written number is a few words long; looking further would make "one one one ..." quadratic.
    while j < min(len(words), i + 16) and (j == i or words[j].joined):
        text = words[j].text
        stem = text[:-1] if text.endswith("s") and text[:-1] in _AS_CARDINAL else text
        if stem in _AS_CARDINAL:
            if j == i and stem in ("first", "second"):
                return None  # "one second" is a time
            phrase = [*words[i:j], Word(_AS_CARDINAL[stem], words[j].start, words[j].end, words[j].joined)]
            number = cardinal(phrase, 0)
            if number is None and len(phrase) == 1 and phrase[0].text in ("hundred", *_SCALES):
                number = WordNumber(Fraction(_SCALES.get(phrase[0].text, 100)), 0, 1, "cardinal")  # "hundredth"
            if number is None or number.stop != len(phrase):
                return None
            return WordNumber(number.value, i, j + 1, "ordinal")
        if not (is_number_word(text) or text == "and"):
            return None
        j += 1
    return None


def number_at(words: list[Word], i: int) -> WordNumber | None:
    """The number written in words starting at ``words[i]``, preferring a fraction ("one eighth",
    "a quarter", "two thirds") over a cardinal ("one"), and None when there is none."""
    word = words[i].text
    if word in MULTIPLIERS:
        return WordNumber(MULTIPLIERS[word], i, i + 1, "multiplier")
    if word in _BARE_SCALES and i + 1 < len(words) and words[i + 1].start == words[i].end + 1 \
            and _HYPHENED.fullmatch(words[i + 1].text):
        return WordNumber(Fraction(_BARE_SCALES[word]), i, i + 1, "cardinal")  # "supports million-token context"
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


# A scale word alone before what it counts: "million-token context", "the million token mark" are a million tokens
_BARE_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_HYPHENED = re.compile(r"tokens?|parameters?|params?")


# Units printed after a number.

# after a space or a no-break space ("1.34\u00a0GB")
# or an HTML entity of one ("80&nbsp;GB", "80&#160;GB")
_SYMBOL = re.compile(r"(?:[ \u00a0\u202f\u2009]++|&nbsp;|&#160;|&#[xX][aA]0;)?+(KiB|MiB|GiB|TiB|PiB|kB|KB|MB|GB|TB|PB"
                     r"|kb|mb|gb|tb|kib|mib|gib|tib)(?![A-Za-z])")
# Byte symbols written in lower case, as pages about memory do ("800kb per token", "1.6gb"): bytes, not bits
# (a bit is written "Gb" or "Gbit"), and "kb" as ambiguous as "KB"
_LOWER_BYTES = {"kb": "KB", "mb": "MB", "gb": "GB", "tb": "TB", "kib": "KiB", "mib": "MiB", "gib": "GiB", "tib": "TiB"}
# "1m" is a million only before tokens or a context ("1m tokens", "at 1m context"): alone it may be
# a metre or a minute.
_GLUED_SCALE = re.compile(r"(K|k|M|B|bn|T|m(?=(?:\s++|-)(?:tokens?|context)\b))(?![A-Za-z])")
_GLUED_SCALES = {"K": 10**3, "k": 10**3, "M": 10**6, "m": 10**6, "B": 10**9, "bn": 10**9, "T": 10**12}
_SCALE_WORD = re.compile(r"(?:\s++|-)(thousand|million|billion|trillion)\b", re.IGNORECASE)
# Chinese counts in ten-thousands and hundred-millions: "6710 亿" is 671 billion, "12.8万" 128,000; the
# same written in Japanese or traditional Chinese ("10億" is a billion) and in Korean ("700억").
_CJK_SCALE = re.compile(r" ?+(万亿|万億|萬億|万|萬|亿|億|억)")
_CJK_SCALES = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8, "억": 10**8, "万亿": 10**12, "万億": 10**12,
               "萬億": 10**12}
# Bytes and bits named in Chinese, Japanese or Korean: "4 字节", "2バイト", "4바이트(32비트)"
_CJK_UNIT = re.compile(r" ?+(字节|字節|バイト|바이트|比特|ビット|비트)")
_CJK_UNITS = {"字节": "B", "字節": "B", "バイト": "B", "바이트": "B", "比特": "bit", "ビット": "bit", "비트": "bit"}
# A rate or a share written with a slash: "1,008 GB/s", "65.5 KB/token", "150 tok/s"
_SLASH = re.compile(r"/(tokens?|toks?|s|sec|seconds?|param(?:eter)?s?)(?![\w/])", re.IGNORECASE)
_SLASHED = {"token": "token", "tokens": "token", "tok": "token", "toks": "token", "s": "s", "sec": "s",
            "second": "s", "seconds": "s", "param": "parameter", "params": "parameter", "parameter": "parameter",
            "parameters": "parameter"}
_UNIT_WORD = re.compile(
    r"(?:\s++|-)(bytes?|bits?|(?:kilo|mega|giga|tera|peta|kibi|mebi|gibi|tebi)bytes?|tokens?|toks?(?=/)|parameters?"
    r"|params|percent|per\s++cent|minutes?|mins?|hours?|seconds?|days?|dollars?|USD)\b"
    r"|[ \u00a0\u202f\u2009]?+(%)", re.IGNORECASE)
_WORDS = {"byte": "B", "bit": "bit", "kilobyte": "kB", "megabyte": "MB", "gigabyte": "GB",
          "terabyte": "TB", "petabyte": "PB", "kibibyte": "KiB", "mebibyte": "MiB", "gibibyte": "GiB",
          "tebibyte": "TiB", "token": "token", "tok": "token", "parameter": "parameter", "param": "parameter",
          "percent": "percent", "per cent": "percent", "%": "percent", "minute": "minute", "min": "minute",
          "hour": "hour", "second": "second", "day": "day", "dollar": "USD", "usd": "USD"}
# "6.7 times", "3-fold", "5x", "37× short"; a spaced "2 × layers" or "2 x batch_size" is an operator.
_TIMES = re.compile(r"\s*+times\b|-?fold\b|[x×](?![\w.])(?!\s*+\d)|\s++[x×](?![\w.])(?!\s*+[\w(])",
                    re.IGNORECASE)
_SMALLER = re.compile(r"\s++(?:smaller|less|fewer|lower|cheaper|shorter|slower|narrower)\b", re.IGNORECASE)
# "bytes per token", '"800 KB" per token', "bytes of KV cache per token", "per million tokens".
_PER = re.compile(r"(?:\s*+[\"”’'»]++)?+(?:\s++of(?:\s++[A-Za-z]{1,20}+){1,3}?)?\s++per\s++"
                  r"(?:(million|thousand|billion|M|K)\s++)?([A-Za-z]{1,20}+)\b")
_PER_UNITS = {"token": "token", "tokens": "token", "parameter": "parameter", "parameters": "parameter"}
_PER_SCALES = {"million": "M", "m": "M", "thousand": "k", "k": "k", "billion": "G"}


@frozen
class UnitRead:
    unit: str            # "B", "GB", "token", "percent", "" (none)
    per: str             # "/token", "/Mtoken", ""
    kind: str            # quantity | ratio | count
    inverse: bool        # "times smaller"
    end: int             # where the figure's text ends
    scale: int           # from "million", "1M", "552B"


def scale_of(read: UnitRead) -> Fraction:
    return Fraction(read.scale)


def read_unit(text: str, pos: int, *, glued: bool = True, currency: bool = False) -> UnitRead:
    """The unit words printed from ``pos`` on (just after a number); ``currency``: after a "$"."""
    if currency:  # "$0.25 per million tokens", "$3B", "$2.5 billion"
        scale, _, pos = _scale_at(text, pos, glued)
        return _with_per(text, pos, "USD", scale)
    if match := _SYMBOL.match(text, pos):
        return _with_per(text, match.end(), _LOWER_BYTES.get(match.group(1), match.group(1)), 1)
    scale, billions, pos = _scale_at(text, pos, glued)
    if match := _UNIT_WORD.match(text, pos):
        word = re.sub(r"\s+", " ", (match.group(1) or match.group(2)).lower())
        unit = _WORDS.get(word) or _WORDS.get(word[:-1] if word.endswith("s") else word, "")
        return _with_per(text, match.end(), unit, scale)
    if match := _CJK_UNIT.match(text, pos):
        return _with_per(text, match.end(), _CJK_UNITS[match.group(1)], scale)
    if match := _TIMES.match(text, pos):
        end = match.end()
        smaller = _SMALLER.match(text, end)
        return UnitRead("", "", "ratio", smaller is not None, smaller.end() if smaller else end, scale)
    # "13B at a time", "67B dense model": a glued B counts parameters.
    return UnitRead("parameter" if billions else "", "", "quantity" if billions else "count", False, pos, scale)


def _scale_at(text: str, pos: int, glued: bool) -> tuple[int, bool, int]:
    """The scale printed from ``pos`` on ("128K", "552B", "1.3 trillion", "6710 亿"), whether it is a
    glued B (a count of parameters), and where it ends."""
    scale, billions = 1, False
    if glued and (match := _GLUED_SCALE.match(text, pos)):
        scale, billions, pos = _GLUED_SCALES[match.group(1)], match.group(1) in ("B", "bn"), match.end()
    if match := _SCALE_WORD.match(text, pos):
        scale, pos = scale * _SCALES[match.group(1).lower()], match.end()
    elif scale == 1 and (match := _CJK_SCALE.match(text, pos)):
        scale, pos = _CJK_SCALES[match.group(1)], match.end()
    return scale, billions, pos


def _with_per(text: str, pos: int, unit: str, scale: int) -> UnitRead:
    per = ""
    if unit and (match := _SLASH.match(text, pos)):  # "GB/s", "KB/token"
        return UnitRead(unit, f"/{_SLASHED[match.group(1).lower()]}", "quantity", False, match.end(), scale)
    if unit and (match := _PER.match(text, pos)):
        noun = match.group(2).lower()
        if noun in _PER_UNITS:
            prefix = _PER_SCALES.get((match.group(1) or "").lower(), "")
            per = f"/{prefix}{_PER_UNITS[noun]}" if prefix != "M" else "/Mtoken" if noun.startswith("token") \
                else f"/M{_PER_UNITS[noun]}"
        pos = match.end()
    return UnitRead(unit, per, "quantity" if unit else "count", False, pos, scale)
