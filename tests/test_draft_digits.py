"""``digits.DIGITS``, the pattern of a number printed in digits that the draft finder and verify's
sentence check share, held to the pattern it replaced: that one asked what stands before the number
first, at every character of the text; this one asks it just after the number's first digit, so
the regex engine skips in C to where a digit stands. Every match, search and match at a position is
the same."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from workings.draft.digits import CJK, DIGITS

BEFORE = re.compile(r"(?:(?<![\w.,])|(?<=[" + CJK + r"]))"
                    r"(?:\d{1,3}(?:,\d{3})++|\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3}(?![\w-])){1,4}+|\d++)"
                    r"(?:\.\d++)?+(?!\d|[,.]\d)")

# digits of three scripts, every separator the pattern knows, what may stand before a number or after it
ALPHABET = ("0123456789" * 3 + "\u0663\u0664\u0967" + ",., \u00a0\u202f\u2009" * 2 + "-_aZé\u00b2\n+$%/"
            + "约約显存약のカ")


def spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


# numbers as printed and misprinted: runs of one to five digits between separators and words
PIECES = st.lists(st.sampled_from(["1", "12", "123", "1234", "12345", ",", ".", " ", "\u00a0", "\u2009", "-", "a", "x ",
                                   "\u0663\u0664", "_"]), max_size=14).map("".join)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40) | PIECES)
@example("Synthetic claim 7502 is 589,824 B/token.")
@example("128 000 tokens, 1,024 layers, 3.5 GB; 12345 x4 a1 .5 ,7 1.2.3 v2 8 128-token 1 000 000 000 000 1")
@example("a1,234 _5 .6 ,7 x8 é9 \u00b23 \u0663,456 ١٢٣")
@example("1234,567 1,2345 12,34 1 2345 1234 567 1 234 567 890 123 456")
@example("显存约40GB 約1,024 약3.5 共32层 H100约2 のa3")
def test_the_pattern_finds_what_the_pattern_it_replaced_found(text):
    assert spans(DIGITS, text) == spans(BEFORE, text)
    for pos in range(len(text) + 1):  # the finder's DIGITS.match(text, pos): what stands before pos counts
        a, b = DIGITS.match(text, pos), BEFORE.match(text, pos)
        assert (a and a.span()) == (b and b.span()), (text, pos)
        a, b = DIGITS.search(text, pos), BEFORE.search(text, pos)
        assert (a and a.span()) == (b and b.span()), (text, pos)


def test_a_number_is_not_read_from_inside_a_word_or_another_number():
    assert [m.group() for m in DIGITS.finditer("v2 x4 a1,000 1.5.6 7,8 9")] == ["9"]
    # Chinese, Japanese and Korean run words together: a number glued after their letters is a number
    glued = "显存约40GB，共32层；約1,024トークン；약3.5GB"
    assert [m.group() for m in DIGITS.finditer(glued)] == ["40", "32", "1,024", "3.5"]
    assert [m.group() for m in DIGITS.finditer("H100约 fp16 Llama3的")] == []
    assert [m.group() for m in DIGITS.finditer("196,608 and 128 000 and 0.33")] == ["196,608", "128 000", "0.33"]


# --- a pattern's CJK part compiled only for a text holding a CJK character (``digits.ByScript``) ------------

NO_CJK = "0123456789" * 3 + ",., \u00a0\u202f\u2009~≈×*=/()" * 2 + "-_aZé\u00b2\n+$%GBKMiaboutnerlyv" + "’—…\u2fff"


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=NO_CJK, max_size=40) | PIECES)
@example("So 2 × 56 × 4 × 128 × 2 = 114,688 bytes per token, about 112 KiB ~ 3.5 GB")
@example("约40")  # CJK: the whole pattern answers
def test_a_text_without_a_cjk_character_is_read_as_the_whole_pattern_reads_it(text):
    """The plain pattern (no CJK alternative) matches exactly what the whole one matches there, for each
    pattern the finder and the equations share; a text holding a CJK character is read by the whole one."""
    from workings.draft import equations, finder

    for pattern in (DIGITS, equations.TERM, finder._QUALIFIER):
        whole = pattern.compiled()
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in whole.finditer(text)]
        for pos in range(len(text) + 1):
            a, b = pattern.match(text, pos), whole.match(text, pos)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups()))
        a, b = pattern.search(text), whole.search(text)
        assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups()))


def test_every_cjk_character_comes_at_or_after_the_first_one_asked_for():
    from workings.draft.digits import FIRST_CJK, has_cjk

    starts = [CJK[i] for i in range(0, len(CJK), 3)]  # "a-b" triples
    assert all(CJK[i + 1] == "-" for i in range(0, len(CJK), 3)) and min(starts) == FIRST_CJK
    assert has_cjk("显存约40GB") and has_cjk("약3.5") and has_cjk("ｦ") and not has_cjk("196,608 B/token × 2 — ’é")


def test_verify_of_a_ledger_in_english_compiles_no_cjk_class(tmp_path):
    """re builds a character class in Python, a character at a time: the classes of Han characters and
    Hangul syllables cost every command that imports the finder about 1.5 ms each. A sentence check of
    English sentences (the finder reading "a quarter", "13B") compiles none of them."""
    import subprocess
    import sys

    script = ("from workings import said\n"
              "from workings.figures import read_figure\n"
              "from workings.draft import digits, finder, setaside\n"
              "assert said.missing('It compressed the KV Cache to a quarter again.', read_figure('1/4')) is None\n"
              "assert said.missing('The model activates only 13B at a time.', read_figure('13 Gparameter')) is None\n"
              "lazy = [digits.DIGITS, finder._QUALIFIER] + [p for _, p in setaside._PATTERNS"
              " if isinstance(p, digits.ByScript)]\n"
              "assert len(lazy) == 5 and all(p._full is None for p in lazy), [p.pattern[:30] for p in lazy]\n"
              "assert said.missing('显存约40GB。', read_figure('40 GB')) is None\n"
              "assert digits.DIGITS._full is not None\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
