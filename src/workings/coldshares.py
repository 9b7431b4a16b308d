"""What a cold verify writes, each claim's share of the outputs made by the process that evaluated it.

A large ledger's claims are evaluated by two processes (``engine.split_batches``): each batch holds
whole groups of claims that share none, so everything a claim's links need (what uses it, the
sources it and the claims upstream rest on) is in its batch. The process that evaluated a batch
links each claim as ``engine.report_of`` links it (``engine._with_links``) and formats its share of
every output (``written.Piece``: its JSON line, JUnit testcase and table rows), and sends the shares,
not the results: a share pickles to a few strings, where a result is a tree of objects. The whole
result travels only for a claim the annotations and the step summary show (``written.is_notable``).
This process then adds the invalid records, lists the sources and the problems: the outputs are the
bytes ``written.Verified.of(engine.evaluate_ledger(...))`` gives (``tests/test_split_evaluation.py``),
with the linking and formatting of the child's half done by the child.

Where the claims are evaluated in one process (below ``readahead.MIN_RECORDS``, ``--jobs 1``, one
processor), this is ``Verified.of`` of the Report, as before.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import ending, readahead
from .engine import (Cited, _Done, _sources, _upstream_sources, _with_links, bad_result, evaluate_ledger, problems_of,
                     split_batches, users)
from .report import ClaimResult
from .written import Piece, Verified, is_notable, piece

if TYPE_CHECKING:
    from .loader import Ledger
    from .measurements import Measurement

# a claim's id, its share, the sources it rests on, and its whole result where the annotations show it
_Made = tuple[str, Piece, frozenset[str], "ClaimResult | None"]


def verify(root: str | os.PathLike[str], *, jobs: int | None = None) -> Verified:
    """``engine.verify``'s outputs, what ``workings verify --no-cache`` writes: the ledger at ``root``
    loaded and every claim evaluated. ``jobs``: as ``engine.verify``'s."""
    from .gcpause import paused
    from .loader import load_ledger

    with paused():  # as engine.verify: few cycles are built
        ledger = load_ledger(root, jobs=jobs)
        made = verified(ledger, jobs=jobs)
        ending.keep(ledger)  # the program ends without freeing it, record by record (``ending``)
        return made


def verified(ledger: Ledger, *, jobs: int | None = None) -> Verified:
    """What verify writes of ``ledger``, every claim evaluated (by two processes where ``jobs`` and the
    ledger's size let ``readahead`` fork)."""
    if not readahead.forks(len(ledger.claims), jobs):
        return Verified.of(evaluate_ledger(ledger, jobs=1))
    used_by = users(ledger)
    measured: dict[str, list[Measurement]] = {}
    for m in ledger.measurements:
        measured.setdefault(m.claim, []).append(m)

    def shares(batch: list[str], done: _Done) -> list[_Made]:
        """The batch's claims linked and formatted, in the process that evaluated them; their results
        let go (no other batch reads them)."""
        evaluated = {claim_id: done.pop(claim_id) for claim_id in batch}  # dependency order
        upstream = _upstream_sources(evaluated)
        made: list[_Made] = []
        for claim_id, (result, _) in evaluated.items():
            final = _with_links(result, ledger, upstream[claim_id], sorted(used_by.get(claim_id, ())),
                                measured.get(claim_id, ()))
            share = piece(final)
            made.append((claim_id, share, upstream[claim_id],
                         final if is_notable(share.status, share.contradicted > 0) else None))
        return made

    made = [item for part in split_batches(ledger, jobs, shares) for item in part]
    for bad in ledger.bad_claims:  # invalid records: as report_of, after the claims evaluated
        result = bad_result(bad)
        made.append((bad.id, piece(result), frozenset(), result))
    made.sort(key=lambda item: item[0])  # stable: as report_of's sort by id
    notable = [final for _, _, _, final in made if final is not None]
    listed = _sources(ledger, [Cited(claim_id, sources) for claim_id, _, sources, _ in made])
    return Verified(claims=[share for _, share, _, _ in made], sources=tuple(listed),
                    problems=problems_of(ledger, ledger.claims), notable=lambda: notable)

