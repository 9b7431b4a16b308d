"""`said` prints its figure (issue 11): a record whose sentence prints 999,999 while its figure is 196,608
shows readers one number and checks another. Each case builds its hostile input here and asserts the
exact outcome: the exit code, the message naming file, line and key, and the rest of the run going on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import PER_TOKEN, TmpLedger
from tests.test_hostile_ledger import run
from workings import said
from workings.figures import read_figure

REPO = Path(__file__).resolve().parents[1]
# The per-token figure as a record typed into its steps: an estimate resting on its stated assumption.
TYPED = """\
said: {said}
figure: "{figure}"
label: estimate
inputs:
  v: {value}
assumptions:
  v: y
compute:
  r: v
"""


def typed(sentence: str, figure: str, value: str | None = None, **extra: str) -> str:
    text = TYPED.format(said=json.dumps(sentence), figure=figure, value=value or figure)
    return text + "".join(f"{key}:\n" + "".join(f"  - {json.dumps(s)}\n" for s in lines)
                          for key, lines in extra.items())


def problems(led: TmpLedger) -> list[str]:
    return [str(p) for p in led.verify().problems]


def test_a_sentence_printing_another_number_is_an_error_naming_file_line_and_key(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    led.claim("kv/per-token", PER_TOKEN.replace("= 196,608 bytes", "= 999,999 bytes"))
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert ("claims/kv/per-token.yaml:1: said: the sentence prints 999,999 bytes per token, not the figure "
            "(196,608 B/token): said is the sentence that printed this very figure, and figure its number as "
            "printed; correct whichever is wrong") in done.stdout
    assert "kv/full-window" in done.stdout  # the claim built on it is reported; the run went on


def test_the_rest_of_the_run_goes_on(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("t/wrong", typed("It is 999,999 bytes.", "196,608 B"))
    tmp_ledger.claim("t/right", typed("It is 196,608 bytes.", "196,608 B"))
    report = tmp_ledger.verify()
    assert [str(p).split(": the sentence")[0] for p in report.problems] == ["claims/t/wrong.yaml:1: said"]
    assert {c.id: c.status for c in report.claims if c.id != "t/wrong"} == {
        "kv/per-token": "verified", "kv/full-window": "verified", "t/right": "verified"}


def test_a_sentence_printing_no_number_is_an_error(tmp_ledger):
    tmp_ledger.claim("t/none", typed("The cache is large.", "196,608 B"))
    assert problems(tmp_ledger) == [
        "claims/t/none.yaml:1: said: the sentence prints no number, not the figure (196,608 B): said is the "
        "sentence that printed this very figure, and figure its number as printed; correct whichever is wrong"]


def test_a_relation_has_no_figure_to_print(tmp_ledger):
    tmp_ledger.claim("t/rel", 'said: "Weights and cache do not fit."\ncheck: "a > b"\nlabel: estimate\n'
                     "inputs:\n  a: 2 B\n  b: 1 B\nassumptions: {a: y, b: y}\n")
    assert problems(tmp_ledger) == []


@pytest.mark.parametrize("sentence, figure", [
    ("FP8 halves the cache.", "2"),                                   # a multiplier, read either way up
    ("It assigns each layer one of three modes.", "3"),              # a counting word
    ("It compressed the KV Cache to a quarter again.", "1/4"),       # a fraction in words
    ("With a KV Cache four times smaller, it holds more.", "4"),
    ("Its cache is a quarter of the old one.", "25 percent"),       # a ratio, stated as a percentage
    ("It keeps 25% of the cache.", "0.25"),
    ("It keeps 1/4 of the cache.", "1/4"),
    ("It keeps 0.25 of the cache.", "1/4"),
    ("It supports million-token context.", "1 Mtoken"),
    ("The card recommends a context window of 1M tokens.", "1 Mtoken"),
    ("A 2.8-trillion-parameter open model.", "2.8 Tparameter"),
    ("V2 was released in May 2024 and introduced MLA.", "2024"),    # a year, which the finder reads as a date
    ("That is 192 KiB per token.", "196,608 B/token"),               # the same quantity in the printed unit
    ("A phone photo easily runs three or four megabytes.", "3 MB"),
    ("按BF16计算，权重需要140GB显存。", "140 GB"),  # Chinese runs words together: "需要140GB" is 140 GB
    ("KVキャッシュは約40GBです。", "40 GB"), ("약3.5GB가 필요합니다.", "3.5 GB"),
])
def test_a_figure_printed_in_words_or_another_form_is_printed(tmp_ledger, sentence, figure):
    tmp_ledger.claim("t/ok", typed(sentence, figure))
    assert problems(tmp_ledger) == []


@pytest.mark.parametrize("sentence, figure, prints", [
    ("It assigns each layer one of four modes.", "3", "prints one, four"),
    ("FP8 doubles the cache.", "1/4", "prints doubles"),
    ("Llama 3 is open.", "3", "prints Llama 3 (set aside as a model-name, not a figure)"),
    ("See table 3.", "3", "prints table 3 (set aside as a reference, not a figure)"),
    ("The card recommends 1M tokens.", "1,010,000 token", "prints 1M tokens"),   # said prints the figure itself
    ("It takes 196,608K bytes.", "196,608 B", "prints 196,608K bytes"),          # a scale changes the number
    ("需要两张H100显卡。", "100", "prints no number"),  # after a Latin letter, a name's digits are no number
])
def test_a_word_a_name_or_a_rounding_that_is_not_the_figure_is_an_error(tmp_ledger, sentence, figure, prints):
    tmp_ledger.claim("t/bad", typed(sentence, figure))
    (problem,) = problems(tmp_ledger)
    assert problem.startswith(f"claims/t/bad.yaml:1: said: the sentence {prints}, not the figure"), problem


@pytest.mark.parametrize("sentence, figure, prints", [
    ("It takes 196,608 GB per token.", "196,608 B/token", "prints 196,608 GB per token"),  # another scale
    ("That card has 80 GB.", "80 GiB", "prints 80 GB"),                       # decimal for binary
    ("It reads 890 tokens.", "890 B/token", "prints 890 tokens"),            # another quantity
    ("A window of 4,096 bytes.", "4,096 token", "prints 4,096 bytes"),
    # another "per": read by the finder (parameter), or read past by it (layer, second)
    ("It costs 196,608 bytes per parameter.", "196,608 B/token", "prints 196,608 bytes per parameter"),
    ("It costs 196,608 bytes per layer.", "196,608 B/token", "prints 196,608 bytes per layer"),
    ("It holds 196,608 bytes of cache per layer.", "196,608 B/token", "prints 196,608 bytes of cache per layer"),
    ("It moves 196,608 bytes per second.", "196,608 B/token", "prints 196,608 bytes per second"),
    ("It costs 196,608 bytes per\u00a0layer.", "196,608 B/token", "prints 196,608 bytes per\u00a0layer"),
    ("It costs 196,608 bytes\nper layer.", "196,608 B/token", "prints 196,608 bytes per layer"),
    ("It costs 196,608 bytes per million tokens.", "196,608 B/token", "prints 196,608 bytes per million tokens"),
    # a figure with no unit is a pure number: the sentence's unit is not its
    ("It needs 128 GB.", "128", "prints 128 GB"),
    ("A window of 128 tokens.", "128", "prints 128 tokens"),
    ("A cut of 12%.", "12", "prints 12%"),
])
def test_the_same_digits_in_another_unit_do_not_print_the_figure(tmp_ledger, sentence, figure, prints):
    """The sentence's unit words are held against the figure's unit: "196,608 GB" is not 196,608 B/token."""
    tmp_ledger.claim("t/unit", typed(sentence, figure))
    (problem,) = problems(tmp_ledger)
    assert problem.startswith(f"claims/t/unit.yaml:1: said: the sentence {prints}, not the figure"), problem


@pytest.mark.parametrize("sentence, figure", [
    ("It takes 196,608 bytes per token.", "196,608 B/token"),
    ("Each token costs 196,608 bytes.", "196,608 B/token"),   # "per token" said elsewhere in the sentence
    ("That card has 80 GiB.", "80 GiB"),
    ("It has 128 dimensions per head.", "128"),               # words the finder does not read as a unit
    ("A cut of 12%.", "0.12"),                                 # a pure number, printed as a percentage
    ("A 4-bit float.", "4 bit"),
    ("It holds 196,608 bytes of KV cache per token.", "196,608 B/token"),
    ("It moves 5 GB per second.", "5 GB/s"),                 # a "per" of the unit's own dimension
])
def test_the_figures_unit_or_its_numerator_prints_it(tmp_ledger, sentence, figure):
    tmp_ledger.claim("t/unit", typed(sentence, figure))
    assert problems(tmp_ledger) == []


def test_an_erratum_prints_the_wrong_figure_as_printed(tmp_ledger):
    """An erratum's sentence printed the wrong number, and its figure is that number: it passes. A
    record that puts the corrected number in said and keeps the printed one as figure does not."""
    wrong = PER_TOKEN.replace("196,608", "196,680") + (
        "erratum:\n  reason: Digits swapped in print.\n  recomputed: 196,608 B/token\n")
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", wrong)
    report = tmp_ledger.verify()
    assert report.problems == () and report.claim("kv/per-token").status == "erratum"
    tmp_ledger.claim("kv/per-token", wrong.replace("= 196,680 bytes", "= 196,608 bytes"))
    (problem,) = problems(tmp_ledger)
    assert problem.startswith("claims/kv/per-token.yaml:1: said: the sentence prints 196,608 bytes per token, "
                              "not the figure (196,680 B/token)")


def test_also_said_may_round_the_figure_as_check_draft_reads_it_but_not_print_another(tmp_ledger):
    window = ('said: "Qwen2.5-14B-Instruct-1M has a window of 1,010,000 tokens."\nfigure: 1,010,000 token\n'
              "label: quoted\ninputs:\n  w: qwen#max_position_embeddings token\ncompute:\n  t: w\nalso_said:\n"
              '  - "Its own guide asks for 320GB VRAM for 1M-token inputs."\n'
              '  - "Read \\"1M-token context\\" as a memory bill."\n'
              '  - "It reads about 1,010,000 tokens at once."\n')
    tmp_ledger.source("qwen")
    tmp_ledger.claim("kv/window", window)
    assert problems(tmp_ledger) == []
    assert tmp_ledger.verify().claim("kv/window").status == "verified"
    tmp_ledger.claim("kv/window", window.replace("for 1M-token inputs", "for 2M-token inputs"))
    assert problems(tmp_ledger) == [
        "claims/kv/window.yaml:9: also_said.0: the sentence prints 320GB, 2M-token, not the figure (1,010,000 "
        "token), even rounded as printed: each also_said sentence repeats this very figure"]
    tmp_ledger.claim("kv/window", window.replace("about 1,010,000 tokens", "about 1.5M tokens"))
    (problem,) = problems(tmp_ledger)
    assert problem.startswith("claims/kv/window.yaml:11: also_said.2: the sentence prints about 1.5M tokens")


@pytest.mark.parametrize("sentence", [
    "It takes 196\u2009608 bytes per token.",      # thin space
    "It takes 196\u00a0608 bytes per token.",      # no-break space
    "It takes 196\u202f608 bytes per token.",      # narrow no-break space
    "It takes 196 608 bytes per token.",
    "It takes 196608 bytes per token.",
])
def test_digits_grouped_with_spaces_print_the_figure(tmp_ledger, sentence):
    tmp_ledger.claim("t/ok", typed(sentence, "196,608 B/token", "196,608 B/token"))
    assert problems(tmp_ledger) == []


@pytest.mark.parametrize("sentence, ok", [
    ("يأخذ ١٩٦٬٦٠٨ بايت لكل رمز.", True),         # Arabic-Indic digits and separator throughout
    ("It takes １９６,６０８ bytes.", True),          # full-width digits throughout
    ("It takes 196,6\u06608 bytes.", False),         # one Arabic-Indic zero among ASCII digits
    ("It takes \u0661\u0669\u0666,608 bytes.", False),  # two scripts in one number
])
def test_other_script_digits_print_the_figure_only_in_one_script(tmp_ledger, sentence, ok):
    tmp_ledger.claim("t/s", typed(sentence, "196,608 B"))
    found = problems(tmp_ledger)
    if ok:
        assert found == []
    else:
        (problem,) = found
        assert problem.startswith("claims/t/s.yaml:1: said: the sentence prints ")
        assert "a number mixing digits of two scripts, not the figure (196,608 B)" in problem


def test_an_overlong_number_in_said_is_read_without_trouble(tmp_ledger):
    tmp_ledger.claim("t/long", typed("It is " + "9" * 1900 + " bytes.", "1 B"))
    (problem,) = problems(tmp_ledger)
    assert problem.startswith("claims/t/long.yaml:1: said: the sentence prints 999")


# The quick reading (digits alone, no finder) may only ever accept what the finder's reading accepts.
_BEFORE = st.sampled_from(["", "It is ", "Llama ", "Table ", "issue #", "in ", "May ", "RTX ", "The ", "At ",
                           "(", "[", "v", "Qwen-", "arXiv:", "2024-01-", "see `", "https://x.org/", "1. ",
                           "DeepSeek ", "no. ", "fig. ", "Step "])
_AFTER = st.sampled_from(["", " bytes", "th", "-01-05", ")", "]", "B", "K", "M", " min read", ".", " million",
                          "/2024", "`", " tokens.", "-token"])


@given(before=_BEFORE, number=st.sampled_from(["3", "48", "2024", "196,608", "196 608", "2401.02954", "1.5"]),
       after=_AFTER, tail=st.sampled_from(["", " and more.", " at 5 GB."]))
def test_the_quick_reading_accepts_only_what_the_finder_reading_accepts(before, number, after, tail):
    text = before + number + after + tail
    figure = read_figure(number.replace(" ", ","))
    finder_reads_it = said._read(text, figure, False)[0]
    if said._at_once(text, figure):
        assert finder_reads_it, text


def test_the_quick_reading_takes_plain_digits_and_leaves_names_to_the_finder():
    figure = read_figure("196,608 B")
    assert said._at_once("It is 196,608 bytes.", figure) and said._at_once("The 196 608 bytes.", figure)
    for text in ("Llama 196608 is a model.", "See table 196608.", "196608. It is.", "196,608K bytes",
                 "`196608`", "(196608) it is", "196608th"):
        assert not said._at_once(text, figure), text


def test_on_a_copy_of_this_repository_every_sentence_is_checked_and_prints_its_figure(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    for folder in ("claims", "ledger"):
        shutil.copytree(REPO / folder, root / folder)
    calls = []
    real = said.missing
    monkeypatch.setattr(said, "missing", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    from workings import verify

    report = verify(root)
    assert report.problems == () and report.exit_code == 0
    with_figure = [c for c in report.claims if c.figure]
    assert len(calls) == len(with_figure) + sum(len(c.also_said or ()) for c in with_figure)
    statuses = {c.id: c.status for c in report.claims}
    assert "error" not in statuses.values()

    claim = root / "claims" / "kv-bytes-per-token" / "qwen25-14b-bytes-per-token.yaml"
    claim.write_text(claim.read_text(encoding="utf-8").replace("= 196,608 bytes", "= 999,999 bytes"),
                     encoding="utf-8")
    broken = verify(root)
    places = [f"{p.file}:{p.line}: {p.key}" for p in broken.problems]
    assert places[0] == "claims/kv-bytes-per-token/qwen25-14b-bytes-per-token.yaml:1: said"
    # and the measurements of that claim, which now name an invalid record
    assert all(p.startswith("ledger/measurements/kv-bytes-per-token/qwen25-14b-bytes-per-token--") for p in places[1:])
    assert broken.exit_code == 2
    after = {c.id: c.status for c in broken.claims}
    moved = {i for i in statuses if after.get(i) != statuses[i]}
    assert moved and all(after.get(i) == "error" for i in moved)   # that claim and those built on it
    assert len(moved) < len(statuses) / 2                           # the rest verified as before



def test_the_answers_worked_out_where_a_record_is_read_are_the_checks_own():
    """``said.answers``: what ``models._prints`` would ask, for the sentences it would ask of, and no
    more (nothing longer than a record may give: the check refuses it and asks nothing)."""
    from workings import said
    from workings.figures import read_figure
    from workings.models import MAX_FIGURE, MAX_SENTENCE

    data = {"said": "It holds about 197 kB per token.", "figure": "196,608 B/token",
            "also_said": ["About 197 kB per token.", 5, "x" * (MAX_SENTENCE + 1)]}
    figure = read_figure("196,608 B/token")
    assert said.answers(data) == {
        ("It holds about 197 kB per token.", "196,608 B/token", False): said.missing(data["said"], figure),
        ("About 197 kB per token.", "196,608 B/token", True): None}
    assert said.answers(data)[(data["said"], "196,608 B/token", False)] is not None  # said may not round
    for odd in ({**data, "said": "y" * (MAX_SENTENCE + 1), "also_said": []}, {**data, "figure": "lots of GB"},
                {**data, "figure": "5" * (MAX_FIGURE + 1) + " B"}, {**data, "figure": 5}, ["not", "a", "mapping"]):
        assert said.answers(odd) == {}


@given(st.text(alphabet=st.sampled_from("0123456789, .\u00a0\u202f\u2009\u2007\t\u0663aé"), max_size=30))
def test_the_digits_ungrouped_are_what_the_pattern_of_separators_leaves(text):
    """The quick reading takes a number's grouping out by two replaces where the text is ASCII, and by
    the pattern elsewhere: the same text either way (a figure-space or a tab is not a separator)."""
    assert said._ungrouped(text) == said._UNGROUPED.sub("", text)


@pytest.mark.parametrize("about, problem", [
    ("DeepSeek-V4.1-Flash", None),
    ("Kimi K3", None),
    ("DeepSeek", "about: expected the model as named, with its version or size ('DeepSeek-V4.1-Flash')"),
    ("'42'", "about: expected the model as named, with its version or size ('DeepSeek-V4.1-Flash')"),
    ("42", "about: expected text (YAML read it as the number 42"),
    ("[Qwen3-8B]", "about: expected text"),                   # a YAML list, not a name
])
def test_about_names_a_model_with_its_version_or_size(tmp_ledger, about, problem):
    """``about:`` says which model a claim is about (check-draft holds a draft's sentence to it); a value that
    names no version or size is refused, naming the file, line and key."""
    record = typed("It takes 196,608 bytes per token.", "196,608 B/token") + f"about: {about}\n"
    tmp_ledger.claim("t/about", record)
    found = problems(tmp_ledger)
    if problem is None:
        assert found == [] and tmp_ledger.verify().claim("t/about").about == about
    else:
        (only,) = found
        assert only.startswith("claims/t/about.yaml:") and problem in only, only
