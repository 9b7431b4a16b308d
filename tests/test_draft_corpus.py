"""check-draft on text nobody here wrote (tests/corpus/): the finder against hand labels, nothing
called backed or drift on correct text, and planted errors caught: in printed equations by the
arithmetic, in sentences the ledger backs (copies of the published texts) as drift at their claim."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_measure import check, labels, measure, texts
from workings.draft.check import check_text
from workings.engine import verify

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def report():
    return verify(REPO)


def test_at_least_five_outside_texts_each_with_its_url_and_labels():
    found = texts()
    assert len(found) >= 5
    for path in found:
        text = path.read_text(encoding="utf-8")
        assert "\nurl: https://" in text.split("\n---\n", 1)[0], path
        assert labels(path)["figures"], path


def test_the_corpus_measures(report):
    m = measure(report)
    assert m.labelled >= 100
    assert m.recall >= 0.95, m.missed
    assert m.precision >= 0.90, m.extra
    assert m.false_backed == [], m.false_backed      # no excerpt is about a figure of this ledger
    assert m.false_drift == [], m.false_drift        # correct text: no drift, no ambiguous
    assert m.equations_checked == m.equations_labelled


EQUATIONS = [
    # (file, planted: old -> new, what)
    ("ietf-ai-fabric-inference-bench.md", "160 × 8 = 1,280", "160 × 8 = 1,380", "wrong product"),
    ("frankdenneman-runtime-memory.md", "x 2 = 327,680 =", "x 2 = 326,780 =", "swapped digits"),
    ("frankdenneman-runtime-memory.md", "= 42.95GB", "= 42.95GiB", "GB for GiB"),
    ("devto-1m-token-context.md", "6,291,456 bytes ≈ 6 MB", "6,291,456 bytes ≈ 7 MB", "wrong rounding"),
    ("bytebell-kv-cache-gpu-memory.md", "=327,680,000,000 bytes", "=372,680,000,000 bytes", "swapped digits"),
    ("ietf-ai-fabric-inference-bench.md", "163,840 × 4,096 =", "163,840 × 4,069 =", "a changed factor"),
]


@pytest.mark.parametrize("file,old,new,what", EQUATIONS, ids=[e[3] + ": " + e[0] for e in EQUATIONS])
def test_planted_errors_in_printed_equations_are_caught(report, file, old, new, what):
    path = REPO / "tests" / "corpus" / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    before = {(f.line, f.text) for f in check(path, report, text).figures if f.kind == "equation" and f.status != "holds"}
    after = check(path, report, text.replace(old, new))
    failing = [f for f in after.figures if f.kind == "equation" and f.status != "holds"
               and (f.line, f.text) not in before]
    assert failing and all(f.status == "drift" for f in failing), [(f.text, f.status) for f in after.figures]


def test_k_suffix_operands_are_read_both_ways():
    from workings.draft.finder import find_figures

    found = find_figures("At 128K context: 2 × 80 × 8 × 128 × 128K × 2 = 41,943,040,000 bytes.\n"
                         "At 128K context: 2 × 80 × 8 × 128 × 128K × 2 = 42,949,672,960 bytes.\n"
                         "With 4K tokens, 4K × 2 bytes = 8,000 bytes or so.\n")
    assert [e.status for e in found.equations] == ["ambiguous", "ambiguous", "ambiguous"]
    assert "1,000" in found.equations[0].note and "1,024" in found.equations[1].note


def test_a_result_in_another_unit_and_a_chain():
    from workings.draft.finder import find_figures

    found = find_figures("That is 2 × 80 × 8 × 128 × 1,000,000 × 2 bytes ≈ 327.7 GB = 305.2 GiB.\n")
    assert [(e.text, e.status) for e in found.equations] == [
        ("2 × 80 × 8 × 128 × 1,000,000 × 2 bytes ≈ 327.7", "holds"), ("327.7 GB = 305.2", "holds")]
    found = find_figures("That is 2 × 80 × 8 × 128 × 1,000,000 × 2 bytes ≈ 838.9 GB.\n")
    assert [e.status for e in found.equations] == ["fails"]


PUBLISHED = [
    # (slug, old, new, status, claim): each in a sentence the ledger backs
    ("kv-bytes-per-token", "= 196,608 bytes per token", "= 196,806 bytes per token", "drift",
     "kv-bytes-per-token/qwen25-14b-bytes-per-token"),                                   # wrong product
    ("kv-bytes-per-token", "needs 198.6 GB of cache", "needs 189.6 GB of cache", "drift",
     "kv-bytes-per-token/qwen25-14b-cache-full-window-gb"),                              # swapped digits
    ("kv-bytes-per-token", "(184.9 GiB)", "(184.9 GB)", "ambiguous",
     "kv-bytes-per-token/qwen25-14b-cache-full-window-gib"),                             # GB for GiB
    ("kv-bytes-per-token", "about 6.7 times the size", "about 7.6 times the size", "drift",
     "kv-bytes-per-token/qwen25-14b-cache-vs-weights"),                                  # wrong ratio
    ("hundred-messages", "four times smaller", "five times smaller", "drift",
     "hundred-messages/four-times-smaller"),                                             # number word
    ("hundred-messages", "by more than 90% compared", "by more than 95% compared", "drift",
     "hundred-messages/v2-kv-reduction-more-than-90"),                                   # wrong percent
]


@pytest.mark.parametrize("slug,old,new,status,claim", PUBLISHED, ids=[p[2] for p in PUBLISHED])
def test_planted_errors_in_backed_sentences_are_drift(report, slug, old, new, status, claim):
    text = (REPO / "claims" / slug / "article.md").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    clean = check_text(text, report, issue=slug, front_matter=True)
    planted = check_text(text.replace(old, new), report, issue=slug, front_matter=True)
    was = {(f.line, f.text, f.status) for f in clean.figures}
    new_rows = [f for f in planted.figures if (f.line, f.text, f.status) not in was]
    assert (status, claim) in [(f.status, f.claim) for f in new_rows], [(f.text, f.status, f.claim) for f in new_rows]


def test_a_relation_backs_only_the_figure_as_its_sentence_prints_it(report):
    """"Sixty to seventy percent" is backed by the relation recorded on that sentence; the same
    sentence printing "Sixty to eighty percent" is not (the relation pins no number of it)."""
    text = (REPO / "claims" / "hundred-messages" / "article.md").read_text(encoding="utf-8")
    clean = check_text(text, report, issue="hundred-messages", front_matter=True)
    (row,) = [f for f in clean.figures if f.text == "Sixty to seventy percent"]
    assert (row.status, row.claim) == ("backed", "hundred-messages/ffn-sixty-to-seventy-percent")
    changed = check_text(text.replace("Sixty to seventy percent", "Sixty to eighty percent"), report,
                         issue="hundred-messages", front_matter=True)
    (row,) = [f for f in changed.figures if f.text == "Sixty to eighty percent"]
    assert row.status == "unbacked"
