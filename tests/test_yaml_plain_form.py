"""The plain form of a record (``yamlio._plain_form``), read without PyYAML's composer: wherever it
gives data, the data is what PyYAML gives (the same keys, order, text and numbers, the same types);
anything it does not take is left to PyYAML, errors included. Held here on every record of this
repository, on generated ledgers, and on generated text built to sit on the form's edges."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from workings import yamlio
from workings.yamlio import YamlError

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import bench  # noqa: E402  # the generated ledgers the speed targets are measured on


def pyyaml(text: str):
    """What loading gave before the plain form: PyYAML's C composer and the quick build, or its
    constructor for what the quick build leaves (an error: the YamlError ``load`` raises)."""
    try:
        with yamlio._yaml_errors():
            try:
                return yamlio._quick_load(text)
            except yamlio._Unusual:
                data = yaml.load(text, Loader=yamlio._Loader)
                return None if data is None else yamlio._plain(data, [0])
    except YamlError as exc:
        return exc


def same(a, b) -> bool:
    """Equal, and of the same types all the way down (1 is not "1", True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def held(text: str) -> bool:
    """Whether the plain form took ``text``; where it did, its data is PyYAML's (asserted)."""
    data = yamlio._plain_form(text)
    if data is None:
        return False
    reference = pyyaml(text)
    assert not isinstance(reference, YamlError), (text, reference)
    assert same(data, reference), (text, data, reference)
    return True


def records(root: Path) -> list[Path]:
    return sorted(p for folder in ("claims", "ledger") for p in (root / folder).rglob("*")
                  if p.suffix in (".yaml", ".yml"))


def test_every_record_of_this_repository_reads_as_pyyaml_reads_it():
    paths = records(REPO)
    taken = [p for p in paths if held(p.read_text(encoding="utf-8"))]
    claims = [p for p in paths if p.parts[len(REPO.parts)] == "claims"]
    # most claim records here are in the form (the rest write notes as a block scalar, sources flow mappings)
    assert len([p for p in taken if p in claims]) >= len(claims) // 2, (len(taken), len(claims))


@pytest.mark.parametrize("variant", ["a", "b"])
def test_generated_ledgers_are_read_in_the_form_and_as_pyyaml_reads_them(tmp_path, variant):
    bench.make_ledger(tmp_path, 300, variant, group_prefix="g")
    paths = [p for p in records(tmp_path) if p.parts[len(tmp_path.parts)] == "claims"]
    assert len(paths) == 300
    assert all(held(p.read_text(encoding="utf-8")) for p in paths)  # every one: the speed is measured on them


def test_a_loaded_record_is_the_same_document_either_way():
    text = ('said: "It holds 196,608 bytes per token."\nfigure: 196,608 B/token\nlabel: derived\ninputs:\n'
            "  layers: m#num_hidden_layers\n  value_bytes: 2 B\ncompute:\n  total: layers * value_bytes\n"
            "also_said:\n- Another, with 196,608 bytes.\n- 'It''s 192 KiB.'\nround: 48\n")
    doc = yamlio.load(text.encode(), "claims/x.yaml")
    assert yamlio._plain_form(text) is not None and same(doc.data, pyyaml(text))
    assert doc.line("inputs", "value_bytes") == 6 and doc.line("also_said", 1) == 11 and doc.line("round") == 12


@pytest.mark.parametrize("text", [
    'said: "It holds 2 * layers bytes &c."\nfigure: 1 B\n',
    "said: x\nsteps:\n  a: b *c\n  d: e &f\nlist:\n- g *h\n- i &j\n",
    "said: R&D is x\nnote: a*b *c\n",
])
def test_a_record_in_the_form_has_its_lines_found_when_asked(text):
    """A record in the form is read without the search for anchors (no value in the form starts with
    ``&`` or ``*``, so none holds one): its lines, found when a problem asks, are the map PyYAML's node
    tree gives, even where that search would have matched (these texts)."""
    assert yamlio._ANCHORISH.search(text) and yamlio._plain_form(text) is not None
    doc = yamlio.load(text.encode(), "claims/x.yaml")
    assert doc._lines is None and same(doc.data, pyyaml(text))
    assert doc.lines == yamlio._node_lines(text) and len(doc.lines) > 2


@pytest.mark.parametrize("text", [
    "said: x\nsaid: y\n",                      # a key twice: PyYAML's error, with its line
    "said: x\ninputs:\n  a: 1\n  a: 2\n",
    "said: x\nfigure:\n",                       # null
    "said: x\nfigure:\nlabel: y\n",
    "said: yes\n", "said: 1.5\n", "said: 0x1F\n", "said: 017\n", "said: ~\n", "said: 2024-01-01\n",
    "said: -1\n", "said: 1_000\n", "said: 12:30\n", "yes: x\n", "null: x\n", "1: x\n",
    "said: x # a comment\n", "# a comment\nsaid: x\n", "said: x\n\nfigure: y\n", "said: x\n  \n",
    "said: a: b\n", "said: a:\n", "said: 'open\n", 'said: "open\n', 'said: "a \\" b"\n', 'said: "a" b\n',
    'said: "esc\\x41pe"\n', "said: 'a' b'\n", "said: 'a'b'\n",
    "said: |\n  x\n", "said: >-\n  x\n", "said: [a]\n", "said: {a: b}\n", "said: &a x\n", "said: *a\n",
    "said: !tag x\n", "said: @x\n", "said: `x\n", "said: %x\n", "said: - x\n", "said: ? x\n",
    "said: x\n  more\n", "said:\tx\n", "said: x\r\n", "said: x\u2028y\n", "said: x\x85\n", "\ufeffsaid: x\n",
    "said: x\ninputs:\n  a: b\n    c: d\n", "said: x\ninputs:\n  a: b\n - c\n", "said: x\nl:\n- a\n  - b\n",
    "said: x\nl:\n  - a\n- b\n", "said: x\nl:\n  a: b\n- c\n", "said: x\nl:\n  - a: b\n", "said: x\nl:\n  -a\n",
    "said: x\nl:\n  - \n", "said: x\nl:\n  a:\n", "said: x\nl:\n  a:b\n", "said:x\n", "said : x\n",
    "- a\n- b\n", "x\n", "", "\n", "---\nsaid: x\n", "said: x\n...\n", "%YAML 1.1\n---\nsaid: x\n",
    "said: x\nl:\n" + "".join(f"  k{i}:\n" for i in range(3)),
])
def test_what_the_form_leaves_is_left_to_pyyaml(text):
    assert yamlio._plain_form(text) is None


@pytest.mark.parametrize("text, data", [
    ("said: x\n", {"said": "x"}),
    ("said:    spaced   out  \n", {"said": "spaced   out"}),
    ("said: a:b, c#d [e] {f} -g ?h\n", {"said": "a:b, c#d [e] {f} -g ?h"}),
    ("said: ''\n", {"said": ""}),
    ('said: ""\n', {"said": ""}),
    ("said: 'It''s: # here'\n", {"said": "It's: # here"}),
    ('said: "a: b # c \'d\'"\n', {"said": "a: b # c 'd'"}),
    ("said: caf\u00e9 \u00a0 192 KiB \u4e2d\n", {"said": "caf\u00e9 \u00a0 192 KiB \u4e2d"}),
    ("said: back\\slash\n", {"said": "back\\slash"}),
    ("l:\n- a\n- b\nsaid: x", {"l": ["a", "b"], "said": "x"}),
    ("n: 0\nm: 48\nk: 123456789012345678\n", {"n": 0, "m": 48, "k": 123456789012345678}),
    ("Yes_no: x\n_k: y\n", {"Yes_no": "x", "_k": "y"}),
])
def test_what_the_form_takes_is_read_as_pyyaml_reads_it(text, data):
    assert same(yamlio._plain_form(text), data) and held(text)


KEYS = ("said", "figure", "inputs", "also_said", "yes", "No", "null", "1", "a-b", "_k", "said ", " said", "é")
VALUES = ("It holds 192 KiB per token.", "196,608 B/token", '"Quoted: 5 GB # not a comment"', "'It''s 4 GB.'",
          "x # comment", "a: b", "a:b", "ends:", "yes", "No", "~", "null", "12", "017", "1.5", "1_000", "-3", "+3",
          "2024-01-01", "0", "00", "9" * 19, "[a, b]", "{a: b}", "|", ">-", "&a x", "*a", "!t x", "- x", "? x",
          "%x", "@x", "`x", '"a \\" b"', '"esc\\x41pe"', '"open', "'open", "'a' b'", "''", '""', "'a'''",
          "back\\slash", "caf\u00e9",
          "\u00a0x", "x\u00a0", "#x", "a #b", "a#b", "=", "<<", "")
BELOW = ("  k: v", "  k2: 5", "    k: v", "  - v", "- v", "  - 'q'", "  -v", "  k:", "  k:v", "  # c", "", "  ",
         "  - k: v", "  k: v # c", " k: v", "\tk: v")
ODD = ("", "\t", "\r", "\u2028", "\u2029", "\x85", "\ufeff", "\x00", "\x1b", "\ud7ff", "\ue000", "\ufffe")


@st.composite
def texts(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        key = draw(st.sampled_from(KEYS))
        value = draw(st.sampled_from(VALUES))
        gap = draw(st.sampled_from((" ", " ", "  ", "", "\t")))
        lines.append(f"{key}:" + (gap + value if value else draw(st.sampled_from(("", " ")))))
        if not value or draw(st.booleans()):
            lines += [draw(st.sampled_from(BELOW)) for _ in range(draw(st.integers(0, 3)))]
    text = "\n".join(lines) + draw(st.sampled_from(("\n", "", "\n\n")))
    odd = draw(st.sampled_from(ODD))
    if odd:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + odd + text[at:]
    return text


@settings(max_examples=600, deadline=None)
@given(texts())
@example("said: x\nl:\n- a\n- b\n")
@example("inputs:\n  k: v\n  k2: 5\nsaid: x\n")
def test_wherever_the_form_gives_data_pyyaml_gives_the_same(text):
    held(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab:#-'\" \n\u00a0\u00e9\\[]{}?|>&*!%@`~0123456789.\t\r"), max_size=40))
def test_on_any_text_the_form_gives_pyyamls_data_or_nothing(text):
    held(text)


def test_the_characters_the_form_takes_are_yamls_printable_ones_but_its_other_breaks():
    """Every code point: the form takes a line feed and what YAML calls printable, less U+0085,
    U+2028, U+2029 (line breaks to YAML 1.1) and the byte-order mark."""
    printable = [(0x0A, 0x0A), (0x20, 0x7E), (0xA0, 0xD7FF), (0xE000, 0xFFFD), (0x10000, 0x10FFFF)]
    outside = yamlio._form_outside()
    for code in range(0x110000):
        taken = any(a <= code <= b for a, b in printable) and code not in (0x85, 0x2028, 0x2029, 0xFEFF)
        assert (outside.search(chr(code)) is None) == taken, hex(code)


@settings(max_examples=300, deadline=None)
@given(st.lists(texts(), min_size=2, max_size=5))
def test_a_line_is_read_alike_whatever_records_came_before(batch):
    """Each line's reading is kept by its text (``yamlio._FORM_LINES``): a record reads the same with
    the memory empty, with its own lines in it, and with the lines of other records in it, which
    hold the same keys and values at other indents and other places (and PyYAML agrees with each)."""
    yamlio._FORM_LINES.clear()
    alone = []
    for text in batch:
        yamlio._FORM_LINES.clear()
        alone.append(yamlio._plain_form(text))
    for _ in range(2):  # the memory now holds every line of the batch, then again
        for text, first in zip(batch, alone):
            again = yamlio._plain_form(text)
            assert same(again, first), (text, first, again)
            held(text)


def test_the_memory_of_lines_is_bounded_and_reads_alike_past_its_bound():
    """More distinct lines than it holds: it is emptied when full, never past ``_FORM_LINES_HELD``, and
    every record, read while it fills, empties and fills again, reads as PyYAML reads it."""
    yamlio._FORM_LINES.clear()
    seen = 0
    for n in range(yamlio._FORM_LINES_HELD + 500):
        text = f"said: Sentence {n} prints {n} B.\nfigure: {n} B\nlabel: derived\ninputs:\n  layers: cfg#n_{n % 7}\n"
        assert held(text), text
        seen = max(seen, len(yamlio._FORM_LINES))
        assert len(yamlio._FORM_LINES) <= yamlio._FORM_LINES_HELD
    assert seen == yamlio._FORM_LINES_HELD  # it filled, and was emptied rather than grown
    assert len(yamlio._FORM_LINES) < yamlio._FORM_LINES_HELD


@pytest.mark.parametrize("where", ["said: a{}b\n", "said: x\ninputs:\n  k: v{}\n", "l:\n- {}x\n", "said: x{}"])
def test_in_ascii_text_the_form_refuses_exactly_the_control_characters_its_pattern_finds(where):
    """An ASCII record is held to the pattern of what the form leaves out without running it
    (``str.isprintable``, the line feeds aside): every ASCII character, in a value, at a line's start
    and at the end; the form gives data only where the pattern finds nothing, and PyYAML's data."""
    outside = yamlio._form_outside()
    taken = 0
    for code in range(0x80):
        text = where.format(chr(code))
        data = yamlio._plain_form(text)
        if outside.search(text):
            assert data is None, (code, text)
        elif data is not None:
            taken += 1
            held(text)
    assert taken >= 60  # most printable characters stand in a value: the test reaches the shortcut
