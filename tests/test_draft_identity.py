"""Backing needs evidence of identity: the figure's own sentence (as the claim's said or also_said),
or the editor's marker; agreement in value never backs. On the tests' own ledger and on a copy of
this repository's ledger, with its published texts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_draft_check import CLAIMS, CORVID, DRAFT
from workings.cli import main
from workings.draft.article import front_matter
from workings.draft.check import check_file, check_text
from workings.draft.identity import strip_markers
from workings.draft.published import account
from workings.engine import verify

REPO = Path(__file__).resolve().parent.parent
SLUGS = ("kv-bytes-per-token", "890-bytes-per-token", "hundred-messages")


@pytest.fixture
def report(tmp_ledger):
    tmp_ledger.source("corvid", raw=CORVID)
    for claim_id, text in CLAIMS.items():
        tmp_ledger.claim(claim_id, text)
    return tmp_ledger.verify()


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A copy of this repository's ledger, checked once."""
    root = tmp_path_factory.mktemp("repo")
    for name in ("claims", "ledger"):
        shutil.copytree(REPO / name, root / name)
    return root, verify(root)


def row(check, text):
    (found,) = [f for f in check.figures if f.text == text]
    return found


def test_markers_are_blanked_and_keep_columns():
    text = "It has 56 layers<!-- claim: sizing/layers -->, and 4 KV heads.\n"
    blanked, markers = strip_markers(text)
    assert len(blanked) == len(text) and "claim" not in blanked
    assert [(m.line, m.column, m.claim) for m in markers] == [(1, 17, "sizing/layers")]


def test_a_marker_ties_a_figure_and_an_unknown_one_says_so(report):
    draft = "Its config reads 56<!-- claim: sizing/layers --> and 9<!-- claim: sizing/nothing -->.\n"
    check = check_text(draft, report)
    assert (row(check, "56").status, row(check, "56").claim) == ("backed", "sizing/layers")
    assert row(check, "56").column == 18
    nine = row(check, "9")
    assert nine.status == "unbacked" and "sizing/nothing, which the ledger does not have" in nine.reason
    # A marker on a figure its claim disagrees with is drift: the editor said which claim it is.
    check = check_text("Its config reads 65<!-- claim: sizing/layers -->.\n", report)
    assert (row(check, "65").status, row(check, "65").claim) == ("drift", "sizing/layers")


def test_agreement_in_value_alone_is_unbacked_with_a_hint(report):
    check = check_text("Another model also has 56 layers, and 112 KiB per token.\n", report)
    for text, claim in (("56", "sizing/layers"), ("112 KiB per token", "sizing/kib")):
        figure = row(check, text)
        assert (figure.status, figure.claim) == ("unbacked", None)
        assert claim in figure.reason and f"<!-- claim: {claim} -->" in figure.reason
    assert check.exit_code == 1


def test_a_short_sentence_needs_a_named_neighbour_of_its_group(report):
    """"That is 112 KiB." names nothing: beside Corvid's own sentence it is Corvid's claim; beside
    another model's it is not (and never drift against Corvid's)."""
    own = check_text("So 2 × 56 × 4 × 128 × 2 = 114,688 bytes per token. That is 112 KiB.\n", report)
    assert row(own, "112 KiB").status == "backed"
    other = check_text("So 2 × 32 × 8 × 128 × 2 = 131,072 bytes per token. That is 128 KiB.\n", report)
    assert {f.status for f in other.figures if f.kind != "equation"} == {"unbacked"}
    assert all(f.claim is None for f in other.figures if f.kind != "equation")


def test_drift_needs_the_same_dimension(report):
    """The window sentence with its token count replaced by a size is not drift on the count."""
    draft = DRAFT.replace("At a window of 262,144 tokens", "At a window of 9 GB")
    check = check_text(draft, report, issue="sizing", markdown=True)
    assert row(check, "9 GB").status == "unbacked"


def test_also_said_backs_a_repeated_mention(tmp_ledger):
    tmp_ledger.source("corvid", raw=CORVID)
    for claim_id, text in CLAIMS.items():
        tmp_ledger.claim(claim_id, text)
    tmp_ledger.claim("sizing/layers", CLAIMS["sizing/layers"] + 'also_said: ["Corvid-22B again: 56 layers, no more."]\n')
    report = tmp_ledger.verify()
    assert not report.problems
    check = check_text("Corvid-22B again: 56 layers, no more.\n", report)
    assert (row(check, "56").status, row(check, "56").claim) == ("backed", "sizing/layers")
    check = check_text("Corvid-22B again: 57 layers, no more.\n", report)
    assert (row(check, "57").status, row(check, "57").claim) == ("drift", "sizing/layers")


def test_an_unchecked_claim_leaves_its_figure_unchecked(report):
    check = check_text("The vendor quotes 96 KB per token.\n", report, issue="sizing")
    assert row(check, "96 KB per token").status == "unchecked" and check.exit_code == 1


# -- this repository's ledger and texts ---------------------------------------------------------

@pytest.mark.parametrize("slug", SLUGS)
def test_every_figure_of_the_published_texts_is_accounted_for(repo, slug):
    root, report = repo
    path = REPO / "claims" / slug / "article.md"
    check = check_file(path, report, issue=slug)
    accounting = account(check, front_matter(path.read_text(encoding="utf-8")))
    assert accounting.unexplained == () and accounting.unused == ()
    assert {f.status for f in check.figures} <= {"backed", "holds", "erratum", "unchecked", "unbacked"}
    assert not any(f.status == "backed" and f.claim is None for f in check.figures)  # equations "hold", never back


def test_the_published_cli_fails_on_an_unexplained_figure(repo, tmp_path):
    root, _ = repo
    text = (REPO / "claims" / "kv-bytes-per-token" / "article.md").read_text(encoding="utf-8")
    draft = tmp_path / "article.md"
    run = CliRunner().invoke
    draft.write_text(text, encoding="utf-8")
    ok = run(main, ["check-draft", str(draft), "--root", str(root), "--issue", "kv-bytes-per-token", "--published", "-q"])
    assert ok.exit_code == 0, ok.output
    assert "every figure accounted for" in ok.output
    draft.write_text(text.replace("Read the config.", "Read the config, all 9 pages of it."), encoding="utf-8")
    bad = run(main, ["check-draft", str(draft), "--root", str(root), "--issue", "kv-bytes-per-token", "--published", "-q"])
    assert bad.exit_code == 1 and "NOT ACCOUNTED FOR" in bad.output and ": 9 (unbacked)" in bad.output
    draft.write_text(text.replace("  - figure: 4-bit\n", "  - figure: 5-bit\n"), encoding="utf-8")
    stale = run(main, ["check-draft", str(draft), "--root", str(root), "--issue", "kv-bytes-per-token", "--published", "-q"])
    assert stale.exit_code == 1 and "UNUSED" in stale.output


def test_issue_examples_on_the_real_ledger(repo):
    root, report = repo
    text = (REPO / "claims" / "kv-bytes-per-token" / "article.md").read_text(encoding="utf-8")
    # "5 times bigger" -> "8 times bigger": drift on its own claim, never backed by an 8 elsewhere.
    check = check_text(text.replace("would be 5 times bigger", "would be 8 times bigger"), report,
                       issue="kv-bytes-per-token", front_matter=True)
    eight = row(check, "8 times")
    assert (eight.status, eight.claim) == ("drift", "kv-bytes-per-token/qwen25-14b-mha-factor")
    # Another machine is not the H100: unbacked, not drift against its 80 GB.
    check = check_text("The H200 has 141 GB of memory.\n", report)
    assert row(check, "141 GB").status == "unbacked"
    # A planted wrong ratio in a sentence the ledger backs is drift, at its claim.
    check = check_text(text.replace("about 6.7 times the size", "about 7.6 times the size"), report,
                       issue="kv-bytes-per-token", front_matter=True)
    assert (row(check, "about 7.6 times").status, row(check, "about 7.6 times").claim) == \
        ("drift", "kv-bytes-per-token/qwen25-14b-cache-vs-weights")
