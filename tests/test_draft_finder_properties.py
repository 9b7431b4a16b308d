"""Property tests for the number finder: separators, decimals, ranges, number words, and dates and
names set aside. The words are written by a small speller of the tests' own."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from workings.draft.finder import find_figures

SMALL = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
ORDINAL = {"one": "first", "two": "second", "three": "third", "four": "fourth", "five": "fifth", "six": "sixth",
           "seven": "seventh", "eight": "eighth", "nine": "ninth", "twelve": "twelfth"}
MONTHS = ("January February March April May June July August September October November December").split()
UNITS = {"bytes": "B", "GB": "GB", "GiB": "GiB", "tokens": "token", "percent": "percent", "KiB": "KiB"}


def spell(n: int, hyphen: str = "-") -> str:
    """1 <= n < 1,000,000 in words, British style: "four-hundred-and-thirty-seven"."""
    def below_thousand(m: int) -> list[str]:
        words = []
        if m >= 100:
            words += [SMALL[m // 100], "hundred"]
            m %= 100
            if m:
                words.append("and")
        if m >= 20:
            words.append(TENS[m // 10] + (f"-{SMALL[m % 10]}" if m % 10 else ""))
        elif m or not words:
            words.append(SMALL[m])
        return words

    words = below_thousand(n // 1000) + ["thousand"] if n >= 1000 else []
    if n % 1000:
        if n >= 1000 and n % 1000 < 100:
            words.append("and")
        words += below_thousand(n % 1000)
    return hyphen.join(words)


def ordinal(n: int) -> str:
    words = spell(n)
    head, _, last = words.rpartition("-")
    if last in ORDINAL:
        last = ORDINAL[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return f"{head}-{last}" if head else last


def test_speller_examples():
    assert spell(437) == "four-hundred-and-thirty-seven"
    assert ordinal(437) == "four-hundred-and-thirty-seventh"
    assert ordinal(8) == "eighth" and ordinal(20) == "twentieth" and ordinal(100) == "one-hundredth"


@given(st.integers(min_value=0, max_value=10**15), st.sampled_from(sorted(UNITS)))
def test_thousands_separators(n, unit):
    found = find_figures(f"The cache holds {n:,} {unit} in all.")
    assert [(f.value, f.unit, f.number) for f in found.figures] == [(n, UNITS[unit], f"{n:,}")]


@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=1, max_value=6))
def test_decimals_are_exact_with_their_step(whole, places):
    printed = f"{whole:,}.{'7' * places}"
    found = find_figures(f"It needs {printed} GB of memory.")
    (figure,) = found.figures
    assert figure.value == Fraction(Decimal(printed.replace(",", "")))
    assert figure.step == Fraction(1, 10**places)
    assert figure.unit == "GB"


@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6),
       st.sampled_from([" to ", "–", " or "]))
def test_ranges(low, extra, joint):
    high = low + extra
    found = find_figures(f"Each chat uses {low:,}{joint}{high:,} tokens.")
    assert [(f.value, f.upper, f.unit) for f in found.figures] == [(low, high, "token")]


@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6))
def test_from_to_is_two_figures(low, high):
    found = find_figures(f"The cap rose from {low:,} to {high:,} users.")
    assert [f.value for f in found.figures] == [low, high]


@given(st.integers(min_value=2, max_value=999_999))
def test_number_words_with_a_unit(n):
    found = find_figures(f"The model is {spell(n)} times bigger, and {spell(n, ' ')} percent of it is idle.")
    assert [(f.value, f.kind, f.unit) for f in found.figures] == [(n, "ratio", ""), (n, "quantity", "percent")]


@given(st.integers(min_value=3, max_value=99_999), st.sampled_from(["one ", "a ", "an "]))
def test_fraction_words(n, article):
    if article == "an " and not ordinal(n).startswith(("eight", "eleven")):
        article = "a "
    found = find_figures(f"The cache is {article}{ordinal(n)} of the old one.")
    assert [f.value for f in found.figures] == [Fraction(1, n)]


@given(st.sampled_from(MONTHS), st.integers(min_value=1, max_value=28), st.integers(min_value=1990, max_value=2030),
       st.sampled_from(["{m} {d}", "{m} {d}, {y}", "{d} {m} {y}", "{m} {y}", "in {y}", "{y}-03-{d:02d}"]))
@settings(max_examples=200)
def test_dates_are_set_aside(month, day, year, form):
    date = form.format(m=month, d=day, y=year)
    found = find_figures(f"The model came out {date} with a cache of 64 KiB per token.")
    assert [f.text for f in found.figures] == ["64 KiB per token"]
    assert [s.reason for s in found.set_aside] == ["date"]


@given(st.sampled_from(["Qwen", "Corvid", "Llama", "Heron", "OPT"]), st.integers(min_value=1, max_value=9),
       st.integers(min_value=1, max_value=700), st.sampled_from(["", "-Instruct", "-Chat-1M", "-Base"]))
def test_model_names_are_set_aside(family, version, size, suffix):
    name = f"{family}{version}-{size}B{suffix}"
    found = find_figures(f"{name} stores 96 KiB per token.")
    assert [f.text for f in found.figures] == ["96 KiB per token"]
    assert [(s.text, s.reason) for s in found.set_aside] == [(name, "model-name")]


@given(st.sampled_from(["H100", "H200", "A100", "B200", "GB200", "MI300X", "L40S"]),
       st.integers(min_value=1, max_value=9))
def test_hardware_and_versions_are_set_aside(gpu, minor):
    found = find_figures(f"On an {gpu}, V4.{minor} fits 80 GB.")
    assert [f.text for f in found.figures] == ["80 GB"]
    assert [s.reason for s in found.set_aside] == ["hardware-name", "version"]


@given(st.text(max_size=300))
@settings(max_examples=300)
def test_any_text_is_read_without_error_and_lines_are_in_range(text):
    found = find_figures(text)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
    for item in (*found.figures, *found.set_aside, *found.equations):
        assert 1 <= item.line <= lines
