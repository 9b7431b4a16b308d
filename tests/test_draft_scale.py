"""check-draft on long adversarial lines: the work and the output grow with the draft, not with the
square of the figures in one sentence. No test here is timed; each counts work instead:

* the characters handed to ``match.words`` (the tokenizer every alignment goes through), which was
  the whole sentence again for every figure of it;
* the lines of ``workings.draft`` code run, at N and at 2N repetitions of a line: doubling the
  draft may at most about double them;
* the size of the table and the JSON printed, which repeated the whole sentence for every figure.

The inputs are those a reviewer found quadratic: a Markdown table of 600 rows (one sentence, before
rows became sentences of their own), and one line of "5 to ", "1 per ", "1-fold ", "a quarter of "
or "1 * ... =" repeated thousands of times; and three more of the same kind (a number written in
words repeated, a date repeated, an equation repeated).
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

import pytest

from test_draft_check import CLAIMS, CORVID
from workings.draft import match, output
from workings.draft.check import SENTENCE_SHOWN, check_text, shown
from workings.draft.finder import find_figures
from workings.draft.text import paragraphs, sentences

N = 2000  # repetitions of a line: large enough that a quadratic cost shows plainly in the counts


def table(rows: int) -> str:
    head = ["| Model | Layers | Heads | Per token |", "|---|---|---|---|"]
    return "\n".join(head + [f"| m{i} | {i % 90 + 1} | {i % 40 + 8} | {1000 + 7 * i:,} bytes |"
                             for i in range(rows)]) + "\n"


def line(unit: str, n: int) -> str:
    return unit * n + "\n"


INPUTS = {
    "table": (lambda n: table(n // 4 + 1), True),
    "to": (lambda n: line("5 to ", n), False),
    "per": (lambda n: line("1 per ", n), False),
    "fold": (lambda n: line("1-fold ", n), False),
    "quarter": (lambda n: line("a quarter of ", n), False),
    "times": (lambda n: "1 * " * n + "1 =\n", False),
    "words": (lambda n: line("one thousand ", n), False),
    "dates": (lambda n: line("2024-01-01 ", n), False),
    "equations": (lambda n: line("1 * 1 = 1 ", n), False),
}


@pytest.fixture
def report(tmp_ledger):
    tmp_ledger.source("corvid", raw=CORVID)
    for claim_id, text in CLAIMS.items():
        tmp_ledger.claim(claim_id, text)
    report = tmp_ledger.verify()
    assert not report.problems, report.problems
    return report


class Tokenized:
    """Counts the characters ``match.words`` is asked to read."""

    def __init__(self, monkeypatch):
        self.chars = 0
        self.calls = 0
        real = match.words

        def counting(text: str) -> frozenset[str]:
            self.chars += len(text)
            self.calls += 1
            return real(text)

        monkeypatch.setattr(match, "words", counting)


def lines_run(function, *args, **kwargs) -> int:
    """How many lines of ``workings.draft`` code one call runs (a measure of work, not of time)."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def calls(frame, event, arg):
        return local if "workings/draft/" in frame.f_code.co_filename.replace("\\", "/") else None

    sys.settrace(calls)
    try:
        function(*args, **kwargs)
    finally:
        sys.settrace(None)
    return count


# What each input must give: (number of figures, what every figure (or each row's) must be).

def test_table_rows_are_sentences_of_their_own(report):
    draft = table(600)
    check = check_text(draft, report, markdown=True)
    found = check.found
    assert len(found.figures) == 3 * 600
    rows = draft.splitlines()
    for figure in found.figures:
        assert figure.sentence == rows[figure.line - 1].strip()
        assert figure.context.count("|") <= 3 * 5  # the row and the rows either side, no more
    last = [f for f in found.figures if f.line == 602]
    assert [(f.text, f.value, f.unit) for f in last] == [("60", 60, ""), ("47", 47, ""),
                                                         ("5,193 bytes", 5193, "B")]
    assert "| m599 | 60 | 47 | 5,193 bytes |" in found.sentences
    assert {f.status for f in check.figures} == {"unbacked"}


def test_table_beside_prose_and_a_list_keeps_them_apart():
    text = ("The cache needs 56 layers.\n| a | 4 KV heads |\n|---|---|\n| b | 2 bytes |\nAfter the table, 3 GB.\n\n"
            "- first item, 5 GB\n- second item, 6 GB\n")
    found = find_figures(text, markdown=True)
    assert [(f.line, f.text, f.sentence) for f in found.figures] == [
        (1, "56", "The cache needs 56 layers."),
        (2, "4", "| a | 4 KV heads |"),
        (4, "2 bytes", "| b | 2 bytes |"),
        (5, "3 GB", "After the table, 3 GB."),
        (7, "5 GB", "- first item, 5 GB"),
        (8, "6 GB", "- second item, 6 GB"),
    ]
    table_paragraph = [p for p in paragraphs(text, markdown=True) if p.table]
    assert len(table_paragraph) == 1
    assert [s.text for s in sentences(table_paragraph[0])] == ["| a | 4 KV heads |", "|---|---|", "| b | 2 bytes |"]


def test_a_table_without_outer_pipes_is_a_table_from_its_header():
    """GitHub reads "a | b" over "---|---" as a table; its rows were read as prose, the header's narrowing lost."""
    text = ("The cache needs 56 layers.\nRumoured | Confirmed\n---|---\n4 KV heads | 2 bytes\nAfter it, 3 GB.\n\n"
            "Some | text\n---\n")
    found = find_figures(text, markdown=True)
    assert [(f.text, f.sentence) for f in found.figures] == [
        ("56", "The cache needs 56 layers."), ("4", "4 KV heads | 2 bytes"), ("2 bytes", "4 KV heads | 2 bytes"),
        ("3 GB", "After it, 3 GB.")]
    tables = [p for p in paragraphs(text, markdown=True) if p.table]
    assert [s.text for s in sentences(tables[0])] == ["Rumoured | Confirmed", "---|---", "4 KV heads | 2 bytes"]
    assert [p.heading for p in paragraphs(text, markdown=True)][-1]  # "---" under a line with a pipe: a heading


def test_a_table_row_with_two_sentences_splits_within_the_row():
    text = "| Note | It holds 4 GB. It needs 2 GB. |\n|---|---|\n"
    found = find_figures(text, markdown=True)
    assert [(f.text, f.sentence) for f in found.figures] == [("4 GB", "| Note | It holds 4 GB."),
                                                             ("2 GB", "It needs 2 GB.")]
    assert found.sentences == ("| Note | It holds 4 GB.", "It needs 2 GB.", "|", "|---|---|")


def test_the_reviewers_lines_give_every_figure(report):
    expected = {
        "to": (N, "5", Fraction(5), "count"),            # "5 to 5" is no range: the far end is not larger
        "per": (N, "1", Fraction(1), "count"),
        "fold": (N, "1-fold", Fraction(1), "ratio"),
        "quarter": (N, "a quarter", Fraction(1, 4), "ratio"),
        "times": (N + 1, "1", Fraction(1), "count"),      # no result after "=": no equation
    }
    for name, (count, text, value, kind) in expected.items():
        build, markdown = INPUTS[name]
        draft = build(N)
        check = check_text(draft, report, markdown=markdown)
        figures = check.found.figures
        assert len(figures) == count, name
        assert {(f.text, f.value, f.kind, f.upper) for f in figures} == {(text, value, kind, None)}, name
        assert all(f.sentence == draft.strip() for f in figures), name
        assert [f.column for f in figures[:3]] == [1 + i * (len(draft) - 1) // N for i in range(3)] or name == "quarter"
        statuses = {f.status for f in check.figures}
        # "a quarter" agrees in value with the ledger's quarter claim, but this line is not its
        # sentence: agreement in value backs nothing, and the hint names the claim.
        assert statuses == {"unbacked"}, name
        if name == "quarter":
            assert {f.claim for f in check.figures} == {None}
            assert "sizing/quarter" in check.figures[0].reason


def test_the_other_long_lines_give_what_they_should(report):
    words = check_text(INPUTS["words"][0](N), report)
    assert words.figures == ()  # "one thousand" with nothing counted is no figure
    dates = check_text(INPUTS["dates"][0](N), report)
    assert dates.figures == () and len(dates.set_aside) == N
    assert {s.reason for s in dates.set_aside} == {"date"}
    equations = check_text(INPUTS["equations"][0](N), report)
    assert sum(1 for f in equations.figures if f.kind == "equation") == N
    assert all(f.status == "holds" for f in equations.figures if f.kind == "equation")


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_words_are_read_once_per_sentence_not_once_per_figure(report, monkeypatch, name):
    build, markdown = INPUTS[name]
    draft = build(N)
    tokenized = Tokenized(monkeypatch)
    check = check_text(draft, report, markdown=markdown, issue="sizing")
    figures = len(check.figures)
    said = sum(len(c.said or "") for c in report.claims)
    # Each sentence is read a few times (itself, in its neighbours' context, for stale claims), each
    # figure's few neighbouring words once, each claim's sentence a few times. Reading the sentence
    # for every figure, as before, is N times the draft: 10,000,000 characters and more here.
    assert tokenized.chars <= 10 * len(draft) + 200 * figures + 10 * said, (name, tokenized.chars)


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_the_work_doubles_when_the_draft_doubles(report, name):
    build, markdown = INPUTS[name]
    check_text(build(50), report, markdown=markdown)  # warm every cache on small input first
    small = lines_run(check_text, build(N // 2), report, markdown=markdown, issue="sizing")
    large = lines_run(check_text, build(N), report, markdown=markdown, issue="sizing")
    assert large <= 2.5 * small + 1000, (name, small, large)


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_what_is_printed_is_bounded_per_figure(report, name):
    build, markdown = INPUTS[name]
    check = check_text(build(N), report, markdown=markdown)
    rows = len(check.figures) + len(check.set_aside) + 10
    text = output.render(check, "table", set_aside=True)
    assert len(text) <= 1000 * rows, (name, len(text))
    quiet = output.render(check, "table", only_failing=True)
    assert len(quiet) <= 1000 * rows
    data = json.loads(output.render(check, "json"))
    assert all(len(f["sentence"]) <= SENTENCE_SHOWN for f in data["figures"])
    assert all(len(s["sentence"]) <= SENTENCE_SHOWN for s in data["set_aside"])
    assert len(output.render(check, "json")) <= 1500 * rows
    assert len(output.render(check, "github")) <= 600 * rows


def test_a_long_sentence_is_cut_with_an_ellipsis_where_it_is_printed(report):
    draft = "The cache needs " + "5 to " * 400 + "6 GB.\n"
    check = check_text(draft, report)
    sentence = draft.strip()
    assert all(f.sentence == sentence for f in check.figures)  # the check keeps the whole sentence
    cut = shown(sentence)
    assert len(cut) == SENTENCE_SHOWN and cut.endswith("…") and sentence.startswith(cut[:-1])
    assert shown("Short.") == "Short."
    assert shown("x" * SENTENCE_SHOWN) == "x" * SENTENCE_SHOWN
    data = json.loads(output.to_json(check))
    assert {f["sentence"] for f in data["figures"]} == {cut}
    printed = output.table(check, only_failing=True)
    assert sentence not in printed
    assert '"The cache needs 5 to 5' in printed and "…\"" in printed.replace("\n", "").replace(" ", "")


def test_the_figures_own_place_gives_the_words_around_it():
    found = find_figures("It has 128 heads and a cache of 8 layers.")
    eight = found.figures[1]
    assert (eight.text, eight.offset) == ("8", found.figures[0].sentence.index("8 layers"))
    assert found.figures[0].offset == 7
    # Not the "8" inside "128", the first "8" of the sentence.
    assert match.near(eight) == match.words("a cache of 8 layers.") == {"cache", "layers"}


@pytest.mark.parametrize("text", ["a b c d e f", "  x   y ", "", "word " * 100 + "long" * 40 + " z",
                                  " ".join("w" * (i % 97) for i in range(300))])
def test_last_and_first_words_agree_with_split(text):
    for spot in range(0, len(text) + 1):
        assert match.last_words(text, spot, 3) == text[:spot].split()[-3:]
        assert match.first_words(text, spot, 4) == text[spot:].split()[:4]


def test_record_names_for_a_figure_printed_thousands_of_times_are_found_in_linear_work():
    from workings.draft.new import _name

    class Counting(set):
        checks = 0

        def __contains__(self, item):
            Counting.checks += 1
            return super().__contains__(item)

    figures = find_figures("5 GB and " * N).figures
    taken, counted = Counting({"5-gb-3"}), {"unrelated": 7}  # a record of that name is there
    names = [_name(f, taken, counted) for f in figures]
    # As the one-at-a-time search (the slug, then -2, -3...: every time from -2) names them.
    reference = {"5-gb-3"}
    for figure in figures:
        base = _name(figure, set())
        name, n = base, 2
        while name in reference:
            name, n = f"{base}-{n}", n + 1
        reference.add(name)
        assert names[len(reference) - 2] == name
    assert names[:4] == ["5-gb", "5-gb-2", "5-gb-4", "5-gb-5"]
    assert len(set(names)) == len(names) == N
    assert Counting.checks <= 3 * len(figures)  # searching from -2 every time was N * N / 2
