"""The run that fills the cache (``workings.cache``, a first run or one after a change of code): what
it keeps of each claim and how it writes the pack, held to what it replaces. Counted and compared,
never timed.

- A claim built on a reused claim reads its status, reason, basis, shown value and value: those are
  kept as plain data (``cache.upstream_form``) and give back what the claim's result held.
- The whole result is kept only for a claim the annotations and the step summary show.
- The JSON lines made in a run are set aside in a temporary file (``cachestore.Spill``) as they are
  made: the pack and the report written from it are those written from the lines held in memory,
  and a disk that cannot take them makes the run cold, with the cold run's outputs.
- A claim whose only change is what uses it gets its JSON line with the new ``used_by``
  (``cacheshares.relinked``): the line formatting it again gives, whatever its ids hold.
"""

from __future__ import annotations

import errno
import shutil
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from workings import cache, cachestore, cacheshares, engine, outputs, units
from workings.loader import load_ledger
from workings.written import is_notable, piece

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402


@pytest.fixture
def ledger_root(tmp_path: Path) -> Path:
    """This repository's ledger (errata, measurements, cites) and 40 generated claims of variant b."""
    root = tmp_path / "ledger"
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    bench.make_ledger(root, 40, "b", group_prefix="gen")
    return root


def _same_value(a: object, b: object) -> bool:
    if units.is_quantity(a) or units.is_quantity(b):
        return (units.is_quantity(a) and units.is_quantity(b) and type(a._magnitude) is type(b._magnitude)
                and a._magnitude == b._magnitude and dict(a._units.items()) == dict(b._units.items())
                and [type(p) for p in a._units.values()] == [type(p) for p in b._units.values()]
                and str(a.units) == str(b.units))
    return type(a) is type(b) and a == b


def test_what_a_claim_built_on_a_reused_one_reads_is_kept_whole(ledger_root):
    done = engine.evaluate_claims(load_ledger(ledger_root))
    kept = 0
    plain: dict = {}
    for result, value in done.values():
        form = cache.upstream_form(result, value, plain)
        assert form == cache.upstream_form(result, value)  # the forms made once per value are the same
        if form is None:
            continue
        kept += 1
        upstream, back = cache.upstream_of(form)
        assert (upstream.status, upstream.reason, upstream.basis) == (result.status, result.reason, result.basis)
        assert upstream.result == result.result and type(upstream.result) is type(result.result)
        assert _same_value(back, value), result.id
    assert kept > 100
    # a number, none, and a unit with a fractional power
    assert cache._value(cache._value_form(Fraction(7, 3))) == Fraction(7, 3)
    assert cache._value(cache._value_form(None)) is None
    odd = units.quantity(Fraction(5, 2), "B") ** Fraction(1, 2)
    if cache._value_form(odd) is not False:
        assert _same_value(cache._value(cache._value_form(odd)), odd)
    assert cache._value_form(1.5) is False  # not exact: not kept, recomputed on every run


def test_the_whole_result_is_kept_only_for_a_claim_the_annotations_show(ledger_root, tmp_path):
    store = cachestore.Store.for_root(ledger_root, tmp_path / "cache")
    verified, stats = cache.verify(ledger_root, store)
    assert not stats.why_cold
    shown = {c.id for c in verified.claims if is_notable(c.status, c.contradicted > 0)}
    assert shown  # the repository's errata
    entries = store.read()["claims"].values()
    assert {e[0] for e in entries if e[4] is not None} == shown & {e[0] for e in entries}


def _pack_claims(store: cachestore.Store) -> dict:
    return {digest: tuple(bytes(part) if type(part) is memoryview else part for part in entry)
            for digest, entry in store.read()["claims"].items()}


def test_lines_set_aside_make_the_pack_and_report_that_lines_held_make(ledger_root, tmp_path, monkeypatch):
    store = cachestore.Store.for_root(ledger_root, tmp_path / "cache")
    verified, _ = cache.verify(ledger_root, store)
    assert all(type(c[5]) is cachestore.Spilled for c in verified.claims if c.id.startswith("gen"))
    report = b"".join(bytes(part) for part in outputs.json_parts(verified))
    spilled = _pack_claims(store)
    store.path.unlink()
    monkeypatch.setattr(cachestore.Spill, "open", classmethod(lambda cls, folder: None))
    store = cachestore.Store.for_root(ledger_root, tmp_path / "cache")
    held, _ = cache.verify(ledger_root, store)
    assert not any(type(c[5]) is cachestore.Spilled for c in held.claims)
    assert _pack_claims(store) == spilled
    assert b"".join(bytes(part) for part in outputs.json_parts(held)) == report
    assert report == b"".join(bytes(p) for p in outputs.json_parts(engine.evaluate_ledger(load_ledger(ledger_root))))


def test_a_disk_that_cannot_take_the_lines_makes_the_run_cold(ledger_root, tmp_path, monkeypatch):
    def full(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cachestore.Spill, "add", full)
    store = cachestore.Store.for_root(ledger_root, tmp_path / "cache")
    verified, stats = cache.verify(ledger_root, store)
    assert "could not hold this run's lines (No space left on device)" in stats.why_cold
    assert stats.recomputed == stats.total
    cold = engine.evaluate_ledger(load_ledger(ledger_root))
    assert b"".join(map(bytes, outputs.json_parts(verified))) == b"".join(map(bytes, outputs.json_parts(cold)))
    assert outputs.junit(verified) == outputs.junit(cold) and outputs.table(verified) == outputs.table(cold)


@pytest.mark.parametrize("users", [(), ("a/b",), ("gen0/c1", "gen0/c2"), ("x\u202ey", "##[z", 'q"uote', "\u2028")])
def test_a_line_relinked_is_the_line_formatting_it_again_gives(ledger_root, users):
    ledger = load_ledger(ledger_root)
    report = engine.evaluate_ledger(ledger)
    for claim in report.claims[::7]:
        before = (claim.used_by, claim.sources, claim.grade)
        after = (tuple(users), claim.sources, claim.grade)
        again = cacheshares.relinked(piece(claim), before, after)
        assert again is not None
        assert again == piece(replace(claim, used_by=tuple(users)))
        # what else it rests on changed: never patched
        assert cacheshares.relinked(piece(claim), before, (tuple(users), (*claim.sources, "other"), claim.grade)) is None


def test_a_pack_an_earlier_workings_wrote_is_rebuilt_without_a_word(ledger_root, tmp_path):
    store = cachestore.Store.for_root(ledger_root, tmp_path / "cache")
    _, stats = cache.verify(ledger_root, store)
    data = store.path.read_bytes()
    assert data.startswith(cachestore.MAGIC) and cachestore.MAGIC != b"workings-cache 2\n"
    store.path.write_bytes(b"workings-cache 2\n" + data[len(cachestore.MAGIC):])
    store = cachestore.Store.for_root(ledger_root, tmp_path / "cache")
    _, again = cache.verify(ledger_root, store)
    assert again.recomputed == again.total == stats.total and store.notes == []
    _, then = cache.verify(ledger_root, cachestore.Store.for_root(ledger_root, tmp_path / "cache"))
    assert then.recomputed == 0
