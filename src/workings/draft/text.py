"""A draft as paragraphs and sentences, with the line of every character kept.

Drafts come as Markdown (paragraphs separated by blank lines, hard-wrapped lines joined) or as plain
text pasted from a publishing tool (one paragraph a line, headings on lines of their own, often no
blank lines at all). The mode is chosen from the file name; both keep a map from each character of a
paragraph back to its 1-based line and column, so that every finding can point at the draft.
"""

from __future__ import annotations

import bisect
import re

from ..frozen import frozen

# A sentence ends at . ! ? (then closing quotes, brackets or emphasis: "**Kimi K3.** A ...") followed by a space, unless the dot sits
# in a short abbreviation ("e.g.", "vs.") or is a list marker at the start of the paragraph.
# A footnote's mark, as Markdown, HTML and print write it: "[^2]", "<sup>2</sup>", "\*", "†", "‡", "¹"
SUPERSCRIPTS = "¹²³⁴⁵⁶⁷⁸⁹⁰"
FOOTNOTE_MARK = rf"\[\^[^\]\s]{{1,40}}+\]|(?i:<sup>)[^<\s]{{1,10}}+(?i:</sup>)|\\\*|[†‡]|[{SUPERSCRIPTS}]++"
# A sentence's end: its stop, closing quotes and brackets, and a footnote mark after them ("... 80 GiB.[^g] The ...")
_SENTENCE_END = re.compile(rf"[.!?。！？][\"'”’)\]*_]*(?:{FOOTNOTE_MARK})?(?=\s+|$)")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "vs", "etc", "cf", "approx", "no", "fig", "mr", "dr", "ca", "al"})
_LIST_MARKER = re.compile(r"\s*(?:[-*+•]|\d{1,3}[.)]|\(\d{1,3}\))\s+")
_MD_HEADING = re.compile(r"\s{0,3}#{1,6}\s")
# A Markdown table row: "| a | b |", or a delimiter row without outer pipes ("---|:---:").
_TABLE_ROW = re.compile(r"\s{0,3}\||\s{0,3}:?-{3,}+:?\s*+\|")
_DELIMITER = re.compile(r"\s{0,3}\|?\s*+:?-{3,}+:?\s*+(?:\|\s*+:?-{3,}+:?\s*+)*+\|?\s*+$")  # "---|:---:", "|---|---|"
PIPE = re.compile(r"(?<!\\)\|")  # a table cell's border; "\|" is a pipe in a cell's text
_FENCE = re.compile(r"\s{0,3}(```|~~~|(?i:<pre)(?![\w-]))")  # a fence, or HTML's preformatted text
_INDENTED = re.compile(r"(?: {4}|\t)[ \t]*+\S")
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-"})  # a (non-breaking) hyphen is a hyphen: "1M‑token"
# A heading in HTML ("<h2>Under FP8</h2>") and a Markdown heading's underline ("=====", "-----", under its text)
_HTML_HEADING = re.compile(r"\s{0,3}<h([1-6])\b[^<>]{0,200}+>.{0,300}</h\1>\s*+$", re.IGNORECASE)
_SETEXT = re.compile(r" {0,3}(?:={3,}+|-{3,}+)[ \t]*+$")
# An admonition's opening line: GitHub's "> [!NOTE] title", and ":::type title" (Docusaurus, VitePress), or its close
_ADMONITION = re.compile(r"\s{0,3}(?:>[ \t]?)*+(?:\[!\w{2,12}+\]|:::)")
_QUOTE = re.compile(r"\s{0,3}(?:>[ \t]?)+")  # a quote's markers at a line's start ("> ", "> > ")
_TERMINAL = re.compile(r"[.!?:;。！？…][\"'”’)\]*_]*+\s*+$")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


@frozen(kw_only=True)
class Paragraph:
    """Lines of the draft that read as one block. ``starts[i]`` is where line ``first_line + i``
    begins in ``text`` (lines are joined with one space)."""

    text: str
    first_line: int
    starts: tuple[int, ...]
    heading: bool = False
    level: int = 0                  # a heading's level where its "#"s do not say it ("<h2>", a "---" underline)
    item: int = -1                  # a list item's indent (its marker's column), -1 for no list item
    code: bool = False
    table: bool = False             # a Markdown table: every row is a sentence of its own
    cuts: tuple[int, ...] = ()      # characters left out at each line's start (a quote's ">"), if any

    def line_of(self, offset: int) -> int:
        return self.first_line + bisect.bisect_right(self.starts, offset) - 1

    def column_of(self, offset: int) -> int:
        """1-based column of ``offset`` on its own line."""
        at = bisect.bisect_right(self.starts, offset) - 1
        return offset - self.starts[at] + 1 + (self.cuts[at] if self.cuts else 0)


@frozen(kw_only=True)
class Sentence:
    start: int
    end: int
    text: str             # ``paragraph.text[start:end]``, stripped
    text_start: int = -1  # where ``text`` begins in the paragraph


def is_markdown(name: str) -> bool:
    return name.lower().endswith((".md", ".markdown", ".mdown", ".mkd"))


def paragraphs(text: str, *, markdown: bool, front_matter: bool | None = None) -> list[Paragraph]:
    """The draft's paragraphs, in order. Fenced code (and YAML front matter, read in Markdown and
    wherever ``front_matter`` asks) comes back with ``code=True`` so that what it holds is set
    aside rather than read as prose."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").translate(_HYPHENS).split("\n")
    out: list[Paragraph] = []
    block: list[tuple[int, str]] = []

    piped = False  # the block is a table without outer pipes ("Rumoured | Confirmed" over "---|---")

    def flush(*, heading: bool = False, code: bool = False, level: int = 0) -> None:
        nonlocal piped
        if block:
            table = markdown and not code and not heading and (piped or _is_table_row(block[0][1]))
            out.append(_join(block, heading=heading or (not markdown and _looks_like_heading(block)),
                             code=code, table=table, level=level))
            block.clear()
        piped = False

    listed = False  # the last paragraph begun was a list item's: an indented one after it is its own
    front_matter = markdown if front_matter is None else front_matter
    fence: str | None = "---" if front_matter and lines and lines[0].strip() == "---" else None
    for number, line in enumerate(lines, start=1):
        if fence is not None:
            block.append((number, line))
            closing = line.strip() == "---" if fence == "---" else "</pre>" in line.lower() if fence == "<pre" \
                else line.strip().startswith(fence)
            if closing and len(block) > 1:
                if fence == "---" and block[0][0] == 1:
                    block.clear()  # front matter: metadata, neither prose nor code
                else:
                    flush(code=True)
                fence = None
            continue
        if markdown and (match := _FENCE.match(line)):
            flush()
            fence = match.group(1).lower()
            block.append((number, line))
            if fence == "<pre" and "</pre>" in line.lower():  # "<pre>...</pre>" on one line
                flush(code=True)
                fence = None
            continue
        if markdown and not block and _INDENTED.match(line) and not listed:
            block.append((number, line))  # an indented code block ("    Its config.json gives ..."), not a
            flush(code=True)              # list item's own paragraph
            continue
        if markdown and not block:
            listed = bool(_LIST_MARKER.match(line)) or (listed and line.startswith((" ", "\t")))
        if not line.strip():
            flush()
            continue
        if markdown and _MD_HEADING.match(line):
            flush()
            block.append((number, line))
            flush(heading=True)
            continue
        if markdown and (html := _HTML_HEADING.match(line)):  # "<h2>Under FP8</h2>"
            flush()
            block.append((number, line))
            flush(heading=True, level=int(html.group(1)))
            continue
        if markdown and block and _SETEXT.match(line) and not _is_table_row(block[-1][1]) \
                and not _LIST_MARKER.match(block[0][1]):  # "Our April Fools' edition" over "====="
            flush(heading=True, level=1 if line.strip()[0] == "=" else 2)
            continue
        if markdown and _ADMONITION.match(line):  # "> [!WARNING] Outdated", ":::danger Retracted": a title of
            flush()                               # its own, apart from the text it heads
            block.append((number, line))
            flush()
            continue
        if markdown and block and "|" in line and _DELIMITER.match(line) and not _is_table_row(block[-1][1]) \
                and PIPE.search(block[-1][1]):
            header = block.pop()  # a table's header without outer pipes, over its delimiter row: a table
            flush()               # of its own from there, its rows those lines with a pipe that follow
            block.append(header)
            piped = True
        elif piped and PIPE.search(line):
            pass
        elif markdown and block and (piped or _is_table_row(line) != _is_table_row(block[-1][1])):
            flush()  # a table is a block of its own, apart from the prose around it
        elif block and not _continues(block[-1][1], line, markdown=markdown):
            flush()
        block.append((number, line))
    flush(code=fence is not None)
    return out


def _is_table_row(line: str) -> bool:
    return _TABLE_ROW.match(line) is not None


def _continues(previous: str, line: str, *, markdown: bool) -> bool:
    """Whether ``line`` carries on the paragraph that ``previous`` is in."""
    if _LIST_MARKER.match(line) or line.lstrip().startswith(">") != previous.lstrip().startswith(">"):
        return False
    if markdown:
        return True
    # Plain text: one paragraph a line, except a line broken mid-sentence.
    stripped = line.lstrip()
    return not _TERMINAL.search(previous) and bool(stripped) and (stripped[0].islower() or stripped[0] in "(×=")


def _join(block: list[tuple[int, str]], *, heading: bool, code: bool, table: bool = False, level: int = 0) -> Paragraph:
    marker = _LIST_MARKER.match(block[0][1]) if not (heading or code or table) else None
    """The block's lines joined with one space; a quote's markers (">" at each line's start) are left out
    of the text, so that "198.6\n> GB" reads as "198.6 GB", and counted back into each column."""
    starts, parts, cuts, offset = [], [], [], 0
    quoted = not code and all(_QUOTE.match(line) for _, line in block)
    for _, line in block:
        cut = _QUOTE.match(line).end() if quoted else 0  # type: ignore[union-attr]
        line = line[cut:]
        starts.append(offset)
        parts.append(line)
        cuts.append(cut)
        offset += len(line) + 1
    return Paragraph(text=" ".join(parts), first_line=block[0][0], starts=tuple(starts),
                     heading=heading, code=code, table=table, cuts=tuple(cuts) if any(cuts) else (), level=level,
                     item=len(block[0][1]) - len(block[0][1].lstrip()) if marker else -1)


_EDGE_TAGS = re.compile(r"^(?:\s*+</?[A-Za-z][\w-]{0,20}+(?:\s[^<>]{0,200}+)?>)++|(?:</?[A-Za-z][\w-]{0,20}+\s*+>\s*+)++$")


def _looks_like_heading(block: list[tuple[int, str]]) -> bool:
    """A plain-text heading: one short line with no sentence punctuation at its end, or a short
    Title Case question ("How Does the Model Still Remember the First?")."""
    if len(block) != 1:
        return False
    line = _EDGE_TAGS.sub("", block[0][1]).strip()  # "<p>... 2,500.</p>": the sentence's stop is before the tag
    if re.match(r"\s*+<h[1-6]\b", block[0][1], re.IGNORECASE):
        return True  # an HTML heading in a plain-text (HTML) draft
    words = _WORD.findall(line)
    if len(words) > 15 or _LIST_MARKER.match(line) or any(c in line for c in "=×÷"):
        return False
    if not _TERMINAL.search(line):
        return True
    long_words = [w for w in words if len(w) > 3]
    capitalised = sum(1 for w in long_words if w[0].isupper())
    return line.endswith("?") and bool(long_words) and capitalised >= 0.7 * len(long_words)


def sentences(paragraph: Paragraph) -> list[Sentence]:
    """Split a paragraph into sentences; every character belongs to exactly one. Each row of a
    table is split on its own (a row never runs into the next)."""
    text = paragraph.text
    if not paragraph.table:
        marker = _LIST_MARKER.match(text)
        return _split(text, marker.end() if marker else 0, 0, len(text))
    out: list[Sentence] = []
    for start, end in zip(paragraph.starts, (*paragraph.starts[1:], len(text))):
        out.extend(_split(text, start, start, end))
    return out


def _split(text: str, search_from: int, start: int, stop: int) -> list[Sentence]:
    """The sentences of ``text[start:stop]``; no sentence ends before ``search_from``."""
    out: list[Sentence] = []
    for match in _SENTENCE_END.finditer(text, search_from, stop):
        end = match.end()
        before = text[max(start, match.start() - 16):match.start()].rsplit(None, 1)
        if match.group()[0] == "." and before and before[-1].lower().strip("(\"'“‘") in _ABBREVIATIONS:
            continue
        out.append(_sentence(text, start, end))
        start = end
    if text[start:stop].strip():
        out.append(_sentence(text, start, stop))
    return out


def _sentence(text: str, start: int, end: int) -> Sentence:
    raw = text[start:end]
    lead = len(raw) - len(raw.lstrip())
    return Sentence(start=start, end=end, text=raw.strip(), text_start=start + lead)


def sentence_at(found: list[Sentence], offset: int) -> Sentence:
    """The sentence holding ``offset`` (``found`` is in order and covers the paragraph)."""
    return found[sentence_index(found, offset)]


def sentence_index(found: list[Sentence], offset: int) -> int:
    low, high = 0, len(found) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if found[middle].start <= offset:
            low = middle
        else:
            high = middle - 1
    return low
