"""``workings check-draft``: every figure of a draft, matched once against a verified ledger.

The result is a ``DraftCheck`` of plain dataclasses; the text table, JSON and GitHub annotations in
``output`` only format it. Exit code: 0 when every figure is backed, 1 otherwise (stale claims and
set-asides are listed, never failed on).

JSON format history (``format``):
  1. first version: file, issue, summary, figures (line, column, text, kind, status, reason, claim,
     printed, recomputed, sentence), set_aside, stale. A ``sentence`` (of a figure or a set-aside)
     longer than ``SENTENCE_SHOWN`` characters is cut to that length, its last character "…", in
     the JSON as in the table: every figure repeats its sentence, so a line of thousands of figures
     would otherwise print its whole length thousands of times. The check itself reads the whole
     sentence; only what is printed is cut.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path

from ..errors import LedgerError
from ..figures import format_number, read_figure
from ..report import Report
from . import match
from .article import front_matter
from .finder import Figure, Found, find_figures
from .text import is_markdown
from .words import number_at, split_words

FORMAT = 1
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
STATUSES = ("backed", "drift", "ambiguous", "erratum", "unchecked", "unbacked")
SENTENCE_SHOWN = 300  # characters of a sentence printed with each figure (table and JSON)


def shown(sentence: str) -> str:
    """``sentence`` as printed beside a figure: whole up to SENTENCE_SHOWN characters, else cut
    to that length with "…" as its last character."""
    return sentence if len(sentence) <= SENTENCE_SHOWN else sentence[:SENTENCE_SHOWN - 1] + "…"


@dataclass(frozen=True, kw_only=True)
class FigureResult:
    line: int
    column: int
    text: str
    kind: str                       # quantity | ratio | count | equation | relation
    status: str                     # one of STATUSES
    reason: str
    sentence: str
    claim: str | None = None
    claim_file: str | None = None
    printed: str | None = None      # the claim's figure as printed
    recomputed: str | None = None   # the claim's recomputed value, in the draft's unit

    def to_dict(self) -> dict:
        return {**asdict(self), "sentence": shown(self.sentence)}


@dataclass(frozen=True, kw_only=True)
class StaleClaim:
    id: str
    file: str
    line: int
    figure: str | None
    said: str | None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class DraftCheck:
    file: str
    issue: str | None
    figures: tuple[FigureResult, ...]
    set_aside: tuple  # finder.SetAside
    stale: tuple[StaleClaim, ...]
    format: int = FORMAT
    found: Found | None = field(default=None, compare=False, repr=False)  # what the finder saw

    @property
    def summary(self) -> dict:
        counts = {status: sum(1 for f in self.figures if f.status == status) for status in STATUSES}
        return {**counts, "figures": len(self.figures), "set_aside": len(self.set_aside), "stale": len(self.stale)}

    @property
    def exit_code(self) -> int:
        return 0 if all(f.status == "backed" for f in self.figures) else 1

    def to_dict(self) -> dict:
        return {"format": self.format, "file": self.file, "issue": self.issue, "summary": self.summary,
                "figures": [f.to_dict() for f in self.figures],
                "set_aside": [{**asdict(s), "sentence": shown(s.sentence)} for s in self.set_aside],
                "stale": [s.to_dict() for s in self.stale]}


def check_file(path: str | Path, report: Report, *, issue: str | None = None) -> DraftCheck:
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    markdown = is_markdown(path.name)
    if markdown and front_matter(text, file=str(path)).format == "plain":
        # A published text kept as its publishing tool exported it (see draft/article.py).
        return check_text(text, report, file=str(path), issue=issue, markdown=False, front_matter=True)
    return check_text(text, report, file=str(path), issue=issue, markdown=markdown)


def check_text(text: str, report: Report, *, file: str = "draft", issue: str | None = None,
               markdown: bool = False, front_matter: bool | None = None) -> DraftCheck:
    found = find_figures(text, markdown=markdown, front_matter=front_matter)
    views = [match.view(c) for c in report.claims if c.said]
    results = _figures(found, views, issue) + _equations(found)
    results.sort(key=lambda r: (r.line, r.column, r.kind != "equation"))
    return DraftCheck(file=file, issue=issue, figures=tuple(results), set_aside=found.set_aside,
                      stale=_stale(report, issue, found, results), found=found)


def _equations(found: Found) -> list[FigureResult]:
    out = []
    for eq in found.equations:
        computed = format_number(eq.computed, max_places=6)
        reason = "the arithmetic holds" if eq.holds else \
            f"the arithmetic does not hold: the left side is {computed}, not {format_number(eq.printed)}"
        out.append(FigureResult(line=eq.line, column=eq.column, text=eq.text, kind="equation",
                                status="backed" if eq.holds else "drift", reason=reason, sentence=eq.sentence))
    return out


class _Sentences:
    """What matching needs of a sentence (and of a figure's context), computed once per distinct
    sentence however many figures it holds: its words, its alignment with every claim, the values
    printed in it. A Markdown table row or a line of thousands of figures costs its length once."""

    def __init__(self, views: list[match.ClaimView]):
        self.views = views
        self._words: dict[str, frozenset[str]] = {}
        self._aligned: dict[tuple[str, str], list[float]] = {}

    def words(self, text: str) -> frozenset[str]:
        found = self._words.get(text)
        if found is None:
            found = self._words[text] = match.words(text)
        return found

    def aligned(self, sentence: str, context: str) -> list[float]:
        """``match.align`` of every claim (in ``views`` order) with the sentence and its context."""
        key = (sentence, context)
        found = self._aligned.get(key)
        if found is None:
            words, window = self.words(sentence), self.words(context)
            found = self._aligned[key] = [match.align(claim, words, window) for claim in self.views]
        return found


def _figures(found: Found, views: list[match.ClaimView], issue: str | None,
             sentences: _Sentences | None = None) -> list[FigureResult]:
    figures = found.figures
    sentences = sentences or _Sentences(views)
    chosen: list[match.Match | None] = [None] * len(figures)
    matched_in: dict[str, set[str]] = {}  # claim id -> sentences of the figures it backs
    values_in_sentence: dict[str, set] = {}
    for figure in figures:
        values_in_sentence.setdefault(figure.sentence, set()).add(figure.value)
    # Figures that read the same (same sentence and context, same words around them, same value,
    # unit and qualifier) score and agree the same against every claim: that is worked out once.
    groups: dict[tuple, tuple[list, list]] = {}
    drift_candidates = []
    for index, figure in enumerate(figures):
        near = match.near(figure)
        key = (figure.sentence, figure.context, near, figure.number, figure.value, figure.unit, figure.kind,
               figure.upper, figure.qualifier, figure.inverse, figure.step)
        if key not in groups:
            groups[key] = _score(figure, near, views, sentences, issue, frozenset(values_in_sentence[figure.sentence]))
        agreeing, candidates = groups[key]
        drift_candidates.append(candidates)
        best = None
        for aligned, score, claim, how, shown in agreeing:
            # Two figures of one sentence that agree with the same two claims ("four times smaller",
            # "four times as much") take one each: a claim already used in this sentence ranks lower.
            tier = {"printed": 2, "recomputed": 2, "reading": 1, "swapped": 1}.get(how, 0)
            fresh = figure.sentence not in matched_in.get(claim.result.id, ())
            # "28.0 GiB" agrees with a claim printed "30.1 GB" too; the one printed in GiB is its own.
            same_unit = claim.printed is not None and claim.printed[1] == figure.unit
            # A claim on this very sentence that fails (drift, erratum) must not be hidden by one
            # that passes: the editor needs to see it.
            failing = aligned >= 0.8 and claim.result.status in ("drift", "erratum")
            # A claim whose own sentence this is outranks one that merely agrees in value
            # ("1M tokens" of a model card is not the Qwen window of 1,010,000 tokens).
            own = aligned >= 0.8
            rank = (tier, fresh, failing, own, same_unit, score)
            if best is None or rank > best[0]:
                best = (rank, claim, how, shown)
        if best is not None:
            chosen[index] = match.verdict(figure, best[1], best[2], best[3])
            matched_in.setdefault(best[1].result.id, set()).add(figure.sentence)
    nearby: dict[tuple[str, str], bool] = {}
    for index, figure in enumerate(figures):
        if chosen[index] is None:
            chosen[index] = _drift_or_unbacked(figure, drift_candidates[index], matched_in, nearby)
    results = [_result(figure, m) for figure, m in zip(figures, chosen)]
    return results + _relations(figures, views, {r.claim for r in results if r.claim}, sentences)


def _score(figure: Figure, near: frozenset[str], views: list[match.ClaimView], sentences: _Sentences,
           issue: str | None, sentence_values: frozenset) -> tuple[list, list]:
    """For one figure (and every figure that reads the same): the claims it agrees with, as
    (aligned, score, claim, how, shown), and the claims it could have drifted from, as (score, claim)."""
    agreeing, candidates = [], []
    for aligned, claim in zip(sentences.aligned(figure.sentence, figure.context), views):
        local = len(near & claim.around) / len(claim.around) if claim.around else 0.0
        bonus = 0.05 if issue is not None and claim.result.group == issue else 0.0
        score = aligned + 0.3 * local + bonus
        how, shown = _agreement(figure, claim, aligned, sentence_values)
        if how is not None:
            agreeing.append((aligned, score, claim, how, shown))
        if aligned >= match.ALIGNED and local >= 0.5 and claim.result.figure:
            candidates.append((score, claim))
    return agreeing, candidates


def _relations(figures, views: list[match.ClaimView], used: set,
               sentences: _Sentences | None = None) -> list[FigureResult]:
    """Relations of the ledger that fail ("fewer parameters activated") and back no one figure:
    reported at the first figure of the draft sentence they are about."""
    sentences = sentences or _Sentences(views)
    first: dict[str, Figure] = {}  # each sentence once, at its first figure
    for figure in figures:
        first.setdefault(figure.sentence, figure)
    out = []
    for claim in views:
        result = claim.result
        if result.id in used or result.status not in ("drift", "erratum"):
            continue
        # A failing figure claim whose number the finder set aside ("V1 from 2024" reads as a date)
        # is still reported at its sentence: the editor must see a recorded erratum.
        number = _printed_number(result.figure) if result.figure else None
        if result.figure and number is None:
            continue
        printed = re.compile(rf"(?<![\d.,]){re.escape(number)}(?![\d,]|\.\d)") if number is not None else None
        for figure in first.values():
            if printed is not None and not printed.search(figure.sentence):
                continue
            sentence = sentences.words(figure.sentence)
            if match.align(claim, sentence, sentence) >= 0.8:
                reason = (result.erratum or {}).get("reason") if result.status == "erratum" else None
                out.append(FigureResult(line=figure.line, column=figure.column, text=result.figure or result.check,
                                        kind="set-aside figure" if result.figure else "relation",
                                        status=result.status, reason=reason or result.reason,
                                        sentence=figure.sentence, claim=result.id, claim_file=result.file))
                break
    return out


def _printed_number(figure: str) -> str | None:
    try:
        return read_figure(figure).number
    except LedgerError:
        return None


def _agreement(figure: Figure, claim: match.ClaimView, aligned: float,
               sentence_values: tuple) -> tuple[str | None, str | None]:
    if claim.result.check and not claim.result.figure:
        # A relation backs the figure of its own sentence whose number it names
        # ("mla_reduction > 90 * percent"). One that names none ("vram > total") backs a figure
        # nothing else does, if it holds; if it fails it is reported on its own (see _relations).
        if aligned < 0.8 or figure.number.lower() not in (claim.result.said or "").lower():
            return None, None
        named = {Fraction(n) for n in _NUMBER.findall(claim.result.check)} & set(sentence_values)
        if named:
            return ("printed", None) if figure.value in named else (None, None)
        return ("relation", None) if claim.result.status not in ("drift", "erratum") else (None, None)
    if aligned < match.needed_alignment(figure):
        return None, None
    return match.compare(figure, claim)


def _drift_or_unbacked(figure: Figure, candidates, matched_in: dict[str, set[str]],
                       nearby: dict[tuple[str, str], bool]) -> match.Match:
    """A figure no claim agrees with is drift when its sentence is a claim's, the words around it
    are the words around that claim's figure, and no figure nearby already matched that claim.
    ``candidates`` are the (score, claim) whose sentence and words around the figure are close
    enough; ``nearby`` keeps, per claim and context, whether the claim matched a figure in it."""
    best = None
    for score, claim in candidates:
        key = (claim.result.id, figure.context)
        if key not in nearby:
            nearby[key] = any(sentence in figure.context for sentence in matched_in.get(claim.result.id, ()))
        if nearby[key]:
            continue
        if match.compatible(figure, claim) and (best is None or score > best[0]):
            best = (score, claim)
    if best is None:
        return match.Match(status="unbacked", reason="no claim in the ledger states this figure")
    claim = best[1]
    how, shown = match.compare(figure, claim)
    if how == "swapped":
        return match.verdict(figure, claim, how, shown)
    result = claim.result
    recomputed = f", recomputed {shown}" if shown else ""
    return match.Match(status="drift", claim=result, printed=result.figure, recomputed=shown,
                       reason=f"the draft prints {figure.text}; the ledger has {result.figure}{recomputed}")


def _stale(report: Report, issue: str | None, found: Found, results: list[FigureResult]) -> tuple[StaleClaim, ...]:
    """Claims of the issue whose figure no longer appears in the draft. A claim backing no figure
    still counts as present when its sentence is in the draft with its number (a date or a name,
    set aside) or, for a relation, when its sentence is."""
    if issue is None:
        return ()
    used = {r.claim for r in results if r.claim}
    sentences = [(s, match.words(s)) for s in found.sentences]
    out = []
    for claim in report.claims:
        if claim.group != issue or claim.id in used:
            continue
        view = match.view(claim)
        number = (claim.figure or "").split(" ")[0]
        present = any(match.align(view, w, w) >= 0.8 and (claim.check or number and number in s or (
            view.printed is not None and view.printed[0] in _word_values(s))) for s, w in sentences)
        if not present:
            out.append(StaleClaim(id=claim.id, file=claim.file, line=claim.line, figure=claim.figure or claim.check,
                                  said=claim.said))
    return tuple(out)


def _word_values(sentence: str) -> set:
    """Every number written in words in ``sentence`` ("one of three modes" gives 1 and 3)."""
    found = split_words(sentence)
    return {n.value for i in range(len(found)) if (n := number_at(found, i)) is not None}


def _result(figure: Figure, m: match.Match) -> FigureResult:
    claim = m.claim
    return FigureResult(line=figure.line, column=figure.column, text=figure.text, kind=figure.kind,
                        status=m.status, reason=m.reason, sentence=figure.sentence,
                        claim=claim.id if claim else None, claim_file=claim.file if claim else None,
                        printed=m.printed, recomputed=m.recomputed)
