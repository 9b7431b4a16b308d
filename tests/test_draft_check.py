"""check-draft against a ledger the tests write (never the repo's claims/): a draft written for the
tests, planted errors each flagged at their line, and edits that change no figure left alone."""

from __future__ import annotations

import json

import pytest

from workings.draft.check import check_text

CORVID = b"""{
  "hidden_size": 6144,
  "max_position_embeddings": 262144,
  "num_attention_heads": 48,
  "num_hidden_layers": 56,
  "num_key_value_heads": 4
}
"""

CONFIG_INPUTS = """\
inputs:
  layers: corvid#num_hidden_layers
  kv_heads: corvid#num_key_value_heads
  hidden: corvid#hidden_size
  heads: corvid#num_attention_heads
  value_bytes: 2 B
assumptions:
  value_bytes: BF16, the format of the weights.
"""

CLAIMS = {
    "sizing/layers": 'said: "Corvid-22B has 56 layers and 4 KV heads."\nfigure: "56"\nlabel: quoted\n'
                     "inputs:\n  layers: corvid#num_hidden_layers\ncompute:\n  n: layers\n",
    "sizing/kv-heads": 'said: "Corvid-22B has 56 layers and 4 KV heads."\nfigure: "4"\nlabel: quoted\n'
                       "inputs:\n  kv: corvid#num_key_value_heads\ncompute:\n  n: kv\n",
    "sizing/per-token": 'said: "So 2 × 56 × 4 × 128 × 2 = 114,688 bytes per token."\nfigure: 114,688 B/token\n'
                        "label: derived\n" + CONFIG_INPUTS
                        + "compute:\n  head_dim: hidden / heads\n"
                          "  per_token: 2 * layers * kv_heads * head_dim * value_bytes / token\n",
    "sizing/kib": 'said: "That is 112 KiB."\nfigure: 112 KiB/token\nlabel: derived\n'
                  "inputs:\n  per_token: claim:sizing/per-token\ncompute:\n  same: per_token\n",
    "sizing/window": 'said: "At a window of 262,144 tokens, one chat needs about 30.1 GB of cache (28.0 GiB)."\n'
                     "figure: 262,144 token\nlabel: quoted\n"
                     "inputs:\n  window: corvid#max_position_embeddings token\ncompute:\n  w: window\n",
    "sizing/window-gb": 'said: "At a window of 262,144 tokens, one chat needs about 30.1 GB of cache (28.0 GiB)."\n'
                        "figure: 30.1 GB\nlabel: derived\ninputs:\n  per_token: claim:sizing/per-token\n"
                        "  window: corvid#max_position_embeddings token\ncompute:\n  cache: per_token * window\n",
    "sizing/window-gib": 'said: "At a window of 262,144 tokens, one chat needs about 30.1 GB of cache (28.0 GiB)."\n'
                         "figure: 28.0 GiB\nlabel: derived\ninputs:\n  per_token: claim:sizing/per-token\n"
                         "  window: corvid#max_position_embeddings token\ncompute:\n  cache: per_token * window\n",
    "sizing/vs-weights": 'said: "At the full window the cache is about 2.3 times the weights."\nfigure: "2.3"\n'
                         "label: derived\ninputs:\n  cache: claim:sizing/window-gb\n  weights: 13 GB\n"
                         "assumptions:\n  weights: The card's checkpoint size.\ncompute:\n  ratio: cache / weights\n",
    # literal inputs only: labelled estimates, which may rest on stated assumptions alone (as derived
    # figures they would be unchecked)
    "sizing/fp8": 'said: "FP8 halves the cache."\nfigure: "1/2"\nlabel: estimate\ninputs:\n  fp8: 1 B\n  bf16: 2 B\n'
                  "assumptions:\n  fp8: One byte.\n  bf16: Two bytes.\ncompute:\n  ratio: fp8 / bf16\n",
    "sizing/quarter": 'said: "The new cache is a quarter of the old one."\nfigure: "1/4"\nlabel: estimate\n'
                      "inputs:\n  new: 256 B\n  old: 1024 B\nassumptions:\n  new: New.\n  old: Old.\n"
                      "compute:\n  ratio: new / old\n",
    "sizing/per-layer": 'said: "Each layer stores 2,408 bytes per token."\nfigure: 2,408 B/token\nlabel: derived\n'
                        "inputs:\n  per_token: claim:sizing/per-token\n  layers: corvid#num_hidden_layers\n"
                        "compute:\n  per_layer: per_token / layers\n"
                        'erratum:\n  reason: "Digits transposed in print; the working gives 2,048."\n'
                        '  recomputed: "2,048 B/token"\n',
    "sizing/vendor": 'said: "The vendor quotes 96 KB per token."\nfigure: 96 KB/token\nlabel: vendor\n'
                     'notes: "Unchecked: the vendor page was not kept."\n',
}

DRAFT = """\
# Sizing Corvid-22B

Issue 014 sized the weights. On March 3, 2025, the card went up.

Corvid-22B has 56 layers and 4 KV heads.
So 2 × 56 × 4 × 128 × 2 = 114,688 bytes per token. That is 112 KiB.
At a window of 262,144 tokens, one chat needs about 30.1 GB of cache (28.0 GiB).
At the full window the cache is about 2.3 times the weights.
FP8 halves the cache.
The new cache is a quarter of the old one.
Each layer stores 2,408 bytes per token.
The vendor quotes 96 KB per token.
"""

EXPECTED = [  # (line, text, status, claim)
    (5, "56", "backed", "sizing/layers"),
    (5, "4", "backed", "sizing/kv-heads"),
    (6, "2 × 56 × 4 × 128 × 2 = 114,688", "holds", None),
    (6, "114,688 bytes per token", "backed", "sizing/per-token"),
    (6, "112 KiB", "backed", "sizing/kib"),
    (7, "262,144 tokens", "backed", "sizing/window"),
    (7, "about 30.1 GB", "backed", "sizing/window-gb"),
    (7, "28.0 GiB", "backed", "sizing/window-gib"),
    (8, "about 2.3 times", "backed", "sizing/vs-weights"),
    (9, "halves", "backed", "sizing/fp8"),
    (10, "a quarter", "backed", "sizing/quarter"),
    (11, "2,408 bytes per token", "erratum", "sizing/per-layer"),
    (12, "96 KB per token", "unchecked", "sizing/vendor"),
]


@pytest.fixture
def report(tmp_ledger):
    tmp_ledger.source("corvid", raw=CORVID)
    for claim_id, text in CLAIMS.items():
        tmp_ledger.claim(claim_id, text)
    report = tmp_ledger.verify()
    assert not report.problems, report.problems
    return report


def statuses(check):
    return [(f.line, f.text, f.status, f.claim) for f in check.figures]


def test_every_figure_of_the_draft_is_matched(report):
    check = check_text(DRAFT, report, issue="sizing", markdown=True)
    assert statuses(check) == EXPECTED
    assert check.stale == ()
    assert check.exit_code == 1  # the erratum and the unchecked vendor figure are flagged
    by_text = {f.text: f for f in check.figures}
    assert "Digits transposed in print" in by_text["2,408 bytes per token"].reason
    assert "vendor page was not kept" in by_text["96 KB per token"].reason
    assert {(s.text, s.reason) for s in check.set_aside} >= {("Issue 014", "reference"), ("March 3, 2025", "date"),
                                                            ("Corvid-22B", "model-name")}


PLANTED = [
    # (what is planted, old, new, line, status)
    ("swapped digits", "about 30.1 GB", "about 31.0 GB", 7, "drift"),
    ("GB printed where GiB is meant", "(28.0 GiB)", "(28.0 GB)", 7, "ambiguous"),
    ("a changed factor in an equation", "2 × 56 × 4 × 128 × 2", "2 × 56 × 4 × 64 × 2", 6, "drift"),
    ("a wrong ratio", "about 2.3 times", "about 3.2 times", 8, "drift"),
    ("a changed number word", "a quarter of", "a third of", 10, "drift"),
    ("a multiplier the wrong way up", "FP8 halves", "FP8 doubles", 9, "drift"),
    ("a changed count", "56 layers", "65 layers", 5, "drift"),
    ("a figure the ledger has not got", "4 KV heads.", "4 KV heads and 9 GB of weights.", 5, "unbacked"),
]


@pytest.mark.parametrize("what,old,new,line,status", PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_errors_are_flagged_at_their_line(report, what, old, new, line, status):
    assert DRAFT.count(old) == 1
    check = check_text(DRAFT.replace(old, new), report, issue="sizing", markdown=True)
    flagged = [(f.line, f.status) for f in check.figures if f.status not in ("backed", "holds", "erratum", "unchecked")]
    if what == "a changed factor in an equation":
        # The arithmetic fails; and with an operand changed the sentence is no longer the claim's,
        # so its result is unbacked too (the hint names the claim that holds 114,688).
        assert flagged == [(line, "drift"), (line, "unbacked")]
    else:
        assert flagged == [(line, status)]
    assert check.exit_code == 1


def test_a_changed_factor_is_caught_by_the_arithmetic(report):
    check = check_text(DRAFT.replace("× 128 ×", "× 64 ×"), report, markdown=True)
    (equation,) = [f for f in check.figures if f.kind == "equation"]
    assert equation.status == "drift"
    assert equation.reason == "the arithmetic does not hold: the left side is 57,344, not 114,688"


def test_a_result_printed_first_names_the_right_side_as_computed(report):
    check = check_text("The node has 640 GB = 8 × 70 GB of memory.\n", report, markdown=True)
    (equation,) = [f for f in check.figures if f.kind == "equation"]
    assert equation.reason == "the arithmetic does not hold: the right side is 560, not 640"


def test_drift_names_the_claim_and_both_values(report):
    check = check_text(DRAFT.replace("about 30.1 GB", "about 31.0 GB"), report, markdown=True)
    (drift,) = [f for f in check.figures if f.status == "drift"]
    assert drift.claim == "sizing/window-gb"
    assert drift.reason == "the draft prints about 31.0 GB; the ledger has 30.1 GB, recomputed 30.065 GB"


def test_gb_for_gib_says_which_reading_holds(report):
    check = check_text(DRAFT.replace("(28.0 GiB)", "(28.0 GB)"), report, markdown=True)
    (flagged,) = [f for f in check.figures if f.status == "ambiguous"]
    assert flagged.claim == "sizing/window-gib"
    assert "read as GiB" in flagged.reason


EDITS = [
    ("a sentence added", "FP8 halves the cache.", "FP8 halves the cache. Few models ship in it."),
    ("rewrapped", "At the full window the cache", "At the full window\nthe cache"),
    ("Markdown emphasis and punctuation", "Corvid-22B has 56 layers and 4 KV heads.",
     "**Corvid-22B** has 56 layers and 4 KV heads!"),
    ("a link", "Corvid-22B has", "[Corvid-22B](https://example.org/corvid) has"),
]


@pytest.mark.parametrize("what,old,new", EDITS, ids=[e[0] for e in EDITS])
def test_edits_that_change_no_figure_are_not_flagged(report, what, old, new):
    check = check_text(DRAFT.replace(old, new), report, issue="sizing", markdown=True)
    before = {(t, c) for _, t, s, c in EXPECTED if s == "backed"}
    assert {(f.text, f.claim) for f in check.figures if f.status == "backed"} == before


REWORDED = [
    ("reworded", "Corvid-22B has 56 layers and 4 KV heads.", "Corvid-22B's config gives 56 layers, with 4 KV heads.",
     {"56": "sizing/layers", "4": "sizing/kv-heads"}),
    ("reworded window", "At a window of 262,144 tokens, one chat", "With a window of 262,144 tokens, a single chat",
     {"262,144 tokens": "sizing/window", "about 30.1 GB": "sizing/window-gb", "28.0 GiB": "sizing/window-gib"}),
]


@pytest.mark.parametrize("what,old,new,claims", REWORDED, ids=[e[0] for e in REWORDED])
def test_a_reworded_sentence_is_no_longer_its_claims(report, what, old, new, claims):
    """Agreement in value is no evidence: a reworded sentence's figures are unbacked, never drift,
    each with a hint naming the claim that holds its value; the editor's marker ties them again."""
    check = check_text(DRAFT.replace(old, new), report, issue="sizing", markdown=True)
    moved = {f.text: f for f in check.figures if f.text in claims}
    assert {t: f.status for t, f in moved.items()} == {t: "unbacked" for t in claims}
    for text, claim in claims.items():
        assert f"<!-- claim: {claim} -->" in moved[text].reason or claim in moved[text].reason
    tied = new
    for text, claim in claims.items():
        tied = tied.replace(text, f"{text}<!-- claim: {claim} -->", 1) if text in tied else tied
    check = check_text(DRAFT.replace(old, tied), report, issue="sizing", markdown=True)
    backed = {f.text: f.claim for f in check.figures if f.status == "backed"}
    assert {t: backed.get(t) for t in claims if t in new} == {t: c for t, c in claims.items() if t in new}


def test_a_corrected_erratum_says_the_ledger_is_behind(report):
    """The draft now prints the value the working gives, but the record still prints the wrong one:
    that fails, naming the record to update."""
    check = check_text(DRAFT.replace("2,408 bytes per token", "2,048 bytes per token"), report, issue="sizing",
                       markdown=True)
    (figure,) = [f for f in check.figures if f.text == "2,048 bytes per token"]
    assert (figure.status, figure.claim) == ("drift", "sizing/per-layer")
    assert "the record still prints 2,408 B/token: update its figure and said" in figure.reason
    assert check.exit_code == 1


def test_a_paragraph_added_above_moves_the_lines(report):
    check = check_text("A new opening paragraph with no figures.\n\n" + DRAFT, report, markdown=True)
    assert [(line + 2, t, s, c) for line, t, s, c in EXPECTED] == statuses(check)


def test_a_removed_figure_leaves_its_claim_stale(report):
    check = check_text(DRAFT.replace("FP8 halves the cache.\n", ""), report, issue="sizing", markdown=True)
    assert [s.id for s in check.stale] == ["sizing/fp8"]
    assert check_text(DRAFT, report, markdown=True).stale == ()  # stale needs --issue


def test_the_json_form(report):
    check = check_text(DRAFT, report, file="draft.md", issue="sizing", markdown=True)
    data = json.loads(json.dumps(check.to_dict()))
    assert data["format"] == 3
    first = data["figures"][0]
    assert {k: first[k] for k in ("line", "text", "status", "claim")} == \
        {"line": 5, "text": "56", "status": "backed", "claim": "sizing/layers"}
    assert data["summary"]["figures"] == len(EXPECTED)
    equation = next(f for f in data["figures"] if f["kind"] == "equation")
    assert equation["status"] == "holds" and equation["claim"] is None  # the arithmetic holds; no claim backs it
    assert data["summary"]["holds"] == 1 and data["summary"]["backed"] == len([e for e in EXPECTED if e[2] == "backed"])


def test_a_failing_relation_is_reported_on_its_sentence(tmp_ledger):
    tmp_ledger.source("corvid", raw=CORVID)
    for claim_id, text in CLAIMS.items():
        tmp_ledger.claim(claim_id, text)
    tmp_ledger.claim("sizing/fits", 'said: "At the full window the cache is about 2.3 times the weights."\n'
                                    "check: cache < weights\nlabel: derived\n"
                                    "inputs:\n  cache: claim:sizing/window-gb\n  weights: 13 GB\n"
                                    "assumptions:\n  weights: The card's checkpoint size.\n"
                                    "compute:\n  c: cache\n")
    check = check_text(DRAFT, tmp_ledger.verify(), issue="sizing", markdown=True)
    (relation,) = [f for f in check.figures if f.kind == "relation"]
    assert (relation.line, relation.text, relation.status, relation.claim) == \
        (8, "cache < weights", "drift", "sizing/fits")
    assert [(f.text, f.status) for f in check.figures if f.line == 8 and f.kind != "relation"] == \
        [("about 2.3 times", "backed")]


def test_a_recorded_erratum_on_a_set_aside_year_is_still_flagged(tmp_ledger):
    tmp_ledger.claim("dates/v1-year", 'said: "It is a tenth of V1 from 2024."\nfigure: "2024"\nlabel: estimate\n'
                     "inputs:\n  year: 2023\nassumptions:\n  year: V1 came out in 2023.\ncompute:\n  y: year\n"
                     'erratum:\n  reason: "V1 came out in 2023."\n  recomputed: "2023"\n')
    check = check_text("Intro.\n\nIt is a tenth of V1 from 2024.\n", tmp_ledger.verify(), issue="dates")
    flagged = [(f.line, f.text, f.status, f.claim) for f in check.figures if f.status not in ("backed", "holds")]
    assert (3, "2024", "erratum", "dates/v1-year") in flagged
    assert check.exit_code == 1


@pytest.mark.parametrize("per", ["per parameter", "per layer"])
def test_a_figure_per_something_else_is_not_its_claims_even_when_tied(report, per):
    """"114,688 bytes per parameter" prints the digits of 114,688 B/token but another quantity: its
    claim, by sentence or by marker, does not back it and says why."""
    sentence = "So 2 × 56 × 4 × 128 × 2 = 114,688 bytes per token."
    assert sentence in DRAFT
    other = sentence.replace("per token", per)
    check = check_text(DRAFT.replace(sentence, other), report, issue="sizing", markdown=True)
    (figure,) = [f for f in check.figures if f.text == f"114,688 bytes {per}"]
    assert figure.status == "unbacked", (figure.status, figure.reason)
    assert figure.reason == "its claim by sentence, sizing/per-token, states 114,688 B/token: not a figure of this kind"
    tied = other.replace(per, f"{per}<!-- claim: sizing/per-token -->")
    check = check_text(DRAFT.replace(sentence, tied), report, issue="sizing", markdown=True)
    (figure,) = [f for f in check.figures if f.text == f"114,688 bytes {per}"]
    assert figure.status == "unbacked", (figure.status, figure.reason)
    assert figure.reason == "its claim by marker, sizing/per-token, states 114,688 B/token: not a figure of this kind"
