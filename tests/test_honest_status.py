""""verified" means recomputed from something sourced: each case a new user tried that came out
verified before, now with the status and basis it deserves; the basis in every output; and a run on a
copy of this repository's ledger with its counts by basis."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from workings.cli import main
from workings.report import BASES

REPO = Path(__file__).resolve().parent.parent

TRUST_ME = """\
said: "It has 999 GB."
figure: 999 GB
label: {label}
inputs:
  memory: 999 GB
assumptions:
  memory: trust me
compute:
  result: memory
"""

TYPED = """\
said: "196,608 bytes per token."
figure: 196,608 B/token
label: quoted
compute:
  r: 196608 * B / token
cites: [{cite}]
"""

PASSAGES = """\
title: a text source
grade: transcription
url: https://example.org/text
snapshot: {snapshot}
format: text
passages:
  words: "The cache grows with every token."
  number: "each token takes 196,608 bytes"
  plain: "196608 bytes per token"
  other: "each token takes 196,609 bytes"
"""

LAYERS = """\
said: "48 layers."
figure: "48"
label: derived
inputs:
  x: qwen#num_hidden_layers
compute:
  r: {expression}
"""


def _text_source(tmp_ledger):
    raw = (b"The cache grows with every token. each token takes 196,608 bytes; 196608 bytes per token; "
           b"each token takes 196,609 bytes")
    tmp_ledger.source("txt", PASSAGES.format(snapshot=tmp_ledger.snapshot(raw, "txt")))


@pytest.mark.parametrize("label", ["derived", "quoted", "vendor"])
def test_a_literal_with_any_assumption_passed_through_is_unchecked(tmp_ledger, label):
    tmp_ledger.claim("t/mem", TRUST_ME.format(label=label))
    claim = tmp_ledger.verify().claim("t/mem")
    assert (claim.status, claim.basis) == ("unchecked", "assumptions-only")
    assert claim.reason.startswith("nothing sourced backs it: its value rests only on assumptions (memory)")
    assert claim.comparison.holds  # the arithmetic holds; nothing backs it


@pytest.mark.parametrize("label", ["estimate", "bound"])
def test_an_estimate_resting_on_stated_assumptions_is_verified_with_that_basis(tmp_ledger, label):
    tmp_ledger.claim("t/mem", TRUST_ME.format(label=label))
    claim = tmp_ledger.verify().claim("t/mem")
    assert (claim.status, claim.basis) == ("verified", "assumptions-only")
    assert claim.dependence.assumed == ("memory",) and claim.dependence.sourced == ()


def test_typed_steps_with_a_cite_of_a_passage_with_no_number_are_unchecked(tmp_ledger):
    _text_source(tmp_ledger)
    tmp_ledger.claim("t/typed", TYPED.format(cite="txt#words"))
    claim = tmp_ledger.verify().claim("t/typed")
    assert (claim.status, claim.basis) == ("unchecked", "typed-only")
    assert "the cited passage txt#words does not state the figure" in claim.reason
    assert [c.states for c in claim.cites] == [False]


def test_a_cite_of_a_passage_with_another_number_backs_nothing(tmp_ledger):
    _text_source(tmp_ledger)
    tmp_ledger.claim("t/typed", TYPED.format(cite="txt#other"))
    assert tmp_ledger.verify().claim("t/typed").status == "unchecked"


@pytest.mark.parametrize("cite", ["txt#number", "txt#plain"])
def test_a_cited_passage_that_states_the_figure_backs_it(tmp_ledger, cite):
    _text_source(tmp_ledger)
    tmp_ledger.claim("t/typed", TYPED.format(cite=cite))
    claim = tmp_ledger.verify().claim("t/typed")
    assert (claim.status, claim.basis) == ("verified", "restated")
    assert claim.dependence.stating == (cite,)


@pytest.mark.parametrize("expression", ["48 + 0 * x", "48 + x - x", "0 * x + 48", "48 * x ** 0", "48 * x / x",
                                        "48 + (x + 1) - (x + 1)", "48 + x * 0", "x // x * 48",
                                        "max(48, min(x, x) - x)", "48 + abs(x - x)",
                                        # piecewise, and doubling x (48) does not move them: typed, not sourced
                                        "min(x, 40) + 8", "max(x, 100) - 52", "floor(x / 1000) + 48"])
def test_a_result_that_does_not_depend_on_its_sourced_input_is_unchecked(tmp_ledger, expression):
    tmp_ledger.source("qwen")
    tmp_ledger.claim("t/layers", LAYERS.format(expression=expression))
    claim = tmp_ledger.verify().claim("t/layers")
    assert (claim.status, claim.basis) == ("unchecked", "typed-only"), expression
    assert claim.dependence.unused == ("x",)
    assert any(m.kind == "note" and m.text.startswith("the value does not depend on x") for m in claim.messages)


@pytest.mark.parametrize("expression,basis", [("x", "restated"), ("x * 1", "restated"), ("x + x - x", "restated"),
                                              ("2 * x - 48", "recomputed"), ("96 - x", "recomputed"),
                                              ("min(x, 50)", "recomputed"),
                                              ("x * GiB / GiB", "restated")])
def test_a_result_that_depends_on_its_source_is_verified(tmp_ledger, expression, basis):
    tmp_ledger.source("qwen")
    tmp_ledger.claim("t/layers", LAYERS.format(expression=expression).replace("label: derived", "label: quoted"))
    claim = tmp_ledger.verify().claim("t/layers")
    assert (claim.status, claim.basis) == ("verified", basis), expression
    assert claim.dependence.sourced == ("x",)


def test_an_input_the_value_ignores_is_named_and_the_rest_still_backs_it(tmp_ledger):
    tmp_ledger.source("qwen")
    tmp_ledger.claim("t/kv", 'said: x is 384.\nfigure: "384"\nlabel: derived\ninputs:\n  a: qwen#num_hidden_layers\n'
                     "  b: qwen#num_key_value_heads\n  c: qwen#num_attention_heads\ncompute:\n  r: a * b + 0 * c\n")
    claim = tmp_ledger.verify().claim("t/kv")
    assert (claim.status, claim.basis) == ("verified", "recomputed")
    assert claim.dependence.sourced == ("a", "b") and claim.dependence.unused == ("c",)


def test_a_figure_in_another_unit_restates_its_source_and_derived_says_so(tmp_ledger):
    tmp_ledger.source("qwen")
    tmp_ledger.claim("t/window", 'said: x is 1.01.\nfigure: 1.01 Mtoken\nlabel: derived\n'
                     "inputs:\n  w: qwen#max_position_embeddings token\ncompute:\n  r: w\n")
    claim = tmp_ledger.verify().claim("t/window")
    assert (claim.status, claim.basis) == ("verified", "restated")
    assert any(m.key == "label" and "it is quoted" in m.text for m in claim.messages)


def test_a_claim_restating_a_recomputed_claim_is_recomputed(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/kib", 'said: x is 192.\nfigure: 192 KiB/token\nlabel: derived\n'
                     "inputs:\n  p: claim:kv/per-token\ncompute:\n  r: p\n")
    report = tmp_ledger.verify()
    assert report.claim("kv/per-token").basis == "recomputed"
    assert (report.claim("kv/kib").status, report.claim("kv/kib").basis) == ("verified", "recomputed")
    assert report.claim("kv/full-window").basis == "recomputed"


def test_built_on_typed_numbers_is_unchecked_built_on_an_assumption_rests_on_it(tmp_ledger):
    tmp_ledger.source("qwen")
    tmp_ledger.claim("t/two", TRUST_ME.format(label="derived").replace("999 GB", "2 B"))
    tmp_ledger.claim("t/typed", 'said: x is 2.\nfigure: 2 B\nlabel: derived\ncompute:\n  r: 2 * B\n')
    on = 'said: x is 96.\nfigure: 96 B\nlabel: derived\ninputs:\n  v: claim:{}\n  n: qwen#num_hidden_layers\ncompute:\n  r: v * n\n'
    tmp_ledger.claim("t/on-two", on.format("t/two"))
    tmp_ledger.claim("t/on-typed", on.format("t/typed"))
    tmp_ledger.claim("t/only-two", 'said: x is 4.\nfigure: 4 B\nlabel: derived\ninputs:\n  v: claim:t/two\ncompute:\n  r: 2 * v\n')
    report = tmp_ledger.verify()
    assert report.claim("t/two").status == "unchecked"
    # the layers are sourced, the 2 B a stated assumption (through t/two): recomputed, as if typed in here
    on_two = report.claim("t/on-two")
    assert (on_two.status, on_two.basis, on_two.dependence.sourced, on_two.dependence.assumed) == \
        ("verified", "recomputed", ("n",), ("v",))
    assert report.claim("t/on-typed").status == "unchecked"
    only = report.claim("t/only-two")
    assert (only.status, only.basis) == ("unchecked", "assumptions-only")


def test_a_check_rests_on_what_its_sides_depend_on(tmp_ledger):
    tmp_ledger.source("qwen")
    check = 'said: x\ncheck: a > 40\nlabel: derived\ninputs:\n  a: {}\n'
    tmp_ledger.claim("t/sourced", check.format("qwen#num_hidden_layers"))
    tmp_ledger.claim("t/assumed", check.format("48") + "assumptions:\n  a: trust me\n")
    tmp_ledger.claim("t/cancelled", 'said: x\ncheck: a - a + 48 > 40\nlabel: derived\ninputs:\n  a: qwen#num_hidden_layers\n')
    report = tmp_ledger.verify()
    assert (report.claim("t/sourced").status, report.claim("t/sourced").basis) == ("verified", "recomputed")
    assert (report.claim("t/assumed").status, report.claim("t/assumed").basis) == ("unchecked", "assumptions-only")
    assert (report.claim("t/cancelled").status, report.claim("t/cancelled").basis) == ("unchecked", "typed-only")


def test_an_agreeing_measurement_backs_a_figure_resting_on_assumptions(tmp_ledger):
    from tests.test_measured_beside import write

    typed = ('said: x is 196,608.\nfigure: 196,608 B/token\nlabel: derived\ninputs:\n  b: 196608 B\n'
             "assumptions:\n  b: the sum\ncompute:\n  per_token: b / token\n")
    tmp_ledger.claim("kv/per-token", typed)
    assert tmp_ledger.verify().claim("kv/per-token").status == "unchecked"
    write(tmp_ledger)  # a claim with no probe: nothing says what its measurement built: refused
    claim = tmp_ledger.verify().claim("kv/per-token")
    assert (claim.status, claim.measurements) == ("error", ()) and "has no probe: key" in claim.reason
    # with the probe that builds the measured cache (its shape, as the record says), it counts
    tmp_ledger.claim("kv/per-token", typed + "probe: {kind: kv-bytes, layers: 48, kv_heads: 8, head_dim: 128, "
                                             "heads: 40}\n")
    claim = tmp_ledger.verify().claim("kv/per-token")
    assert (claim.status, claim.basis) == ("verified", "measured")
    write(tmp_ledger, estimate="196600")  # a stale measurement backs nothing
    assert tmp_ledger.verify().claim("kv/per-token").status == "unchecked"


def test_an_erratum_on_typed_numbers_is_unchecked_not_an_erratum(tmp_ledger):
    tmp_ledger.claim("t/e", 'said: x is 7.\nfigure: "7"\nlabel: derived\ncompute:\n  r: "6"\n'
                     "erratum:\n  reason: wrong\n  recomputed: \"6\"\n")
    assert tmp_ledger.verify().claim("t/e").status == "unchecked"


def test_the_basis_is_in_every_output(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    tmp_ledger.claim("t/mem", TRUST_ME.format(label="derived"))
    out = tmp_path / "r.json"
    run = CliRunner().invoke(main, ["verify", "--root", str(tmp_ledger.root), "--json", str(out)])
    assert run.exit_code == 0, run.output
    assert "ok                      198.6 GB  198.57408 GB               recomputed       kv/full-window\n" in run.output
    assert "unchecked                 999 GB  999 GB                     assumptions-only t/mem\n" in run.output
    assert run.stdout.endswith("basis: 2 recomputed, 1 assumptions-only\n3 claims: 2 verified, 1 unchecked\n")
    data = json.loads(out.read_text())
    assert data["format"] == 2
    assert data["summary"]["basis"] == {"recomputed": 2, "restated": 0, "measured": 0, "assumptions-only": 1,
                                        "typed-only": 0, "none": 0}
    mem = next(c for c in data["claims"] if c["id"] == "t/mem")
    assert (mem["basis"], mem["dependence"]["assumed"], mem["status"]) == ("assumptions-only", ["memory"], "unchecked")
    shown = CliRunner().invoke(main, ["show", "t/mem", "--root", str(tmp_ledger.root)])
    assert "basis: assumptions-only: rests on assumptions only" in shown.output


# On a copy of this repository's ledger. When a claim is added, update these counts after checking
# the new claim's basis (`workings show CLAIM` prints it).
PUBLISHED = ("kv-bytes-per-token", "890-bytes-per-token", "hundred-messages")


@pytest.fixture(scope="module")
def repo_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    for folder in ("claims", "ledger"):
        shutil.copytree(REPO / folder, root / folder)
    from workings import verify

    return verify(root)


def test_on_this_ledger_the_published_claims_count_by_basis(repo_report):
    claims = [c for c in repo_report.claims if c.group in PUBLISHED]
    counts = {b: sum(c.basis == b for c in claims) for b in BASES}
    assert counts == {"recomputed": 45, "restated": 48, "measured": 1, "assumptions-only": 2, "typed-only": 0,
                      "none": 2}
    statuses = {s: sum(c.status == s for c in claims) for s in ("verified", "erratum", "drift", "unchecked", "error")}
    assert statuses == {"verified": 89, "erratum": 5, "drift": 0, "unchecked": 4, "error": 0}


def test_on_this_ledger_every_verified_figure_rests_on_something_sourced(repo_report):
    assert repo_report.exit_code == 0
    for claim in repo_report.claims:
        if claim.status in ("verified", "erratum"):
            assert claim.basis in ("recomputed", "restated", "measured") or (
                claim.basis == "assumptions-only" and claim.label in ("estimate", "bound")), claim.id
        assert not (claim.label == "derived" and claim.basis == "restated"), f"{claim.id}: label it quoted"


@pytest.mark.parametrize("claim_id,status,basis", [
    ("kv-bytes-per-token/qwen25-14b-layers", "verified", "restated"),
    ("kv-bytes-per-token/qwen25-14b-bytes-per-token", "verified", "recomputed"),
    ("kv-bytes-per-token/qwen25-14b-kib-per-token", "verified", "recomputed"),
    ("kv-bytes-per-token/qwen25-14b-weights-gb", "verified", "restated"),
    ("kv-bytes-per-token/fp8-halves", "verified", "measured"),
    ("890-bytes-per-token/bf16-two-bytes", "verified", "restated"),  # the dtype its config names
    ("hundred-messages/looks-back-first-99", "unchecked", "assumptions-only"),
    ("hundred-messages/csa2-three-modes", "unchecked", "none"),
])
def test_on_this_ledger_claims_by_hand(repo_report, claim_id, status, basis):
    claim = repo_report.claim(claim_id)
    assert (claim.status, claim.basis) == (status, basis)
