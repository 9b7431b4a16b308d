"""How sure anyone can be: a claim's grade is the least certain grade among every source it rests on,
through its inputs, its cited passages and every claim upstream. Asserted directly on the Report."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import FULL_WINDOW, PER_TOKEN
from workings.models import GRADES

REPO = Path(__file__).resolve().parents[1]
BLOG = b"Long inputs also need memory for activations, beyond the KV cache.\n"


def _ledger(tmp_ledger, *, config_grade: str, blog_grade: str | None = None):
    tmp_ledger.source("qwen", grade=config_grade)
    per_token = PER_TOKEN
    if blog_grade:
        name = tmp_ledger.snapshot(BLOG, "txt")
        tmp_ledger.source("blog", f"title: blog\ngrade: {blog_grade}\nurl: https://example.org/blog\n"
                                  f"snapshot: {name}\npassages:\n  growth: Long inputs also need memory for activations\n")
        per_token += "cites: [blog#growth]\n"
    tmp_ledger.claim("kv/per-token", per_token)
    tmp_ledger.claim("kv/full-window", FULL_WINDOW)
    return tmp_ledger.verify()


def test_a_claim_takes_its_source_grade_and_passes_it_downstream(tmp_ledger):
    report = _ledger(tmp_ledger, config_grade="copy")
    assert report.claim("kv/per-token").grade == "copy"
    assert report.claim("kv/full-window").grade == "copy"
    assert report.claim("kv/full-window").sources == ("qwen",)


def test_the_least_certain_grade_wins_also_through_a_cited_passage_upstream(tmp_ledger):
    report = _ledger(tmp_ledger, config_grade="primary", blog_grade="paraphrase")
    assert report.claim("kv/per-token").grade == "paraphrase"
    full = report.claim("kv/full-window")
    assert full.grade == "paraphrase", "a claim built on a claim is no surer than that claim"
    assert full.sources == ("blog", "qwen")


def test_grades_are_ordered_most_to_least_certain():
    assert GRADES.index("primary") < GRADES.index("copy") < GRADES.index("transcription") \
        < GRADES.index("paraphrase") < GRADES.index("unarchived")


def test_on_this_repository_no_claim_is_surer_than_a_claim_it_uses(tmp_path):
    root = tmp_path / "repo"
    for folder in ("claims", "ledger"):
        shutil.copytree(REPO / folder, root / folder)
    from workings import verify

    report = verify(root)
    by_id = {c.id: c for c in report.claims}
    checked = 0
    for claim in report.claims:
        for upstream in claim.uses:
            if claim.grade and by_id[upstream].grade:
                assert GRADES.index(claim.grade) >= GRADES.index(by_id[upstream].grade), (claim.id, upstream)
                assert set(by_id[upstream].sources) <= set(claim.sources), (claim.id, upstream)
                checked += 1
    assert checked > 20
