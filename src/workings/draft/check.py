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
  2. "backed" needs evidence of identity (the figure's own sentence, ``also_said``, or a
     ``<!-- claim: id -->`` marker), never agreement in value alone; each figure gains
     ``same_value``: for an unbacked one, the claims whose printed figure holds its value in other
     sentences.

The per-figure results of a text, for other modules (reader pages): ``check_text(...).figures``
(or ``check_file``), each a ``FigureResult`` with line, column, text, status and claim.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, field, replace
from pathlib import Path

from ..frozen import frozen
from ..errors import LedgerError
from ..figures import format_number, read_figure
from ..report import Report
from . import backing, identity, match
from .backing import Identities
from .claims import Claims
from .digits import mixed_scripts
from .article import front_matter
from .finder import Figure, Found, find_figures
from .reading import read_draft
from .text import is_markdown
from .words import number_at, split_words

FORMAT = 3  # 3: a printed equation whose arithmetic holds is "holds", no longer "backed" (no claim backs it)
STATUSES = ("backed", "holds", "drift", "ambiguous", "erratum", "unchecked", "unbacked")
PASSING = ("backed", "holds")  # what fails neither the check nor CI
SENTENCE_SHOWN = 300  # characters of a sentence printed with each figure (table and JSON)


def shown(sentence: str) -> str:
    """``sentence`` as printed beside a figure: whole up to SENTENCE_SHOWN characters, else cut
    to that length with "…" as its last character."""
    return sentence if len(sentence) <= SENTENCE_SHOWN else sentence[:SENTENCE_SHOWN - 1] + "…"


@frozen(kw_only=True)
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
    same_value: tuple[str, ...] = ()  # unbacked: claims that hold its value in other sentences

    def to_dict(self) -> dict:
        return {**asdict(self), "sentence": shown(self.sentence), "same_value": list(self.same_value)}


@frozen(kw_only=True)
class StaleClaim:
    id: str
    file: str
    line: int
    figure: str | None
    said: str | None

    def to_dict(self) -> dict:
        return asdict(self)


@frozen(kw_only=True)
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
        return 0 if all(f.status in PASSING for f in self.figures) else 1

    def to_dict(self) -> dict:
        return {"format": self.format, "file": self.file, "issue": self.issue, "summary": self.summary,
                "figures": [f.to_dict() for f in self.figures],
                "set_aside": [{**asdict(s), "sentence": shown(s.sentence)} for s in self.set_aside],
                "stale": [s.to_dict() for s in self.stale]}


def check_file(path: str | Path, report: Report | Claims, *, issue: str | None = None) -> DraftCheck:
    path = Path(path)
    text = read_draft(path)  # UTF-8, within the size and digit limits, or a LedgerError
    markdown = is_markdown(path.name)
    if markdown and front_matter(text, file=str(path)).format == "plain":
        # A published text kept as its publishing tool exported it (see draft/article.py).
        return check_text(text, report, file=str(path), issue=issue, markdown=False, front_matter=True)
    return check_text(text, report, file=str(path), issue=issue, markdown=markdown)


def check_text(text: str, report: Report | Claims, *, file: str = "draft", issue: str | None = None,
               markdown: bool = False, front_matter: bool | None = None) -> DraftCheck:
    """``report`` is the whole ledger's Report, or ``Claims``: the whole ledger indexed once for
    several texts (render), or a draft's neighbourhood read from disk (``draft.near``)."""
    text, markers = identity.strip_markers(text)
    found = find_figures(text, markdown=markdown, front_matter=front_matter)
    claims = (Claims(report.claims) if isinstance(report, Report) else report).for_draft(found, markers, issue)
    ids = Identities(found, claims, issue)
    figures = _figures(found, claims, identity.tie_markers(markers, found.figures), ids)
    results = figures + _relations(found, ids, {r.claim for r in figures if r.claim}) + _equations(found)
    results = [_mixed_digits(r) for r in results]
    results.sort(key=lambda r: (r.line, r.column, r.kind != "equation"))
    return DraftCheck(file=file, issue=issue, figures=tuple(results), set_aside=found.set_aside,
                      stale=_stale(claims, issue, found, results), found=found)


def _mixed_digits(result: FigureResult) -> FigureResult:
    """A figure whose digits mix two scripts is never backed: the value read is not what a reader
    sees (verify refuses such a number in a record, ``workings.said``)."""
    mixed = mixed_scripts(result.text)
    if not mixed:
        return result
    odd = sorted({ch for ch in mixed[0] if ch.isdecimal() and ch not in "0123456789"})
    named = ", ".join(f"U+{ord(ch):04X} {unicodedata.name(ch, '?')}" for ch in odd)
    return replace(result, status="ambiguous",
                   reason=f"{mixed[0]} mixes digits of two scripts ({named}): a reader does not see the "
                          "number the ledger read; print it in one script")


def _equations(found: Found) -> list[FigureResult]:
    out = []
    for eq in found.equations:
        computed = format_number(eq.computed, max_places=6)
        if eq.status == "ambiguous":
            status, reason = "ambiguous", f"the arithmetic {eq.note}: say which the draft means"
        elif eq.holds:
            status, reason = "holds", "the arithmetic holds; no claim is asked"
        else:
            status = "drift"
            reason = f"the arithmetic does not hold: the {eq.computed_side} side is {computed}, " \
                f"not {format_number(eq.printed)}" \
                + (f"; {eq.note}" if eq.note else "")
        out.append(FigureResult(line=eq.line, column=eq.column, text=eq.text, kind="equation",
                                status=status, reason=reason, sentence=eq.sentence))
    return out


def _figures(found: Found, claims: Claims, ties: dict[int, str], ids: Identities) -> list[FigureResult]:
    """Each figure's verdict: its claim by marker or by sentence (``backing``), then its value.
    Figures that read the same in the same sentence are judged once."""
    gathered: dict[str, set] = {}
    for figure in found.figures:
        gathered.setdefault(figure.sentence, set()).add(figure.value)
    values_in_sentence = {sentence: frozenset(values) for sentence, values in gathered.items()}  # once each
    judged: dict[tuple, match.Match | None] = {}
    hints: dict[tuple, tuple[str, ...]] = {}
    out = []
    for index, figure in enumerate(found.figures):
        at = ids.at[index]
        tied = ties.get(index)
        key = (tied, at, figure.offset, figure.sentence, figure.text, figure.value, figure.unit, figure.kind)
        m = judged.get(key)
        if m is None:
            m = judged[key] = _judge(figure, at, tied, claims, ids, values_in_sentence[figure.sentence])
        if m is None:
            hkey = (figure.sentence, figure.value, figure.unit, figure.kind, figure.number)
            if hkey not in hints:
                hints[hkey] = claims.same_value(figure, ids.words(figure.sentence))
            m = match.Match(status="unbacked", reason=backing.hint(hints[hkey]), same_value=hints[hkey])
        out.append(_result(figure, m))
    return out


def _judge(figure: Figure, at: int | None, tied: str | None, claims: Claims, ids: Identities,
           values: frozenset) -> match.Match | None:
    if tied is not None:
        view = claims.marked(tied)  # a marker ties the claim in its own sentence
        if view is None:
            return match.Match(status="unbacked", reason=f"its marker names {tied}, which the ledger does not have")
        if view.result.check and not view.result.figure:
            return backing.relation_verdict(figure, view, values) or match.Match(
                status=view.result.status if view.result.status in ("drift", "erratum") else "unbacked",
                reason=f"its marker names the relation {tied}: {view.result.reason}", claim=view.result)
        return backing.judge(figure, [view], "marker")
    own = ids.claims_of(figure, at)
    if own:
        return backing.judge(figure, own, "sentence")
    for view in ids.relations_of(at):
        m = backing.relation_verdict(figure, view, values)
        if m is not None:
            return m
    return None


def _relations(found: Found, ids: Identities, used: set) -> list[FigureResult]:
    """Claims of the ledger that fail (drift, erratum) and back no figure of the draft ("fewer
    parameters activated", a date the finder set aside): reported at the first figure of the
    draft sentence that is theirs, so the editor sees every recorded erratum."""
    first: dict[int, Figure] = {}
    for figure, at in zip(found.figures, ids.at):
        if at is not None:
            first.setdefault(at, figure)
    out, seen = [], set(used)
    for at, figure in sorted(first.items()):
        for view in ids.accepted[at]:
            result = view.result
            if result.id in seen or result.status not in ("drift", "erratum"):
                continue
            number = _printed_number(result.figure) if result.figure else None
            if result.figure and (number is None or not re.search(
                    rf"(?<![\d.,]){re.escape(number)}(?![\d,]|\.\d)", figure.sentence)):
                continue
            seen.add(result.id)
            reason = (result.erratum or {}).get("reason") if result.status == "erratum" else None
            out.append(FigureResult(line=figure.line, column=figure.column, text=result.figure or result.check or "",
                                    kind="set-aside figure" if result.figure else "relation",
                                    status=result.status, reason=reason or result.reason,
                                    sentence=figure.sentence, claim=result.id, claim_file=result.file))
    return out


def _printed_number(figure: str) -> str | None:
    try:
        return read_figure(figure).number
    except LedgerError:
        return None


def _stale(claims: Claims, issue: str | None, found: Found, results: list[FigureResult]) -> tuple[StaleClaim, ...]:
    """Claims of the issue whose figure no longer appears in the draft. A claim backing no figure
    still counts as present when its sentence is in the draft with its number (a date or a name,
    set aside) or, for a relation, when its sentence is."""
    if issue is None:
        return ()
    used = {r.claim for r in results if r.claim}
    sentences = [(s, match.words(s)) for s in found.sentences]
    out = []
    for claim in claims.of_group(issue):
        if claim.id in used:
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
    return FigureResult(line=figure.line, column=figure.column, text=figure.shown, kind=figure.kind,
                        status=m.status, reason=m.reason, sentence=figure.sentence,
                        claim=claim.id if claim else None, claim_file=claim.file if claim else None,
                        printed=m.printed, recomputed=m.recomputed, same_value=m.same_value)
