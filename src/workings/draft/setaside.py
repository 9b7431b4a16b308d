"""What looks like a number in a draft but is not a figure: dates and times, list numbering, versions, names
of models, hardware and number formats, numbered references ("Issue 001", "Page 4", a source file's
line), ordinals, URLs and code.

Each is found as a span of a paragraph with a reason; the finder skips every number inside one and
the check can list them, so an editor sees what was passed over and why. Every pattern here is
linear: no nested quantifier can match the same text two ways.
"""

from __future__ import annotations

import re

from ..frozen import frozen
from .digits import ByScript
from .text import SUPERSCRIPTS, Paragraph

_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
          r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)")
# A number followed by one of these is a quantity, not a year or a day of the month; so is the first
# of a range of them ("in 2048-4096 tokens").
_UNIT_AHEAD = (r"(?!(?:\s*+(?:[–—-]|to)\s*+\d[\d,]*+)?+\s*+(?:%|percent|bytes?\b|bits?\b|tokens?\b"
               r"|[kKMGTP]i?B\b|parameters?\b|layers?\b|heads?\b|times\b|GPUs?\b|chats?\b))")
_YEAR = r"(?:1[89]|20)\d{2}"
# A graphics card's bare number ("2x 3090", "two 4090s", "dual 7900"): GeForce 1050 to 5090, Radeon 6800 to
# 7900. Set aside only after a count glued to its "x", after "dual" or a count and before a plural, or before a
# card's word, and never before a unit or an operator: "by 2060" is a year, "2050 GPUs" and "4 × 3070 tokens"
# counts, "1920 x 1080" a size, "in the 2070s" a decade.
CARD = r"(?<![\d.,])(?:[1-5]0[5-9]0|[67][89]00)(?![\d.,]\d)"
CARD_MODEL = r"[ \t]++(?:Ti|XTX?|SUPER|Super)\b"  # "3090 Ti", "7900 XTX", "4070 SUPER"
CARD_BEFORE = r"(?:(?<![\d.,])\d{1,3}+[x×][ \t]*+|(?i:\b(?:dual|twin|quad)[ \t]++))"  # "2x ", "dual "
# what a card's number may not stand before: a unit, a count's word or an operator (but for a product
# with the card's memory: "2x 3090 × 24 GB")
CARD_MEMORY = r"[ \t]*+\(?+[ \t]*+\d[\d.,]*+[ \t]*+[GT]i?B\b"
CARD_NOT_BEFORE = (rf"(?![ \t]*+(?:(?:[×*·⋅∙÷/+−]|x(?=[ \t]))(?!{CARD_MEMORY})|%|[kKMGTP]i?B\b|bytes?\b|bits?\b"
                   r"|tokens?\b|params?\b|parameters?\b|layers?\b|heads?\b|[kMG]?W\b|[kMG]?Hz\b|pixels?\b|rows?\b))")
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"


def powered(sign: str = "") -> str:
    """The pattern of a whole number raised to a power, one form for the set-aside "power" (``sign`` the
    pattern of a minus before the exponent: "10^-3", "10⁻³") and for an equation's terms (no sign:
    ``equations._POWERED``): "10^9", "2^{30}", "2**30", "2 ** 30", and a superscript only after 2, 10,
    1,000 or 1,024 and of 2 or more ("1024³"; "32768¹" and "640²" are a footnote's mark)."""
    superscript_sign = "⁻?+" if sign else ""
    return (rf"(?:[1-9]\d{{0,4}}+(?:\^(?:\{{{sign}\d{{1,2}}+\}}|{sign}\d{{1,2}}+)|\*\*{sign}\d{{1,2}}+"
            rf"|[ \t]++\*\*[ \t]++{sign}\d{{1,2}}+)"
            rf"|(?:1024|1000|10|2){superscript_sign}(?:[²³⁴⁵⁶⁷⁸⁹]|[¹²³⁴⁵⁶⁷⁸⁹][⁰¹²³⁴⁵⁶⁷⁸⁹]))"
            rf"(?![\d{SUPERSCRIPTS}^]|[.,]\d)")


_PATTERNS: list[tuple[str, re.Pattern[str] | ByScript]] = [
    ("url", re.compile(r"\b(?:https?://|www\.)[^\s<>()\[\]\"]++|\]\([^)\s]{1,500}+\)")),
    ("code", re.compile(r"`[^`\n]{1,500}+`|<!--[^>]{0,2000}+-->|(?i:<(code|kbd|samp)>[^<]{0,2000}+</\1>)")),
    ("code", re.compile(r"&#[xX]?+[0-9A-Fa-f]{1,7}+;")),  # an HTML character reference: "&#160;" is no 160
    ("date", re.compile(rf"\b\d{{4}}-\d{{2}}-\d{{2}}(?:\b|(?=T\d))|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b"
                        rf"|\b{_YEAR}-(?:0[1-9]|1[0-2])\b(?![-.,]\d){_UNIT_AHEAD}")),  # "2024-12", a month
    ("date", re.compile(rf"\b{_MONTH}\.?\s++(?:\d{{1,2}}(?:st|nd|rd|th)?+\b(?:,?\s++{_YEAR}\b)?+|{_YEAR}\b){_UNIT_AHEAD}")),
    ("date", re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?+\s++(?:of\s++)?{_MONTH}\b(?:,?\s++{_YEAR}\b)?+")),
    ("date", re.compile(rf"(?i:\b(?:in|from|since|until|till|by|during|early|late|mid|year|before|after|circa|of)"
                        rf"[\s-]++)(?P<span>{_YEAR})s?\b{_UNIT_AHEAD}(?![.,]\d)")),
    # a time of day with seconds, and a log's month-day before it ("INFO 01-13 11:35:21")
    ("time", re.compile(r"\b(?:(?<![\d-])(?:0?[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[ \t]++)?+"
                        r"(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:[.,]\d{1,6}+)?+\b")),
    # a date as Korean, Japanese and Chinese pages print it, with its time ("2025. 6. 18. 06:32")
    # ("2048. 2. 24 GB" is a list: a day before a unit is no day)
    ("date", re.compile(rf"\b{_YEAR}\.[ \t]*+(?:0?[1-9]|1[0-2])\.[ \t]*+(?:0?[1-9]|[12]\d|3[01])\b(?![.,]\d)"
                        rf"{_UNIT_AHEAD}\.?+(?:[ \t]++(?:[01]?\d|2[0-3]):[0-5]\d\b)?+")),
    # a source file's line ("model_runner.py:1099", "engine.rs:42"), and a file's path ("phases/07-x/en.md")
    ("reference", re.compile(r"\b[\w-]{1,80}+\.(?:py|pyx|js|ts|rs|go|c|cc|cpp|h|hpp|cu|java|rb|sh|ya?ml|json|toml"
                             r"|md|txt|ipynb)"
                             r":\d++(?::\d++)?+\b")),
    ("reference", re.compile(r"(?<![\w/.-])(?:[\w.-]{1,80}+/){1,20}+[\w-]{1,80}+"
                             r"\.(?:py|pyx|js|ts|rs|go|c|cc|cpp|h|hpp|cu|java|rb|sh|ya?ml|json|toml|md|txt|ipynb)"
                             r"(?::\d++(?::\d++)?+)?+\b")),
    ("reference", re.compile(r"(?i:\b(?:issues?|tables?|figures?|figs?\.|steps?|sections?|chapters?|parts?|episodes?"
                             r"|appendix|equations?|eqs?\.|lemma|no\.|lessons?|lectures?|modules?|pages?|pp?\."
                             r"|#))\s*+#?\d++"
                             r"(?:\.\d++)*+(?:\s*+[–-]\s*+\d++)?+\b")),
    # Citation markers ("[2]", "[12, 13]", "[3–5]") and arXiv identifiers ("arXiv:2305.13245", "2401.18079v2").
    ("reference", re.compile(r"\[\d{1,3}+(?:\s*+[,–-]\s*+\d{1,3}+){0,20}+\](?!\()")),
    ("reference", re.compile(r"\[\^[^\]\s]{1,40}+\]")),  # a Markdown footnote's mark: "[^2]", "[^2]:"
    ("reference", re.compile(rf"(?i:<sup>)\s*+\d{{1,3}}+\s*+(?i:</sup>)|[{SUPERSCRIPTS}]++")),  # HTML's and print's: "<sup>2</sup>", "¹"
    ("reference", re.compile(r"(?i:\barxiv:\s*+)?(?<![\w.,])\d{4}\.\d{4,5}+(?:v\d++)?+\b")),
    ("hardware-name", re.compile(r"\b(?:RTX|GTX|Quadro|Radeon|TPU)\s++v?\d++\b")),
    ("hardware-name", re.compile(rf"{CARD_BEFORE}(?P<span>{CARD})\b{CARD_NOT_BEFORE}"
                                 rf"|\b(?:[Tt]wo|[Tt]hree|[Ff]our|[Ss]ix|[Ee]ight|\d{{1,2}})[ \t]++(?P<span2>{CARD})s\b"
                                 rf"|\b(?P<span3>{CARD})(?:{CARD_MODEL}|[ \t]++(?:GPU|card)\b)")),
    ("model-name", re.compile(r"\b(?:Llama|LLaMA|Qwen|GPT|Gemma|Mistral|Claude|Gemini|Phi|Kimi|DeepSeek|Falcon"
                              r"|Mixtral|GLM|Grok|OPT|PaLM|BLOOM)\s++\d++(?:\.\d++)*+(?:\s++\d++(?:\.\d++)?+[BM]\b)?+"
                              # a size after a variant word ("DeepSeek LLM 67B", "DeepSeek Coder 33B")
                              r"|\b(?:DeepSeek|Qwen|Llama|Mistral|Yi|Baichuan|InternLM)\s++(?:LLM|Coder|Chat|Math|MoE|VL)"
                              r"\s++\d{1,4}+(?:\.\d++)?+[BM]\b(?!\s*+(?:params?|parameters?)\b)")),
    # Chinese, Japanese and Korean dates and references, their numbers glued to the characters ("2024年5月",
    # "2024년 5월", "表3", "第3章"), and a model's version and size after its Han name ("通义千问2.5-72B")
    # (each matches only in a text holding such characters: compiled when one is first read, ``ByScript``)
    ("date", ByScript(None, r"(?<!\d)\d{4}[ \t]?[年년](?:[ \t]?\d{1,2}[ \t]?[月월](?:[ \t]?\d{1,2}[ \t]?[日일号號])?)?"
                            r"|(?<![\d.])\d{1,2}[ \t]?[月월](?:[ \t]?\d{1,2}[ \t]?[日일号號])?")),
    ("reference", ByScript(None, r"[表图圖][ \t]?\d{1,3}(?:[.-]\d{1,3})?(?!\d)"
                                 r"|第[ \t]?\d{1,4}[ \t]?[章节節步条條页頁部篇回期层層]")),
    ("model-name", ByScript(None, r"(?<=[\u4e00-\u9fff])\d{1,2}(?:\.\d{1,2})?-\d{1,4}(?:\.\d)?[BbMmKkTt]"
                                  r"(?![A-Za-z0-9])")),
    # struck-through text is text taken back ("~~80 GB~~", "<del>80 GB</del>"): its numbers are printed as withdrawn
    ("struck", re.compile(r"~~(?=[^\s~])(?:[^~\n]|~(?!~)){1,2000}?(?<=[^\s~])~~"
                          r"|(?<![\w~])~(?=[^\W\d_])[^~\n]{1,2000}?(?<=[^\s~])~(?![\w~])"  # GitHub's "~text~"
                          r"|(?i:<(del|s|strike)>[^<\n]{1,2000}?</\1>)"
                          # and so is an element styled struck through or hidden ('<span style="text-decoration:
                          # line-through">', "<div hidden>": a reader never sees it as printed) or one marked as
                          # false by its name or its attributes ("<Myth>", '<p class="debunked">')
                          r"|(?i:<([a-z][a-z0-9]{0,10}+)\s[^<>]{0,300}?(?:line-through|\bhidden\b|display\s*+:\s*+none"
                          r"|\b(?:myths?|false|wrong|retracted|debunked|rumou?rs?|fake|outdated|obsolete|superseded|deprecated|unconfirmed|satire)\b)[^<>]{0,300}+>[^<\n]{1,2000}?</\2>)"
                          r"|(?i:<((?:myths?|false|wrong|retracted|debunked|rumou?rs?|fake|outdated|obsolete|superseded|deprecated|unconfirmed|satire)\b[\w-]{0,20}+)(?:\s[^<>]{0,300}+)?>"
                          r"[^<\n]{1,2000}?</\3>)")),
    # a whole number raised to a power ("10^9", "2**30", "1024³"): its digits are no two numbers; an
    # equation reads it as the number it is (``equations._POWERED``), a negative power too here ("10^-3",
    # "10⁻³"), which no equation reads
    ("power", re.compile(r"(?<![\d.,])" + powered("[-−]?+"))),
    ("ordinal", re.compile(r"\b\d++(?:st|nd|rd|th)\b")),
    ("heading", re.compile(r"(?i:\b\d++\s*+(?:min|minute)s?\s++read\b)")),
    ("vague", re.compile(r"(?i:\b(?:hundreds|thousands|millions|billions|dozens|tens|a\s++few|several)\s++"
                         r"(?:of\s++)?(?:[kmgtp]i?b\b|(?:kilo|mega|giga|tera|peta)?bytes\b|tokens\b|parameters\b))")),
]
# A word with a letter first and a digit inside: Qwen2.5-14B-Instruct-1M, H100, K3, CSA2, V4.1, BF16.
_NAME = re.compile(r"(?<![\w.\-/])[A-Za-z][A-Za-z0-9]*+(?:[._+\-][A-Za-z0-9]++)*+")
_VERSION = re.compile(r"[vV]\d+(?:\.\d+)*")
_HARDWARE = re.compile(r"(?:[AHBLT]\d{1,3}[A-Z]?|V100|G[BH]\d{2,3}|MI\d{3}[A-Z]?|L40S?|A10G|TPUv\d+)"
                       r"(?:-(?:SXM\d?|PCIe|NVL|\d+GB))?")
_FORMAT = re.compile(r"(?:BF|FP|INT|UINT|MXFP|NVFP|TF|E\dM|B?FLOAT)\d+(?:[-_][A-Za-z0-9]+)*", re.IGNORECASE)
# A range of years ("2024–2025", "2019-23"); a later year second, as ``find`` checks.
_RECENT = r"(?:19[5-9]\d|20[0-3]\d)"  # a year this ledger's texts print: 1950 to 2039
_YEAR_RANGE = re.compile(rf"(?<![$€£¥])\b(?P<first>{_RECENT})\s*+[–—-]\s*+(?P<last>{_RECENT}|\d{{2}})\b"
                         rf"(?![.,]\d){_UNIT_AHEAD}")
# A model's size printed after its name ("LLaMA-2 13B", "Gemma3 27b"), not a count of parameters.
_SIZE_AFTER_NAME = re.compile(r"\s++\d{1,4}+(?:\.\d++)?+[Bb](?!\w|[.,]\d|\s*+(?:params?|parameters?)\b)")
_ENUMERATION = re.compile(r"(?<=[\s:;,])\((\d{1,2})\)(?=\s++[a-z])")
_LIST = re.compile(r"\s*+(?:(\d{1,3})[.)]|\((\d{1,3})\))\s")


@frozen(kw_only=True)
class SetAside:
    start: int
    end: int
    text: str
    reason: str


def find(paragraph: Paragraph) -> list[SetAside]:
    """Spans of ``paragraph`` that hold numbers which are not figures, in order, not overlapping."""
    text = paragraph.text
    found: list[SetAside] = []
    if paragraph.code:
        return [SetAside(start=0, end=len(text), text=text, reason="code")]
    if match := _LIST.match(text):
        group = 1 if match.group(1) else 2
        found.append(_span(text, match.start(group), match.end(group), "list-number"))
    for match in _ENUMERATION.finditer(text):  # "two things: (1) compute ..., and (2) stash ..."
        found.append(_span(text, match.start(1), match.end(1), "list-number"))
    for reason, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            part: str | int = next((g for g in ("span", "span2", "span3") if g in pattern.groupindex
                                    and match.group(g) is not None), 0)
            found.append(_span(text, match.start(part), match.end(part), reason))
    for match in _YEAR_RANGE.finditer(text):
        first, last = match.group("first"), match.group("last")
        if int(first[:4 - len(last)] + last) > int(first):  # "2024–2025", "2019-23"; not "2048-1024"
            found.append(_span(text, match.start(), match.end(), "date"))
    for match in _NAME.finditer(text):
        word = match.group()
        if not any(c.isdigit() for c in word):
            continue
        word = re.sub(r"['’]s$", "", word).rstrip(".")
        end, reason = match.start() + len(word), _name_reason(word)
        if reason == "model-name" and end == match.end() and (size := _SIZE_AFTER_NAME.match(text, end)):
            end = size.end()  # "LLaMA-2 13B": the size is the name's, as in "Llama 2 13B"
        found.append(_span(text, match.start(), end, reason))
    return _without_overlaps(found)


def _name_reason(word: str) -> str:
    if _VERSION.fullmatch(word):
        return "version"
    if _FORMAT.fullmatch(word):
        return "format-name"
    if _HARDWARE.fullmatch(word):
        return "hardware-name"
    return "model-name"


def _span(text: str, start: int, end: int, reason: str) -> SetAside:
    return SetAside(start=start, end=end, text=text[start:end], reason=reason)


def _without_overlaps(found: list[SetAside]) -> list[SetAside]:
    """Keep the earliest span where two overlap; of two starting together, the longest."""
    out: list[SetAside] = []
    for item in sorted(found, key=lambda s: (s.start, -(s.end - s.start))):
        if out and item.start < out[-1].end:
            continue
        out.append(item)
    return out
