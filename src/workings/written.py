"""Each claim's share of what verify writes, and ``Verified``: what the outputs (``workings.outputs``)
are assembled from.

A claim's share is its line of the JSON report, its JUnit testcase and its rows of the terminal
table (all of it, and what ``--quiet`` keeps), with its id, file, status, basis and how many current
measurements disagree with it (which the headers and summary lines count). Every output is those
pieces in the report's order (the table in its own), between a head and a tail made from the
counts, the sources and the problems.

A cold run formats each claim when an output asks for it (``Live``: nothing is held, each output
formats its own part once). A warm run (``workings.cache``) keeps each claim's ``Piece`` in the
cache, under a key of everything it is made from, so an unchanged claim costs a look-up instead of
a formatting. Both make the text with the same functions here, and the outputs assemble both the
same way: the bytes are the same.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .frozen import frozen
from . import safetext
from .jsonline import claim_line
from .report import FAILING, FORMAT, ClaimResult, Report, SourceResult, summary_of

if TYPE_CHECKING:
    from .errors import Problem
    from .measurements import Beside

SYMBOL = {"verified": "ok", "erratum": "ERRATUM", "drift": "DRIFT", "unchecked": "unchecked", "error": "ERROR"}


def dump(value: object) -> str:
    """One JSON value on one line: sorted keys, no spaces, text made safe (``safetext.json_text``)."""
    return safetext.json_text(json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")))


def json_line(claim: ClaimResult) -> bytes:
    """The claim's line of the JSON report, UTF-8, without its comma and newline: ``dump(claim.to_dict())``,
    made from the JSON text of its parts, each shared part encoded once (``workings.jsonline``)."""
    return claim_line(claim)


def disagreeing(claim: ClaimResult) -> list[Beside]:
    """The claim's current measurements that disagree with its estimate (``Report.contradicted``)."""
    return [m for m in claim.measurements if getattr(m, "contradicts", False)]


def junit_case(claim: ClaimResult, contradicted: Beside | None) -> str:
    """The claim's testcase element, its lines joined by newlines; ``contradicted``: the measurement
    that fails it (only for a claim not already failing)."""

    def attr(value: object) -> str:
        return quoteattr(safetext.clean(value))

    out = [f'    <testcase classname={attr(claim.group or "claims")} name={attr(claim.id)} '
           f'file={attr(claim.file)} line="{claim.line}" time="0">']
    body = escape(safetext.clean(claim.reason or ""))
    if claim.status == "drift":
        out.append(f'      <failure type="drift" message={attr(claim.reason or "drift")}>{body}</failure>')
    elif contradicted is not None:
        text = disagreement(contradicted)
        out.append(f'      <failure type="measurement" message={attr(text)}>{escape(safetext.clean(text))}</failure>')
    elif claim.status == "error":
        out.append(f'      <error type="invalid-record" message={attr(claim.reason or "error")}>{body}</error>')
    elif claim.status == "unchecked":
        out.append(f'      <skipped message={attr(claim.reason or "unchecked")}/>')
    out.append("    </testcase>")
    return "\n".join(out)


def rows(claim: ClaimResult, only_failing: bool) -> str:
    """The claim's rows of the terminal table, each line made safe and ending with a newline (empty
    when ``only_failing`` leaves it out)."""
    if only_failing and claim.status not in FAILING and all(m.holds for m in claim.measurements):
        return ""
    figure = claim.figure or ("check" if claim.check else "")
    shown = claim.comparison.recomputed.display if claim.comparison else (claim.result.display if claim.result else "")
    basis = "" if claim.status == "error" else claim.basis  # an unusable record has no basis to show
    lines = [f"{SYMBOL[claim.status]:<9} {figure:>22}  {shown:<26} {basis:<16} {claim.id}".rstrip()]
    if claim.status in FAILING or claim.status == "erratum":
        lines.extend(f"{'':<9} {place}" for place in _places(claim))
    elif not only_failing:  # a pass under one reading of its unit is said, never silent
        lines.extend(f"{'':<9} {m.kind}: {m.text}" for m in claim.messages if m.kind == "ambiguous")
    for m in claim.measurements:  # beside the estimate, and never quiet when it disagrees
        if not m.holds or not only_failing:
            verdict = "agrees" if m.holds else "DISAGREES" if m.stale is None else "stale"
            lines.append(f"{'':<9} measured {m.result} on {m.device}: {verdict}, {m.agreement}"
                         + (f" (stale: {m.stale})" if m.stale else ""))
    return safetext.lines(lines)


def _places(claim: ClaimResult) -> list[str]:
    """Each message that explains a failing claim, as ``file:line: key: text``."""
    shown = [m for m in claim.messages if m.kind in ("error", "drift", "erratum", "ambiguous")]
    if not shown:
        return [f"{claim.file}:{claim.line}: {claim.reason}"]
    return [f"{where(m.file or claim.file, m.line or claim.line)}: {m.key + ': ' if m.key else ''}{m.text}"
            for m in shown]


def where(file: str, line: int) -> str:
    """``file:line``, or the file alone for a problem with the whole file (a link, a pipe: no line)."""
    return f"{file}:{line}" if line else file


def disagreement(m: Beside) -> str:
    return f"measured {m.result} on {m.device} ({m.file}): disagrees with the estimate {m.estimate}, {m.agreement}"


# xml.sax.saxutils's escape and quoteattr, the same replacements in the same order: importing it
# imports urllib.request, a tenth of what verify of this repository's ledger costs above the floor.
# (tests/test_output_escapes.py holds these to the standard library's on any text.)
def escape(data: str) -> str:
    return data.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(data: str) -> str:
    data = escape(data).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' in data:
        if "'" in data:
            return '"%s"' % data.replace('"', "&quot;")
        return "'%s'" % data
    return '"%s"' % data


class Piece(NamedTuple):
    """One claim's share of every output, made once (``piece``); the cache keeps it as a tuple."""

    id: str
    file: str
    status: str
    basis: str
    contradicted: int  # current measurements that disagree with its estimate
    json: bytes | memoryview  # UTF-8 (a view of the pack's bytes, when it comes from the cache)
    junit: str
    table: str
    quiet: str

    def rows(self, only_failing: bool) -> str:
        return self.quiet if only_failing else self.table


def piece(claim: ClaimResult) -> Piece:
    """``claim``'s share of every output: ``claim`` is final (its links to other claims added)."""
    against = disagreeing(claim)
    return Piece(claim.id, claim.file, claim.status, claim.basis, len(against), json_line(claim),
                 junit_case(claim, against[-1] if against and claim.status not in FAILING else None),
                 rows(claim, False), rows(claim, True))


class Live:
    """A claim of a cold run: each output formats its share when it asks, and nothing is kept."""

    __slots__ = ("claim", "_contradicted")

    def __init__(self, claim: ClaimResult, contradicted: dict[str, Beside]):
        self.claim, self._contradicted = claim, contradicted

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def file(self) -> str:
        return self.claim.file

    @property
    def status(self) -> str:
        return self.claim.status

    @property
    def basis(self) -> str:
        return self.claim.basis

    @property
    def contradicted(self) -> int:
        return len(disagreeing(self.claim)) if self.claim.measurements else 0

    @property
    def json(self) -> bytes:
        return json_line(self.claim)

    @property
    def junit(self) -> str:
        return junit_case(self.claim, self._contradicted.get(self.claim.id))

    def rows(self, only_failing: bool) -> str:
        return rows(self.claim, only_failing)


@frozen
class Verified:
    """What verify's outputs are made from: each claim's share, in the report's order (by id), the
    sources and the problems; ``notable`` gives the whole results of the claims that fail, are
    errata or disagree with a measurement (the annotations and the step summary say more of those)."""

    claims: Sequence[Piece | Live]
    sources: Sequence[SourceResult]
    problems: Sequence[Problem]
    notable: Callable[[], list[ClaimResult]]
    format: int = FORMAT

    @classmethod
    def of(cls, report: Report) -> Verified:
        contradicted = {c.id: m for c, m in report.contradicted if c.status not in FAILING}
        return cls(claims=[Live(c, contradicted) for c in report.claims], sources=report.sources,
                   problems=report.problems, format=report.format,
                   notable=lambda: [c for c in report.claims if is_notable(c.status, bool(disagreeing(c)))])

    @functools.cached_property
    def notable_claims(self) -> list[ClaimResult]:
        return self.notable()

    @functools.cached_property
    def summary(self) -> dict[str, Any]:
        return summary_of(self.claims, len(self.problems))

    @functools.cached_property
    def disagreements(self) -> int:
        """How many (claim, measurement) pairs disagree: ``len(Report.contradicted)``."""
        return sum(c.contradicted for c in self.claims)

    @property
    def exit_code(self) -> int:
        """As ``Report.exit_code``."""
        if self.problems or any(c.status == "error" for c in self.claims):
            return 2
        if any(c.status == "drift" for c in self.claims) or self.disagreements:
            return 1
        return 0


def is_notable(status: str, contradicted: bool) -> bool:
    return status in FAILING or status == "erratum" or contradicted


def verified(report: Report | Verified) -> Verified:
    return report if isinstance(report, Verified) else Verified.of(report)
