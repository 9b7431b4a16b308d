"""The number finder, on drafts written for these tests (not copied from the published texts)."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

from workings.draft.finder import find_figures

DRAFT = """\
# Sizing the cache of Corvid-22B

Issue 014 looked at the weights. On March 3, 2025, the Corvid team published v2.1 of its config.

1. Read the config. Corvid-22B has 56 layers and 4 KV heads. The head size is 6,144 ÷ 48 heads = 128.
2. Multiply. 2 × 56 × 4 × 128 × 2 = 114,688 bytes per token. That is 112 KiB.

At a window of 262,144 tokens, one chat needs about 30.1 GB of cache (28.0 GiB). On an H200 that is
more than 20% of the memory. A 4-bit cache makes it about 3.9 times smaller; FP8 halves it.
The vendor quotes "96 KB" per token and a price of $0.25 per million tokens.

The team says the cache drops to a quarter, and to one three-hundred-and-twelfth of the dense
baseline from 2023. Forty to fifty percent of a 1.3-trillion-parameter model is in its experts.
The queue grew from 300 to 1,200 requests. Corvid-22B-Chat was released in May 2024.
"""


def by_text(found):
    return {f.text: f for f in found.figures}


def test_figures_with_units_values_and_lines():
    found = find_figures(DRAFT, markdown=True)
    figures = by_text(found)
    assert figures["114,688 bytes per token"].value == 114688
    assert figures["114,688 bytes per token"].unit == "B/token"
    assert figures["114,688 bytes per token"].line == 6
    assert figures["112 KiB"].unit == "KiB"
    assert figures["about 30.1 GB"].value == Fraction(301, 10)
    assert figures["about 30.1 GB"].qualifier == "about"
    assert figures["about 30.1 GB"].step == Fraction(1, 10)
    assert figures["about 30.1 GB"].line == 8
    assert figures["28.0 GiB"].unit == "GiB"
    assert figures["more than 20%"].qualifier == "more than"
    assert figures["more than 20%"].unit == "percent"
    assert figures["about 3.9 times smaller"].kind == "ratio"
    assert figures["about 3.9 times smaller"].inverse
    assert figures["halves"].value == Fraction(1, 2)
    assert figures['96 KB" per token'].unit == "KB/token"
    assert figures["$0.25 per million tokens"].unit == "USD/Mtoken"
    assert figures["$0.25 per million tokens"].value == Fraction(1, 4)
    assert figures["a quarter"].value == Fraction(1, 4)
    assert figures["one three-hundred-and-twelfth"].value == Fraction(1, 312)
    assert figures["one three-hundred-and-twelfth"].line == 12
    assert figures["Forty to fifty percent"].value == 40
    assert figures["Forty to fifty percent"].upper == 50
    assert figures["1.3-trillion-parameter"].value == 1_300_000_000_000
    assert figures["1.3-trillion-parameter"].unit == "parameter"
    assert figures["300"].value == 300 and figures["1,200"].value == 1200  # "from 300 to 1,200": two figures
    assert figures["56"].kind == "count"
    assert figures["4-bit"].unit == "bit"


def test_set_asides_have_reasons():
    found = find_figures(DRAFT, markdown=True)
    reasons = {(s.text, s.reason) for s in found.set_aside}
    assert ("Corvid-22B", "model-name") in reasons
    assert ("Issue 014", "reference") in reasons
    assert ("March 3, 2025", "date") in reasons
    assert ("v2.1", "version") in reasons
    assert ("1", "list-number") in reasons and ("2", "list-number") in reasons
    assert ("H200", "hardware-name") in reasons
    assert ("FP8", "format-name") in reasons
    assert ("2023", "date") in reasons
    assert ("May 2024", "date") in reasons
    assert ("Corvid-22B-Chat", "model-name") in reasons
    printed = {f.text for f in found.figures}
    assert not printed & {"22", "014", "3", "2025", "2.1", "200", "8", "2023", "2024"}


def test_equations_are_found_and_checked():
    found = find_figures(DRAFT, markdown=True)
    equations = {e.text: e for e in found.equations}
    assert equations["6,144 ÷ 48 heads = 128"].holds
    assert equations["2 × 56 × 4 × 128 × 2 = 114,688"].holds
    assert equations["2 × 56 × 4 × 128 × 2 = 114,688"].line == 6
    # the factors are part of the equation, not figures of their own
    assert "48" not in {f.text for f in found.figures}
    changed = find_figures("So 2 × 56 × 4 × 64 × 2 = 114,688 bytes per token.")
    assert [e.holds for e in changed.equations] == [False]
    assert changed.equations[0].computed == 57344


@pytest.mark.parametrize("text, status", [
    # A rounded operand stands for what rounds to it: 1.3 is [1.25, 1.35), so 1.3 × 2 is [2.5, 2.7),
    # which rounds (half away from zero) to 3, never to 2; 1.2 × 2 is [2.3, 2.5), never 3.
    ("1.3 × 2 = 2", "fails"), ("1.3 × 2 = 3", "holds"),
    ("1.2 × 2 = 3", "fails"), ("1.2 × 2 = 2", "holds"),
    # "≈ 200" agrees to hundreds: 250 rounds to 300.
    ("2 × 125 ≈ 200", "fails"), ("2 × 125 ≈ 300", "holds"), ("2 × 124 ≈ 200", "holds"),
    # a decimal result to its places, the same rule: 0.25 is printed 0.3, not 0.2
    ("1 ÷ 4 = 0.2", "fails"), ("1 ÷ 4 = 0.3", "holds"), ("1 ÷ 4 = 0.25", "holds"),
    # K and M read the same way on both sides, as powers of 1,024 only if each may be one (250 may not)
    ("128K × 2 = 256K", "holds"), ("1M ÷ 4 = 250K", "holds"), ("1M ÷ 4 = 256K", "ambiguous"),
])
def test_equations_round_half_away_from_zero_at_the_edge(text, status):
    """One rounding rule (figures.round_step) for operands and results: a value exactly at a
    half-step edge belongs to the next value up, as a person rounds."""
    (equation,) = find_figures(f"So {text} here.").equations
    assert (equation.text, equation.status) == (text, status)


@pytest.mark.parametrize("text, status, note", [
    # "KB" is kB or KiB, as the ledger reads it (units.readings): 16,384 bytes is 16 KiB exactly
    ("2 × 32 × 128 × 2 = 16 KB", "ambiguous", "KB is read as 1,024 bytes (KiB)"),
    ("2 × 32 × 125 × 2 = 16 KB", "ambiguous", "KB is read as 1,000 bytes (kB)"),
    ("2 × 32 × 128 × 2 = 16 KiB", "holds", ""), ("2 × 32 × 125 × 2 = 16 kB", "holds", ""),
    ("2 × 32 × 128 × 2 = 17 KB", "fails", ""),
    # with a K suffix, KB is read as it is: 4,096 × 2 bytes is 8 KiB, 4,000 × 2 bytes 8 kB
    ("4K × 2 bytes = 8 KB", "holds", ""),
])
def test_kb_in_an_equation_is_read_as_kb_and_as_kib(text, status, note):
    (equation,) = find_figures(f"So {text} here.").equations
    assert (equation.text, equation.status) == (text[:text.rindex(" ")], status)
    assert note in equation.note and (equation.note == "") == (note == "")


def test_a_factor_s_name_or_note_does_not_end_the_product():
    """Outside text prints "8 KV heads × 128 dim × 2 (K+V) × 2 bytes = 4KB": one product, which once
    came out as "2 bytes = 4KB" and was called wrong. A list's dash after the words does not join
    two equations."""
    text = ("KV cache: - 8 KV heads × 128 dim × 2 (K+V) × 2 bytes = 4 KiB per token per layer "
            "- 1M tokens × 80 layers = 80M\n")
    assert [(e.text, e.status) for e in find_figures(text).equations] == [
        ("8 KV heads × 128 dim × 2 (K+V) × 2 bytes = 4", "holds"), ("1M tokens × 80 layers = 80M", "holds")]
    changed = find_figures(text.replace("× 2 (K+V)", "× 4 (K+V)")).equations[0]
    assert (changed.status, changed.computed) == ("fails", 8)
    assert "8" not in {f.text for f in find_figures(text).figures}  # a factor, not a figure of its own
    per = find_figures("So 4 KiB per token × 80 layers = 320 KiB.").equations
    assert [(e.text, e.status) for e in per] == [("4 KiB per token × 80 layers = 320", "holds")]


@pytest.mark.parametrize("text", [
    "Per layer, bytes = heads × 2 × 64 = 1,024 when heads is 8.",   # the left side begins with a symbol
    "The cache is 2 × 64 = 1,024 × layers bytes.",                  # the right side goes on with one
    "Here num_heads x 2 bytes = 16 bytes for 8 heads.",
])
def test_a_side_printed_only_in_part_is_not_checked(text):
    assert find_figures(text).equations == ()


def test_a_footnote_star_or_a_bullet_does_not_cut_a_side():
    found = find_figures("* 2 × 64 B = 0.128 kB *\n* All sizes are decimal.\n* 3 × 64 = 192 bytes\n")
    assert [(e.text, e.status) for e in found.equations] == [("2 × 64 B = 0.128", "holds"), ("3 × 64 = 192", "holds")]


@pytest.mark.parametrize("text, equation, status", [
    # an HN comment's Gemma 27B estimate: 211,968,000,000 bytes, which agrees with "≈ 200 GB" to its hundreds
    ("KV cache = 2 * (46) * (16 * 144) * 1e6 * 1 byte ≈ 200 GB",
     "2 * (46) * (16 * 144) * 1e6 * 1 byte ≈ 200", "holds"),
    ("KV cache = 2 * (46) * (16 * 144) * 1e6 * 1 byte ≈ 300 GB",
     "2 * (46) * (16 * 144) * 1e6 * 1 byte ≈ 300", "fails"),
    ("So (2 + 3) × 4 = 20.", "(2 + 3) × 4 = 20", "holds"), ("So 2 × (3 + 4) = 14.", "2 × (3 + 4) = 14", "holds"),
    ("So 2 × 3 + 4 = 10.", "2 × 3 + 4 = 10", "holds"), ("(So 2 × 3 = 6.)", "2 × 3 = 6", "holds"),
    ("A rounded 1.5e3 × 2 = 3,000 bytes.", "1.5e3 × 2 = 3,000", "holds"),
    # a dev.to post's Llama 2 70B in LaTeX: 5,368,709,120 bytes is 5.37 GB, not the 5.24 printed
    (r"$$M = 2 \cdot 80 \cdot 2048 \cdot 8192 \cdot 1 \cdot 2 = 5.24 \text{ GB}$$",
     r"2 \cdot 80 \cdot 2048 \cdot 8192 \cdot 1 \cdot 2 = 5.24", "fails"),
    (r"$$M = 2 \times 80 \times 2048 \times 8192 \times 1 \times 2 = 5.37 \mathrm{GB}$$",
     r"2 \times 80 \times 2048 \times 8192 \times 1 \times 2 = 5.37", "holds"),
])
def test_brackets_latex_and_exponents_are_read_as_printed(text, equation, status):
    """Outside pages print these; each was once broken into operands reported as figures of their
    own, and the wrong LaTeX product was never checked."""
    found = find_figures(text)
    assert [(e.text, e.status) for e in found.equations] == [(equation, status)]
    assert not {"46", "144", "80", "8192", "3", "4"} & {f.text for f in found.figures}


@pytest.mark.parametrize("text", ["So 2 × (3 + 4 = 14.", "So 2 + 3) × 4 = 14 and more.",
                                  "So 2 × " + "(" * 13 + "3" + ")" * 13 + " = 6.",
                                  "So 2 × " + "(" * 5000 + "3" + ")" * 5000 + " = 6 GB."])
def test_brackets_that_do_not_pair_or_nest_too_deep_are_not_checked(text):
    assert find_figures(text).equations == ()


def test_a_side_that_counts_no_bytes_against_bytes_says_so_when_it_fails():
    """"1M tokens × 80 layers = 320 GB" (a Reddit post) and "2 × 32 × 128 × 8192 values ≈ 256 MB" leave
    a factor in bytes unprinted: the verdict says so, not only that the left side is 0.08. One count
    alone against bytes ("67,108,864 values ≈ 256 MB") is a size restated, not arithmetic: not checked."""
    (tokens,) = find_figures("So 1M tokens × 80 layers = 320 GB.").equations
    assert tokens.status == "fails" and "the bytes per token per layer are not printed" in tokens.note
    (values,) = find_figures("So 2 × 32 × 128 × 8192 values ≈ 256 MB here.").equations
    assert values.status == "fails" and "counts values, the other bytes" in values.note
    assert find_figures("So 67,108,864 values ≈ 256 MB here.").equations == ()
    others = find_figures("So 6,144 ÷ 48 heads = 128, and 2 × 2 bytes = 5 bytes.").equations
    assert [e.note for e in others] == ["", ""]


def test_an_approximate_result_cut_short_says_so():
    """A blog's "100 × 128K × 32,768 × 2 bytes ≈ 838 GB" (838.86 GB, K as 1,000) drops the .86: by the
    rule it fails ("≈ 838" is 837.5 up to 838.5), and the reason says it was cut, not rounded."""
    (cut,) = find_figures("So 100 × 128K × 32,768 × 2 bytes ≈ 838 GB here.").equations
    assert cut.status == "fails" and "cut short" in cut.note
    (rounded,) = find_figures("So 100 × 128K × 32,768 × 2 bytes ≈ 839 GB here.").equations
    assert rounded.status == "ambiguous" and "1,000 and 1,000,000" in rounded.note
    (far,) = find_figures("So 100 × 128K × 32,768 × 2 bytes ≈ 836 GB here.").equations
    assert far.status == "fails" and far.note == ""


def test_a_note_in_brackets_before_the_relation_does_not_end_the_equation():
    found = find_figures("Total: 2,048 values * 2 bytes (FP16) = 4,096 bytes per token per layer.\n"
                         "Total: 2,048 values * 2 bytes (FP16) = 4,086 bytes per token per layer.\n")
    assert [(e.text, e.status) for e in found.equations] == [
        ("2,048 values * 2 bytes (FP16) = 4,096", "holds"), ("2,048 values * 2 bytes (FP16) = 4,086", "fails")]
    assert "2,048" not in {f.text for f in found.figures}
    # a note that ends a line: the next line is another reading ("in float16"), not the next step
    readings = find_figures("x = 2 × 32 × 128 × 8192 values\n≈ 256 MB (in float32)\n≈ 128 MB (in float16)\n",
                            markdown=True)
    assert [e.text for e in readings.equations] == ["2 × 32 × 128 × 8192 values ≈ 256"]


def test_a_year_and_month_is_a_date():
    found = find_figures("| DeepSeek-V3 | 671B | 128K | 2024-12 |\n\nA window with 2048-12 tokens.\n", markdown=True)
    assert ("2024-12", "date") in {(s.text, s.reason) for s in found.set_aside}
    assert [f.text for f in found.figures] == ["671B", "128K", "2048", "12 tokens"]


@pytest.mark.parametrize("text, expected", [
    # an aside in brackets is not a side; a bracket closing before "=" what opened before the run
    ("Llama-3 (8B) = 32 × 4,096 × 2 × 2 = 524,288 bytes.", [("32 × 4,096 × 2 × 2 = 524,288", "holds")]),
    ("One H100 (80 GB) ≈ 2 × 40 GB.", []), ("GPT-3 (175B) ≈ 2 × 96 × 128.", []),
    ("Total (weights 140 GB + KV cache 40 GB) = 180 GB.", []),
    ("2 × 8 × 128 (K and V, 2 bytes) = 4,096 bytes.", []),
    # a running derivation: each link is checked on the result it gives, and the next goes on with it
    ("So 2 × 8 × 128 × 2 = 4,096 bytes per layer × 80 layers = 327,680 bytes.",
     [("2 × 8 × 128 × 2 = 4,096", "holds"), ("4,096 bytes per layer × 80 layers = 327,680", "holds")]),
    ("So 2 × 8 × 128 × 2 = 4,000 bytes per layer × 80 layers = 320,000 bytes.",
     [("2 × 8 × 128 × 2 = 4,000", "fails"), ("4,000 bytes per layer × 80 layers = 320,000", "holds")]),
    ("So 2 × 64 = 4 × 32 = 128.", [("2 × 64 = 4 × 32", "holds"), ("4 × 32 = 128", "holds")]),
    # LaTeX's thousands separators; K read as 1,000 with KB as KiB (a mix KV-cache posts print)
    (r"$$2 \times 80 \times 8 \times 128 \times 2 = 327{,}680 \text{ bytes}$$",
     [(r"2 \times 80 \times 8 \times 128 \times 2 = 327{,}680", "holds")]),
    ("So 128K tokens × 320 KB = 41.9 GB.", [("128K tokens × 320 KB = 41.9", "ambiguous")]),
    # exponents at a sentence's end, and "≈" to an exponent's place
    ("So 2 × 5e5 = 1e6.", [("2 × 5e5 = 1e6", "holds")]), ("So 3 × 7e8 ≈ 2e9.", [("3 × 7e8 ≈ 2e9", "holds")]),
    ("So 3 × 7e8 ≈ 3e9.", [("3 × 7e8 ≈ 3e9", "fails")]),
    # a unit's slash and Markdown's stars are no operators; a bold operand cut off is
    ("So 3 × 40 = 120 tokens/s.", [("3 × 40 = 120", "holds")]),
    ("The total is *2 × 64 = 128* bytes.", [("2 × 64 = 128", "holds")]),
    ("**32 layers** × 8 heads × 128 × 2 × 2 = 131,072 bytes.", []),
    # a second review: a model size with a note is no product; "/ GPU" after a unit is "per";
    # powers of a whole number are read (since batch I: "10^9", "2^30", "10⁹"); a re-factored chain's
    # link is shown whole
    ("GPT-3 175B (FP16) = 350 GB.", []), ("Result: 4 GPUs (A100) = 320 GB.", []),
    ("Per GPU: 140 GB ÷ 8 = 20 GB / GPU.", [("140 GB ÷ 8 = 20", "fails")]),
    (r"$70 \times 10^9 \times 2 = 140 \times 10^9$", [(r"70 \times 10^9 \times 2 = 140 \times 10^9", "holds")]),
    ("1 GiB = 2^30 bytes.", [("1 GiB = 2^30", "holds")]),
    ("2^10 bytes = 1,024 bytes.", [("2^10 bytes = 1,024", "holds")]),
    ("So 2 × 64 = 128 × 10⁹.", [("2 × 64 = 128 × 10⁹", "fails")]),
    ("So 2 × 32 × 4,096 = 2 × 65,536 = 131,072.", [("2 × 32 × 4,096 = 2 × 65,536", "fails"),
                                                   ("2 × 65,536 = 131,072", "holds")]),
])
def test_what_a_review_of_the_equation_reader_found(text, expected):
    """Sentences a reviewer wrote against this reader: each gave a wrong verdict, or none, after
    brackets, notes and cut sides were first read."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


def test_numbers_too_large_for_any_derivation_are_not_checked_and_stay_fast():
    """"9e99 × 9e99 × ..." once crashed check-draft (a result of thousands of digits) and took
    seconds per few KB (the product grew with every factor); beyond 10^40, or finer than its
    inverse, nothing is checked, and the evaluation stops there."""
    assert find_figures("So " + "9e99 × " * 4000 + "9 = 5 GB.").equations == ()
    assert find_figures("So " + "9e99 × " * 5 + "9 = 5 GB.").equations == ()
    assert find_figures("So " + "1.1e-9 × " * 40 + "9 = 5 GB.").equations == ()
    assert [e.status for e in find_figures("So 1e20 × 1e19 = 1e39 bytes.").equations] == ["holds"]


def test_a_rounded_integer_after_equals_says_why_it_fails():
    (equation,) = find_figures("So 2 × 80 × 8 × 128 × 2 = 328 kB per token.").equations
    assert equation.status == "fails" and "≈" in equation.note
    (approximate,) = find_figures("So 2 × 80 × 8 × 128 × 2 ≈ 328 kB per token.").equations
    assert approximate.status == "holds"
    (wrong,) = find_figures("So 2 × 80 × 8 × 128 × 2 = 329 kB per token.").equations
    assert wrong.status == "fails" and wrong.note == ""


def test_plain_text_headings_and_formulas():
    text = ("The one idea\nKV bytes = 2 × layers × heads × bytes per value\n"
            "5 quick links\nBack to the 640 Bytes\nThe cache is 640 bytes per token.\n")
    found = find_figures(text)
    assert [(f.text, f.heading) for f in found.figures] == [("640 Bytes", True), ("640 bytes per token", False)]
    assert {(s.text, s.reason) for s in found.set_aside} == {("2", "formula"), ("5", "heading")}


def test_number_words_need_a_unit_unless_fraction_or_multiplier():
    found = find_figures("One chat needs two caches. It is four times bigger, twice the size, "
                         "and three or four megabytes; the 40 layers are cut in half.")
    assert [(f.text, f.value, f.upper) for f in found.figures] == [
        ("four times", 4, None), ("twice", 2, None), ("three or four megabytes", 3, 4),
        ("40", 40, None), ("half", Fraction(1, 2), None)]
    assert found.figures[2].unit == "MB"


def test_glued_billions_count_parameters_and_kb_stays_ambiguous():
    found = find_figures("A 70B model activates 12B at a time; its cache is about 2.5KB per token, 147KB in all.")
    assert [(f.text, f.value, f.unit) for f in found.figures] == [
        ("70B", 70_000_000_000, "parameter"), ("12B", 12_000_000_000, "parameter"),
        ("about 2.5KB per token", Fraction(5, 2), "KB/token"), ("147KB", 147, "KB")]


def test_markdown_wrapped_paragraph_keeps_the_line_of_each_figure():
    text = "The cache\nneeds 12 GB\n\nand this\nneeds 7 GB.\n"
    found = find_figures(text, markdown=True)
    assert [(f.text, f.line, f.column) for f in found.figures] == [("12 GB", 2, 7), ("7 GB", 5, 7)]
    assert found.figures[0].sentence == "The cache needs 12 GB"


def test_code_urls_and_front_matter_are_set_aside():
    text = "---\ndate: 2025-01-01\n---\nSee https://example.org/v2/123 and `x = 512`.\n\n```\n9 GB\n```\n"
    found = find_figures(text, markdown=True)
    assert found.figures == ()
    assert {s.reason for s in found.set_aside} == {"code", "url"}


def test_non_ascii_text_and_curly_quotes():
    found = find_figures("布吉岛\nThe model’s cache takes only 890 bytes per token — one quarter of “V4”.")
    assert [f.text for f in found.figures] == ["890 bytes per token", "one quarter"]


def test_reading_time_and_ordinals_are_set_aside():
    found = find_figures("6 min read\n\nThe 100th token looks back at the first 99.")
    assert [f.text for f in found.figures] == ["99"]
    assert {(s.text, s.reason) for s in found.set_aside} == {("6 min read", "heading"), ("100th", "ordinal")}


ADVERSARIAL = {
    "digits": "1" * 50_000,
    "separators": "1," * 25_000,
    "ranges": "1 to " * 10_000,
    "operators": "2 × " * 12_000 + "= 3",
    "articles": "a " * 25_000,
    "number-words": "one " * 15_000,
    "version": "V" + "1." * 25_000,
    "brackets": "(" * 50_000 + "1",
    "qualifiers": "about " * 10_000 + "5 GB",
    "per-gap": "5 bytes of " + "word " * 15_000 + "per token",
    "dots": "." * 50_000,
    "names": "x1 " * 15_000,
    "url": "https://" + "a" * 50_000,
}


def _python_calls(line: str) -> int:
    """Python-level work: every function call the finder makes on ``line`` (a count, not a time)."""
    import sys

    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        find_figures(line)
        find_figures(line, markdown=True)
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("line", list(ADVERSARIAL.values()), ids=list(ADVERSARIAL))
def test_long_adversarial_lines_are_linear(line):
    # A scan per figure over the whole line makes the work grow with the square of the line: doubling
    # the line must at most about double the calls. A regex that backtracks works inside one C call,
    # so the CPU time of this process is bounded too (process time: other processes' load is not counted).
    quarter, half = _python_calls(line[: len(line) // 4]), _python_calls(line[: len(line) // 2])
    assert half <= 2.5 * quarter + 1000, (quarter, half)
    started = time.process_time()
    find_figures(line)
    find_figures(line, markdown=True)
    assert time.process_time() - started < 5


def test_web_text_conventions():
    """What outside pages print: citation markers, numbered steps and lessons, arXiv ids are set
    aside; thousands grouped by spaces, a count of GPUs in words, are figures; "half precision" is
    a format, "in half" a ratio."""
    text = ("See the survey [2] and [12, 13]. Steps 1–4 are below, and Lesson 10 covers it. The paper "
            "arXiv:2305.13245 and 2401.18079 say so. A 128 000 token window serves 100 000+ users. It needs "
            "four H100s. It runs in half precision. A batch of 8 128-token prompts. FP8 cuts it in half.\n")
    found = find_figures(text)
    assert [(f.text, f.value) for f in found.figures] == [
        ("128 000 token", 128000), ("100 000", 100000), ("four", 4), ("8", 8), ("128-token", 128),
        ("half", Fraction(1, 2))]
    assert {(s.text, s.reason) for s in found.set_aside} >= {
        ("[2]", "reference"), ("[12, 13]", "reference"), ("Steps 1–4", "reference"), ("Lesson 10", "reference"),
        ("arXiv:2305.13245", "reference"), ("2401.18079", "reference")}


def test_float_formats_are_named_formats():
    found = find_figures("In float32 it is 256 MB, in float16 or bfloat16 128 MB.\n")
    assert {(s.text, s.reason) for s in found.set_aside} == {
        ("float32", "format-name"), ("float16", "format-name"), ("bfloat16", "format-name")}


def test_page_references_are_set_aside():
    """A paper's page, cited in an issue thread ("(Page 4)", "p. 12", "pp. 3-5"), is no figure."""
    found = find_figures("A 16K-token prompt makes 640 MB of cache (Page 4), so p. 12 and pp. 3-5 say 2048 blocks.\n")
    assert [f.text for f in found.figures] == ["16K-token", "640 MB", "2048"]
    assert {(s.text, s.reason) for s in found.set_aside} == {
        ("Page 4", "reference"), ("p. 12", "reference"), ("pp. 3-5", "reference")}


def test_the_formula_rule_sets_aside_operands_only():
    found = find_figures("The formula is 2 × layers × heads; for a 7B model with 32 layers it gives 37× less. "
                         "**Corvid-22B** has 56 layers.\n", markdown=True)
    assert [f.text for f in found.figures] == ["7B", "32", "37× less", "56"]
    assert [(s.text, s.reason) for s in found.set_aside if s.reason == "formula"] == [("2", "formula")]


@pytest.mark.parametrize("text, expected", [
    # a model's size in billions: "B" glued before "params" counts them, and so does a "B" multiplied
    # with bytes (bytes times bytes are no size); "billion" and the other scale words multiply
    ("Llama 2 has 70B params × 2 bytes = 140 GB of weights.", [("70B params × 2 bytes = 140", "holds")]),
    ("Qwen: 72B parameters × 2 bytes ≈ 144 GB.", [("72B parameters × 2 bytes ≈ 144", "holds")]),
    ("So 70B × 2 bytes = 140 GB.", [("70B × 2 bytes = 140", "holds")]),
    ("So 70B × 2 bytes = 150 GB.", [("70B × 2 bytes = 150", "fails")]),
    ("So 70 billion parameters × 2 bytes = 140 GB.", [("70 billion parameters × 2 bytes = 140", "holds")]),
    ("So 1.8T params × 2 bytes = 3.6 TB.", [("1.8T params × 2 bytes = 3.6", "holds")]),
    ("So 1 billion = 1,000,000,000 and 1 billion = 1,000,000.",
     [("1 billion = 1,000,000,000", "holds"), ("1 billion = 1,000,000", "fails")]),
    ("So 1B × 1,024 = 1 KiB.", [("1B × 1,024 = 1", "holds")]),  # one byte unit: B is a byte
    # "8x 80 GB", a device named between the count and its memory
    ("A node has 8x 80 GB = 640 GB of HBM.", [("8x 80 GB = 640", "holds")]),
    ("A node has 8x H100 80GB = 640 GB.", [("8x H100 80GB = 640", "holds")]),
    ("Four cards: 4 × A100 40GB = 120 GB.", [("4 × A100 40GB = 120", "fails")]),
    # lowercase k, "1m tokens", and "per token" after a unit
    ("At 128k tokens × 160 KB per token ≈ 20 GB.", [("128k tokens × 160 KB per token ≈ 20", "holds")]),
    ("At 128k tokens × 160 KB per token ≈ 30 GB.", [("128k tokens × 160 KB per token ≈ 30", "fails")]),
    ("At 1m tokens × 100 KB ≈ 100 GB.", [("1m tokens × 100 KB ≈ 100", "holds")]),
    # a slash glued between a name and the first number: the side goes on before it
    ("Half the weights/2 = 70 GB.", []), ("So 140 GB/2 = 70 GB.", [("140 GB/2 = 70", "holds")]),
    ("Llama 70B w/8 × 80 GB = 640 GB.", []),
    # a B is bytes where bytes add up, and billions only where bytes would not hold
    ("So 64B + 64B = 128B.", [("64B + 64B = 128", "holds")]),
    ("A Q4_0 block is 32 × 0.5B + 2B = 18B.", [("32 × 0.5B + 2B = 18", "holds")]),
    ("So 70B × 2 = 140 GB.", [("70B × 2 = 140", "holds")]), ("So 70 B params × 2 bytes = 140 GB.",
                                                             [("70 B params × 2 bytes = 140", "holds")]),
    (r"$70\text{B} \times 2 \text{ bytes} = 140 \text{ GB}$", [(r"70\text{B} \times 2 \text{ bytes} = 140", "holds")]),
    # a count of parameters named beside bytes, or a scale on the result only, is no arithmetic
    ("Llama 2 70B params = 140 GB in FP16.", []), ("Llama 3 8B = 16 GB in FP16.", []),
    ("So 70 × 2 = 140 billion bytes.", []), ("So 70 billion ≈ 70B.", []),
    # lowercase k only before tokens or a context: "2k = 16" is algebra
    ("If 2k = 16 then k = 8.", []),
    # units of time and compute are not converted; the result may be printed first
    ("So 2x 1,000 ms = 2 s.", []), ("So 2.5x 989 TFLOPS ≈ 2.5 PFLOPS.", []),
    ("Time: 2 × 30 = 60 s per request.", [("2 × 30 = 60", "holds")]),
    ("H200 has 141 GB = 1.76x H100's 80 GB.", [("141 GB = 1.76x H100's 80", "holds")]),
    ("So 640 GB = 8 × 80 GB.", [("640 GB = 8 × 80", "holds")]),
    ("So 640 GB = 8 × 70 GB.", [("640 GB = 8 × 70", "fails")]),
    # devices: more names, a card's number is no operand, a side after names and an operator is cut
    ("Node: 8x A100-80GB = 640 GB.", [("8x A100-80GB = 640", "holds")]),
    ("Node: 8x H100 SXM 80GB = 640 GB.", [("8x H100 SXM 80GB = 640", "holds")]),
    ("Rig: 2x RTX 3090 24GB = 48GB.", [("2x RTX 3090 24GB = 48", "holds")]),
    ("Rig: 4x RTX 4090 = 96 GB.", []), ("Total: weights 140 GB + KV 40 GB = 180 GB.", []),
    ("So 2 × 32 × 32 × 128 × 2 = 524,288 bytes per token, × 4,096 ≈ 2.1 GB.",
     [("2 × 32 × 32 × 128 × 2 = 524,288", "holds")]),
])
def test_what_outside_pages_print_model_sizes_multiples_and_lowercase_k(text, expected):
    """Forms public pages print that the reader called wrong or did not read, and what a review of the
    first rules for them found they broke ("64B + 64B = 128B" taken for billions, "2k = 16" for a
    thousand): most cases' verdict was another before; the rest guard what must stay as it was."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


@pytest.mark.parametrize("text, expected", [
    # a card's bare number after a count names the card: its memory printed is what is multiplied,
    # and with none printed nothing is checked
    ("My rig: 2x 3090 = 48 GB VRAM.", []), ("And 2x 3090 = 50 GB.", []),
    ("Rig: 4x 4090 24GB = 96GB.", [("4x 4090 24GB = 96", "holds")]),
    ("Rig: 4x 4090 24GB = 90GB.", [("4x 4090 24GB = 90", "fails")]),
    ("Rig: 2x 2080 Ti 11GB = 22 GB.", [("2x 2080 Ti 11GB = 22", "holds")]),
    ("Rig: 8x 3090s (24 GB) = 192 GB.", [("8x 3090s (24 GB) = 192", "holds")]),
    ("So 2 x 4096 = 8192 and 2 × 2048 = 4096.", [("2 x 4096 = 8192", "holds"), ("2 × 2048 = 4096", "holds")]),
    # a count in words before a side of one number: the factor is not printed in the arithmetic
    ("A node has 8 GPUs each with 80 GB = 640 GB total.", []),
    ("Each of the 4 cards has 24 GB = 96 GB.", []),
    ("Each token takes 160 KB = 170,000 bytes.", [("160 KB = 170,000", "fails")]),
    ("Each token takes 2 × 80 KB = 170 KB.", [("2 × 80 KB = 170", "fails")]),
    ("Total: 140 GB = 150 GB.", [("140 GB = 150", "fails")]),
])
def test_a_card_s_number_and_a_count_in_words_are_no_operands(text, expected):
    """Forum posts print "2x 3090 = 48 GB" and "8 GPUs each with 80 GB = 640 GB": the card's number
    was read as an operand (the left side "0.000006" GB) and the single "80 GB" as the whole left side,
    both false drift; a real error of the same shapes (a wrong product, a wrong conversion) still fails."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


@pytest.mark.parametrize("text, expected", [
    # the dot operator (U+22C5) and the bullet operator (U+2219) multiply, as "·" does
    ("2 ⋅ 80 ⋅ 8 ⋅ 128 ⋅ 2 bytes = 327,680 bytes.",
     [("2 ⋅ 80 ⋅ 8 ⋅ 128 ⋅ 2 bytes = 327,680", "holds")]),
    ("So 2 ∙ 80 = 161.", [("2 ∙ 80 = 161", "fails")]),
    # a unit wrapped to the next line before "=" is the number's, unless the number is a name's value
    ("With eight cards that is 8 × 80\nGB = 640 GB of HBM.", [("8 × 80 GB = 640", "holds")]),
    ("num_layers = 40\nbytes = 2  # fp16", []), ("heads: 8\nbytes = 2", []),
    # a card's model after its number, a device named after its memory, a count of devices "with" it
    ("Rig: 2x 7900 XTX 24GB = 48GB.", [("2x 7900 XTX 24GB = 48", "holds")]),
    ("Rig: 2x 4070 SUPER 12 GB = 25 GB.", [("2x 4070 SUPER 12 GB = 25", "fails")]),
    ("A 24 GB RTX 4090 × 2 = 48 GB.", [("24 GB RTX 4090 × 2 = 48", "holds")]),
    ("An 80 GB H100 x 8 = 600 GB.", [("80 GB H100 x 8 = 600", "fails")]),
    ("Each GB200 has 2x B200 GPUs with 192 GB = 384 GB.", []), ("So 8 GPUs with 80 GB = 640 GB.", []),
    ("So 8 GPUs with 80 GB = 80 GB.", [("80 GB = 80", "holds")]),
    # a scale in words is a power of 1,000: "1M" beside it is read so too
    ("So 1 million = 1M.", [("1 million = 1M", "holds")]), ("So 1 million = 2M.", [("1 million = 2M", "fails")]),
    ("So 1 thousand = 1,024.", [("1 thousand = 1,024", "fails")]),
])
def test_more_forms_of_outside_pages(text, expected):
    """What a review's sentences still found after the cards and the counts in words: each was not
    checked or a false verdict before ("2 ⋅ 80 ⋅ ... bytes = 327,680 bytes" read as "2 bytes = 327,680",
    "1 million = 1M" ambiguous); the rest guard what must stay."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


@pytest.mark.parametrize("text, expected", [
    # a count named beside bytes alone: the bytes per head, value or GPU are not printed
    ('The "MHA 64 heads = 32 GB" claim.', []), ("So 2 GPUs = 160 GB.", []), ("So 32 GB = 64 heads.", []),
    ("= 67,108,864 values\n≈ 256 MB (in float32)", []),
    ("So 8 GPUs × 80 GB = 640 GB.", [("8 GPUs × 80 GB = 640", "holds")]),
    # bits beside bytes: converted only where a division by 8 is printed
    ("So 70B × 4 bits = 35 GB.", []), ("So 70B × 4 bits = 280 GB.", []), ("So 16 bits = 2 bytes.", []),
    ("So 70B params × 4 bits / 8 = 35 GB.", [("70B params × 4 bits / 8 = 35", "holds")]),
    ("So 70B params × 4 bits / 8 = 40 GB.", [("70B params × 4 bits / 8 = 40", "fails")]),
    ("So 8 bits × 4 = 32 bits.", [("8 bits × 4 = 32", "holds")]),
])
def test_a_count_named_beside_bytes_and_bits_beside_bytes_are_not_checked(text, expected):
    """A held-out page's "MHA 64 heads = 32 GB" was drift ("64 heads = 32"), and "70B × 4 bits = 35
    GB" drift too (bits read as a count of bytes, so "× 4 bits = 280 GB", which forgets the 8, held)."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


def test_east_asian_pages_dates_about_and_a_file_s_path():
    """A Korean blog's byline "2025. 6. 18. 06:32" was five figures, its "= 약 200 KB" ("about")
    no equation; a review thread's "phases/07-transformers-deep-dive/.../en.md:54" three figures."""
    found = find_figures("mezzanineX 2025. 6. 18. 06:32\n\n• 키만: 51,200 × 4 B = 약 200 KB\n\n"
                         "See phases/07-x/12-kv-cache/docs/en.md:54 and 总计大约 128 tokens; in 2025. 6 GPUs.",
                         markdown=True)
    assert [(s.text, s.reason) for s in found.set_aside] == [
        ("2025. 6. 18. 06:32", "date"), ("phases/07-x/12-kv-cache/docs/en.md:54", "reference"), ("2025", "date")]
    assert [(e.text, e.status) for e in found.equations] == [("51,200 × 4 B = 약 200", "holds")]
    assert [(f.text, f.qualifier) for f in found.figures] == [
        ("약 200 KB", "about"), ("大约 128 tokens", "about"), ("6", None)]
    assert [(e.text, e.status) for e in find_figures("So 51,200 × 4 B = 약 300 KB.").equations] == [
        ("51,200 × 4 B = 약 300", "fails")]


def test_a_unit_after_a_no_break_space_is_the_number_s():
    """Typeset pages put a no-break space (U+00A0, U+202F, U+2009) between a number and its unit
    ("1.34\u00a0GB", "12\u00a0%"): the unit was dropped and the figure read as a bare number."""
    found = find_figures("It needs 1.34\u00a0GB, 198.6\u202fGB and 40\u2009GB; 12\u00a0% more.", markdown=True)
    assert [(f.text, f.unit) for f in found.figures] == [
        ("1.34\u00a0GB", "GB"), ("198.6\u202fGB", "GB"), ("40\u2009GB", "GB"), ("12\u00a0%", "percent")]


@pytest.mark.parametrize("text, expected", [
    # a count in words explains a failing side of one number only where the count times it is the result
    ("Each of 8 GPUs has 80 GB = 8,000 MB.", [("80 GB = 8,000", "fails")]),
    ("8 GPUs each with 80 GB = 600 GB.", [("80 GB = 600", "fails")]),
    ("On 8 GPUs, every request uses 2 GB = 20 GB.", [("2 GB = 20", "fails")]),
    ("Llama 3 8B needs, for each token, 128 KB = 1.28 MB.", [("128 KB = 1.28", "fails")]),
    ("2x B200 GPUs with 192 GB ≈ 19.2 TB.", [("192 GB ≈ 19.2", "fails")]),
    ("4 cards at 24 GB ≈ 96 GB.", []), ("Dual 3090 24 GB = 48 GB.", []),
    ("Dual 3090 24 GB = 50 GB.", [("24 GB = 50", "fails")]),
    ("16 GPUs of 80 GB = 1.28 TB = 1,000 GB.", [("1.28 TB = 1,000", "fails")]),
    # a card's number only after a count glued to its "x", after "dual", or with its memory after it
    ("3 × 1080 = 3000 pixels of height.", [("3 × 1080 = 3000", "fails")]),
    ("A 1920 × 1080 = 2,073,600 pixel frame.", [("1920 × 1080 = 2,073,600", "holds")]),
    ("From 2 x 1060 = 2000 tokens.", [("2 x 1060 = 2000", "fails")]),
    ("2 × 3090 24 GB = 48 GB.", [("2 × 3090 24 GB = 48", "holds")]),
    ("2 × 3090 24 GB = 24 GB.", [("2 × 3090 24 GB = 24", "fails")]),
    ("4 × 3090 (24 GB) = 120 GB.", [("4 × 3090 (24 GB) = 120", "fails")]),
    ("Dual 3090 = 48 GB.", []), ("2x 3090 GPUs = 48 GB.", []),
    # a spec line's number is not the next line's unit's; a unit spelled out is a unit
    ("Llama 3 70B: 80 layers, 8 KV heads, head dim 128\nbytes = 2 × 80 × 8 × 128 × 2 = 327,680",
     [("2 × 80 × 8 × 128 × 2 = 327,680", "holds")]),
    ("layers 40\nbytes = 2", []),
    ("1 gigabyte = 1,000,000 GB.", [("1 gigabyte = 1,000,000", "fails")]),
    ("2 gigabytes = 2,000 MB.", [("2 gigabytes = 2,000", "holds")]),
    # a scale in words makes K decimal only where that holds; "about" after "≈"; thin-space groups
    ("128K tokens ≈ 131 thousand tokens.", [("128K tokens ≈ 131 thousand", "ambiguous")]),
    ("2 × 100 KB ≈ 약 200 KB.", [("2 × 100 KB ≈ 약 200", "holds")]),
    ("1\u2009024 × 2 = 2\u2009048 bytes.", [("1\u2009024 × 2 = 2\u2009048", "holds")]),
])
def test_what_a_review_of_the_cards_and_counts_in_words_found(text, expected):
    """A review's 253 sentences against the first rules for cards and counts in words: 45 the rules
    made wrong, worst those that hid a wrong equation ("Each of 8 GPUs has 80 GB = 8,000 MB", "3 × 1080
    = 3000"); most cases here failed on those rules, the rest guard what the fixes keep."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


def test_a_card_s_number_before_a_unit_or_an_operator_and_a_list_after_a_year_stay_figures():
    found = find_figures("We trained 4 × 3070 tokens. In the 2070s, a 1920 x 1080 screen. 2 × 4090 MB = 8,180 MB.\n\n"
                         "Requirements: 1. Max context is 2048. 2. 24 GB of VRAM. 메모리 절약 40 GB, 显存节约 30 GB.",
                         markdown=True)
    assert found.set_aside == ()
    assert [(f.text, f.qualifier) for f in found.figures] == [
        ("4", None), ("3070 tokens", None), ("2070", None), ("1920", None), ("1080", None), ("8,180 MB", None),
        ("1", None), ("2048", None), ("2", None), ("24 GB", None), ("40 GB", None), ("30 GB", None)]


@pytest.mark.parametrize("text, expected", [
    ("At 90% × 80 GB = 72 GB usable.", [("90% × 80 GB = 72", "holds")]),
    ("At 90% × 80 GB = 70 GB usable.", [("90% × 80 GB = 70", "fails")]),
    ("So 50\u00a0% × 80 GB = 40 GB.", [("50\u00a0% × 80 GB = 40", "holds")]),
    ("So 20% of the 80 GB = 16 GB.", [("20% of the 80 GB = 16", "holds")]),
    ("So 2 × 50% = 100% and 10% + 5% = 16%.", [("2 × 50% = 100%", "holds"), ("10% + 5% = 16%", "fails")]),
    # a percent against bytes alone or restated as a multiple is no arithmetic
    ("The model uses 80% = 64 GB.", []), ("It grew 25% = 1.25x.", []),
])
def test_a_percent_is_a_hundredth(text, expected):
    """A review's "50\u00a0% × 80 GB = 40 GB" and a docs page's "90% × 80 GB = 72 GB" were read as
    "80 GB = 40" and "80 GB = 72" and failed: a percent was no number of the equation."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


def test_a_python_power_raises_the_number_before_it():
    """A held-out GitHub issue's "... * num_bytes (2 for fp16) / 1024 ** 3 = 2.05 GB" was read as "3 =
    2.05" and failed: "**" after a number raises it, as "^" does (read since batch I; before, a side
    beside a power was cut); bold "**2 × 64 = 128**" is no power."""
    text = "size = 4196 * 2 * 32 * 32 * 128 * 2 / 1024 ** 3 = 2.05 GB and 2 ** 30 = 1073741824."
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == [
        ("4196 * 2 * 32 * 32 * 128 * 2 / 1024 ** 3 = 2.05", "holds"), ("2 ** 30 = 1073741824", "holds")]
    assert find_figures("... * num_bytes (2 for fp16) / 1024 ** 3 = 2.05 GB", markdown=True).equations == ()
    assert [(e.text, e.status) for e in find_figures("It is **2 × 64 = 128** here.", markdown=True).equations] == [
        ("2 × 64 = 128", "holds")]


@pytest.mark.parametrize("text, expected", [
    # a spelled unit this reader does not convert is a name, skipped; those it does are as their symbols
    ("So 1 kibibyte = 1 GB and 3 megabits = 3 TB.", []), ("So 2 GigaBytes = 2 MB.", []),
    ("So 1 kilobyte = 1,024 bytes.", [("1 kilobyte = 1,024", "ambiguous")]),
    ("So 1 megabyte = 1,048,576 bytes.", [("1 megabyte = 1,048,576", "ambiguous")]),
    # bold around numbers is no power ("**" spaced on one side only); "1024**3" is
    ("**Step 2** 8 × 80 GB = 600 GB", [("8 × 80 GB = 600", "fails")]),
    ("Step 1 **8 × 80 GB = 600 GB**", [("8 × 80 GB = 600", "fails")]),
    ("Weights (FP16) **2 × 70 = 150**", [("2 × 70 = 150", "fails")]),
    ("So 2 × 1024**3 = 5 GiB.", [("2 × 1024**3 = 5", "fails")]), ("So 2 × 1024**3 = 2 GiB.", [("2 × 1024**3 = 2", "holds")]),
    # a card after a spaced count with a result in GB; a product with the card's memory
    ("So 2 × 3090 = 48 GB of VRAM.", []), ("So 4 × 4090 = 96 GB.", []),
    ("Rig: 8x 4090 × 24 GB = 192 GB.", [("8x 4090 × 24 GB = 192", "holds")]),
    ("Rig: 2x 3090 × 24 GB = 50 GB.", [("2x 3090 × 24 GB = 50", "fails")]),
    ("So 3 × 1080 = 3000 pixels.", [("3 × 1080 = 3000", "fails")]),
    # a count in words under "≈": the result's own precision
    ("8 GPUs each with 80 GB ≈ 600 GB.", []), ("8 GPUs each with 80 GB ≈ 700 GB.", [("80 GB ≈ 700", "fails")]),
    # a percent against one bare number is a rate restated
    ("Roughly 1 in 4 = 25%.", []), ("The hit rate is 90% = 9 out of 10.", []), ("It grew by 20% = 1.2.", []),
    # a thin space between thousands before a decimal part
    ("So 1\u2009234.5 MB = 1,234.5 MB.", [("1\u2009234.5 MB = 1,234.5", "holds")]),
    # devices named after a side's memory, before "="
    ("Total 8 × 80 GB GPUs = 640 GB.", [("8 × 80 GB GPUs = 640", "holds")]),
    ("Total 8 × 80 GB GPUs = 800 GB.", [("8 × 80 GB GPUs = 800", "fails")]),
])
def test_what_a_code_review_of_the_cards_percents_and_powers_found(text, expected):
    """A reader of the code found each of these a wrong verdict, or a verdict lost, under this stop's
    earlier rules ("1 kibibyte = 1 GB" held, "**Step 2** 8 × 80 GB = 600 GB" hidden, "2 × 3090 = 48 GB"
    failed, "1 in 4 = 25%" failed)."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


def test_a_korean_date_without_its_last_point_and_contracts_in_cjk():
    found = find_figures("Released 2025. 6. 18 with 80 GB; 2025.6.18 에. 予約 3 GB, 契約 40 GB, 显存约 128 GB.",
                         markdown=True)
    assert [(s.text, s.reason) for s in found.set_aside] == [("2025. 6. 18", "date"), ("2025.6.18", "date")]
    assert [(f.text, f.qualifier) for f in found.figures] == [
        ("80 GB", None), ("3 GB", None), ("40 GB", None), ("约 128 GB", "about")]


def test_a_card_s_bare_number_is_set_aside_beside_a_count_or_a_card_word():
    found = find_figures("Two 3090s, 2x 3090, a dual 7900 rig and a 4090 card; by 2060, 2050 GPUs.", markdown=True)
    assert [(s.text, s.reason) for s in found.set_aside] == [
        ("3090", "hardware-name"), ("3090", "hardware-name"), ("7900", "hardware-name"), ("4090", "hardware-name"),
        ("2060", "date")]
    assert [f.text for f in found.figures] == ["2", "2050"]


def test_a_failing_result_with_a_suffix_is_reported_in_its_own_scale():
    """"2 × 64 = 1K": the left side is 0.128 thousand, not 128 against a printed 1."""
    (equation,) = find_figures("So 2 × 64 = 1K.", markdown=True).equations
    assert equation.status == "fails" and equation.computed == Fraction(128, 1000) and equation.printed == 1


def test_a_lowercase_m_before_tokens_is_a_million():
    """"1m tokens" is printed for a million tokens (a Reddit post said it three times); "5m" alone
    may be minutes or metres, and stays 5."""
    found = by_text(find_figures("We ran 1m tokens, after a 5m walk.", markdown=True))
    assert found["1m tokens"].value == 1_000_000 and found["1m tokens"].unit == "token"
    assert found["5"].value == 5


def test_a_range_of_years_is_a_date_and_a_size_after_a_model_s_name_is_the_name_s():
    """Outside pages print "2024–2025" and "LLaMA-2 13B", "Gemma3 27b": the finder reported the
    years and the sizes as figures, though "Llama 2 13B" was already a name. A range of sizes, a
    size before "params" and a year range the wrong way round stay figures."""
    found = find_figures("From 2024–2025 and 2019-23 LLaMA-2 13B, Gemma3 27b and Qwen2.5 7B, 1.5B fit in 2048-4096 "
                         "tokens; Qwen2.5 72B params is 144 GB; 2025-2024 is odd.", markdown=True)
    assert [(s.text, s.reason) for s in found.set_aside] == [
        ("2024–2025", "date"), ("2019-23", "date"), ("LLaMA-2 13B", "model-name"), ("Gemma3 27b", "model-name"),
        ("Qwen2.5 7B", "model-name"), ("Qwen2.5", "model-name")]
    assert [f.text for f in found.figures] == ["1.5B", "2048-4096 tokens", "72B params", "144 GB", "2025", "2024"]


def test_chinese_counts_in_ten_thousands_and_hundred_millions():
    """A forum's notes on DeepSeek-V3 print "6710 亿" (671 billion), which was read as 6,710."""
    text = "DeepSeek-V3 有 6710 亿参数, 激活 370亿. 上下文 12.8万 tokens."
    found = by_text(find_figures(text, markdown=True))
    assert found["6710 亿"].value == 671 * 10**9 and found["370亿"].value == 37 * 10**9
    assert found["12.8万 tokens"].value == 128_000 and found["12.8万 tokens"].unit == "token"


@pytest.mark.parametrize("text, expected", [
    # a unit on the next line is not the number's ("num_layers = 40" then "bytes = 2")
    ("num_layers = 40\nbytes = 2  # fp16", []),
    # a product over two lines; "x" after a factor's name; "= ~91k"; <br/> and inline LaTeX's "$"
    ("32 layers x 2 (K+V) x 32 heads x 128 head_dim x 2 bytes\n= 524,288 bytes per token",
     [("32 layers x 2 (K+V) x 32 heads x 128 head_dim x 2 bytes = 524,288", "holds")]),
    ("That is around 8192 * 11.12 = ~91k tokens.", [("8192 * 11.12 = ~91k", "holds")]),
    ('FP16["FP16: 70B × 2 bytes<br/>= 140 GB"]', [("70B × 2 bytes<br/>= 140", "holds")]),
    ("Here $2 \\cdot 80 = 160$ bytes $= 0.16$ kB.", [("2 \\cdot 80 = 160", "holds"), ("160$ bytes $= 0.16", "holds")]),
    # an abbreviated result after "=" agrees to its last digit; "671M" is read only as 671,000,000
    ("Per layer: 32 × 4096 × 5120 = 671M elements.", [("32 × 4096 × 5120 = 671M", "holds")]),
    ("K cache per layer: 671M × 2 bytes = 1.3 GB.", [("671M × 2 bytes = 1.3", "holds")]),
    # MB printed for MiB: ambiguous, naming the reading, where no decimal reading holds
    ("So 2,621,440 bytes = 2.5 MB per token.", [("2,621,440 bytes = 2.5", "ambiguous")]),
    ("So 2,621,440 bytes = 2.6 MB per token.", [("2,621,440 bytes = 2.6", "holds")]),
    ("So 2,621,440 bytes = 3.5 MB per token.", [("2,621,440 bytes = 3.5", "fails")]),
    # a lone symbol between two numbers (a "×" mis-decoded as "Γ") cuts the side
    ("FP16: 70B Γ 2 bytes = 140 GB.", []),
])
def test_what_a_fourth_batch_of_outside_pages_printed(text, expected):
    """Forms from eight more public pages (a code comment's derivation, a GitHub issue's log, a
    Mermaid chart's labels, LaTeX inline): each case but the guards had another verdict before."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


def test_mb_read_as_mib_says_so():
    (equation,) = find_figures("So 2,621,440 bytes = 2.5 MB per token.", markdown=True).equations
    assert equation.note == "holds only if MB is read as MiB (1,048,576 bytes)"


def test_a_log_line_s_time_and_source_line_are_set_aside():
    """A GitHub issue quoted vLLM's log: "INFO 01-13 11:35:21 model_runner.py:1099]" gave six figures."""
    found = find_figures("INFO 01-13 11:35:21 model_runner.py:1099] Loading model weights took 14.9595 GB",
                         markdown=True)
    assert [f.text for f in found.figures] == ["14.9595 GB"]
    assert [(s.text, s.reason) for s in found.set_aside] == [("01-13 11:35:21", "time"),
                                                             ("model_runner.py:1099", "reference")]


def test_dollars_take_their_scale_and_inline_latex_is_no_dollar():
    """"$3B" was read as $3; a textbook page's "roughly $2N$ FLOPs" and "$2 \\cdot 80$" as $2."""
    found = by_text(find_figures("It costs $3B in all, $2.5 billion later and $10M now; roughly $2N$ FLOPs, "
                                 "and $2 \\cdot 80 = 160$ bytes; $5 per hour.", markdown=True))
    assert found["$3B"].value == 3 * 10**9 and found["$3B"].unit == "USD"
    assert found["$2.5 billion"].value == 2_500_000_000 and found["$10M"].value == 10**7
    assert "roughly $2" not in found and found["2"].unit == "" and found["$5 per hour"].unit == "USD"


@pytest.mark.parametrize("text, expected", [
    # K and M as powers of 1,024 only if each of the equation's may be one: all read alike
    ("A 100K prompt + 28K output = 128K tokens.", [("100K prompt + 28K output = 128K", "holds")]),
    ("So 16K + 8K = 24K.", [("16K + 8K = 24K", "holds")]), ("So 4K × 6 = 24K tokens.", [("4K × 6 = 24K", "holds")]),
    # an abbreviated result agrees to its last digit only with three digits or more
    ("So 2,048 × 256 = 1M.", [("2,048 × 256 = 1M", "fails")]), ("So 5 × 128K = 1M.", [("5 × 128K = 1M", "fails")]),
    # a word wrapped to the next line is still the number's; a no-break space is a space
    ("It is 327,680 bytes × 4,096 tokens = 1.34\nGB in total.", [("327,680 bytes × 4,096 tokens = 1.34", "holds")]),
    ("So 327,680\u00a0bytes × 4,096 = 1.34\u202fGB.", [("327,680\u00a0bytes × 4,096 = 1.34", "holds")]),
    # a result printed first: checked whole when it has a unit, with the precision of a result
    ("Option 2 = 4 × 80 GB cards.", []), ("TP 8 = 8 × 80 GB.", []),
    ("So 40 GB ≈ 320 KB × 128K tokens.", [("40 GB ≈ 320 KB × 128K", "holds")]),
    ("The node: 1,128 GB = 8 × 141 GB = 1.1 TB.", [("1,128 GB = 8 × 141", "holds"), ("8 × 141 GB = 1.1", "holds")]),
    # units of time and power compared when both sides name the same; a prefix on one side only not read
    ("So 8 GPUs × 700 W = 5,600 W.", [("8 GPUs × 700 W = 5,600", "holds")]),
    ("So 8 GPUs × 700 W = 4,600 W.", [("8 GPUs × 700 W = 4,600", "fails")]),
    ("So 32 layers × 0.5 ms = 16 ms.", [("32 layers × 0.5 ms = 16", "holds")]),
    ("Training: 2 × 70B × 1,000 tokens = 140 TFLOPs.", []),
    # a result in GB beside a side with no unit is read in GB; a division by 1024³ converts bytes
    ("So 8 × 80 = 640 GB.", [("8 × 80 = 640", "holds")]), ("So 8 × 80 = 650 GB.", [("8 × 80 = 650", "fails")]),
    (r"Here $8 \times 80 = 640$ GB.", [(r"8 \times 80 = 640", "holds")]),
    ("So 14,000,000,000 bytes ÷ (1024 × 1024 × 1024) ≈ 13.04 GB.",
     [("14,000,000,000 bytes ÷ (1024 × 1024 × 1024) ≈ 13.04", "holds")]),
    ("So 4,096 bytes × 80 = 327,680 GB.", [("4,096 bytes × 80 = 327,680", "fails")]),
    # a B of each kind, and GiB printed as GB with billions
    ("Rough math: 13B × 2B = 26GB in fp16.", [("13B × 2B = 26", "holds")]),
    ("So 70B × 2 bytes ≈ 130 GB.", [("70B × 2 bytes ≈ 130", "ambiguous")]),
    ("Node: 4x Tesla V100 32GB = 128 GB.", [("4x Tesla V100 32GB = 128", "holds")]),
    # a scale word, then a unit or a name ("7 billion parameters", "28 billion bytes")
    ("So 8 bytes per parameter * 7 billion parameters = 56 GB.",
     [("8 bytes per parameter * 7 billion parameters = 56", "holds")]),
    ("So 28 billion bytes = 28 GB.", [("28 billion bytes = 28", "holds")]), ("So 70 × 2 = 140 billion bytes.", []),
])
def test_what_a_second_review_of_the_new_rules_found(text, expected):
    """A second reader wrote 224 sentences against the rules above and found 39 it had broken (the
    K of "100K + 28K = 128K" read apart, "= 1M" taken as any of 0.5M-1.5M, a unit wrapped to the
    next line dropped, a label before "=" taken for a result, watts and milliseconds never compared):
    each case had another verdict before, or guards one that must stay."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


def test_a_failing_result_beside_no_unit_is_reported_in_its_own_unit():
    (equation,) = find_figures("So 70 x 3 / 8 = 26 GB.", markdown=True).equations
    assert equation.status == "fails" and equation.computed == Fraction(105, 4) and "≈" in equation.note


def test_what_the_second_review_found_in_the_finder():
    """"$0.60 ... max_tokens" was read as inline LaTeX (an underscore), "$1800–2000" and "2000–2047"
    as years, "GPT-4.1 1M context" as a name, a log's time inside its date lost, "1.8万亿" as 18,000."""
    found = find_figures("At $0.60 per 1M output tokens, set max_tokens. Sold for $1800–2000 at positions "
                         "2000–2047; "
                         "GPT-4.1 1M context; a 1:16:32 ratio; [2024-06-02 11:35:21,482] at 2024-06-02T10:00; "
                         "1.8万亿 and a 1m-token context.", markdown=True)
    figures = by_text(found)
    assert figures["$0.60"].unit == "USD" and figures["$1800–2000"].unit == "USD" and "2000–2047" in figures
    assert figures["1M"].value == 10**6 and "16" in figures  # "1M context" is no model's size; a ratio's parts
    assert figures["1.8万亿"].value == 18 * 10**11 and figures["1m-token"].value == 10**6
    assert [(s.text, s.reason) for s in found.set_aside] == [("GPT-4.1", "model-name"), ("2024-06-02", "date"),
                                                             ("11:35:21,482", "time"), ("2024-06-02", "date")]


@pytest.mark.parametrize("text, expected", [
    # a reading that scales past 10^40 is not tried (it once stopped the whole check-draft run)
    ("So 3e31 × 2B = 1 GB.", [("3e31 × 2B = 1", "fails")]), ("So 9e24 PB × 1 = 1 GB.", [("9e24 PB × 1 = 1", "fails")]),
    # a scale word on the result alone is skipped in either order; wrong bytes still fail
    ("So 140 billion = 70 × 2.", []), ("So 512 B = 1 KB.", [("512 B = 1", "fails")]),
    ("So 1,000 B = 1 KiB.", [("1,000 B = 1", "fails")]),
    # an arrow before a derivation is no operand; a mis-decoded "×" ("Ã—") is
    ("Step 1 → 2 × 80 GB = 170 GB.", [("2 × 80 GB = 170", "fails")]), ("70B Ã— 2 bytes = 140 GB.", []),
    # a failing result printed first is kept over a failing restatement
    ("So 1,000 GB = 8 × 141 GB = 1.1 TB.", [("1,000 GB = 8 × 141", "fails"), ("8 × 141 GB = 1.1", "holds")]),
    # a scale word in any case, and in the equation's text
    ("So 14 GB = 2 bytes × 7 billion.", [("14 GB = 2 bytes × 7 billion", "holds")]),
    ("So 7 Billion parameters × 2 bytes = 14 GB.", [("7 Billion parameters × 2 bytes = 14", "holds")]),
])
def test_what_a_code_review_of_the_new_rules_found(text, expected):
    """A third reader read the new code and found a crash (a later reading past 10^40 escaped), a
    side skipped in one order and failed in the other, "512 B = 1 KB" no longer checked, an arrow
    taken for an operand, and a scale word left out of the equation's text or read in lower case only."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


def test_a_result_printed_first_is_the_figure_and_the_reason_names_the_computed_side():
    found = find_figures("So 640 GB = 8 × 70 GB.", markdown=True)
    (equation,) = found.equations
    assert equation.computed_side == "right" and equation.computed == 560 and equation.printed == 640
    assert [f.text for f in found.figures] == ["640 GB"]  # the operands 8 and 70 GB are not figures
    (wrong,) = find_figures("So 70B × 2 = 150 GB.", markdown=True).equations
    assert wrong.computed == 140 and wrong.printed == 150  # the closer reading is reported, not 0.00000014


def test_a_number_glued_to_chinese_japanese_or_korean_text_is_a_figure():
    """These scripts run words together: "显存约40GB" printed no figure at all (0 figures), so a whole
    Chinese paragraph passed check-draft unread. A name's digits after a Latin letter stay a name's."""
    found = by_text(find_figures("显存约40GB，共32层。KVキャッシュは約1,024MBです。약3.5GB가 필요합니다。两张H100。",
                                 markdown=True))
    assert (found["约40GB"].value, found["约40GB"].unit, found["约40GB"].qualifier) == (40, "GB", "about")
    assert (found["約1,024MB"].value, found["約1,024MB"].unit) == (1024, "MB")
    assert found["약3.5GB"].value == Fraction(35, 10) and "32" in found and "100" not in found


@pytest.mark.parametrize("text, expected", [
    ("总计需要2×80GB=160GB，即两张A100。", [("2×80GB=160", "holds")]),
    ("总计需要2×80GB=150GB，即两张A100。", [("2×80GB=150", "fails")]),
    ("显存需求为70×2=140GB。", [("70×2=140", "holds")]),
])
def test_an_equation_glued_to_chinese_text_is_checked(text, expected):
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


@pytest.mark.parametrize("text, status, computed, note", [
    # a left side naming no unit, one unit below the result: the author left it out (vLLM issue 22291)
    ("It will use `1.53 * 3072 = 4.59 GB`, which seems wrong.", "ambiguous", Fraction("4700.16"),
     "holds only if the left side, which names no unit, is in MiB and GB is read as GiB"),
    ("So 0.5 × 3000 = 1.5 GB.", "ambiguous", Fraction(1500), "holds only if the left side, which names no unit, is in MB"),
    ("So 1.53 × 3072 = 4.59 GiB.", "ambiguous", Fraction("4700.16"),
     "holds only if the left side, which names no unit, is in MiB"),
    # failing otherwise, in the printed unit: 4,500 is farther from 4.5 than 0.0000045 only as a ratio
    ("So 1.5 × 3000 = 5.5 GB.", "fails", Fraction(4500), ""),
    # two units below: no excuse (4 MiB, a formula short of its layers and bytes), in bytes the nearer
    ("So 1 * 8 * 4096 * 128 = 4GB.", "fails", Fraction(4194304, 10**9), ""),
    ("So 2 × 3 = 7 GB.", "fails", Fraction(6), ""),
    ("So 7 × 2 = 14GB.", "holds", Fraction(14), ""),
])
def test_a_left_side_naming_no_unit_one_unit_below_its_result(text, status, computed, note):
    """"1.53 * 3072 = 4.59 GB" (1.53 MiB per token, 3,072 tokens) failed as "the left side is 0.000005":
    the left side was read in bytes, the nearer by a difference taken as a share of the result."""
    (equation,) = find_figures(text, markdown=True).equations
    assert (equation.status, equation.computed, equation.note) == (status, computed, note)


@pytest.mark.parametrize("text, expected, aside", [
    ("So 2,684,354,560 / 10^9 = 2.68 GB.", [("2,684,354,560 / 10^9 = 2.68", "holds")], ["10^9"]),
    ("So 70.60×10^9 parameters × 2 bytes = 141.20GB.", [("70.60×10^9 parameters × 2 bytes = 141.20", "holds")],
     ["10^9"]),
    ("So 1024³ ≈ 1,073,741,824.", [("1024³ ≈ 1,073,741,824", "holds")], ["1024³"]),
    ("So $2^{30}$ = 1,073,741,824.", [("2^{30}$ = 1,073,741,824", "holds")], ["2^{30}"]),
    ("So 2^30 = 1,000,000,000.", [("2^30 = 1,000,000,000", "fails")], ["2^30"]),
    ("So 1 GB = 1024³.", [("1 GB = 1024³", "ambiguous")], ["1024³"]),
    ("So 99999^99 = 5.", [], ["99999^99"]),          # past 10^40: not checked
    ("So 1.5^2 = 2.25.", [], []),                    # a decimal base is not read
    ("The model has 10^9 parameters.", [], ["10^9"]),  # no figures "10" and "9 parameters"
])
def test_a_whole_number_raised_to_a_power_is_the_number_it_is(text, expected, aside):
    """Batches H and I printed powers in their arithmetic ("/ 10^9 = 2.68 GB", "1024³ ≈ 1,073,741,824"):
    none was checked, and "10^9" outside an equation was the figures 10 and 9."""
    found = find_figures(text, markdown=True)
    assert [(e.text, e.status) for e in found.equations] == expected
    assert [s.text for s in found.set_aside if s.reason == "power"] == aside
    assert not {"9", "30", "10", "9 parameters"} & {f.text for f in found.figures}


@pytest.mark.parametrize("text, expected", [
    ("14GB (모델) + 14GB (그래디언트) + 28GB (Adam) = 56GB", [("14GB (모델) + 14GB (그래디언트) + 28GB (Adam) = 56", "holds")]),
    ("So 140 GB (weights) + 40 GB (KV) = 190 GB.", [("140 GB (weights) + 40 GB (KV) = 190", "fails")]),
    ("weights 140 GB + KV 40 GB = 180 GB", []),          # a name before "+" still cuts the sum
    ("So 140 GB (FP16) = 150 GB.", []),                  # a note beside one number is no sum
    ("7,000,000,000×2 字节=14,000,000,000 字节", [("7,000,000,000×2 字节=14,000,000,000", "holds")]),
    ("14,000,000,000バイト = 約14GB", [("14,000,000,000バイト = 約14", "holds")]),
    ("1,024 바이트 = 1 KB", [("1,024 바이트 = 1", "ambiguous")]),
])
def test_notes_in_a_sum_and_bytes_in_chinese_japanese_and_korean(text, expected):
    """Batch I's "14GB (모델) + 14GB (그래디언트) + 28GB (Adam) = 56GB" and "×2 字节=14,000,000,000 字节", and
    batch H's "14,000,000,000バイト = 約14GB", were not checked: a note in brackets ended a sum, and
    字节, バイト and 바이트 were no byte units."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


@pytest.mark.parametrize("text, expected", [
    ("13 × 2 = ~26GB≈ 24GB with real-world optimizations",
     [("13 × 2 = ~26", "holds", ""), ("26GB≈ 24", "ambiguous", "holds only if the right side's GB is read as GiB "
                                                              "(1,073,741,824 bytes)")]),
    ("So 24 GB ≈ 26 GB.", [("24 GB ≈ 26", "ambiguous", "holds only if the left side's GB is read as GiB "
                                                       "(1,073,741,824 bytes)")]),
    ("So 26 GB ≈ 22 GB.", [("26 GB ≈ 22", "fails", "")]),
    ("So 8 × 80 GB = 600 GB.", [("8 × 80 GB = 600", "fails", "")]),  # a product: both sides read alike
])
def test_a_size_against_itself_in_the_binary_unit(text, expected):
    """Batch J's "13 × 2 = ~26GB≈ 24GB" (26 billion bytes are 24.2 GiB) failed as "the left side is 26, not
    24": one side's GB is a GiB, as tools report sizes."""
    assert [(e.text, e.status, e.note) for e in find_figures(text, markdown=True).equations] == expected


@pytest.mark.parametrize("text", ["2^-1 × 4 = 4.", "10^-1 × 20 = 20 GB.", "2**-1 × 4 = 4", "2^−1 × 4 = 4",
                                  "10⁻³ × 5 = 5 GB", "2^(10) × 4 = 4096", "1 024³ = 1,073,741,824"])
def test_a_negative_or_bracketed_power_and_a_spaced_group_are_not_read_as_a_product(text):
    """A reviewer's "2^-1 × 4 = 4" held as "1 × 4 = 4" (the exponent read as an operand, its minus dropped),
    and "1 024³ = 1,073,741,824" failed as "024³"."""
    assert find_figures(text, markdown=True).equations == ()


@pytest.mark.parametrize("text, expected", [
    # nested exponents and subscripts: the inner power is no side ("2^{2^3}" is 256)
    ("So 2^{2^3} = 8.", []), ("So x_{10^2} = 100.", []), ("So e^{10^2} = 100.", []),
    ("So 2^{30 = 1073741824.", []), ("So 2 ^ 3 × 10 = 30.", []), ("So 2^−3 × 8 = 24.", []),
    ("So 2^{10} × 4 = 4096", [("2^{10} × 4 = 4096", "holds")]),
    # a superscript only after 2, 10, 1,000 or 1,024 and of 2 or more: else a footnote's mark
    ("So 8 × 80 = 640² GB.", []), ("So 2³⁰ = 1,073,741,824.", [("2³⁰ = 1,073,741,824", "holds")]),
    # a side naming a count is no side in an unnamed unit one step down
    ("So 32 layers × 128 = 4 GB.", [("32 layers × 128 = 4", "fails")]),
])
def test_what_a_code_review_of_the_powers_found(text, expected):
    """A code review of the powers: "2^{2^3} = 8" held (each brace optional on its own), "2 ^ 3 × 10 = 30"
    held as "3 × 10", "640² GB" failed as 409,600, "32 layers × 128 = 4 GB" was ambiguous "in MiB"."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected
    assert "32768" in {f.text for f in find_figures("The window is 32768¹ tokens.", markdown=True).figures}


@pytest.mark.parametrize("text, expected", [
    ("0.9 * 24G = 21.6G", [("0.9 * 24G = 21.6G", "holds")]), ("2G+4G=6G", [("2G+4G=6G", "holds")]),
    ("So 4 × 24G = 100G.", [("4 × 24G = 100G", "fails")]), ("The 4G network = 5 bars.", []),
])
def test_a_g_glued_to_a_number_is_a_billion_as_k_is_a_thousand(text, expected):
    """Batch K's "0.9 * 24G = 21.6G" and "2G+4G=6G" (GitHub threads on vLLM and PQCache) were not checked."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


@pytest.mark.parametrize("text, expected", [
    ("FP32：每个参数 4 字节。", [("4 字节", 4, "B")]),                          # batch M's Chinese table
    ("FP16 は 2バイト です。", [("2バイト", 2, "B")]),                          # its Japanese page
    ("파라미터당 4바이트(32비트)를 씁니다.", [("4바이트", 4, "B"), ("32비트", 32, "bit")]),  # its Korean page
    ("10億パラメータ", [("10億", 10**9, "")]), ("700억 개", [("700억", 7 * 10**10, "")]),
    ("Headroom: -4.6 GB on the A100.", [("-4.6 GB", Fraction(-46, 10), "GB")]),   # a shortfall, not 4.6 GB
    ("| A100 | −4.6 GB |", [("−4.6 GB", Fraction(-46, 10), "GB")]),
    ("It has 1,008 GB/s of bandwidth.", [("1,008 GB/s", 1008, "GB/s")]),          # a rate, not a size
    ("The cache is 65.5 KB/token at bf16.", [("65.5 KB/token", Fraction(131, 2), "KB/token")]),
    ("We get ~150 tok/s on it.", [("~150 tok/s", 150, "token/s")]),
    ("70-80 GB is the range.", [("70-80 GB", 70, "GB")]),                          # a range's hyphen is no minus
    ("On 2024-12-03 we saw 4 GB.", [("4 GB", 4, "GB")]), ("- 4 GB is an item.", [("4 GB", 4, "GB")]),
])
def test_a_minus_a_rate_and_bytes_or_scales_in_chinese_japanese_and_korean(text, expected):
    """Batch M: "4 字节", "2バイト", "4바이트" were bare counts (a label of bytes per parameter missed), "10億"
    was 10, "-4.6 GB" of headroom was read as 4.6 GB, and "1,008 GB/s" and "65.5 KB/token" lost what
    they are per."""
    found = [f for f in find_figures(text, markdown=True).figures]
    assert [(f.text, f.value, f.unit) for f in found] == expected


def test_a_rate_is_not_backed_by_the_size_it_is_per_second_of(tmp_ledger):
    tmp_ledger.claim("g/bw", "said: \"An H100 has 80 GB of memory.\"\nfigure: 80 GB\nlabel: quoted\n"
                             "inputs:\n  v: 80 GB\nassumptions:\n  v: y\ncompute:\n  r: v\n")
    report = tmp_ledger.verify()
    assert not report.problems, report.problems
    from workings.draft.check import check_text
    statuses = {f.text: f.status for f in check_text("An H100 has 80 GB/s of memory.\n", report, markdown=True).figures}
    assert statuses == {"80 GB/s": "unbacked"}


def test_a_wrapped_quote_reads_as_one_paragraph_without_its_markers():
    """A reviewer's honest draft: in "drops to a\\n> quarter" and "198.6\\n> GB" the ">" of the quote's
    second line stayed in the text, so "a quarter" was no figure and 198.6 lost its unit."""
    text = ("Intro.\n\n> The official comparison shows that HBM demand drops to a\n"
            "> quarter and SSD demand to an eighth. One chat needs 198.6\n> GB of cache.\n")
    found = [(f.line, f.column, f.text) for f in find_figures(text, markdown=True).figures]
    assert found == [(3, 58, "a quarter"), (4, 29, "an eighth"), (4, 55, "198.6 GB")]


@pytest.mark.parametrize("text, expected", [
    ("typically 50-100M tokens/day for big models", [("50-100M tokens", 50 * 10**6, 100 * 10**6)]),  # batch N
    ("a 128-256K context", [("128-256K", 128_000, 256_000)]),
])
def test_a_ranges_glued_scale_scales_both_ends(text, expected):
    """Batch N's "50-100M tokens/day" was read as 50 to 100: the scale after a range's second number was
    not read."""
    assert [(f.text, f.value, f.upper) for f in find_figures(text, markdown=True).figures] == expected


@pytest.mark.parametrize("text, expected", [
    ("# = (2.21 * 4 / 3600) / (2400 * 0.7) * 1e6 = $1.46 / 1M tokens", []),   # batch N: was "fails"
    ("So 6 GB / 1 GB = 6.", [("6 GB / 1 GB = 6", "holds")]),
    ("So 12 / 2 = 6.", [("12 / 2 = 6", "holds")]),
])
def test_a_price_per_million_tokens_is_no_division(text, expected):
    """Batch N's "(2.21 * 4 / 3600) / (2400 * 0.7) * 1e6 = $1.46 / 1M tokens" failed as "the left side is
    1.469373, not 0.000001": "/ 1M tokens" says what the price is per."""
    assert [(e.text, e.status) for e in find_figures(text, markdown=True).equations] == expected


def test_a_non_breaking_hyphen_is_a_hyphen():
    """A reviewer's honest draft: "1M\u2011token" (U+2011) was no figure."""
    assert [f.text for f in find_figures("Qwen's guide asks for it for 1M\u2011token inputs.\n").figures] == ["1M-token"]


@pytest.mark.parametrize("text, expected", [
    ("An H100 has 80&nbsp;GB of memory.", [("80&nbsp;GB", 80, "GB")]),     # a reviewer's honest draft: "80"
    ("An H100 has 80&#160;GB of memory.", [("80&#160;GB", 80, "GB")]),     # and a figure "160"
])
def test_a_no_break_space_written_as_an_html_entity(text, expected):
    assert [(f.text, f.value, f.unit) for f in find_figures(text, markdown=True).figures] == expected


@pytest.mark.parametrize("text, figures, equations", [
    # a held-out Korean page on PagedAttention (batch O): "= 800kb" and "= 1.6gb" were read without their
    # units and the right sums failed ("the left side is 819,200, not 800"); bytes in lower case are bytes
    ("2(key and value) * 5120(hidden state size) * 40(n_layers) * 2bytes(bytes per FP16) = 800kb",
     [("800kb", "KB")], [("ambiguous", "holds only if KB is read as 1,024 bytes (KiB)")]),
    ("800 kb * 2048 tkns = 1.6gb", [("1.6gb", "GB")], [("ambiguous", "holds only if KB is read as 1,000 bytes (kB)")]),
    ("It takes 4 mb and 2 tb.", [("4 mb", "MB"), ("2 tb", "TB")], []),
    ("One HBM stack holds 8 × 24 Gb = 192 GB.", [("8", ""), ("24", ""), ("192 GB", "GB")], []),  # bits stay bits
])
def test_bytes_written_in_lower_case_are_bytes(text, figures, equations):
    found = find_figures(text, markdown=True)
    assert [(f.text, f.unit) for f in found.figures if f.unit] == [(t, u) for t, u in figures if u]  # "24 Gb" no GB
    assert [(e.status, e.note) for e in found.equations] == equations


@pytest.mark.parametrize("text, expected", [
    # a reviewer's fourth round: "1/437" was two figures, "1" and "437"
    ("The cache is 1/437 of V1's.", [("1/437", Fraction(1, 437))]),
    ("A quarter (1/4) of it.", [("A quarter", Fraction(1, 4)), ("1/4", Fraction(1, 4))]),
    ("It drops to 1/8 GB.", [("1/8 GB", Fraction(1, 8))]),
    ("Open 24/7.", [("24", 24), ("7", 7)]),                            # no proper fraction
    ("On 2024/1/4 it shipped.", [("2024", 2024), ("1", 1), ("4", 4)]),  # a date's parts
    # and the hundred-messages text's own "supports million-token context" was no figure at all
    ("It supports million-token context.", [("million-token", 10**6)]),
    ("It supports a million-token context.", [("a million-token", 10**6)]),
    ("A million users.", []),
    # "DeepSeek LLM 67B" is a name, as "Llama 3 70B" is; "67B parameters" a count
    ("DeepSeek LLM 67B is dense.", []),
    ("DeepSeek LLM 67B parameters.", [("67B parameters", 67 * 10**9)]),
])
def test_a_fraction_with_a_slash_a_bare_scale_and_a_variant_name(text, expected):
    assert [(f.text, f.value) for f in find_figures(text, markdown=True).figures] == expected


def test_kibibytes_in_lower_case_are_kibibytes():
    """A reviewer's fifth round: "That is 192 kib." was a bare 192."""
    assert [(f.text, f.unit) for f in find_figures("That is 192 kib.", markdown=True).figures] == [("192 kib", "KiB")]
