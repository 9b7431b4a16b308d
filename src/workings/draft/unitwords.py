"""The words a figure is printed with, read into the ledger's unit names.

"bytes per token" is ``B`` per ``token``, "GB" is ``GB``, "KB" stays ``KB`` (the ledger reports it as
ambiguous), "per million tokens" is per ``Mtoken``, "%" and "percent" are ``percent``, "times" and
"-fold" make a ratio. A letter glued to the number scales it: "1M" is a million, "552B" is 552
billion (of parameters: in this field a glued B counts parameters; bytes are written "bytes" or with
a space, "2 B"). Every pattern is anchored at the end of the number and matches at most a few words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

_SYMBOL = re.compile(r" ?+(KiB|MiB|GiB|TiB|PiB|kB|KB|MB|GB|TB|PB)(?![A-Za-z])")
_GLUED_SCALE = re.compile(r"(K|k|M|B|bn|T)(?![A-Za-z])")
_GLUED_SCALES = {"K": 10**3, "k": 10**3, "M": 10**6, "B": 10**9, "bn": 10**9, "T": 10**12}
_SCALE_WORD = re.compile(r"(?:\s++|-)(thousand|million|billion|trillion)\b", re.IGNORECASE)
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_WORD = re.compile(
    r"(?:\s++|-)(bytes?|bits?|(?:kilo|mega|giga|tera|peta|kibi|mebi|gibi|tebi)bytes?|tokens?|parameters?"
    r"|params|percent|per\s++cent|minutes?|mins?|hours?|seconds?|days?|dollars?|USD)\b"
    r"| ?+(%)", re.IGNORECASE)
_WORDS = {"byte": "B", "bit": "bit", "kilobyte": "kB", "megabyte": "MB", "gigabyte": "GB",
          "terabyte": "TB", "petabyte": "PB", "kibibyte": "KiB", "mebibyte": "MiB", "gibibyte": "GiB",
          "tebibyte": "TiB", "token": "token", "parameter": "parameter", "param": "parameter",
          "percent": "percent", "per cent": "percent", "%": "percent", "minute": "minute", "min": "minute",
          "hour": "hour", "second": "second", "day": "day", "dollar": "USD", "usd": "USD"}
_TIMES = re.compile(r"\s*+(?:times\b|x(?![\w.])|×(?!\s*+\d))|-?fold\b", re.IGNORECASE)
_SMALLER = re.compile(r"\s++(?:smaller|less|fewer|lower|cheaper|shorter|slower|narrower)\b", re.IGNORECASE)
# "bytes per token", '"800 KB" per token', "bytes of KV cache per token", "per million tokens".
_PER = re.compile(r"(?:\s*+[\"”’'»]++)?+(?:\s++of(?:\s++[A-Za-z]{1,20}+){1,3}?)?\s++per\s++"
                  r"(?:(million|thousand|billion|M|K)\s++)?([A-Za-z]{1,20}+)\b")
_PER_UNITS = {"token": "token", "tokens": "token", "parameter": "parameter", "parameters": "parameter"}
_PER_SCALES = {"million": "M", "m": "M", "thousand": "k", "k": "k", "billion": "G"}


@dataclass(frozen=True)
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
    if currency:
        return _with_per(text, pos, "USD", 1)
    if match := _SYMBOL.match(text, pos):
        return _with_per(text, match.end(), match.group(1), 1)
    scale, billions = 1, False
    if glued and (match := _GLUED_SCALE.match(text, pos)):
        scale, billions, pos = _GLUED_SCALES[match.group(1)], match.group(1) in ("B", "bn"), match.end()
    if match := _SCALE_WORD.match(text, pos):
        scale, pos = scale * _SCALES[match.group(1).lower()], match.end()
    if match := _WORD.match(text, pos):
        word = re.sub(r"\s+", " ", (match.group(1) or match.group(2)).lower())
        unit = _WORDS.get(word) or _WORDS.get(word[:-1] if word.endswith("s") else word, "")
        return _with_per(text, match.end(), unit, scale)
    if match := _TIMES.match(text, pos):
        end = match.end()
        smaller = _SMALLER.match(text, end)
        return UnitRead("", "", "ratio", smaller is not None, smaller.end() if smaller else end, scale)
    # "13B at a time", "67B dense model": a glued B counts parameters.
    return UnitRead("parameter" if billions else "", "", "quantity" if billions else "count", False, pos, scale)


def _with_per(text: str, pos: int, unit: str, scale: int) -> UnitRead:
    per = ""
    if unit and (match := _PER.match(text, pos)):
        noun = match.group(2).lower()
        if noun in _PER_UNITS:
            prefix = _PER_SCALES.get((match.group(1) or "").lower(), "")
            per = f"/{prefix}{_PER_UNITS[noun]}" if prefix != "M" else "/Mtoken" if noun.startswith("token") \
                else f"/M{_PER_UNITS[noun]}"
        pos = match.end()
    return UnitRead(unit, per, "quantity" if unit else "count", False, pos, scale)
