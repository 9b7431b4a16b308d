"""The Report: every result of a run, computed once, as plain frozen dataclasses.

Every output (terminal table, JSON, JUnit, GitHub annotations, the HTML ledger) only formats a
Report. ``to_dict`` is the JSON contract that later tools read.

JSON format history (``format``):
  1. first version: claims (id, status, figure, value, unit, file, line, messages, ...), sources,
     problems, summary.
  2. each claim has ``basis`` (what its value is computed from: recomputed | restated | measured |
     assumptions-only | typed-only | none) and ``dependence`` ({basis, sourced, assumed, unused,
     stating}: the inputs the value depends on, those it does not, and the cited passages that state
     the figure); each cite has ``states``; ``summary.basis`` counts claims by basis. Fields of
     format 1 are unchanged; a ``verified`` claim now always has a sourced basis (or rests on stated
     assumptions as an estimate or bound).
"""

from __future__ import annotations

import functools

from collections.abc import Iterator, Sequence
from dataclasses import field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .frozen import frozen
from .errors import Problem
from .figures import format_exact

if TYPE_CHECKING:
    from .dependence import Dependence
    from .measurements import Beside

FORMAT = 2
STATUSES = ("verified", "erratum", "drift", "unchecked", "error")
# what a value is computed from (workings.dependence): most to least backed
BASES = ("recomputed", "restated", "measured", "assumptions-only", "typed-only", "none")
BASIS_MEANING = {
    "recomputed": "recomputed by its steps from sourced values",
    "restated": "one sourced value restated (a source's value, or a cited passage that states the figure)",
    "measured": "measured by a probe on real allocations, which agrees; nothing sourced enters its steps",
    "assumptions-only": "rests on assumptions only: stated assumptions, no source",
    "typed-only": "only numbers typed into the record: nothing backs it",
    "none": "nothing was recomputed",
}
FAILING = ("drift", "error")


def _without_memos(self: Any) -> dict[str, Any]:
    """The object's fields for pickle (the cache), without what was worked out from them and kept on
    it (``_dict``, and the JSON texts of ``workings.jsonline``): they are made again where needed."""
    return {k: v for k, v in self.__dict__.items() if k[:1] != "_"}


@frozen(kw_only=True)
class Message:
    """Something a reader or CI should know: kind is error | drift | ambiguous | unchecked | erratum | note."""

    kind: str
    text: str
    file: str = ""
    line: int = 0
    key: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "file": self.file, "line": self.line, "key": self.key}


@frozen(kw_only=True)
class Quantity:
    """A value for display and JSON: exact magnitude and a unit string (empty for a pure number)."""

    value: Fraction
    unit: str
    display: str  # formatted with thousands separators, unit attached

    def to_dict(self) -> dict[str, Any]:
        made = self.__dict__.get("_dict")  # once per Quantity: the engine shares one between records
        if made is None:
            made = self.__dict__["_dict"] = {"value": json_number(self.value), "exact": format_exact(self.value),
                                             "unit": self.unit, "display": self.display}
        return dict(made)

    __getstate__ = _without_memos


@frozen(kw_only=True)
class StepResult:
    name: str
    expression: str
    result: Quantity | None
    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "expression": self.expression,
                "result": self.result.to_dict() if self.result else None, "line": self.line}

    __getstate__ = _without_memos


@frozen(kw_only=True)
class InputResult:
    name: str
    text: str
    kind: str  # literal | source | claim
    result: Quantity | None = None
    source: str | None = None
    key: str | None = None
    grade: str | None = None
    passage: str | None = None  # the passage that states a source value, where one was declared
    claim: str | None = None
    claim_status: str | None = None
    assumption: str | None = None

    def to_dict(self) -> dict[str, Any]:
        made = self.__dict__.get("_dict")  # once per InputResult: records that write the same input share one
        if made is None:
            made = self.__dict__["_dict"] = {k: getattr(self, k) for k in (
                "name", "text", "kind", "source", "key", "grade", "passage", "claim", "claim_status", "assumption")}
        out = dict(made)
        out["result"] = self.result.to_dict() if self.result else None
        return out

    __getstate__ = _without_memos


@frozen(kw_only=True)
class Comparison:
    """How the printed figure was held against the recomputed value."""

    printed: str  # the figure as printed
    unit: str  # the unit it was read in
    recomputed: Quantity  # recomputed, in that unit
    rule: str  # "rounded to 1 decimal", "exact", "within 5%", ...
    holds: bool

    def to_dict(self) -> dict[str, Any]:
        return {"printed": self.printed, "unit": self.unit, "recomputed": self.recomputed.to_dict(),
                "rule": self.rule, "holds": self.holds}


@frozen(kw_only=True)
class Citation:
    source: str
    passage_id: str
    text: str | None
    grade: str | None
    states: bool = False  # the passage states the claim's figure (only then does it back it)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "passage_id": self.passage_id, "text": self.text, "grade": self.grade,
                "states": self.states}


@frozen(kw_only=True)
class ClaimResult:
    id: str
    group: str
    file: str
    line: int
    said: str | None
    label: str | None
    figure: str | None
    check: str | None
    status: str
    reason: str
    result: Quantity | None = None
    comparison: Comparison | None = None
    messages: tuple[Message, ...] = ()
    steps: tuple[StepResult, ...] = ()
    inputs: tuple[InputResult, ...] = ()
    cites: tuple[Citation, ...] = ()
    uses: tuple[str, ...] = ()
    used_by: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # every source this claim rests on, through its inputs and claims
    grade: str | None = None  # the least certain grade among them
    notes: str | None = None
    erratum: dict[str, Any] | None = None
    measurements: tuple[Beside, ...] = ()
    basis: str = "none"  # what the value is computed from: see dependence.BASES
    dependence: Dependence | None = None  # the inputs it depends on, by kind
    also_said: tuple[str, ...] = ()  # other sentences repeating the figure (check-draft reads them)
    about: str | None = None  # the model the record says the claim is about (check-draft reads it)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "group": self.group, "file": self.file, "line": self.line, "said": self.said,
            "label": self.label, "figure": self.figure, "check": self.check, "status": self.status,
            "reason": self.reason,
            "value": json_number(self.result.value) if self.result else None,
            "exact": format_exact(self.result.value) if self.result else None,
            "unit": self.result.unit if self.result else None,
            "display": self.result.display if self.result else None,
            "comparison": self.comparison.to_dict() if self.comparison else None,
            "messages": [m.to_dict() for m in self.messages],
            "steps": [s.to_dict() for s in self.steps],
            "inputs": [i.to_dict() for i in self.inputs],
            "cites": [c.to_dict() for c in self.cites],
            "uses": list(self.uses), "used_by": list(self.used_by), "sources": list(self.sources),
            "grade": self.grade, "notes": self.notes, "erratum": self.erratum,
            "measurements": [m.to_dict() for m in self.measurements],
            "basis": self.basis,
            "dependence": self.dependence.to_dict() if self.dependence is not None else None,
            "also_said": list(self.also_said),
            "about": self.about,
        }


@frozen(kw_only=True)
class SourceResult:
    id: str
    file: str
    line: int
    title: str | None
    grade: str | None
    status: str  # ok | error
    publisher: str | None = None
    date: str | None = None
    url: str | None = None
    hub: dict[str, Any] | None = None
    retrieved: dict[str, Any] = field(default_factory=dict)
    snapshot: str | None = None
    sha256: str | None = None
    passages: dict[str, str] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)  # name -> {value, passage}
    notes: str | None = None
    cited_by: tuple[str, ...] = ()
    messages: tuple[Message, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("id", "file", "line", "title", "grade", "status", "publisher", "date",
                                              "url", "hub", "retrieved", "snapshot", "sha256", "passages", "values",
                                              "notes")}
        out["cited_by"] = list(self.cited_by)
        out["messages"] = [m.to_dict() for m in self.messages]
        return out


@frozen(kw_only=True)
class Report:
    claims: tuple[ClaimResult, ...]
    sources: tuple[SourceResult, ...]
    problems: tuple[Problem, ...] = ()  # every Problem with the input, claims and sources alike
    format: int = FORMAT

    @property
    def summary(self) -> dict[str, Any]:
        return summary_of(self.claims, len(self.problems))

    @property
    def contradicted(self) -> list[tuple[ClaimResult, Beside]]:
        """(claim, measurement) for each current measurement that disagrees with its claim's estimate."""
        return [(c, m) for c in self.claims for m in c.measurements if getattr(m, "contradicts", False)]

    @property
    def exit_code(self) -> int:
        """0 all good, 1 a figure drifted or a current measurement disagrees with its estimate, 2 input
        could not be used (2 wins). A stale measurement (the claim changed since) is shown, not failed."""
        if self.problems or any(c.status == "error" for c in self.claims):
            return 2
        if any(c.status == "drift" for c in self.claims) or self.contradicted:
            return 1
        return 0

    def claim(self, claim_id: str) -> ClaimResult | None:
        return self._by_id.get(claim_id)

    @functools.cached_property
    def _by_id(self) -> dict[str, ClaimResult]:
        """Each id's first claim, found once: a page per claim looks up every claim it rests on."""
        found: dict[str, ClaimResult] = {}
        for claim in self.claims:
            found.setdefault(claim.id, claim)
        return found

    def to_dict(self) -> dict[str, Any]:
        return {key: list(value) if isinstance(value, Iterator) else value
                for key, value in self.to_dict_streamed().items()}

    def to_dict_streamed(self) -> dict[str, Any]:
        """``to_dict`` with each list of records as an iterator of their dicts, made one at a time:
        the JSON report writes each as it comes (the whole tree at once was 140 MB at 10,000 claims)."""
        return {"format": self.format, "summary": self.summary,
                "claims": (c.to_dict() for c in self.claims),
                "sources": (s.to_dict() for s in self.sources),
                "problems": (p.to_dict() for p in self.problems)}


def summary_of(claims: Sequence[Any], problems: int) -> dict[str, Any]:
    """The report's ``summary``: claims by status and by basis (each claim anything with a ``status``
    and a ``basis``: a ClaimResult, or its share of the outputs in ``workings.written``)."""
    counts = {status: 0 for status in STATUSES}
    by_basis = {basis: 0 for basis in BASES}
    for claim in claims:
        counts[claim.status] += 1
        by_basis[claim.basis] += 1
    counts["total"] = len(claims)
    counts["problems"] = problems
    return {**counts, "basis": by_basis}


def json_number(value: Fraction) -> int | float:
    """An int when whole, else the nearest float; the exact value travels beside it as text."""
    if type(value) is not Fraction:  # Fraction(a Fraction) builds a copy, in Python: 10,000s of them
        value = Fraction(value)
    return value.numerator if value.denominator == 1 else float(value)
