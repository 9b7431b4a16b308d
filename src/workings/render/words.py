"""Words for readers: units as a reader writes them, titles from the printed sentence, and record
text that cannot reorder itself on the page.

- ``reader(quantity)``: "16 billion parameters", "131,072 tokens", "196,608 bytes per token",
  "$0.14 per million tokens", not "16 Gparameter" or "131,072 token". The number is the engine's
  (``Quantity.value``), formatted by ``figures.format_number``; only the unit's words change.
- ``title(claim)``: the sentence as printed, with the figure's own text marked, so that two claims
  printed in one sentence ("48 layers and 8 KV heads") read apart.
- ``visible(text)``: Unicode bidirectional controls (U+202A-202E, U+2066-2069, U+200E, U+200F,
  U+061C) written out as ``[U+202E]``. Left in, they could make the page show digits in another
  order than the record holds ("198.6" shown as "6.891"); so are control characters other than a tab
  or a line break, and the 66 noncharacters (U+FDD0-FDEF, U+FFFE and U+FFFF of every plane: invisible,
  and an error to an HTML parser; an article's title or a probe's software version could hold one).
  The environment applies this to every value a template prints, before escaping.
"""

from __future__ import annotations

import re
from fractions import Fraction

from markupsafe import Markup

from ..figures import format_number, read_figure
from ..report import ClaimResult, Quantity

HIDDEN = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufdd0-\ufdef"
                    + "".join(chr(plane << 16 | 0xFFFE) + chr(plane << 16 | 0xFFFF) for plane in range(17)) + "]")
_PREFIX = {"k": "thousand", "M": "million", "G": "billion", "T": "trillion", "P": "quadrillion"}
_COUNTED = {"token": ("token", "tokens"), "parameter": ("parameter", "parameters"), "B": ("byte", "bytes")}
_PREFIXED = re.compile(r"^(k|M|G|T|P)?(token|parameter)$")
TITLE_CUT = 160  # characters of a sentence used as a page's <title> or a link's text


def visible(text: str) -> str:
    return HIDDEN.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def finalize(value: object) -> object:
    """The environment's ``finalize``: every printed str made bidi-visible (Markup is left alone:
    it is what the page itself built, already escaped)."""
    if value.__class__ is str:  # a plain str (Markup, a subclass, is the page's own, already escaped)
        return value if value.isascii() and value.isprintable() or not HIDDEN.search(value) else visible(value)
    if isinstance(value, str) and not hasattr(value, "__html__") and HIDDEN.search(value):
        return visible(value)
    return value


def _count_words(unit: str, plural: bool) -> str | None:
    """"million tokens" for Mtoken, "parameters" for parameter; None for a unit that is not a count."""
    match = _PREFIXED.match(unit)
    if not match:
        return None
    prefix, word = match.groups()
    noun = _COUNTED[word][1 if plural or prefix else 0]
    return f"{_PREFIX[prefix]} {noun}" if prefix else noun


def unit_words(unit: str, value: Fraction | None = None) -> str:
    """A unit label as words a reader uses: ``B/token`` -> "bytes per token"; byte sizes keep their
    symbols (GB, GiB, B), which readers write too."""
    if not unit:
        return ""
    plural = value is None or abs(value) != 1
    if "/" in unit and unit.count("/") == 1 and "*" not in unit and "^" not in unit:
        top, bottom = unit.split("/")
        top_words = "bytes" if top == "B" else (_count_words(top, True) or ("$" if top == "USD" else top))
        bottom_words = _count_words(bottom, False) or bottom
        return f"{top_words} per {bottom_words}"
    return _count_words(unit, plural) or unit


def reader(quantity: Quantity | None, *, exact: bool = False) -> str:
    """A value as a reader writes it; ``exact`` shows every digit the engine holds (to 12 places)."""
    if quantity is None:
        return ""
    value, unit = quantity.value, quantity.unit
    if exact:
        number = format_number(value, max_places=12)
    elif quantity.display and (not unit or quantity.display.endswith(" " + unit)):
        number = quantity.display[:len(quantity.display) - len(unit)].strip()  # the engine's own (2023, not 2,023)
    else:
        number = format_number(value)
    if unit == "USD" or unit.startswith("USD/"):
        sign, digits = ("−", number[1:]) if number.startswith("-") else ("", number)
        rest = unit_words(unit, value)[len("$ "):] if "/" in unit else ""
        return f"{sign}${digits}{' ' + rest if rest else ''}"
    words = unit_words(unit, value)
    return f"{number} {words}".strip()


def figure_words(text: str | None) -> str | None:
    """A figure written in a record ("16 Gparameter", "82.2 %") as a reader writes it ("16 billion
    parameters", "82.2%"); the number is kept exactly as written."""
    if not text:
        return text
    try:
        figure = read_figure(text)
    except Exception:  # noqa: BLE001 - shown as written when it does not read as a figure
        return text
    if not figure.unit:
        return figure.number
    if figure.unit == "%":
        return f"{figure.number}%"
    if figure.unit == "USD" or figure.unit.startswith("USD/"):
        rest = unit_words(figure.unit, figure.value)[len("$ "):] if "/" in figure.unit else ""
        return f"${figure.number}{' ' + rest if rest else ''}"
    return f"{figure.number} {unit_words(figure.unit, figure.value)}"


def title(claim: ClaimResult) -> dict[str, str]:
    """The claim's title: its printed sentence with the figure's text found in it, as three parts
    (before, figure, after) for the template to mark; falls back to the figure, the check, the id."""
    said = (claim.said or "").strip()
    if not said:
        return {"before": claim.figure or claim.check or claim.id, "mark": "", "after": "", "text": claim.figure
                or claim.check or claim.id}
    start, end = _figure_span(said, claim.figure)
    return {"before": said[:start], "mark": said[start:end], "after": said[end:], "text": said}


SITE_NAME = "workings ledger"
PAGE_TITLE_LIMIT = 70  # characters a tab or a search result shows of a <title> (html-validate's long-title)


def page_title(title: str) -> Markup:
    """A page's <title>: its title and the site's name, or, where both do not fit in 70 characters,
    the title alone, cut at a word with "…" (the page's h1 has it whole).

    A title's text is RCDATA: only ``&`` and ``<`` (and ``>``, for tidiness) are escaped, so a quote
    is one character, as validators count it, not ``&#34;``."""
    text = " ".join((Markup(title).unescape() if isinstance(title, Markup) else title).split())
    if len(_rcdata(text)) + len(SITE_NAME) + 3 <= PAGE_TITLE_LIMIT:
        return Markup(f"{_rcdata(text)} · {SITE_NAME}")
    if len(_rcdata(text)) > PAGE_TITLE_LIMIT:
        n, used = 0, 0
        while used + len(_rcdata(text[n])) <= PAGE_TITLE_LIMIT - 1:  # room for the "…"
            used += len(_rcdata(text[n]))
            n += 1
        cut = text[:n]
        if " " in cut and not text[n].isspace():
            cut = cut.rsplit(" ", 1)[0]
        text = cut.rstrip(" ,;:—–-") + "…"
    return Markup(_rcdata(text))


def _rcdata(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def short(text: str, limit: int = TITLE_CUT) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _figure_span(said: str, figure: str | None) -> tuple[int, int]:
    """Where the figure's number is printed in the sentence (the first place it occurs with no
    digit beside it), or (0, 0) when it is not found."""
    if not figure:
        return 0, 0
    try:
        number = read_figure(figure).number
    except Exception:  # noqa: BLE001 - a title never fails a page; the figure is shown elsewhere
        number = figure.split()[0]
    for candidate in (figure, number):
        for match in re.finditer(re.escape(candidate), said):
            before = said[match.start() - 1] if match.start() else " "
            after = said[match.end()] if match.end() < len(said) else " "
            if not before.isdigit() and not after.isdigit() and before not in ".," and after != ",":
                return match.start(), match.end()
    return 0, 0
