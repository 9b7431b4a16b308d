"""A claim's line of the JSON report, made from its parts' JSON texts (``workings.jsonline``), is
byte for byte ``written.dump(claim.to_dict())``: on this repository's ledger, generated ledgers of
both kinds, a ledger of broken records and claims made of arbitrary text; and what it keeps on the
shared objects is made once and never goes into the cache's pickles."""

from __future__ import annotations

import pickle
import shutil
import sys
from fractions import Fraction
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from workings import engine, jsonline, written
from workings.dependence import Dependence
from workings.report import Citation, ClaimResult, Comparison, InputResult, Message, Quantity, StepResult

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402


def plain(claim: ClaimResult) -> bytes:
    """The line as it was made before: the whole tree encoded at once."""
    return written.dump(claim.to_dict()).encode("utf-8")


def assert_same_lines(root: Path) -> int:
    report = engine.verify(root)
    for claim in report.claims:
        assert jsonline.claim_line(claim) == plain(claim), claim.id
        assert written.json_line(claim) == plain(claim), claim.id
    return len(report.claims)


def test_every_claim_of_this_repository_and_of_generated_ledgers(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "claims", repo / "claims")
    shutil.copytree(REPO / "ledger", repo / "ledger")
    assert assert_same_lines(repo) > 100
    for variant in ("a", "b"):
        root = tmp_path / variant
        bench.make_ledger(root, 60, variant)
        assert assert_same_lines(root) == 60


def test_a_ledger_of_broken_records(tmp_path):
    root = tmp_path / "broken"
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    bench.make_ledger(root, 30, "b", group_prefix="gen")
    gen = root / "claims" / "gen0"

    def edit(name: str, old: str, new: str) -> None:
        path = gen / f"{name}.yaml"
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))

    edit("c13", "786,432", "786,433")  # drift, and the drift of every claim built on it
    edit("c21", "bench-cfg-2#", "nosuch#")  # an unknown source
    edit("c22", "hidden / heads", "hidden / heads +")  # not an expression
    edit("c23", "2 B", "2 m")  # an unknown unit
    edit("c7", "hidden / heads", "hidden / 0")  # an unused input
    edit("c6", "B/token", "B/tok")
    (gen / "c25.yaml").write_text("said: x\n")
    (gen / "c26.yaml").write_text("said: &a x\nfigure: *a\n")
    (gen / "c9.yaml").write_text("- a\n- b\n")
    (gen / "c4.yaml").write_bytes(b"said: \xff\n")
    for a, b in (("cyc-a", "cyc-b"), ("cyc-b", "cyc-a")):
        (gen / f"{a}.yaml").write_text(f'said: "1"\nfigure: "1"\nlabel: derived\ninputs:\n  o: claim:gen0/{b}\n'
                                       "compute:\n  r: o\n")
    (root / "ledger" / "sources" / "broken.yaml").write_text("title: [\n")
    report = engine.verify(root)
    statuses = {c.status for c in report.claims}
    assert {"drift", "error", "verified", "erratum", "unchecked"} <= statuses
    assert any(c.measurements for c in report.claims) and any(c.erratum for c in report.claims)
    assert any(c.cites for c in report.claims) and any(c.check for c in report.claims)
    assert assert_same_lines(root) == len(report.claims)


TEXT = st.text(st.characters(), max_size=12) | st.sampled_from(["##[error]x", "\u202e", "\x7f", "\ud800", "a\"b\\c\n"])
MAYBE = st.none() | TEXT
QUANTITY = st.builds(lambda n, d, unit, shown: Quantity(value=Fraction(n, d), unit=unit, display=shown),
                     st.integers(-10**30, 10**30), st.integers(1, 10**6), TEXT, TEXT)
NAMES = st.lists(TEXT, max_size=3).map(tuple)


@given(st.builds(
    ClaimResult, id=TEXT, group=TEXT, file=TEXT, line=st.integers(0, 10**6), said=MAYBE, label=MAYBE, figure=MAYBE,
    check=MAYBE, status=TEXT, reason=TEXT, result=st.none() | QUANTITY,
    comparison=st.none() | st.builds(Comparison, printed=TEXT, unit=TEXT, recomputed=QUANTITY, rule=TEXT,
                                     holds=st.booleans()),
    messages=st.lists(st.builds(Message, kind=TEXT, text=TEXT, file=TEXT, line=st.integers(0, 99), key=TEXT),
                      max_size=2).map(tuple),
    steps=st.lists(st.builds(StepResult, name=TEXT, expression=TEXT, result=st.none() | QUANTITY,
                             line=st.integers(0, 99)), max_size=3).map(tuple),
    inputs=st.lists(st.builds(InputResult, name=TEXT, text=TEXT, kind=TEXT, result=st.none() | QUANTITY,
                              source=MAYBE, key=MAYBE, grade=MAYBE, passage=MAYBE, claim=MAYBE, claim_status=MAYBE,
                              assumption=MAYBE), max_size=3).map(tuple),
    cites=st.lists(st.builds(Citation, source=TEXT, passage_id=TEXT, text=MAYBE, grade=MAYBE, states=st.booleans()),
                   max_size=2).map(tuple),
    uses=NAMES, used_by=NAMES, sources=NAMES, grade=MAYBE, notes=MAYBE,
    erratum=st.none() | st.dictionaries(TEXT, MAYBE | st.integers(), max_size=3),
    basis=TEXT, dependence=st.none() | st.builds(Dependence, basis=TEXT, sourced=NAMES, assumed=NAMES, unused=NAMES,
                                                 stating=NAMES),
    also_said=NAMES))
def test_any_claim_of_any_text(claim):
    assert jsonline.claim_line(claim) == plain(claim)
    assert jsonline.claim_line(claim) == plain(claim)  # again, from what the first call kept


def test_a_shared_part_is_encoded_once_and_its_text_is_not_pickled(tmp_path):
    root = tmp_path / "gen"
    bench.make_ledger(root, 20, "b")
    report = engine.verify(root)
    shared = report.claims[3].inputs[0]
    assert shared is report.claims[4].inputs[0]  # one InputResult for every record that writes it
    first = jsonline.input_result(shared)
    jsonline.claim_line(report.claims[4])
    assert jsonline.input_result(shared) is first  # kept, not made again
    again = pickle.loads(pickle.dumps(report.claims[4], protocol=5))
    assert "_json" not in again.inputs[0].__dict__ and "_json" in shared.__dict__
    assert again == report.claims[4] and jsonline.claim_line(again) == plain(report.claims[4])


def test_a_shared_step_and_dependence_are_encoded_once_and_their_texts_are_not_pickled(tmp_path, monkeypatch):
    root = tmp_path / "gen"
    monkeypatch.setattr(bench, "CONFIGS", 2)  # 4 chains of 10 claims on 2 configs: each figure computed twice
    bench.make_ledger(root, 40, "b")
    report = engine.verify(root)
    seen: dict = {}
    pair = None
    for claim in report.claims:  # two claims that compute a step alike: one StepResult and one Dependence
        for step in claim.steps:
            if id(step) in seen and seen[id(step)].dependence is claim.dependence:
                pair = (seen[id(step)], claim, step)
            seen.setdefault(id(step), claim)
    assert pair is not None
    first, second, step = pair
    assert jsonline.claim_line(first) == plain(first)
    kept = (step.__dict__["_json"], first.dependence.__dict__["_json"])
    assert jsonline.claim_line(second) == plain(second)  # made from what the first line kept
    assert (jsonline.step(step), jsonline.dependence(second.dependence)) == kept
    assert all(a is b for a, b in zip(kept, (step.__dict__["_json"], second.dependence.__dict__["_json"])))
    again = pickle.loads(pickle.dumps(second, protocol=5))
    assert all("_json" not in s.__dict__ for s in again.steps) and "_json" not in again.dependence.__dict__
    assert again == second and jsonline.claim_line(again) == plain(second)


def test_a_field_that_is_not_what_its_type_says_is_written_as_json_dumps_writes_it():
    base = dict(id="x/y", group="x", file="claims/x/y.yaml", line=3, said="s", label="derived", figure="1",
                check=None, status="verified", reason="r")
    for odd in ({"said": 12}, {"line": True}, {"figure": 1.5}, {"sources": ("a", 2)}, {"notes": ["n"]},
                {"uses": (None,)}, {"reason": {"b": 1, "a": [True, None]}}):
        claim = ClaimResult(**{**base, **odd})
        assert jsonline.claim_line(claim) == plain(claim)
