"""What a reviewer found on 3 Dec 2026 writing drafts to make check-draft vouch wrongly: a figure called
backed, or an equation held, that its claim or its arithmetic does not support. Each case fails on
the code before its fix; the ledger is the one tests/test_draft_check.py writes."""

from __future__ import annotations

import pytest

from tests.test_draft_check import DRAFT, report  # noqa: F401  (the fixture)
from workings.draft.check import check_text
from workings.draft.finder import find_figures


def _figure(check, text):
    (figure,) = [f for f in check.figures if f.text == text]
    return figure


@pytest.mark.parametrize("printed, status", [
    ("about 200,000 tokens", "drift"),    # 262,144 cut down to its hundred thousands: floor, not rounding
    ("about 300,000 tokens", "backed"),   # rounded to them
    ("about 260,000 tokens", "backed"),
])
def test_about_is_the_value_rounded_not_cut_down_or_pushed_up(report, printed, status):
    """"about 100 GB" was backed by 198.6 GB (floor at the trailing zeros' step), "about 2,000,000 tokens"
    by 1,010,000 (ceiling): "about" tried rounding down and up as well as to the nearest."""
    sentence = "At a window of 262,144 tokens, one chat needs about 30.1 GB of cache (28.0 GiB)."
    draft = DRAFT.replace(sentence, sentence.replace("262,144 tokens", printed))
    check = check_text(draft, report, issue="sizing", markdown=True)
    assert _figure(check, printed).status == status


def test_a_bound_the_other_way_round_from_the_claims_is_drift(tmp_ledger):
    """"at most 320GB" and "up to 320GB" were backed by a claim whose sentence says "at least 320GB"
    (320 ≤ 320): the draft states the opposite bound."""
    tmp_ledger.claim("guide/vram", 'said: "The guide asks for at least 320GB of VRAM."\nfigure: 320 GB\n'
                                   "label: estimate\ninputs:\n  v: 320 GB\nassumptions:\n  v: The guide.\n"
                                   "compute:\n  r: v\n")
    report = tmp_ledger.verify()
    assert not report.problems
    for flipped in ("at most 320GB", "up to 320GB", "less than 320GB"):
        check = check_text(f"The guide asks for {flipped} of VRAM.\n", report, issue="guide", markdown=True)
        figure = _figure(check, flipped)
        assert figure.status == "drift" and "the ledger has a lower bound, 320 GB" in figure.reason, figure.reason
    same = check_text("The guide asks for at least 320GB of VRAM.\n", report, issue="guide", markdown=True)
    assert _figure(same, "at least 320GB").status == "backed"


@pytest.mark.parametrize("text, expected", [
    ("One HBM stack holds 8 × 24 Gb = 192 GB.", []),   # gigabits: 192 Gb is 24 GB, not checked without "/ 8"
    ("The link moves 400 Gbit × 8 = 3,200 GB.", []),
    ("So 8 × 24 Gb = 192 Gb.", [("8 × 24 Gb = 192", "holds")]),  # bits on both sides: no conversion
    # a range is no subtraction: "3–5 GB" read as 3 − 5 failed a right equation with "-4,999,999,970"
    ("So 10 × 3–5 GB = 30–50 GB.", []), ("So 2 × 3-5 GB = 6-10 GB.", []),
    ("So 10 – 3 = 7.", [("10 – 3 = 7", "holds")]),      # a spaced en dash is a minus
    ("Llama-3.1-70B × 2 bytes = 140 GB.", [("70B × 2 bytes = 140", "holds")]),  # a name's hyphen is no range
])
def test_bits_and_ranges_in_an_equation(text, expected):
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected
