"""Property tests for what check-draft's scan reads off a record's bytes without parsing it
(``draft.near.plain``) and for the test that narrows which records could be a draft sentence's
(``identity.may_be_same``): the first gives exactly what YAML gives or leaves the record to the
parser; the second is never false where the sentences are the same (``identity.same``)."""

from __future__ import annotations

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from workings.draft import identity
from workings.draft.finder import find_figures
from workings.draft.near import plain

KEYS = ("said", "figure", "also_said", "said", "label", "notes", "id", "Said", "said_x")
VALUES = ("The cache holds 24 GB per card.", '"Quoted, it holds 8 GB: per card."', '"esc\\x41pe 5 GB"', "64 GB",
          "'It''s 4 GB.'",
          "", " ", "[]", "[a, b]", "yes", "a: b", "x # comment", "'open", '"open', "|", ">", "&a x", "*a", "!tag x",
          "- item", "? k", "% x", "@x", "`x", "caf\u00e9 \u00e0 5 GB", "tab\there", "back\\slash", '"with \\"inner\\" quotes"', "192 KiB.", "1,010,000")
BELOW = ("  more of it", "  - \"An item of 5 GB.\"", "  - plain item", "    - deeper item", "# a comment", "",
         "  # indented comment", "   ", "\u3000", "  \u3000", "  \xa0", "  key: value")
ODD_BYTES = ("", "\r", "\u2028", "\ufeff", "\x85")


@st.composite
def records(draw) -> bytes:
    lines = [draw(st.sampled_from(("# preamble", "", "  stray"))) for _ in range(draw(st.integers(0, 1)))]
    for _ in range(draw(st.integers(0, 6))):
        key = draw(st.sampled_from(KEYS))
        # mostly values YAML reads (a record YAML refuses says nothing here), often said's
        value = draw(st.sampled_from(VALUES[:3] if draw(st.booleans()) else VALUES))
        lines.append(f"{key}:" + (f" {value}" if value or draw(st.booleans()) else ""))
        lines += [draw(st.sampled_from(BELOW)) for _ in range(draw(st.integers(0, 2)))]
    text = "\n".join(lines) + draw(st.sampled_from(("", "\n")))
    odd = draw(st.sampled_from(ODD_BYTES))
    if odd:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + odd + text[at:]
    return text.encode("utf-8")


@settings(max_examples=400, deadline=None)
@given(records())
@example("said: It holds 5 GB.\n  \u3000\nfigure: 5 GB\n".encode())  # to YAML an ideographic space is text
@example("said: It holds 5 GB.\nfigure: 5 GB\n  \xa0\n".encode())
def test_the_scan_reads_a_record_as_yaml_does_or_leaves_it_to_the_parser(raw):
    read = plain(raw)
    if read is None:
        return  # parsed: nothing decided on the bytes
    said, figure = read
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return  # the loader refuses it; the scan's reading only chose it
    assert isinstance(data, dict) or data is None
    data = data or {}
    if not said:
        assert "said" not in data
        return
    if isinstance(data["said"], str):
        assert data["said"] == said[0]
    if "also_said" in data:
        assert data["also_said"] in ([], None) and said[1:] == () or all(
            not isinstance(a, str) or a == b for a, b in zip(data["also_said"], said[1:]))
        assert len(said) - 1 == len(data["also_said"] or [])
    else:
        assert said[1:] == ()
    if isinstance(data.get("figure"), str):
        assert data["figure"] == figure
    assert ("figure" in data) == (figure is not None)


WORDS = ("the", "a", "Qwen2.5-14B", "cache", "token", "tokens", "B/token", "196,608", "KV", "kv", "heads", "of",
         "needs", "bytes", "per", "GiB", "48", "layers", "48-layer", "5GB", "192KiB-per-token", "x2", "2x",
         "one-third", "8-head", "ΟΔΟΣ", "ς", "١٢٣", "[link](http://x/y)", "’s", "x")


def _shape(text: str) -> identity.Shape:
    return identity.shape(text, identity.spans_in(text, find_figures(text).figures))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=10), st.integers(0, 3), st.integers(0, 3))
def test_may_be_same_is_never_false_for_the_same_sentence(words, cut_front, cut_back):
    whole = " ".join(words) + "."
    part = " ".join(words[cut_front:len(words) - cut_back] or words) + "."
    for draft, said in ((whole, whole), (part, whole), (whole, part)):  # the same, one inside the other
        shape = _shape(draft)
        if identity.same(shape, _shape(said)):
            assert identity.may_be_same(shape, said), (draft, said)
            assert identity.could_be(shape)(said)


def _could_be_plainly(draft: identity.Shape, said: str) -> bool:
    """``identity.could_be(draft)(said)`` as it was written before its sentence's tokens were kept
    (``identity.said_tokens``) and a count in C first looked for a word of the draft's inside one
    of them: every token worked out again, every one searched for pieces."""
    words = tuple(t for t in draft.tokens if t != "#")
    cuts = 2 * (len(draft.tokens) - len(words))
    lowered = said.lower()
    if "ς" in lowered:
        return True
    flat = lowered.replace(",", "")
    seen = [t for t in words if t in lowered or t in flat]
    if len(seen) == len(words):
        return True
    if not seen:
        return False
    present = frozenset(seen)
    tokens = [word.replace(",", "") if word[0].isdecimal() and identity._NUMBERISH.fullmatch(word) else low
              for word in identity._TOKEN.findall(said) if (low := word.lower()) not in identity._DROP]
    inside = sum(1 for t in tokens if t in present)
    if inside >= identity.MIN_WORDS or inside + cuts < identity.MIN_WORDS:
        return inside >= identity.MIN_WORDS
    pieces = sum(2 for t in tokens if any(k != t and k in t for k in present))
    return inside + min(cuts, pieces) >= identity.MIN_WORDS


# words, parts of words, numbers with and without commas, a word holding another ("caches", "per-token")
PIECES = WORDS + ("caches", "per-token", "kvcache", "b", "196608", "1,966,080", "token,", "heads-of", "sigmaς",
                  "Claim", "claim", "claims", "is", "this", "8", "88", "8,8", ",", "İstanbul", "ǅ")


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12), st.lists(st.sampled_from(PIECES), max_size=12))
@example(["official", "claim", "at", "5", "GB", "kv", "cache"], ["Synthetic", "claim", "189", "is", "1,966,080", "B/token"])
@example(["claim", "this", "8", "GB", "of", "cache"], ["claims", "this", "88", "GB"])
def test_could_be_is_the_plain_test(draft_words, said_words):
    """The test with each sentence's tokens kept and the count in C gives what the plain test gives,
    for the same draft against many sentences, and for a sentence tested twice (its tokens kept)."""
    shape = _shape(" ".join(draft_words) + ".")
    test = identity.could_be(shape)
    for said in (" ".join(said_words) + ".", " ".join(draft_words[::-1] + said_words), " ".join(said_words)):
        assert test(said) == _could_be_plainly(shape, said), (draft_words, said)
        assert test(said) == _could_be_plainly(shape, said)  # again: the tokens from the cache
