"""A large ledger's claims evaluated by two processes (engine._evaluate_split): the same Report and
the same bytes in every output as one process gives, whichever process evaluated which claim; a
child that fails or dies costs only its help.

The fork is real (os.fork, a pipe, pickled results). Only the size below which one process is used
is lowered, batches are made small, and this process's own evaluation is slowed by a sleep where a
test needs both processes to have evaluated claims: the split follows the two processes' speeds."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from workings import coldshares, engine, loader, outputs, readahead
from workings.cli import main
from workings.written import Piece, Verified
from test_readahead import REPO, _broken_ledger, _no_child_left, pytestmark, small, split  # noqa: F401

EXTRA = {  # claims that fail through other claims: a cycle, an input that is an invalid record or absent
    "cyc/a": "said: A is 1 B.\nfigure: 1 B\nlabel: derived\ninputs:\n  b: claim:cyc/b\ncompute:\n  a: b\n",
    "cyc/b": "said: B is 1 B.\nfigure: 1 B\nlabel: derived\ninputs:\n  a: claim:cyc/a\ncompute:\n  b: a\n",
    "cyc/after": "said: After is 1 B.\nfigure: 1 B\nlabel: derived\ninputs:\n  a: claim:cyc/a\ncompute:\n  c: a\n",
    "odd/uses-invalid": "said: It is 1 B.\nfigure: 1 B\nlabel: derived\ninputs:\n  m: claim:zzz-last/missing\n"
                        "compute:\n  c: m\n",
    "odd/uses-nothing": "said: It is 1 B.\nfigure: 1 B\nlabel: derived\ninputs:\n  m: claim:odd/absent\n"
                        "compute:\n  c: m\n",
}


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> Path:
    """This repository's ledger, 600 generated claims in chains, broken records, and claims that
    fail through others."""
    root = _broken_ledger(tmp_path_factory.mktemp("ledger"))
    for claim_id, text in EXTRA.items():
        (root / "claims" / claim_id).parent.mkdir(exist_ok=True)
        (root / "claims" / f"{claim_id}.yaml").write_text(text)
    return root


@pytest.fixture
def batches_of_two(monkeypatch) -> None:
    monkeypatch.setattr(engine, "SPLIT_BATCH", 2)


def _slowed_here(monkeypatch, seconds: float = 0.002) -> None:
    """This process's evaluation of each batch sleeps first (the child's does not): both evaluate."""
    parent = os.getpid()
    real = engine._evaluate_in_order

    def slowed(*args):
        if os.getpid() == parent:
            time.sleep(seconds)
        return real(*args)

    monkeypatch.setattr(engine, "_evaluate_in_order", slowed)


def _outputs(report) -> tuple:
    verified = Verified.of(report)
    return b"".join(outputs.json_parts(verified)), outputs.junit(verified), outputs.table(verified), \
        outputs.github_annotations(verified), outputs.markdown_summary(verified)


def test_the_report_is_the_same_evaluated_by_two_processes(ledger, small, split, batches_of_two, monkeypatch):
    loaded = loader.load_ledger(ledger, jobs=1)
    one = engine.evaluate_ledger(loaded, jobs=1)
    assert split == [0]  # one process: evaluate_claims, no child asked
    _slowed_here(monkeypatch)
    two = engine.evaluate_ledger(loaded, jobs=2)
    batches = len(engine._batches(loaded.claims, engine._order(loaded.claims)[0]))
    assert 0 < split[1] < batches  # both processes evaluated batches
    assert two == one
    assert _outputs(two) == _outputs(one)
    assert _no_child_left()
    statuses = {c.id: (c.status, c.reason) for c in one.claims}
    assert statuses["cyc/a"][0] == statuses["cyc/b"][0] == "error" and "cycle" in statuses["cyc/a"][1]
    assert statuses["odd/uses-invalid"][0] == statuses["odd/uses-nothing"][0] == "error"
    assert sum(s == "verified" for s, _ in statuses.values()) > 600


def test_the_child_evaluates_from_the_first_batch_and_this_process_from_the_last(ledger, small, split,
                                                                                batches_of_two, monkeypatch):
    loaded = loader.load_ledger(ledger, jobs=1)
    order, cycles = engine._order(loaded.claims)
    batches = engine._batches(loaded.claims, order)
    parent = os.getpid()
    seen: list[tuple[int, str]] = []
    real = engine._evaluate_in_order

    def noted(ledger_, ids, *rest):
        if os.getpid() == parent:
            seen.append((parent, ids[0]))
            time.sleep(0.002)
        return real(ledger_, ids, *rest)

    monkeypatch.setattr(engine, "_evaluate_in_order", noted)
    engine.evaluate_ledger(loaded, jobs=2)
    here = [first for _, first in seen]
    firsts = [batch[0] for batch in batches]
    assert here == firsts[len(firsts) - len(here):][::-1]  # the last batches, last first
    assert split[-1] == len(firsts) - len(here) > 0  # the child took the rest, from the first


def _child_stops(monkeypatch, after: int, stop) -> None:
    """The child evaluates ``after`` batches, then calls ``stop`` before each one; this process's
    batches are slowed by a sleep, so the child has evaluated some."""
    parent = os.getpid()
    real = engine._evaluate_in_order
    calls = [0]

    def stopping(*args):
        if os.getpid() != parent:
            calls[0] += 1
            if calls[0] > after:
                stop()
        else:
            time.sleep(0.001)
        return real(*args)

    monkeypatch.setattr(engine, "_evaluate_in_order", stopping)


def _fail() -> None:
    raise RuntimeError("a child's failure")


def test_a_batch_the_child_cannot_evaluate_is_evaluated_here(ledger, small, split, batches_of_two, monkeypatch):
    loaded = loader.load_ledger(ledger, jobs=1)
    one = engine.evaluate_ledger(loaded, jobs=1)
    _child_stops(monkeypatch, 2, _fail)  # from its third batch on: it sends None for each
    two = engine.evaluate_ledger(loaded, jobs=2)
    assert split[1] > 2  # the batches it failed on came back as None, and were evaluated here
    assert two == one


def test_a_child_that_dies_leaves_the_rest_to_this_process(ledger, small, split, batches_of_two, monkeypatch):
    loaded = loader.load_ledger(ledger, jobs=1)
    one = engine.evaluate_ledger(loaded, jobs=1)
    # the child writes what it made in blocks of readahead._BATCH bytes: it dies after 40 batches, so that
    # some blocks were written (5 batches of this ledger pickled to about that much, and then to less)
    _child_stops(monkeypatch, 40, lambda: os._exit(1))
    two = engine.evaluate_ledger(loaded, jobs=2)
    assert 0 < split[1] <= 40
    assert two == one
    assert _no_child_left()


def test_one_process_when_asked_or_below_the_size(ledger, small, split, batches_of_two, monkeypatch):
    loaded = loader.load_ledger(ledger, jobs=1)
    forked: list[int] = []
    real = readahead._fork
    monkeypatch.setattr(readahead, "_fork", lambda *a: (forked.append(1), real(*a))[1])
    monkeypatch.setattr(readahead, "MIN_RECORDS", len(loaded.claims) + 1)
    below = engine.evaluate_ledger(loaded, jobs=2)
    monkeypatch.setattr(readahead, "MIN_RECORDS", 0)
    asked = engine.evaluate_ledger(loaded, jobs=1)
    assert forked == [] and below == asked
    engine.evaluate_ledger(loaded, jobs=2)
    assert forked == [1]


def test_verify_writes_the_same_bytes_with_one_process_or_two(ledger, small, split, batches_of_two, tmp_path,
                                                              monkeypatch):
    def run(jobs: int):
        out = tmp_path / str(jobs)
        result = CliRunner().invoke(main, ["verify", "--root", str(ledger), "--no-cache", "--jobs", str(jobs),
                                           "--json", str(out / "r.json"), "--junit", str(out / "j.xml")],
                                    env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(out / "summary.md")})
        return result.exit_code, result.stdout, result.stderr, (out / "r.json").read_bytes(), \
            (out / "j.xml").read_bytes(), (out / "summary.md").read_bytes()

    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    one = run(1)
    _slowed_here(monkeypatch)
    real = loader._checked_claim
    monkeypatch.setattr(loader, "_checked_claim", lambda *a: (time.sleep(0.001), real(*a))[1])
    two = run(2)
    assert split[0] == 0 and len(split) == 3 and split[1] > 0 and split[2] > 0  # read by two, evaluated by two
    assert one[0] == 2  # the broken records
    assert two == one


def test_this_repositorys_ledger_is_evaluated_by_two_processes_too(tmp_path, small, split, batches_of_two,
                                                                   monkeypatch):
    shutil.copytree(REPO / "claims", tmp_path / "claims")
    shutil.copytree(REPO / "ledger", tmp_path / "ledger")
    loaded = loader.load_ledger(tmp_path, jobs=1)
    one = engine.evaluate_ledger(loaded, jobs=1)
    _slowed_here(monkeypatch, 0.005)
    two = engine.evaluate_ledger(loaded, jobs=2)
    assert split[-1] > 0  # the child evaluated some of this ledger's own claims
    assert two == one and _outputs(two) == _outputs(one)
    shared = coldshares.verified(loaded, jobs=2)  # verify's outputs, each claim's share made where evaluated
    assert split[-1] > 0 and all(isinstance(c, Piece) for c in shared.claims)
    assert _verified_outputs(shared) == _verified_outputs(Verified.of(one))


def _verified_outputs(verified: Verified) -> tuple:
    return (b"".join(outputs.json_parts(verified)), outputs.junit(verified), outputs.table(verified),
            outputs.table(verified, only_failing=True), outputs.github_annotations(verified),
            outputs.markdown_summary(verified), verified.exit_code, verified.summary, verified.disagreements,
            verified.notable_claims, [c.id for c in verified.claims])


@pytest.fixture(scope="module")
def measured(ledger, tmp_path_factory) -> Path:
    """``ledger`` with a drift, a measurement that disagrees with its estimate and one of a claim
    that is not there: the shares of failing claims, the annotations, the problems."""
    root = tmp_path_factory.mktemp("measured") / "ledger"
    shutil.copytree(ledger, root, symlinks=True)
    gen = root / "claims" / "gen-1"
    drifted = (gen / "c502.yaml").read_text()
    figure = re.search(r"figure: ([\d,]+)", drifted).group(1)
    (gen / "c502.yaml").write_text(drifted.replace(figure, figure[:-1] + str((int(figure[-1]) + 1) % 10)))
    measurements = root / "ledger" / "measurements" / "kv-bytes-per-token"
    fp8 = measurements / "fp8-halves--cpu--2026-11-29.yaml"
    text = fp8.read_text()
    assert "result:\n  unit: ''\n  value: '2'" in text
    fp8.write_text(text.replace("result:\n  unit: ''\n  value: '2'", "result:\n  unit: ''\n  value: '3'"))
    (measurements / "gone--cpu--2026-11-29.yaml").write_text(
        text.replace("claim: kv-bytes-per-token/fp8-halves", "claim: kv-bytes-per-token/gone"))
    return root


def test_each_claims_share_is_made_by_the_process_that_evaluated_it(measured, small, split, batches_of_two,
                                                                      monkeypatch):
    """The outputs a cold verify writes, linked and formatted by both processes (``coldshares``), are
    the bytes one process's Report gives; only the results the annotations show travel whole."""
    loaded = loader.load_ledger(measured, jobs=1)
    one = Verified.of(engine.evaluate_ledger(loaded, jobs=1))
    assert split == [0]
    _slowed_here(monkeypatch)
    sent: list[list] = []
    real = engine.split_batches
    monkeypatch.setattr(coldshares, "split_batches", lambda *a: (sent.append(real(*a)), sent[-1])[1])
    two = coldshares.verified(loaded, jobs=2)
    batches = len(engine._batches(loaded.claims, engine._order(loaded.claims)[0]))
    assert 0 < split[1] < batches  # both processes linked and formatted claims
    assert all(isinstance(c, Piece) for c in two.claims)
    assert _verified_outputs(two) == _verified_outputs(one)
    assert _no_child_left()
    statuses = {c.id: c.status for c in one.claims}
    assert statuses["gen-1/c502"] == "drift" and one.disagreements == 1 and one.exit_code == 2
    assert any("kv-bytes-per-token/gone" in p.message for p in two.problems)
    made = [item for part in sent[0] for item in part]
    assert len(made) == len(loaded.claims)
    for claim_id, share, _, whole in made:  # the whole result only where the annotations show it
        shown = share.status in ("drift", "error", "erratum") or share.contradicted > 0
        assert (whole is not None) == shown, claim_id
    assert {c for c, *_ in made if statuses[c] == "erratum"} and one.notable_claims
    # one process when asked or below the size: Verified.of of the Report, no fork
    assert _verified_outputs(coldshares.verified(loaded, jobs=1)) == _verified_outputs(one) and len(split) == 2


@pytest.mark.parametrize("after, stop", [(2, _fail), (40, lambda: os._exit(1))], ids=["fails", "dies"])
def test_shares_the_child_could_not_make_are_made_here(measured, small, split, batches_of_two, monkeypatch, after,
                                                       stop):
    """A child that fails from its third batch on (each comes back None), or dies after 40 (what it
    had not written to the pipe, in blocks, is lost): this process makes the rest."""
    loaded = loader.load_ledger(measured, jobs=1)
    one = _verified_outputs(Verified.of(engine.evaluate_ledger(loaded, jobs=1)))
    _child_stops(monkeypatch, after, stop)
    assert _verified_outputs(coldshares.verified(loaded, jobs=2)) == one
    assert 0 < split[-1] and (split[-1] > after if after == 2 else split[-1] <= after)
    assert _no_child_left()


# --- the batches --------------------------------------------------------------------------------


@st.composite
def _graphs(draw) -> dict[str, list[str]]:
    """Claim ids and the claims each uses: any graph, cycles and uses of absent claims included."""
    n = draw(st.integers(1, 40))
    ids = [f"g/c{i}" for i in range(n)]
    return {c: draw(st.lists(st.sampled_from(ids + ["g/absent"]), max_size=3)) for c in ids}


def _groups(graph: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """Each claim's group: the claims reached from it through uses, either way."""
    near = {c: set() for c in graph}
    for c, uses in graph.items():
        for u in uses:
            if u in graph:
                near[c].add(u)
                near[u].add(c)
    out: dict[str, frozenset[str]] = {}
    for start in graph:
        if start not in out:
            seen, todo = {start}, [start]
            while todo:
                for n in near[todo.pop()] - seen:
                    seen.add(n)
                    todo.append(n)
            for c in seen:
                out[c] = frozenset(seen)
    return out


class _Input:
    kind = "claim"

    def __init__(self, claim: str):
        self.claim = claim


class _Claim:
    def __init__(self, uses: list[str]):
        self.inputs = [_Input(u) for u in uses]


@settings(max_examples=300, deadline=None)
@given(_graphs(), st.integers(1, 6))
def test_batches_hold_whole_groups_in_dependency_order(graph, least):
    claims = {c: _Claim(uses) for c, uses in graph.items()}
    order, cycles = engine._order(claims)
    saved = engine.SPLIT_BATCH
    engine.SPLIT_BATCH = least
    try:
        batches = engine._batches(claims, order)
    finally:
        engine.SPLIT_BATCH = saved
    flat = [c for batch in batches for c in batch]
    assert sorted(flat) == sorted(order)  # every claim, once
    where = {c: i for i, batch in enumerate(batches) for c in batch}
    for claim_id, uses in graph.items():  # a claim and every claim it uses are in one batch
        assert all(where[u] == where[claim_id] for u in uses if u in claims)
    group = _groups(graph)
    for batch in batches:  # each group whole, in the order evaluate_claims uses (groups share nothing)
        for members in {group[c] for c in batch}:
            assert [c for c in batch if group[c] == members] == [c for c in order if group[c] == members]
    assert all(len(batch) >= least for batch in batches[:-1])


def test_claims_that_share_nothing_are_batched_apart():
    ids = [f"g/c{i}" for i in range(40)]  # chains of 4: c0 <- c1 <- c2 <- c3, c4 <- ...
    claims = {c: _Claim([ids[i - 1]] if i % 4 else []) for i, c in enumerate(ids)}
    order, _ = engine._order(claims)
    saved = engine.SPLIT_BATCH
    engine.SPLIT_BATCH = 6
    try:
        batches = engine._batches(claims, order)
    finally:
        engine.SPLIT_BATCH = saved
    assert [len(b) for b in batches] == [8, 8, 8, 8, 8]  # two chains each: a batch closes once it holds 6
