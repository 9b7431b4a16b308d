"""Pages for readers: the articles annotated, a claim's whole working, reader words, bidi controls.

The fixture ledger (render_ledger.py) holds an article with a backed, a drifted, a corrected, an
unchecked and an unbacked figure; the whole-working tests also run on a copy of this repository's
own ledger, where every written-out working must give the engine's result.
"""

from __future__ import annotations

import re
import shutil
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markupsafe import escape
from render_ledger import write_ledger

from workings import expr, units
from workings.draft.check import check_text
from workings.engine import verify
from workings.render import render_site
from workings.render.words import page_title, reader, title, visible
from workings.report import Quantity
from workings.working import expand

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def site(tmp_ledger, tmp_path) -> Path:
    write_ledger(tmp_ledger)
    return render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "site")


class Terms(HTMLParser):
    """The ``data-term`` parts of the written-out working (``p[data-working]``), in order, and the
    text of its result."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.terms: list[str] = []
        self.depth = 0  # >0 inside p[data-working]
        self.result: list[str] = []
        self.in_result = False
        self.figures: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "data-figure" in attrs:
            self.figures.append(attrs)
        if tag == "p" and "data-working" in attrs:
            self.depth = 1
            return
        if self.depth:
            self.depth += tag not in ("br",)
            if "data-term" in attrs:
                self.terms.append(attrs["data-term"])
            if "data-working-result" in attrs:
                self.in_result = True

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1
            self.in_result = False

    def handle_data(self, data):
        if self.in_result:
            self.result.append(data)


def page_terms(path: Path) -> Terms:
    parser = Terms()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def recompute(terms: list[str]):
    """What the page's written-out working gives, evaluated by the ledger's own restricted walker."""
    return expr.evaluate(expr.parse(" ".join(terms), allow_compare=True), {})


# -- the articles -----------------------------------------------------------------------------------

def test_an_article_page_marks_every_figure_as_check_draft_found_it(site, tmp_ledger):
    page = (site / "articles" / "kv.html").read_text(encoding="utf-8")
    marks = page_terms(site / "articles" / "kv.html").figures
    text = (tmp_ledger.root / "claims" / "kv" / "article.md").read_text(encoding="utf-8")
    found = check_text(text, tmp_ledger.verify(), issue="kv", markdown=False, front_matter=True)
    # every figure check-draft found is marked (the printed equation overlaps its result: it is a note)
    figures = [f for f in found.figures if f.kind != "equation"]
    assert [m["data-figure"] for m in marks] == [f.status for f in figures]
    assert {m["data-figure"] for m in marks} == {"backed", "drift", "erratum", "unchecked", "unbacked"}
    by_status = {m["data-figure"]: m for m in marks}
    assert by_status["backed"]["href"] == "../claims/kv--per-token.html"
    assert by_status["drift"]["href"] == "../claims/kv--full-window.html"
    assert by_status["drift"]["data-status"] == "drift"
    assert "href" not in by_status["unbacked"]  # nothing to link to, and visibly so
    assert re.search(r'<span class="fig fig-unbacked" id="fig-\d+" data-figure="unbacked">7<', page)
    # the erratum's correction is printed beside it, with its reason
    assert re.search(r"erratum</b>: “200 GB”: the right figure is <b class=\"num correction\">198.6 GB</b>. "
                     r"The issue rounded up; 198.6 GB is right.", page)
    unbacked = next(f for f in figures if f.status == "unbacked")
    assert f"<b>unbacked</b>: “7”: {unbacked.reason}" in page  # check-draft's own reason
    assert '<a href="articles/kv.html" data-article>The cache at the full window</a>' in \
        (site / "index.html").read_text(encoding="utf-8")


def test_a_claim_page_links_back_to_where_its_figure_was_printed(site):
    page = (site / "claims" / "kv--full-window.html").read_text(encoding="utf-8")
    assert re.search(r'Printed in <a href="\.\./articles/kv\.html#fig-\d+">The cache at the full window</a>', page)


def test_the_article_is_escaped_and_a_bad_one_is_reported_not_fatal(tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    article = tmp_ledger.root / "claims" / "kv" / "article.md"
    article.write_text(article.read_text() + '<script>alert("x")</script> costs 9 dollars.\n', encoding="utf-8")
    (tmp_ledger.root / "claims" / "weights" / "article.md").write_bytes(b"---\ntitle: [unclosed\n---\ntext\n")
    site = render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "site")
    page = (site / "articles" / "kv.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "claims/weights/article.md:" in index and "front matter" in index
    assert not (site / "articles" / "weights.html").exists()


def test_a_symlinked_article_is_refused(tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("---\ntitle: x\n---\nsecret 42 tokens\n")
    (tmp_ledger.root / "claims" / "weights" / "article.md").symlink_to(outside)
    site = render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "site")
    assert not (site / "articles" / "weights.html").exists()
    assert "symbolic link" in (site / "index.html").read_text(encoding="utf-8")


# -- the whole working ------------------------------------------------------------------------------

def test_the_whole_working_of_the_cache_is_written_out_to_its_leaves(site, tmp_ledger):
    terms = page_terms(site / "claims" / "kv--full-window.html")
    report = tmp_ledger.verify()
    claim = report.claim("kv/full-window")
    assert units.convert(recompute(terms.terms), claim.result.unit) == claim.result.value
    assert "".join(terms.result) == "198,574,080,000 B"
    # every leaf of the working, down to the config keys
    assert "(1010000*token)" in terms.terms and "48" in terms.terms and "(2*B)" in terms.terms
    page = (site / "claims" / "kv--full-window.html").read_text(encoding="utf-8")
    assert 'href="../sources/qwen.html#key-num_hidden_layers" data-leaf-link' in page
    assert 'href="../claims/kv--per-token.html#input-value_bytes"' in page  # a literal: to its assumption
    source = (site / "sources" / "qwen.html").read_text(encoding="utf-8")
    assert 'id="key-num_hidden_layers" data-key="num_hidden_layers"' in source


def test_every_working_on_this_repositorys_ledger_gives_the_engines_result(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    report = verify(root)
    site = render_site(report, root, tmp_path / "site")
    written = relations = 0
    for claim in report.claims:
        work = expand(report, claim.id)
        if work is None:
            continue
        assert work.agrees, claim.id
        page = site / "claims" / f"{claim.id.replace('/', '--')}.html"
        terms = page_terms(page)
        assert terms.terms, claim.id
        value = recompute(terms.terms)  # from the page's own text, not from the expansion object
        if claim.check is not None:  # a relation: the page's says whether it holds, as the engine does
            assert value is (claim.status == "verified" or any(m.text.startswith("holds:") for m in claim.messages))
            relations += 1
        else:
            assert units.convert(value, claim.result.unit) == claim.result.value, (claim.id, terms.terms)
            assert "".join(terms.result) == reader(claim.result, exact=True), claim.id
        written += 1
    assert written >= 90 and relations >= 3  # nearly every claim has steps; the rest are quoted passages
    page = (site / "claims" / "kv-bytes-per-token--qwen25-14b-cache-full-window-gb.html").read_text(encoding="utf-8")
    # 2 × 48 layers × 8 KV heads × (5,120 ÷ 40) × 2 B ÷ token × 1,010,000 tokens = 198,574,080,000 B
    plain = re.sub(r"<[^>]+>", "", re.search(r'<p class="working" data-working>(.*?)</p>', page).group(1))
    assert re.sub(r"\s+", " ", plain) == ("(2 kv × 48 layers × 8 kv heads × (5,120 hidden ÷ 40 heads) × "
                                          "2 B value bytes ÷ token) × 1,010,000 tokens window = 198,574,080,000 B")


def test_a_working_too_large_to_write_out_keeps_claims_as_linked_values(tmp_ledger):
    tmp_ledger.doubling_chain()
    report = tmp_ledger.verify()
    assert report.claim("big/c7").status == "verified"
    work = expand(report, "big/c7")
    assert work.agrees and not work.complete and len(work.leaves) <= 60


# -- words for readers --------------------------------------------------------------------------------

@pytest.mark.parametrize("value, unit, shown", [
    (16, "Gparameter", "16 billion parameters"), (131072, "token", "131,072 tokens"), (1, "token", "1 token"),
    (196608, "B/token", "196,608 bytes per token"), (Fraction(14, 100), "USD/Mtoken", "$0.14 per million tokens"),
    (Fraction(1986, 10), "GB", "198.6 GB"), (1, "Mtoken", "1 million tokens"),
    (Fraction(28, 10), "Tparameter", "2.8 trillion parameters"), (5, "", "5"), (2, "B", "2 B"),
])
def test_units_are_written_as_a_reader_writes_them(value, unit, shown):
    assert reader(Quantity(value=Fraction(value), unit=unit, display="")) == shown


def test_titles_come_from_the_printed_sentence_with_the_figure_marked(site, tmp_ledger):
    claim = tmp_ledger.verify().claim("kv/full-window")
    assert title(claim)["mark"] == "190.0 GB"
    index = (site / "index.html").read_text(encoding="utf-8")
    assert ('data-claim="kv/full-window" data-status="drift">At the full window, one chat needs '
            '<mark class="figure">190.0 GB</mark> of cache.</a>') in index
    page = (site / "claims" / "kv--full-window.html").read_text(encoding="utf-8")
    # 71 characters with the site's name: past the 70 a tab or a search result shows, so the sentence alone
    assert "<title>At the full window, one chat needs 190.0 GB of cache.</title>" in page
    # the record's path and the engine's messages are for editors, folded away
    details = page.split('<details class="editors">', 1)
    assert "claims/kv/full-window.yaml" in details[1] and "claims/kv/full-window.yaml" not in details[0]


def test_page_titles_fit_in_70_characters_cut_at_a_word():
    assert page_title("Every claim") == "Every claim · workings ledger"
    long = "The model spends only 890 bytes to remember a token — at the cost of remembering less of it"
    assert page_title(long) == "The model spends only 890 bytes to remember a token — at the cost of…"
    assert len(page_title(long)) <= 70
    # quotes are one character in a <title>; & and < stay escaped, and count as the validator counts them
    assert page_title(escape('Qwen\'s guide: "at least 320GB VRAM"')) == \
        'Qwen\'s guide: "at least 320GB VRAM" · workings ledger'
    hostile = page_title("</title><script>alert(1)</script>" * 3)
    assert "<" not in hostile and len(hostile) <= 70 and hostile.endswith("…")


def test_the_legend_says_what_every_status_label_and_grade_means(site):
    from workings.models import GRADES, LABELS
    from workings.report import STATUSES

    page = (site / "claims" / "kv--full-window.html").read_text(encoding="utf-8")
    legend = page.split('id="legend"', 1)[1]
    for word in (*STATUSES, *LABELS, *GRADES):
        assert f"> {word}</span></dt>" in legend or f">{word}</span></dt>" in legend, word


def test_bidi_controls_in_record_text_are_shown_not_obeyed(tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    record = tmp_ledger.root / "claims" / "kv" / "vendor-hbm.yaml"
    record.write_text(record.read_text().replace("The vendor lists", "The vendor \u202elists"), encoding="utf-8")
    article = tmp_ledger.root / "claims" / "kv" / "article.md"
    article.write_text(article.read_text().replace("The vendor lists", "The vendor \u2067lists\u2069"),
                       encoding="utf-8")
    site = render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "site")
    pages = {p.name: p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    for name, html in pages.items():
        assert not re.search("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]", html), name
    assert "The vendor [U+202E]lists" in pages["kv--vendor-hbm.html"]
    assert "The vendor [U+2067]lists[U+2069]" in pages["kv.html"]
    assert visible("a\u200fb") == "a[U+200F]b"


@pytest.mark.parametrize("written, shown", [
    ("16 Gparameter", "16 billion parameters"), ("82.2 %", "82.2%"), ("2023", "2023"), ("198.6 GB", "198.6 GB"),
    ("131,072 token", "131,072 tokens"),
])
def test_a_correction_is_written_as_a_reader_writes_it(written, shown):
    from workings.render.words import figure_words

    assert figure_words(written) == shown


def test_on_this_ledger_every_figure_of_every_article_is_marked_or_noted(tmp_path):
    """Each figure check-draft finds in the published texts is marked in place, or (a relation, or a
    printed equation around a marked figure) given its note; errata always with their correction."""
    from workings.render.articles import blocks, load_articles

    report = verify(REPO)
    articles, problems = load_articles(REPO, report)
    assert problems == [] and {a.slug for a in articles} >= {"kv-bytes-per-token", "hundred-messages"}
    for article in articles:
        placed = blocks(article)
        marked = [p["figure"] for b in placed for p in b["pieces"] if "figure" in p]
        noted = [n["figure"] for b in placed for n in b["notes"]]
        for figure in article.check.figures:
            assert any(figure is m for m in marked) or any(figure is n for n in noted), (article.slug, figure)
            if figure.status != "backed":
                assert any(figure is n for n in noted), (article.slug, figure)
