"""The published texts, annotated: every figure marked by what check-draft found, linked to its claim.

A text is kept beside its claims as ``claims/<slug>/article.md`` (front matter, then the text as
published; see ``draft/article.py``). Its figures are found and matched by check-draft's library
(``draft.check.check_text``), never here: a figure is marked "backed" only where check-draft says the
claim is about that very figure. This module only places check-draft's results (line and column) in
the text and gives each a note where the reader must be told more (drift, erratum with its
correction, unchecked, unbacked). The text is shown as published: paragraphs and headings as
check-draft read them, nothing else of Markdown is interpreted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..frozen import frozen
from ..draft.article import front_matter
from ..draft.check import DraftCheck, FigureResult, check_text
from ..draft.claims import Claims
from ..draft.text import is_markdown, paragraphs
from ..errors import LedgerError
from ..loader import CLAIMS_DIR, read_plain_file
from ..report import Report

ARTICLE = "article.md"
MAX_ARTICLE_BYTES = 2_000_000
# How each check-draft status is shown: a symbol and a word, never colour alone.
FIGURE_SYMBOL = {"backed": "✓", "holds": "=", "drift": "≠", "ambiguous": "≈", "erratum": "✎", "unchecked": "?", "unbacked": "✗"}
FIGURE_MEANING = {
    "backed": "a claim about this very figure holds it",
    "holds": "the printed arithmetic holds; no claim is asked of it",
    "drift": "the ledger recomputes another value, or the printed arithmetic does not hold",
    "ambiguous": "it holds only under another reading of its unit (GB for GiB)",
    "erratum": "wrong as printed; the correction is given",
    "unchecked": "the ledger records it, but nothing backs it yet",
    "unbacked": "no claim states it",
}


@frozen(kw_only=True)
class Article:
    slug: str
    file: str                   # claims/<slug>/article.md
    title: str
    published: str | None
    url: str | None
    text: str
    markdown: bool
    check: DraftCheck


def load_articles(root: str | Path, report: Report) -> tuple[list[Article], list[str]]:
    """Every ``claims/<slug>/article.md`` under ``root``, checked against ``report``; and a message
    for each one that could not be read (the others still render)."""
    root = Path(root)
    out: list[Article] = []
    problems: list[str] = []
    folder = root / CLAIMS_DIR
    if not folder.is_dir():
        return out, problems
    claims = Claims(report.claims)  # indexed once for every text, not once per text
    for group in sorted(folder.iterdir(), key=lambda p: p.name):
        path = group / ARTICLE
        if group.is_symlink() or not group.is_dir() or not (path.exists() or path.is_symlink()):
            continue
        name = f"claims/{group.name}/{ARTICLE}"
        try:
            raw = read_plain_file(path, MAX_ARTICLE_BYTES)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise LedgerError(f"is not UTF-8 (byte {exc.start})") from None
            meta = front_matter(text, file=name)
        except LedgerError as exc:
            problems.append(f"{name}: {exc}" if not str(exc).startswith(name) else str(exc))
            continue
        markdown = is_markdown(path.name) and meta.format != "plain"
        check = check_text(text, claims, file=name, issue=group.name, markdown=markdown, front_matter=True)
        data = meta.data
        title = data.get("title")
        out.append(Article(slug=group.name, file=name, title=str(title) if title else group.name,
                           published=str(data["published"]) if data.get("published") else None,
                           url=data.get("url") if isinstance(data.get("url"), str) else None,
                           text=text, markdown=markdown, check=check))
    return out, problems


def blocks(article: Article) -> list[dict[str, Any]]:
    """The text as blocks (heading, paragraph, code, table row), each a list of pieces: plain text,
    or a figure mark with its check-draft result. Figures (and printed equations) that overlap one
    already marked are not marked again; they still get their note."""
    found = [f for f in article.check.figures if f.kind != "equation"]
    found += [f for f in article.check.figures if f.kind == "equation"]
    by_line: dict[int, list[FigureResult]] = {}
    for figure in found:
        by_line.setdefault(figure.line, []).append(figure)
    out = []
    number = 0
    for paragraph in paragraphs(article.text, markdown=article.markdown, front_matter=True):
        lines = range(paragraph.first_line, paragraph.first_line + len(paragraph.starts))
        spans: list[tuple[int, int, FigureResult, int]] = []
        notes: list[tuple[FigureResult, int, bool]] = []
        for line in lines:
            for figure in by_line.get(line, ()):
                start = paragraph.starts[line - paragraph.first_line] + figure.column - 1
                span = _span(paragraph.text, start, figure.text)
                overlaps = any(span[0] < e and s < span[1] for s, e, _, _ in spans)
                number += 1
                if not overlaps:
                    spans.append((span[0], span[1], figure, number))
                if figure.status != "backed" or overlaps:
                    notes.append((figure, number, not overlaps))
        spans.sort(key=lambda s: s[0])
        pieces: list[dict[str, Any]] = []
        at = 0
        for start, end, figure, n in spans:
            if start > at:
                pieces.append({"text": paragraph.text[at:start]})
            pieces.append({"text": paragraph.text[start:end], "figure": figure, "n": n})
            at = end
        if at < len(paragraph.text):
            pieces.append({"text": paragraph.text[at:]})
        kind = "code" if paragraph.code else "heading" if paragraph.heading else "row" if paragraph.table else "p"
        if kind == "heading" and article.markdown:
            pieces = _strip_hashes(pieces)
        out.append({"kind": kind, "line": paragraph.first_line, "pieces": pieces,
                    "notes": [{"figure": f, "n": n, "marked": marked} for f, n, marked in notes]})
    return out


def _span(text: str, start: int, printed: str) -> tuple[int, int]:
    """Where a figure check-draft found at ``start`` runs in ``text``. Its ``text`` may begin before
    the column ("about 6.7 times", "$0.003 per million tokens"), or the column may be the sentence's
    (a figure set aside and then matched, "from 2024"): the printed text around the column first,
    then what of it begins at the column, then its next occurrence, then the word at the column."""
    start = max(0, min(start, len(text)))
    if printed:
        near = text.find(printed, max(0, start - len(printed)))
        if near != -1 and near <= start < near + len(printed):
            return near, near + len(printed)
    for cut in range(len(printed)):
        tail = printed[cut:]
        if tail and text.startswith(tail, start):
            return start, start + len(tail)
    later = text.find(printed, start) if printed else -1
    if later == -1 and printed:
        later = text.find(printed)
    if later != -1:
        return later, later + len(printed)
    end = start
    while end < len(text) and not text[end].isspace():
        end += 1
    return (start, max(end, start + 1)) if start < len(text) else (start, start)


def _strip_hashes(pieces: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if pieces and "figure" not in pieces[0]:
        first = dict(pieces[0])
        first["text"] = first["text"].lstrip().lstrip("#").lstrip()
        return [first, *pieces[1:]]
    return pieces
