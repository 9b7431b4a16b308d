"""Text out of fetched bytes, and the normalisation used to look for passages in it.

A web page is archived as its visible text (what a passage quotes is the text a reader sees), not its markup, so that a passage
split across `<em>` or `<a>` still reads as one sentence, and so that a redesign of the page's HTML is
not reported as a change of what it says.
"""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser

from workings.sources import normalise

# Elements whose content is not text a reader sees.
_HIDDEN = frozenset({"script", "style", "noscript", "template", "svg", "head"})
# Elements that end a line of text: without a break their words would run together.
_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
        "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
        "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
    }
)  # fmt: skip

_SPACE = re.compile(r"\s+")


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0
        self._pre = 0  # inside <pre>, line breaks are the text's own

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self._hidden += 1
        elif tag in _BLOCK:
            self._pre += tag == "pre"
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCK:
            self._pre = max(0, self._pre - (tag == "pre"))
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            # Outside <pre>, a line break in the source is a space on the page.
            self.parts.append(data if self._pre else _SPACE.sub(" ", data))


def html_to_text(html: str) -> str:
    """The visible text of an HTML document: one line per block, runs of spaces collapsed."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    lines = (_SPACE.sub(" ", line).strip() for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"


def decode(data: bytes, content_type: str) -> str:
    """Bytes as text, by the charset the server declared, else UTF-8 (the web's default since HTML5)."""
    charset = "utf-8"
    match = re.search(r"charset=\"?([\w.:-]+)", content_type, re.IGNORECASE)
    if match:
        try:
            info = codecs.lookup(match.group(1))
            # a text encoding only: "base64", "rot13", "hex" are codecs of bytes, "idna" takes no "replace"
            charset = info.name if getattr(info, "_is_text_encoding", True) and info.name != "idna" else "utf-8"
        except LookupError:
            charset = "utf-8"
    try:
        return data.decode(charset, errors="replace")
    except (LookupError, UnicodeError, TypeError):  # a codec that refuses "replace" or bytes
        return data.decode("utf-8", errors="replace")


def is_html(content_type: str, text: str) -> bool:
    mime = content_type.split(";")[0].strip().lower()
    if mime in ("text/html", "application/xhtml+xml"):
        return True
    head = text.lstrip()[:200].lower()
    return not mime and (head.startswith("<!doctype html") or head.startswith("<html"))


def page_text(data: bytes, content_type: str) -> bytes:
    """What is archived for a web page: its visible text, UTF-8, ending in one newline.

    Anything that is not HTML (plain text, Markdown, JSON) is kept as the server sent it, re-encoded
    as UTF-8 when it declared another charset.
    """
    text = decode(data, content_type)
    if is_html(content_type, text):
        return html_to_text(text).encode("utf-8")
    if decode(data, "charset=utf-8") == text:
        return data
    return text.encode("utf-8")


def occurs(passage: str, text: str) -> bool:
    """Whether a passage occurs in a text, by the loader's rule (`workings.sources.normalise`: NFKC,
    plain quotes and dashes, runs of whitespace as one space), so refresh and verify agree."""
    return normalise(passage) in normalise(text)
