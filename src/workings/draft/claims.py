"""The claims a draft is held against, indexed so that a draft meets only the claims it could be about.

check-draft asks three things of the ledger: which claims' sentences (``said``, ``also_said``) could
be a draft sentence's, which claim a marker names, and (for the hint of an unbacked figure) which
claims print the same value. Asked naively, each draft sentence meets every claim and each unbacked
figure every figure: 10,000 claims made a 100-sentence text a million comparisons, three times per
render. Here:

- a sentence's candidates come from an inverted index of the claims' words: a claim's sentence can be
  the draft's only if at least ``backing.ALIGN`` of its words are in it (``match.align``), so only
  claims sharing words are counted, and only those holding enough are returned (in the claims'
  order, so every result is the one the whole list gives);
- a claim's view (``match.view``: its sentence read by the finder, its printed and recomputed values)
  is built when a sentence or a marker first needs it, never for claims no sentence is near;
- the claims printing a value are grouped by their printed figure, so each figure is compared once
  with each distinct printed value, not once per claim.

``Claims(report.claims)`` is the whole ledger (render builds it once for every article page);
``draft.near`` builds one of only the draft's neighbourhood, read from disk.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from fractions import Fraction

from ..errors import LedgerError
from ..figures import read_figure
from ..report import ClaimResult
from . import identity, match
from .finder import Figure, Found
from .identity import Marker


class Claims:
    """``claims`` (in the report's order) as check-draft reads them."""

    def __init__(self, claims: Iterable[ClaimResult]):
        self.claims: tuple[ClaimResult, ...] = tuple(claims)
        # one entry per sentence a claim is said in: (claim index, sentence index); views built lazily
        self._said: list[tuple[int, int, frozenset[str]]] = []
        self._texts: list[str] = []
        for ci, claim in enumerate(self.claims):
            if claim.said:
                for si, text in enumerate((claim.said, *(claim.also_said or ()))):
                    self._said.append((ci, si, match.words(text)))
                    self._texts.append(text)
        self._views: dict[int, list[match.ClaimView]] = {}
        groups: dict[frozenset[str], list[int]] = {}
        for position, (_, _, words) in enumerate(self._said):
            groups.setdefault(words, []).append(position)
        self._groups = groups
        self._posting: dict[str, list[frozenset[str]]] = {}
        for words in groups:
            for word in words:
                self._posting.setdefault(word, []).append(words)
        self._by_id = {c.id: ci for ci, c in enumerate(self.claims)}
        self._printing: dict[tuple[Fraction, str], list[tuple[ClaimResult, list[frozenset[str]]]]] | None = None
        self.views_built = 0  # for tests: how many claims' views were built

    def for_draft(self, found: Found, markers: list[Marker], issue: str | None) -> Claims:
        """The claims to hold this draft against: all of them (a neighbourhood narrows this)."""
        return self

    def _views_of(self, ci: int) -> list[match.ClaimView]:
        views = self._views.get(ci)
        if views is None:
            views = self._views[ci] = match.views(self.claims[ci])
            self.views_built += 1
        return views

    def view(self, position: int) -> match.ClaimView:
        ci, si, _ = self._said[position]
        return self._views_of(ci)[si]

    def aligned(self, words: frozenset[str], share: float, shape: identity.Shape) -> list[match.ClaimView]:
        """The views that could be the sentence of ``words`` and ``shape``: their words at least
        ``share`` inside ``words``, and ``identity.may_be_same``; in the claims' order. A superset of
        what ``match.align`` and ``identity.same`` accept: the caller applies both."""
        counts: Counter[frozenset[str]] = Counter()
        for word in words:
            for group in self._posting.get(word, ()):
                counts[group] += 1
        positions = sorted(p for group, n in counts.items() if n >= share * len(group) - 1e-9 for p in self._groups[group])
        could_be = identity.could_be(shape)
        return [self.view(p) for p in positions if could_be(self._texts[p])]

    def marked(self, claim_id: str) -> match.ClaimView | None:
        """The claim a marker names, seen in its own sentence (None: no such claim with a sentence)."""
        ci = self._by_id.get(claim_id)
        if ci is None or not self.claims[ci].said:
            return None
        return self._views_of(ci)[0]

    def of_group(self, group: str) -> list[ClaimResult]:
        return [c for c in self.claims if c.group == group]

    def same_value(self, figure: Figure, words: frozenset[str]) -> tuple[str, ...]:
        """Claims whose printed figure states ``figure``'s value, in another sentence: the closest in
        wording first (see ``backing.hint``). Only the printed figure counts: which claims recompute
        a value is known only once every claim is evaluated, and a hint must not cost that."""
        same = self._same_scores(figure, words)
        return tuple(sorted(same, key=lambda i: (-same[i], i)))

    def _same_scores(self, figure: Figure, words: frozenset[str]) -> dict[str, float]:
        """Each claim printing the figure's value, with how much of its wording ``words`` holds."""
        same: dict[str, float] = {}
        for printed, members in self.printing().items():
            if not figure.unit and printed[1] and figure.kind == "count":
                continue  # a bare "8" is not "8 GB"
            if not match.states(figure, printed):
                continue
            for claim, said in members:
                best = max(len(w & words) / len(w) if w else 0.0 for w in said)
                same[claim.id] = max(same.get(claim.id, 0.0), best)
        return same

    def printing(self) -> dict[tuple[Fraction, str], list[tuple[ClaimResult, list[frozenset[str]]]]]:
        """The claims with a sentence and a figure that reads, by their printed (value, unit): each
        with its sentences' words."""
        if self._printing is None:
            said: dict[int, list[frozenset[str]]] = {}
            for ci, _, words in self._said:
                said.setdefault(ci, []).append(words)
            self._printing = {}
            for ci, claim in enumerate(self.claims):
                if claim.said and claim.figure and (pair := printed_pair(claim.figure)) is not None:
                    self._printing.setdefault(pair, []).append((claim, said[ci]))
        return self._printing


def printed_pair(figure: str) -> tuple[Fraction, str] | None:
    """A claim's figure as (value, unit), as ``match.view`` reads it; None when it does not read."""
    try:
        read = read_figure(figure)
    except LedgerError:
        return None
    return read.value, read.unit
