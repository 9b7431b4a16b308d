"""What a warm verify writes: each claim linked as ``engine.report_of`` links it (what uses it, the
sources it rests on and their least grade, its measurements), and its share of the outputs
(``written.Piece``) taken from the pack, or made again where its key or its links changed.

The links are worked out on every run from each claim's uses and own sources, kept in the pack as
plain data beside its result, so no result is unpickled to link it. A share is taken from the pack
only for a claim whose result was (its key is the key of what is on disk now) and whose links are
the ones it was made with; a claim with the same key whose links changed can differ only in what
uses it, and gets its JSON line with the new ``used_by`` (``relinked``: the JUnit testcase and the
table's rows do not show it); any other claim is linked (``engine._with_links``) and formatted
(``written.piece``) exactly as a cold run does, its JSON line set aside in the run's spill
(``cachestore.Spill``) as soon as it is made. Invalid records are made again on every run, and so
are the source list and the problems.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import safetext
from .jsonline import _texts
from .engine import Cited, _sources, _with_links, bad_result, problems_of
from .models import GRADES
from .report import ClaimResult
from .written import Piece, Verified, is_notable, piece

if TYPE_CHECKING:
    from .cache import _Record, _Warm


def own_sources(result: ClaimResult) -> tuple[str, ...]:
    """The sources a result's own inputs read and its cites quote (``engine._upstream_sources``)."""
    return tuple(sorted({i.source for i in result.inputs if i.source} | {c.source for c in result.cites}))


# A claim's entry in the pack (``cache._Warm``): its id, uses, reads, key, its whole result (only
# for a claim the annotations show, else None), its result's uses and own sources, the links its share
# was made with, its share of the outputs less the JSON line, its JSON line (kept at the entry's top
# level: the pack keeps long bytes there raw, ``cachestore.dump_shard``), and what a claim built on
# it reads (``cache.upstream_form``).
def _entry_piece(share: Piece) -> tuple[tuple[Any, ...], Any]:
    """A share as the entry holds it: the share less its JSON line, and the line (or where it is set
    aside, ``_SpilledPiece``)."""
    return (*share[:5], *share[6:]), share[5]


class _SpilledPiece(Piece):
    """A share made this run, its JSON line set aside in the run's spill (``cachestore.Spill``) as
    soon as it is made, and read back when the JSON report is written."""

    __slots__ = ()

    @property
    def json(self) -> bytes:
        return bytes(self[5])


def _kept_piece(entry: tuple[Any, ...]) -> Piece:
    rest = entry[7]
    return Piece._make((*rest[:5], entry[8], *rest[5:]))


def relinked(share: Piece, before: tuple[Any, ...], links: tuple[Any, ...]) -> Piece | None:
    """``share`` of a claim whose links were ``before`` with ``links`` instead, where only what uses it
    changed (None otherwise): its JSON line with the new ``used_by`` (the JUnit testcase and the
    table's rows do not show it). The JSON report is sorted keys without spaces, and ``"used_by"``
    is a key nowhere else in a line (a quote inside a text is escaped), so its list is where
    ``,"used_by":[...],"uses":`` stands, made safe as ``safetext.json_text`` makes the whole line."""
    if before[1:] != links[1:]:
        return None
    old, new = (safetext.json_text(f',"used_by":{_texts(users)},"uses":').encode("utf-8") for users in (before[0], links[0]))
    line = bytes(share.json)
    if line.count(old) != 1:
        return None
    return share._replace(json=line.replace(old, new))


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
    spill = warm.spill() if ledger.claims else None  # the lines made this run are set aside as they come
    made: list[tuple[str, Piece, ClaimResult | None]] = []  # the whole result, made this run, of a claim shown whole
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
        if entry is not None:
            if entry[6] == links:
                made.append((claim_id, _kept_piece(entry), None))
                warm.pieces_kept += 1
                kept[record.digest] = entry
                continue
            # The same key: the same sources and grades upstream, so only what uses it can have changed.
            share = relinked(_kept_piece(entry), entry[6], links)
            if share is None:
                from .cache import _Cold

                raise _Cold(f"the links of {claim_id} changed beyond what uses it")
            made.append((claim_id, share, None))
            warm.pieces_made += 1
            kept[record.digest] = (*entry[:6], links, *_entry_piece(share), *entry[9:])
            continue
        result, value = done.pop(claim_id)  # let go once formatted: the outputs are made from the shares
        final = _with_links(result, ledger, upstream[claim_id], list(users), beside.get(claim_id, ()))
        share = piece(final)
        if spill is not None:
            try:
                share = _SpilledPiece._make((*share[:5], spill.add(share[5]), *share[6:]))
            except OSError as exc:  # a full disk: this run goes without the cache
                from .cache import _Cold

                raise _Cold(f"the cache's folder could not hold this run's lines ({exc.strerror or exc})") from None
        shown = is_notable(share.status, share.contradicted > 0)
        made.append((claim_id, share, final if shown else None))
        warm.pieces_made += 1
        if record.key is not None:
            form = warm.upstream_form(result, value)
            if form is not None:  # the whole result only for a claim the annotations show
                kept[record.digest] = (record.claim_id, record.uses, record.reads, record.key,
                                       warm.blob(result) if shown else None, record.links, links,
                                       *_entry_piece(share), form)
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
                    final = _with_links(warm.load(records[claim_id]), ledger, upstream[claim_id],
                                        sorted(used_by.get(claim_id, ())), beside.get(claim_id, ()))
                out.append(final)
        return out

    listed = _sources(ledger, [Cited(claim_id, upstream.get(claim_id, frozenset())) for claim_id, _, _ in made])
    return Verified(claims=[share for _, share, _ in made], sources=tuple(listed), problems=problems_of(ledger, records),
                    notable=notable)
