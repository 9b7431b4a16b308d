"""Holding a draft's figures against the ledger: which claim backs each one, and whether it agrees.

A figure is matched in two ways at once. Its sentence is aligned with each claim's ``said`` (the
share of the claim's words that the draft sentence, or the sentence with its neighbours, contains),
and its value is compared with the claim's printed figure and recomputed value, both converted into
the unit the draft printed. The draft's printed precision decides agreement ("198.6 GB" agrees with
anything that rounds to 198.6 GB), and its qualifier too ("more than 90%" agrees with 93.3%).

A figure that agrees with a claim is backed by it, if the claim itself stands. A figure that agrees
with none, in a sentence that aligns with a claim nothing else in that sentence took, is drift: the
draft prints another value than the ledger holds (or, when it agrees only with its SI and IEC
prefixes swapped, ``ambiguous``). Anything else is unbacked.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import TYPE_CHECKING

from ..frozen import frozen
from .. import units
from ..errors import LedgerError
from ..figures import Interval, format_number, read_figure, round_step, rounds_to
from ..report import ClaimResult
from .finder import Figure, find_figures, spans_in

if TYPE_CHECKING:
    from . import identity

ALIGNED = 0.6          # share of a claim's words in the draft sentence for the sentence to be "its"
# How well a sentence must align for a figure that agrees in value to be backed: a figure with a
# unit ("890 bytes") is rare enough to match on value; a bare "2", a ratio, a percentage or a bound
# ("more than 90%" agrees with anything larger) needs its sentence too.
VALUE_ALIGN = {"quantity": 0.0, "ratio": 0.15, "count": 0.35, "loose": 0.4}


_STOP = frozenset("a an and are as at be by for from in is it its of on or that the this to was with"
                  " about around roughly nearly almost more less than only just over under some".split())
_TOKEN = re.compile(r"[a-z]+")


@frozen(kw_only=True)
class ClaimView:
    """What matching needs of a claim, computed once per claim."""

    result: ClaimResult
    words: frozenset[str]
    around: frozenset[str]          # words next to the figure in ``said``
    printed: tuple[Fraction, str] | None
    recomputed: tuple[Fraction, str] | None
    shape: identity.Shape | None = None   # ``said`` as identity reads it
    place: int | None = None        # where the claim's figure stands in ``shape`` (None: not found)
    distinctive: bool = False       # ``said`` names something (a model, a literal number)
    bound: int = 0                  # the figure in ``said`` is a lower bound (1: "at least"), an upper (-1) or neither
    qualifier: str | None = None    # its qualifier as the finder reads it ("more than", "about")
    pers: frozenset[str] | None = None  # what the figure is per, in ``said`` or its unit ("token" of B/token)
    direction: int = 0              # a ratio in ``said``: 1 up ("5 times bigger", "doubles"), -1 down ("halves")


@frozen(kw_only=True)
class Match:
    status: str                     # backed | drift | ambiguous | erratum | unchecked | unbacked
    reason: str
    claim: ClaimResult | None = None
    printed: str | None = None      # the claim's figure as printed
    recomputed: str | None = None   # the claim's recomputed value, in the draft's unit where it converts
    same_value: tuple[str, ...] = ()  # unbacked: claims holding the same value in other sentences


def words(text: str) -> frozenset[str]:
    return frozenset(_TOKEN.findall(text.lower())).difference(_STOP)  # a set operation, not a loop in Python


def views(claim: ClaimResult) -> list[ClaimView]:
    """The claim as matching sees it in its own sentence, then in each sentence of ``also_said``
    (a repeated mention of the same figure)."""
    return [view(claim)] + [view(claim, said=s) for s in claim.also_said or ()]


def view(claim: ClaimResult, said: str | None = None) -> ClaimView:
    said = claim.said or "" if said is None else said
    printed = None
    around: frozenset[str] = frozenset()
    if claim.figure:
        try:
            figure = read_figure(claim.figure)
            printed = (figure.value, figure.unit)
        except LedgerError:
            printed = None
    recomputed = (claim.result.value, claim.result.unit) if claim.result else None
    partial = ClaimView(result=claim, words=words(said), around=around, printed=printed, recomputed=recomputed)
    # Where the claim's figure sits in its own sentence, found as the draft's figures are found:
    # its place is what a draft figure must hold to be this claim's; the words around it tell two
    # figures of one sentence apart.
    from . import identity  # here, not on import: verify's sentence check uses this module, never a view

    found = find_figures(said).figures
    spans = spans_in(said, found)
    shape = identity.shape(said, spans)
    place = None
    if printed:
        for wanted in ("printed", "recomputed"):
            spots = [i for i, f in enumerate(found) if compare(f, partial)[0] == wanted]
            if spots:
                named = set(_TOKEN.findall(claim.id.rsplit("/", 1)[-1].lower()))
                unit = (printed or recomputed)[1]
                best = max(spots, key=lambda i: (found[i].unit == unit, len(named & near(found[i]))))
                around, place = near(found[best]), shape.places[best]
                break
    own = found[best] if place is not None else None
    bound = BOUNDS.get(own.qualifier or "", 0) if own else 0
    pers = _pers_of((printed or recomputed or (0, ""))[1], own)
    return ClaimView(result=claim, words=partial.words, around=around, printed=printed, recomputed=recomputed,
                     shape=shape, place=place, distinctive=identity.distinctive(said, spans), bound=bound,
                     pers=pers, direction=direction(own) if own else 0, qualifier=own.qualifier if own else None)


def near(figure: Figure) -> frozenset[str]:
    """The words just before and after a figure in its sentence, and its own. The figure's own
    place is used where the finder knows it; only a few words either side are read, so that the
    cost does not grow with the sentence."""
    sentence = figure.sentence
    spot = figure.offset
    if not (0 <= spot and sentence.startswith(figure.text, spot)):
        spot = sentence.find(figure.text)
    if spot < 0:
        return words(sentence)
    before = last_words(sentence, spot, 3)
    after = first_words(sentence, spot + len(figure.text), 4)
    return words(" ".join(before + figure.text.split() + after))


def last_words(text: str, end: int, count: int) -> list[str]:
    """``text[:end].split()[-count:]``, reading only as far back as it needs."""
    width = 64
    while True:
        start = max(0, end - width)
        found = text[start:end].split()
        if start == 0 or len(found) > count:  # the first may be cut; the last ``count`` are whole
            return found[-count:]
        width *= 4


def first_words(text: str, start: int, count: int) -> list[str]:
    """``text[start:].split()[:count]``, reading only as far on as it needs."""
    width = 64
    while True:
        end = min(len(text), start + width)
        found = text[start:end].split()
        if end == len(text) or len(found) > count:
            return found[:count]
        width *= 4


def align(claim: ClaimView, sentence: frozenset[str], window: frozenset[str]) -> float:
    if not claim.words:
        return 0.0
    inside = len(claim.words & sentence) / len(claim.words)
    return max(inside, 0.9 * len(claim.words & window) / len(claim.words))


@functools.lru_cache(maxsize=1024)
def base_of(unit: str) -> tuple[Fraction, str] | None:
    """(factor to base units, dimensionality) of a unit string; None when it does not parse."""
    try:
        value = units.quantity(1, unit).to_base_units()
    except (LedgerError, Exception):  # pint raises many types for text it cannot read
        return None
    return Fraction(value.magnitude), str(value.dimensionality)


def in_unit(value: Fraction, unit: str, target: str) -> Fraction | None:
    """``value`` (in ``unit``) expressed in ``target``; a "per token" present on one side only is
    dropped ("890 bytes" is read against 890 B/token); two different ones are not ("890 bytes per
    parameter" is no reading of 890 B/token). None when the dimensions differ."""
    tries = [(unit, target)]
    if ("/" in unit) != ("/" in target):
        tries.append((unit.split("/")[0], target.split("/")[0]))
    for have, want in tries:
        a, b = base_of(have), base_of(want)
        if a and b and a[1] == b[1]:
            return value * a[0] / b[0]
    return None


# "per layer", "per second": a "per" the finder reads past without taking it into the unit.
_PER_NOUN = re.compile(r"\bper\s++(?:(?:million|thousand|billion|M|K)\s++)?([A-Za-z]{1,20}+)\b")


# "…per token, per layer", "… in every layer", "… for each user": per something more
_PER_AFTER = re.compile(r"[ \t]*+,?[ \t]*+(?:and[ \t]++)?+"
                        r"(?:per|(?:(?:in|for|at|on|across|over)[ \t]++)?+(?:each|every)"
                        r"(?:[ \t]++of(?:[ \t]++(?:the|its|their|these|those|our|all))?+(?:[ \t]++[\w-]{1,12}+)?)?)"
                        r"[ \t]++(?!(?:the|a|an|our|its|their|this|that|his|her|my|your|cent)\b)([A-Za-z]{1,20}+)\b"
                        r"|[ \t]*+,?[ \t]*+([A-Za-z]{1,20}+)[ \t]++by[ \t]++\2\b")  # "..., layer by layer"
_NOT_PER = frozenset({"cent", "mille", "the", "a", "an"})  # "12.5 per cent" is a percent; "per the config" a source


def _pers_of(unit: str, figure: Figure | None) -> frozenset[str]:
    """What a figure is per: the noun after "/" in its unit, after "per" in its words, and in a "per ..."
    right after them ("196,608 bytes per token, per layer": token and layer)."""
    out = {unit.partition("/")[2].strip()} if "/" in unit else set()
    if figure is not None:
        out.update(noun.lower() for noun in _PER_NOUN.findall(figure.text) if noun.lower() not in _NOT_PER)
        if 0 <= figure.offset and (after := _PER_AFTER.match(figure.sentence, figure.offset + len(figure.text))):
            out.add((after.group(1) or after.group(2)).lower())
    out.discard("")
    return frozenset(out)


def adds_per(figure: Figure, claim: ClaimView) -> bool:
    """Whether the draft says its figure is per something its claim is not ("80 GB per second" where the
    claim is 80 GB; "196,608 bytes per token, per layer" where it is per token). A "per" the draft leaves
    out is an abbreviation ("890 bytes" for 890 B/token); one it adds is another quantity."""
    theirs = claim.pers
    if theirs is None:  # the claim's own figure is still being looked for in its sentence
        return False
    for noun in _pers_of(figure.unit, figure):
        if noun in theirs or noun.endswith("s") and noun[:-1] in theirs:
            continue
        ours = base_of(noun) or (base_of(noun[:-1]) if noun.endswith("s") else None)
        if ours is None or not any((b := base_of(t)) is not None and b[1] == ours[1] for t in theirs):
            return True
    return False


def direction(figure: Figure) -> int:
    """A ratio's direction as printed: 1 up ("5 times bigger", "doubles"), -1 down ("5 times smaller",
    "halves", "a quarter"), 0 for any other figure."""
    if figure.kind != "ratio":
        return 0
    return -1 if figure.inverse or figure.value < 1 else 1


def other_per(printed: str, unit: str) -> bool:
    """Whether ``printed`` (a figure's words) says "per" something that ``unit`` is not per: "196,608
    bytes per layer" or "per second" is no reading of 196,608 B/token, though "196,608 bytes" is. A
    noun of the unit's own dimension ("per second" for ``B/s``) is not another."""
    per = unit.partition("/")[2]
    found = _PER_NOUN.search(printed) if per else None
    if found is None:
        return False
    ours, noun = base_of(per), found.group(1).lower()
    theirs = [base_of(n) for n in {noun, noun[:-1] if noun.endswith("s") else noun}]
    return ours is None or not any(t is not None and t[1] == ours[1] for t in theirs)


def readings(figure: Figure) -> list[str]:
    """"KB" is read as kB and as KiB; every other unit as printed."""
    return units.readings(figure.unit) if figure.unit else [""]


def agrees(figure: Figure, value: Fraction) -> bool:
    """Whether ``value`` (in the figure's unit) is what the figure says, at its printed precision."""
    candidates = [value]
    if figure.kind == "ratio" and value and (figure.inverse or figure.value < 1):
        # "437 times smaller", "a quarter": a reduction, which a record may write either way up
        # ("437" or "1/437"). "doubles" is never read as "halves".
        candidates.append(1 / value)
    return any(_agrees(figure, c) for c in candidates)


def _agrees(figure: Figure, value: Fraction) -> bool:
    printed = figure.value
    if figure.upper is not None:  # a range: from what rounds to its low end to what rounds to its high end
        low, high = rounds_to(printed, figure.step or 0), rounds_to(figure.upper, figure.step or 0)
        return value in Interval(low.low, high.high, low.low_in, high.high_in)
    if figure.qualifier == "more than":  # strict: "more than 80 GB" is not 80 GB
        return value > printed
    if figure.qualifier == "at least":
        return value >= printed
    if figure.qualifier == "less than":
        return value < printed
    if figure.qualifier == "at most":
        return value <= printed
    if figure.step is None:
        if figure.qualifier in ("about", "nearly"):
            return abs(value - printed) <= abs(printed) / 20
        return value == printed
    step = figure.step
    digits = figure.number.replace(",", "")
    if figure.qualifier in ("about", "nearly") and abs(printed - value) > abs(value) * ABOUT:
        return False  # "about 10 times" for 5, "about 100 GB" for 80, "about 0.1 TB" for 80 GB: farther than "about"
    if figure.qualifier in ("about", "nearly") and "." not in digits and digits.isdigit() and digits.strip("0"):
        step *= 10 ** (len(digits) - len(digits.rstrip("0")))  # "about" widens to the trailing zeros
    # the ledger's one rounding (half away from zero): "about 100 GB" is not 198.6 GB cut down, nor
    # "about 2,000,000 tokens" 1,010,000 pushed up
    return round_step(value, step) == printed


ABOUT = Fraction(1, 5)  # how far "about" a round number may be from the value: "about 300,000" for 262,144 is


# A bound's direction: "at least 320GB" is a lower bound, "up to 320GB" an upper one
BOUNDS = {"more than": 1, "at least": 1, "less than": -1, "at most": -1}


def compare(figure: Figure, claim: ClaimView) -> tuple[str | None, str | None]:
    """How the figure agrees with the claim: "printed", "recomputed", "reading" (only under one
    reading of KB), "swapped" (only with SI and IEC swapped), or None; and the recomputed value
    shown in the draft's unit. A bound the other way round from the claim's own ("at most 320GB"
    where the claim's sentence says "at least 320GB") never agrees."""
    shown = None
    if claim.recomputed and (converted := values_in(claim.recomputed, figure)):
        shown = _shown(*converted[-1])
    if claim.bound and BOUNDS.get(figure.qualifier or "", 0) == -claim.bound:
        return None, shown
    if claim.direction and direction(figure) == -claim.direction:  # "5 times smaller" for "5 times bigger"
        return None, shown
    if adds_per(figure, claim):
        return None, shown
    for name, pair in (("printed", claim.printed), ("recomputed", claim.recomputed)):
        if pair is None:
            continue
        if name == "printed" and claim.pers is not None and (claim.bound or BOUNDS.get(figure.qualifier or "")) \
                and figure.qualifier != claim.qualifier:  # (a view still locating its figure has no pers yet)
            # a bound on one side only ("more than 90%" printed, "90%" drafted; "at most 286,000" against a
            # printed 286,000 rounded down from 286,658): held to the value, not to the printed number
            continue
        if name == "printed" and figure.qualifier and (claim.pers is None or figure.qualifier == claim.qualifier) \
                and (converted := values_in(pair, figure)) and any(v == figure.value for _, v in converted):
            return name, shown  # "more than 90%" printed as its claim prints it (or the claim's own, being located)
        holding = _holding(figure, pair)
        if holding and (holding >= set(readings(figure)) or figure.unit in holding):
            return name, shown
        if holding:
            return "reading", shown
    swapped = units.other_reading(figure.unit) if figure.unit else None
    if swapped and claim.recomputed:
        c = in_unit(claim.recomputed[0], claim.recomputed[1], swapped)
        if c is not None and agrees(figure, c):
            return "swapped", shown
    return None, shown


def states(figure: Figure, pair: tuple[Fraction, str]) -> bool:
    """Whether a (value, unit) states the figure's value under every reading of its unit (or the
    unit as printed): what ``compare`` calls "printed" agreement."""
    holding = _holding(figure, pair)
    return bool(holding) and (holding >= set(readings(figure)) or figure.unit in holding)


def _holding(figure: Figure, pair: tuple[Fraction, str]) -> set[str]:
    """The readings of the figure's unit under which ``pair`` agrees with it."""
    return {reading for reading, value in values_in(pair, figure) if agrees(figure, value)}


@functools.lru_cache(maxsize=4096)
def _shown(reading: str, value: Fraction) -> str:
    return f"{format_number(value, max_places=3)} {reading}".strip()


def values_in(pair: tuple[Fraction, str], figure: Figure) -> list[tuple[str, Fraction]]:
    """A claim's (value, unit) in each reading of the figure's unit; the same unit string as
    printed ("KB" and "KB") compares as it stands. None where the figure is per something the
    claim is not ("114,688 bytes per layer" against 114,688 B/token)."""
    if "/" not in figure.unit and "/" in pair[1] and other_per(figure.text, pair[1]):
        return []
    return list(_values_in(pair[0], pair[1], figure.unit, figure.kind == "count" and not figure.unit))


# A plural noun, or a device's name, after a bare number: what it counts ("80 layers", "80 H100s"); a verb
# in -s after it is no such noun ("the 30.1 sounds like a lot")
_WORD_AFTER = re.compile(r"[ \t]*+([A-Za-z][\w-]{0,40}+)")
_VERBS_IN_S = frozenset({"is", "was", "has", "does", "sounds", "seems", "looks", "means", "shows", "makes", "comes",
                         "goes", "adds", "gives", "takes", "needs", "holds", "stays", "remains", "says", "appears",
                         "fits", "uses", "costs", "grows", "stands", "matches", "includes", "covers", "counts"})


def counts_a_thing(figure: Figure) -> bool:
    """Whether a bare number counts the thing named after it ("80 layers", "80 H100s"): then, tied by a
    marker to a claim with a unit, it is a count of that, not the claim's figure with its unit left
    unsaid ("the 890 is ..."). (In the claim's own sentence the words are the claim's: "the last 128
    positions" is its 128 tokens.)"""
    if figure.offset < 0 or not figure.sentence.startswith(figure.text, figure.offset):
        return False
    after = _WORD_AFTER.match(figure.sentence, figure.offset + len(figure.text))
    if after is None:
        return False
    word = after.group(1)
    if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):  # "H100s", "A100"
        return True
    return word.endswith("s") and not word.endswith("ss") and word.lower() not in _VERBS_IN_S


@functools.lru_cache(maxsize=65536)  # a draft's figures meet the same few claims and units again and again
def _values_in(value: Fraction, unit: str, target: str, bare: bool) -> tuple[tuple[str, Fraction], ...]:
    if unit == target or bare:
        return ((target, value),)  # the same unit; or "the 890" for 890 B/token, unit left unsaid
    out = []
    for theirs in units.readings(unit) if unit else [""]:
        for ours in units.readings(target) if target else [""]:
            if (c := in_unit(value, theirs, ours)) is not None:
                out.append((ours, c))
    return tuple(out)


def compatible(figure: Figure, claim: ClaimView) -> bool:
    """Whether the claim's figure could be the same kind of figure (same dimension)."""
    pair = claim.printed or claim.recomputed
    return pair is not None and bool(values_in(pair, figure)) and not adds_per(figure, claim)


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = re.search(r"[.!?](?=\s|$)", text)
    return text[: end.end()] if end else text[:200]


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def numbers_in(check: str | None) -> set[Fraction]:
    """The numbers written in a relation's ``check``."""
    return {Fraction(n) for n in _NUMBER.findall(check or "")}
