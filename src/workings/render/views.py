"""What the ledger page shows, derived from a Report: links, safe URLs, status words, page views.

Nothing here computes a result: every value comes from the Report, and every number shown was
formatted by ``figures`` (``Quantity.display`` from ``format_number``, exact values from
``format_exact``). Templates receive these plain mappings and only lay them out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from ..figures import format_exact
from ..models import GRADE_MEANING  # noqa: F401  (re-exported for the templates)
from ..report import FAILING, STATUSES, ClaimResult, Report
from .. import report as _report
from ..working import Expander
from . import words
from .articles import FIGURE_MEANING, FIGURE_SYMBOL, Article, blocks

if TYPE_CHECKING:
    from .workingline import Lines

# What a claim's value is computed from (the Report's ``basis``), where the engine computes one.
BASIS_MEANING = getattr(_report, "BASIS_MEANING", {})

# Status is never shown by colour alone: each has a symbol and a word (the colour only repeats them).
STATUS_SYMBOL = {"verified": "✓", "erratum": "✎", "drift": "≠", "unchecked": "?", "error": "✗"}
STATUS_MEANING = {
    "verified": "recomputed and printed agree",
    "erratum": "wrong as printed; the correction is recorded",
    "drift": "recomputed and printed disagree, or an input claim drifted",
    "unchecked": "nothing to recompute it from",
    "error": "the record itself cannot be used",
}
LABEL_MEANING = {
    "derived": "computed from sourced values",
    "quoted": "as a source states it",
    "estimate": "an estimate, under stated assumptions",
    "bound": "an upper or lower bound",
    "vendor": "a vendor's figure, taken as given",
    "measured": "measured on real hardware",
}
# Each part of a written-out working carries ``data-term``: the same expression in the walker's
# syntax, exact, so that a test can recompute what the page shows (never used by the page itself).
_TERM = {"×": "*", "÷": "/", "−": "-", "^": "**", "div": "//", "neg": "-", "≤": "<=", "≥": ">=", "=": "=="}


def _term(value) -> str:
    if value is None:
        return "?"
    number = str(value.value.numerator) if value.value.denominator == 1 else \
        f"({value.value.numerator}/{value.value.denominator})"
    return f"({number}*{value.unit.replace('^', '**')})" if value.unit else number


_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_HUB_PART = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")


def safe_url(url) -> str | None:
    """``url`` when it is an absolute http(s) URL with an ASCII host and no user name or password, else
    None (``javascript:``, ``data:``, relative paths, and anything with whitespace or control characters
    are never linked)."""
    if not isinstance(url, str) or not url or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or "@" in parts.netloc \
            or not parts.netloc.isascii():
        return None  # "https://huggingface.co@evil.example/" and "hugginɡface.co" read as another address
    return url


def hub_url(hub) -> str | None:
    """The Hugging Face page of a ``hub:`` entry, when its parts are plain path segments."""
    if not isinstance(hub, dict):
        return None
    parts = [hub.get("repo"), hub.get("revision") or "main", hub.get("file")]
    texts = [p for p in parts if isinstance(p, str) and _HUB_PART.match(p) and ".." not in p]
    if len(texts) != len(parts):
        return None
    repo, revision, file = (quote(p, safe="/") for p in texts)
    return safe_url(f"https://huggingface.co/{repo}/blob/{revision}/{file}")


def page_names(ids, folder: str) -> dict[str, str]:
    """A file per id (``claims/kv--per-token.html``): flat, portable, unique even on a case-blind disk.
    Where two ids differ only in case, the one in lower case (the form ids take) keeps the plain name: a
    refused "GQA-paper" added beside "gqa-paper" must not move the page readers link to."""
    names, taken = {}, set()
    for item in sorted(ids, key=lambda i: (i != i.lower(), i)):
        stem = _SLUG_UNSAFE.sub("-", item.replace("/", "--")).strip(".-")[:120] or "item"
        candidate, n = stem, 1
        while candidate.lower() in taken:
            n += 1
            candidate = f"{stem}-{n}"
        taken.add(candidate.lower())
        names[item] = f"{folder}/{candidate}.html"
    return names


class Site:
    """The pages of one Report and the links between them."""

    def __init__(self, report: Report, snapshots: dict[str, str], articles: Sequence[Article] = ()):
        self.report = report
        self.snapshots = snapshots  # source id -> path of its copied snapshot inside the site
        self.claim_pages = page_names([c.id for c in report.claims], "claims")
        self.source_pages = page_names([s.id for s in report.sources], "sources")
        self.by_id = {c.id: c for c in report.claims}
        self.sources = {s.id: s for s in report.sources}
        self.add_articles(articles)
        self._readers: dict[str, list[ClaimResult]] | None = None  # source id -> the claims reading it
        self.expander = Expander(report)  # every claim's whole working, sharing what they share
        self._leaves: dict[str, dict] = {}  # a claim -> each leaf's view (Site.leaf) by its input (or unit name)
        self._lines: Lines | None = None
        self._words: dict[int, tuple] = {}  # id of an engine value -> (it, its words, it exactly)
        self._exact: dict[int, tuple] = {}  # id of an engine value -> (it, its words to 12 places)
        self._inputs: dict[int, tuple] = {}  # id of a shared input -> (it, its view)
        self._claim_links: dict[str, dict] = {}  # claim id -> its link (Site.claim_link)
        self._source_links: dict[str | None, dict] = {}  # source id -> its link (Site.source_link)
        self._titles: dict[int, tuple[ClaimResult, dict[str, str]]] = {}  # id of a claim -> (it, its title)
        # Anchors on a source page for each key a claim reads from it (a config key, a declared value).
        self.key_anchors: dict[tuple[str, str], str] = {}
        reads = sorted({(i.source, i.key) for c in report.claims for i in c.inputs
                       if i.kind == "source" and i.source and i.key})
        keys_of: dict[str, list[str]] = {}
        for source_id, key in reads:
            keys_of.setdefault(source_id, []).append(key)
        for source_id in sorted(keys_of):
            names = page_names(keys_of[source_id], "key")
            for key, name in names.items():
                self.key_anchors[(source_id, key)] = name[len("key/"):-len(".html")]

    def add_articles(self, articles: Sequence[Article]) -> None:
        """The site's articles (``render.articles``): their pages, and on each claim's page the
        article figures it backs or flags (``printed_in``, the only thing a claim page reads of them).
        A render gives them once checked, after the processes making claim pages have started
        (``render/forked.py``)."""
        self.articles = list(articles)
        self.article_pages = page_names([a.slug for a in self.articles], "articles")
        self.article_blocks = {a.slug: blocks(a) for a in self.articles}
        self.printed_in: dict[str, list[dict]] = {}  # claim id -> the article figures it backs or flags
        for article in self.articles:
            for block in self.article_blocks[article.slug]:
                for piece in block["pieces"]:
                    figure = piece.get("figure")
                    if figure is not None and figure.claim:
                        self.printed_in.setdefault(figure.claim, []).append(
                            {"title": article.title, "href": f"{self.article_pages[article.slug]}#fig-{piece['n']}",
                             "text": figure.text, "status": figure.status})

    def claim_link(self, claim_id: str) -> dict:
        """A link to a claim's page (once per claim: links are only ever read, never changed)."""
        found = self._claim_links.get(claim_id)
        if found is None:
            claim = self.by_id.get(claim_id)
            found = self._claim_links[claim_id] = {"id": claim_id, "href": self.claim_pages.get(claim_id),
                                                   "status": claim.status if claim else None}
        return found

    def source_link(self, source_id: str | None) -> dict:
        """A link to a source's page (once per source, as ``claim_link``)."""
        found = self._source_links.get(source_id)
        if found is None:
            source = self.sources.get(source_id) if source_id else None
            found = self._source_links[source_id] = {
                "id": source_id, "href": self.source_pages.get(source_id) if source_id and source else None,
                "grade": source.grade if source else None}
        return found

    def index(self) -> dict:
        claims = self.report.claims
        groups: dict[str, list] = {}
        for claim in claims:
            groups.setdefault(claim.group or "(no group)", []).append(self.row(claim))
        failing = [c for c in claims if c.status in FAILING]
        attention = [self.row(c) for c in sorted(failing, key=lambda c: (FAILING.index(c.status), c.id))]
        labels = sorted({c.label for c in claims if c.label})
        anchors = page_names(groups, "group")
        articles = [{"title": a.title, "href": self.article_pages[a.slug], "summary": a.check.summary,
                     "published": a.published} for a in self.articles]
        return {"summary": self.report.summary, "statuses": STATUSES, "labels": labels, "articles": articles,
                "attention": attention, "corrections": [self.row(c) for c in claims if c.status == "erratum"],
                "groups": [{"name": name, "anchor": anchors[name][len("group/"):-len(".html")], "claims": items,
                            "failing": sum(c["status"] in FAILING for c in items)}
                           for name, items in sorted(groups.items())],
                "problems": [str(p) for p in self.report.problems],
                "sources": [self.source_link(s.id) | {"title": s.title, "status": s.status,
                                                      "cited": len(s.cited_by)} for s in self.report.sources]}

    def row(self, claim: ClaimResult) -> dict:
        recomputed = claim.comparison.recomputed.display if claim.comparison else (
            claim.result.display if claim.result else None)
        shown = claim.comparison.recomputed if claim.comparison else claim.result
        return {"id": claim.id, "href": self.claim_pages[claim.id], "status": claim.status, "label": claim.label,
                "figure": claim.figure, "check": claim.check, "said": claim.said, "recomputed": recomputed,
                "reader": self.words(shown)[0] if shown else None, "title": self.title(claim),
                "reason": claim.reason, "grade": claim.grade, "basis": getattr(claim, "basis", None)}

    def claim(self, claim: ClaimResult) -> dict:
        comparison = None
        if claim.comparison:
            c = claim.comparison
            reader, exact = self.words(c.recomputed)
            comparison = {"printed": c.printed, "unit": c.unit, "rule": c.rule, "holds": c.holds,
                          "recomputed": c.recomputed.display, "reader": reader, "exact": exact}
        result = None
        if claim.result:
            reader, exact = self.words(claim.result)
            result = {"display": claim.result.display, "reader": reader, "exact": exact}
        moved = [self.claim_link(i.claim) | {"name": i.name} for i in claim.inputs
                 if i.kind == "claim" and i.claim is not None and i.claim_status == "drift"]
        return {
            "claim": claim, "comparison": comparison, "result": result, "moved": moved,
            "title": self.title(claim),
            "working": self.working(claim), "printed_in": self.printed_in.get(claim.id, []),
            "basis": getattr(claim, "basis", None),
            "correction": words.figure_words(claim.erratum.get("recomputed")) if claim.erratum else None,
            "basis_note": BASIS_MEANING.get(getattr(claim, "basis", None) or "", ""),
            "inputs": [self.input(i) for i in claim.inputs],
            "steps": [self.step(s) for s in claim.steps],
            "assumptions": [{"name": i.name, "text": i.text, "why": i.assumption}
                            for i in claim.inputs if i.assumption],
            "cites": [self.source_link(c.source) | {"passage_id": c.passage_id, "text": c.text}
                      for c in claim.cites],
            "uses": [self.claim_link(u) for u in claim.uses],
            "used_by": [self.claim_link(u) for u in claim.used_by],
            "rests_on": [self.source_link(s) for s in claim.sources],
            "measurements": [self.measurement(m, claim) for m in claim.measurements],
            "messages": [m for m in claim.messages if m.kind != "note" or m.text != claim.reason],
            "label_note": LABEL_MEANING.get(claim.label or ""),
        }

    def words(self, quantity) -> tuple[str, str]:
        """An engine value in a reader's words, and exactly with its unit: once per value (the engine
        shares one value between the records that hold it)."""
        found = self._words.get(id(quantity))
        if found is None or found[0] is not quantity:
            found = self._words[id(quantity)] = (quantity, words.reader(quantity),
                                                 f"{format_exact(quantity.value)} {quantity.unit}".strip())
        return found[1], found[2]

    def exact_words(self, quantity) -> str:
        """``words.reader(quantity, exact=True)``: once per engine value, as ``words``."""
        found = self._exact.get(id(quantity))
        if found is None or found[0] is not quantity:
            found = self._exact[id(quantity)] = (quantity, words.reader(quantity, exact=True))
        return found[1]

    def title(self, claim: ClaimResult) -> dict[str, str]:
        """``words.title``: once per claim (its page and its row in the index both show it)."""
        found = self._titles.get(id(claim))
        if found is None or found[0] is not claim:
            found = self._titles[id(claim)] = (claim, words.title(claim))
        return found[1]

    def step(self, s) -> dict:
        reader, exact = self.words(s.result) if s.result else (None, None)
        return {"name": s.name, "expression": s.expression, "line": s.line,
                "display": s.result.display if s.result else None, "reader": reader, "exact": exact,
                "unit": s.result.unit if s.result else None}

    def input(self, item) -> dict:
        """An input's row as shown; a value read from a source or written in the record once per
        input (the engine shares one between the records that write it alike: a model's config key is
        read by every claim about that model). A view is only ever read, never changed."""
        found = self._inputs.get(id(item))
        if found is not None and found[0] is item:
            return found[1]
        out = self._input(item)
        if item.kind != "claim":  # a claim's input names its claim: one record's own
            self._inputs[id(item)] = (item, out)
        return out

    def _input(self, item) -> dict:
        reader, exact = self.words(item.result) if item.result else (None, None)
        out = {"name": item.name, "text": item.text, "kind": item.kind, "key": item.key,
               "passage": item.passage, "assumption": item.assumption,
               "display": item.result.display if item.result else None, "reader": reader, "exact": exact}
        if item.kind == "source":
            out["source"] = self.source_link(item.source)
            out["key_anchor"] = self.key_anchors.get((item.source, item.key))
        if item.kind == "claim":
            out["claim"] = self.claim_link(item.claim)
        return out

    def measurement(self, m, claim: ClaimResult) -> dict:
        from ..measurements import Measurement, beside  # no torch: the record and its comparison only

        view = beside(m, claim).to_dict() if isinstance(m, Measurement) else dict(m.to_dict())
        software = view.get("software") or {}
        view["software"] = ", ".join(f"{k} {v}" for k, v in sorted(software.items()) if v)
        return view

    def source(self, source) -> dict:
        retrieved = [{"key": k, "text": str(v), "href": safe_url(v)} for k, v in (source.retrieved or {}).items()]
        hub = source.hub if isinstance(source.hub, dict) else None
        return {"source": source, "url": safe_url(source.url), "retrieved": retrieved,
                "hub": hub, "hub_url": hub_url(hub), "snapshot_href": self.snapshots.get(source.id),
                "grade_note": GRADE_MEANING.get(source.grade or ""),
                "cited_by": [self.claim_link(c) for c in source.cited_by],
                "reads": self.reads(source.id),
                "passages": list((source.passages or {}).items()),
                "values": [{"name": k, "value": v.get("value"), "passage": v.get("passage")}
                           for k, v in (source.values or {}).items()]}

    def reads(self, source_id: str) -> list[dict]:
        """Each key the claims read from a source, with the value they read and the claims reading it."""
        if self._readers is None:  # which claims read each source, found in one pass (not one per source)
            self._readers = {}
            for claim in self.report.claims:
                for source in dict.fromkeys(i.source for i in claim.inputs if i.kind == "source" and i.source):
                    self._readers.setdefault(source, []).append(claim)
        found: dict[str, dict] = {}
        for claim in self._readers.get(source_id, ()):
            for item in claim.inputs:
                if item.kind == "source" and item.source == source_id and item.key:
                    entry = found.setdefault(item.key, {
                        "key": item.key, "anchor": self.key_anchors.get((source_id, item.key)),
                        "value": words.reader(item.result) if item.result else None,
                        "passage": item.passage, "claims": []})
                    entry["claims"].append(self.claim_link(claim.id))
        return [found[k] for k in sorted(found)]

    def working(self, claim: ClaimResult) -> dict | None:
        """The whole working (``workings.working``): its line and its leaves as the page shows them."""
        work = self.expander.working(claim.id)
        if work is None:
            return None
        if self._lines is None:
            from .workingline import Lines  # it lays out what this module links

            self._lines = Lines(self, "../")
        line, leaves = self._lines.markup(work)
        return {"line": line, "leaves": leaves,
                "result": self.exact_words(work.result) if work.result else None,
                "holds": work.holds,
                "agrees": work.agrees, "complete": work.complete,
                "claims": [self.claim_link(c) for c in dict.fromkeys(work.claims)]}

    def leaf(self, leaf) -> dict:
        """A leaf as shown: a literal as the record writes it, any other value in a reader's words,
        linked to where it comes from (a source key, the assumption beside a literal, a claim).
        Once per numbered leaf (by its claim and input) and per unit; a number's own each time."""
        if leaf.kind == "number":
            return self._leaf(leaf)
        kept = self._leaves.setdefault(leaf.claim, {})  # a unit: under "" (no claim), kept throughout
        found = kept.get(leaf.input or leaf.name)
        if found is None:
            found = kept[leaf.input or leaf.name] = self._leaf(leaf)
        return found

    def claim_views(self, start: int = 0, stop: int | None = None) -> Iterator[tuple[ClaimResult, dict]]:
        """(claim, ``claim(claim)``) for each claim in the Report's order (those from index ``start``
        to ``stop``, for a part of the site made in another process: ``render/forked.py``). What
        claims' workings share is kept until the last page that may hold it (a page of a claim that
        uses it, or uses one that does, ...) is made, then dropped: a site's memory holds the
        workings in reach, not all; a value dropped is worked out again if a page needs it."""
        done = self._last_pages()
        claims = self.report.claims
        for index in range(start, len(claims) if stop is None else stop):
            claim = claims[index]
            yield claim, self.claim(claim)
            for held in done.get(index, ()):
                self.expander.forget(held)
                self._leaves.pop(held, None)
                if self._lines is not None:
                    self._lines.forget(held)

    def _last_pages(self) -> dict[int, list[str]]:
        """For each page (its index in the Report), the claims no later page's working may hold: a
        claim's working is held by the workings of the claims using it, and of the claims using
        those. A claim on a cycle of uses is never dropped (no working expands it anyway)."""
        claims = self.report.claims
        last: dict[str, int] = {}
        for index, claim in enumerate(claims):
            last[claim.id] = index  # a second record with the same id renders the first's working too
        uses: dict[str, set[str]] = {}
        for claim in claims:  # an id's first record is the one workings expand
            uses.setdefault(claim.id, {i.claim for i in claim.inputs if i.kind == "claim" and i.claim in last})
        users = dict.fromkeys(last, 0)
        for named in uses.values():
            for claim_id in named:
                users[claim_id] += 1
        ready = [claim_id for claim_id, count in users.items() if count == 0]
        while ready:  # each claim after every claim that uses it: its last page is theirs, or its own
            claim_id = ready.pop()
            for used in uses[claim_id]:
                last[used] = max(last[used], last[claim_id])
                users[used] -= 1
                if users[used] == 0:
                    ready.append(used)
        done: dict[int, list[str]] = {}
        for claim_id, index in last.items():
            if users[claim_id] == 0:
                done.setdefault(index, []).append(claim_id)
        return done

    def _leaf(self, leaf) -> dict:
        if leaf.kind == "unit":
            return {"kind": "unit", "text": leaf.name, "href": None, "term": leaf.name}
        if leaf.kind == "literal":
            text = leaf.value and leaf.value.display
            # the literal as written ("1 GiB/GB"), not reduced to 1.073742; its value is the engine's
            text = next((i.text for i in self.by_id[leaf.claim].inputs if i.name == leaf.input), text)
        else:
            text = self.exact_words(leaf.value)
        out = {"kind": leaf.kind, "text": text, "name": leaf.name.replace("_", " "),
               "claim": self.claim_link(leaf.claim) if leaf.claim else None, "href": None,
               "grade": leaf.grade, "passage": leaf.passage, "assumption": leaf.assumption, "key": leaf.key,
               "term": _term(leaf.value)}
        if leaf.kind == "source":
            out["source"] = self.source_link(leaf.source)
            anchor = self.key_anchors.get((leaf.source, leaf.key))
            page = self.source_pages.get(leaf.source)
            out["href"] = f"{page}#key-{anchor}" if page and anchor else page
            out["snapshot"] = self.snapshots.get(leaf.source)
        elif leaf.kind == "literal":
            out["href"] = f"{self.claim_pages[leaf.claim]}#input-{leaf.input}"
        elif leaf.kind == "claim" and leaf.upstream:
            out["upstream"] = self.claim_link(leaf.upstream)
            out["href"] = self.claim_pages.get(leaf.upstream)
        return out

    def article(self, article: Article) -> dict:
        """An article page: the text in blocks with each figure's mark, link and note."""
        out = []
        for block in self.article_blocks[article.slug]:
            pieces = []
            for piece in block["pieces"]:
                figure = piece.get("figure")
                pieces.append({"text": piece["text"]} if figure is None else
                              {"text": piece["text"], "n": piece["n"], **self.figure(figure)})
            notes = [{"n": note["n"], "marked": note["marked"], **self.figure(note["figure"])} for note in block["notes"]]
            out.append({"kind": block["kind"], "line": block["line"], "pieces": pieces, "notes": notes})
        return {"article": article, "blocks": out, "summary": article.check.summary,
                "url": safe_url(article.url), "figure_symbol": FIGURE_SYMBOL, "figure_meaning": FIGURE_MEANING}

    def figure(self, figure) -> dict:
        claim = self.by_id.get(figure.claim) if figure.claim else None
        printed = figure.text
        if figure.kind == "relation" and claim is not None and claim.said:
            printed = words.short(claim.said, 200)  # a relation is its sentence, not its check: expression
        out = {"status": figure.status, "reason": figure.reason, "printed": printed, "kind": figure.kind,
               "claim": self.claim_link(figure.claim) if claim else None,
               "claim_title": words.short(words.title(claim)["text"], 100) if claim else None,
               "recomputed": figure.recomputed, "correction": None}
        if claim is not None and claim.erratum and figure.status == "erratum":
            out["correction"] = {"value": words.figure_words(claim.erratum.get("recomputed")),
                                 "reason": claim.erratum.get("reason")}
        return out
