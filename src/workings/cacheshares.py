"""What a warm verify writes: each claim linked as ``engine.report_of`` links it (what uses it, the
sources it rests on and their least grade, its measurements), and its share of the outputs
(``written.Piece``) taken from the pack, or made again where its key or its links changed.

The links are worked out on every run from each claim's uses and own sources, kept in the pack as
plain data beside its result, so no result is unpickled to link it. A share is taken from the pack
only for a claim whose result was (its key is the key of what is on disk now) and whose links are
the ones it was made with; any other claim is linked (``engine._with_links``) and formatted
(``written.piece``) exactly as a cold run does. Invalid records are made again on every run, and so
are the source list and the problems.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .frozen import frozen
from .engine import _sources, _with_links, bad_result
from .errors import Problem
from .models import GRADES
from .report import ClaimResult
from .written import Piece, Verified, is_notable, piece

if TYPE_CHECKING:
    from .cache import _Record, _Warm


@frozen
class _Cited:
    """What ``engine._sources`` reads of a claim to list who cites each source."""

    id: str
    sources: frozenset[str]


def own_sources(result: ClaimResult) -> tuple[str, ...]:
    """The sources a result's own inputs read and its cites quote (``engine._upstream_sources``)."""
    return tuple(sorted({i.source for i in result.inputs if i.source} | {c.source for c in result.cites}))


def shares(warm: _Warm, records: dict[str, _Record], order: Sequence[str], done: dict[str, Any]) -> Verified:
    """Every claim's share of the outputs, in the report's order; the pack's entries for the next run
    go into ``warm.new_pack``. ``order``: the good records in dependency order; ``done``: the results
    evaluated this run and those they read."""
    ledger = warm.ledger
    used_by: dict[str | None, set[str]] = {}
    for record in records.values():
        if record.claim is not None and record.claim_id in ledger.claims:  # read this run: as report_of reads it
            for item in record.claim.inputs:
                if item.kind == "claim":
                    used_by.setdefault(item.claim, set()).add(record.claim_id)
        else:
            for used in record.links[0]:
                used_by.setdefault(used, set()).add(record.claim_id)
    upstream: dict[str, frozenset[str]] = {}
    same: dict[frozenset[str], frozenset[str]] = {}  # one object per set: the claims of a chain share it
    for claim_id in order:  # dependency order: as engine._upstream_sources, each edge once
        uses, own = records[claim_id].links
        found = set(own)
        for dep in uses:
            if dep in upstream:
                found |= upstream[dep]
        rests_on = frozenset(found)
        upstream[claim_id] = same.setdefault(rests_on, rests_on)
    beside: dict[str, list[Any]] = {}
    for m in ledger.measurements:
        beside.setdefault(m.claim, []).append(m)
    grades = {source_id: source.grade for source_id, source in ledger.sources.items()}
    rests: dict[frozenset[str], tuple[tuple[str, ...], str | None]] = {}  # sources, sorted, and their least grade
    kept = warm.new_pack["claims"]
    made: list[tuple[str, Piece, ClaimResult | None]] = []  # with the whole result, when made this run
    for claim_id in order:
        record = records[claim_id]
        users = tuple(sorted(used_by.get(claim_id, ())))
        rest = rests.get(upstream[claim_id])
        if rest is None:  # claims of one chain rest on the same sources: sorted and graded once
            sources = tuple(sorted(upstream[claim_id]))
            known = [grades[s] for s in sources if s in grades]
            rest = rests[upstream[claim_id]] = (sources, max(known, key=GRADES.index) if known else None)
        links = (users, *rest)
        entry = record.entry if claim_id not in ledger.claims else None  # its result reused: its entry holds
        if entry is not None and entry[6] == links:
            made.append((claim_id, Piece._make(entry[7]), None))
            warm.pieces_kept += 1
            kept[record.digest] = entry
            continue
        result = done[claim_id][0] if claim_id in done else warm.load(record, False)[0]
        final = _with_links(result, ledger, upstream[claim_id], list(users), beside.get(claim_id, ()))
        share = piece(final)
        made.append((claim_id, share, final))
        warm.pieces_made += 1
        if record.key is not None:
            blob = entry[4] if entry is not None else warm.blob(claim_id, done)
            if blob is not None:
                kept[record.digest] = (record.claim_id, record.uses, record.reads, record.key, blob, record.links,
                                       links, tuple(share))
    for bad in ledger.bad_claims:  # invalid records: read and made again on every run
        result = bad_result(bad)
        made.append((bad.id, piece(result), result))
    made.sort(key=lambda item: item[0])  # stable: as report_of's sort by id

    def notable() -> list[ClaimResult]:
        """The whole results the annotations and step summary show, in the report's order."""
        out = []
        for claim_id, share, final in made:
            if is_notable(share.status, share.contradicted > 0):
                if final is None:
                    final = _with_links(warm.load(records[claim_id], False)[0], ledger, upstream[claim_id],
                                        sorted(used_by.get(claim_id, ())), beside.get(claim_id, ()))
                out.append(final)
        return out

    problems = list(ledger.problems)
    for m in ledger.measurements:
        if m.claim not in records:
            problems.append(Problem(file=f"ledger/measurements/{m.filename}", line=1, key="claim",
                                    message=f"no claim {m.claim!r} in claims/ (renamed or removed?)"))
    listed = _sources(ledger, [_Cited(claim_id, upstream.get(claim_id, frozenset())) for claim_id, _, _ in made])
    return Verified(claims=[share for _, share, _ in made], sources=tuple(listed), problems=tuple(sorted(problems)),
                    notable=notable)
