"""Claim pages are laid out in Python (render/claimpage.py, render/markup.py) as templates/claim.html
and the macros laid them out: the same bytes. The template is kept here (tests/claim_template.html)
as the reference; each claim's page is rendered both ways, on this repository's ledger, a generated
one, the fixture ledger with every status, that ledger with markup in every text, and broken records.
So are the index's table of claims (its ``rows`` macro, kept here) and the source page's lists of
claims, which the templates now take from render/markup.py."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from markupsafe import Markup
from render_ledger import write_ledger
from test_render_safety import SCRIPT, hostile

from workings import verify
from workings.render import environment, markup
from workings.render.articles import load_articles
from workings.render.claimpage import ClaimPages
from workings.render.views import Site

REPO = Path(__file__).resolve().parent.parent
TEMPLATE = (Path(__file__).parent / "claim_template.html").read_text(encoding="utf-8")
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402


# The index's table of claims as index.html had it (a macro), before it moved to render/markup.py.
ROWS = """{% macro rows(items) %}
<div class="scroll">
<table class="claims">
<thead><tr><th scope="col">status</th><th scope="col">printed</th><th scope="col">recomputed</th><th scope="col">label</th><th scope="col">as printed</th></tr></thead>
<tbody>
{% for c in items %}
<tr data-claim="{{ c.id }}" data-status="{{ c.status }}" data-label="{{ c.label or '' }}">
<td data-th="status">{{ m.status(c.status) }}</td>
<td data-th="printed" class="{{ 'num' if c.figure else 'relation' }}">{% if c.figure %}{{ c.figure }}{% elif c.check %}<span class="check">asserts <code>{{ c.check }}</code></span>{% else %}<span class="none">none</span>{% endif %}</td>
<td data-th="recomputed" class="num">{% if c.reader %}{{ c.reader }}{% else %}<span class="none">not recomputed</span>{% endif %}</td>
<td data-th="label">{{ c.label or "no label" }}</td>
<td data-th="claim"><a href="{{ up }}{{ c.href }}" data-claim="{{ c.id }}" data-status="{{ c.status }}">{{ m.title(c.title) }}</a><span class="id">{{ c.id }}</span>{% if c.basis %}<span class="basis">{{ c.basis }}</span>{% endif %}{% if c.status != "verified" and c.reason %}<span class="reason">{{ c.reason }}</span>{% endif %}</td>
</tr>
{% endfor %}
</tbody>
</table>
</div>
{% endmacro %}
"""


def _same(report, articles=()) -> int:
    env = environment()
    template = env.from_string(TEMPLATE)
    site = Site(report, {}, articles)
    pages = ClaimPages(env, "../")
    for claim in report.claims:
        view = site.claim(claim)
        assert pages.page(view) == template.render(up="../", **view), claim.id
    rows = [site.row(claim) for claim in report.claims]
    listed = env.from_string('{% import "macros.html" as m with context %}' + ROWS + "{{ rows(items) }}")
    for up in ("", "../"):
        assert markup.claim_rows(rows, markup.e(up)) == listed.render(items=rows, up=up)
    links = env.from_string('{% import "macros.html" as m with context %}'
                            "{% for l in links %}<li>{{ m.claim_link(l) }}</li>{% endfor %}")
    for source in report.sources:
        view = site.source(source)
        for shown in [view["cited_by"]] + [r["claims"] for r in view["reads"]]:
            assert markup.claim_list(shown, "../") == links.render(links=shown, up="../")
    return len(report.claims)


def test_this_repositorys_claim_pages_are_the_templates(tmp_path):
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, tmp_path / part)
    report = verify(tmp_path)
    articles, _ = load_articles(tmp_path, report)
    assert articles  # "Printed in" on the pages of the claims the articles print
    assert _same(report, articles) > 100


def test_generated_claim_pages_are_the_templates(tmp_path):
    bench.make_ledger(tmp_path, 30, "b")
    assert _same(verify(tmp_path)) == 30


def test_every_status_with_markup_in_every_text_is_the_templates(tmp_ledger):
    write_ledger(tmp_ledger)
    report = tmp_ledger.verify()
    assert _same(report) == 7
    assert _same(hostile(report)) == 8


def test_broken_records_are_the_templates(tmp_ledger):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/typo", 'said: "x"\nfigur: 1 B\nlabel: derived\n')
    tmp_ledger.claim("kv/bad-step", 'said: "y is 2 B."\nfigure: 2 B\nlabel: derived\ninputs: {a: 2 B}\n'
                     "assumptions: {a: \"\\u202e<b>two</b>\"}\ncompute: {b: a +}\n")
    tmp_ledger.claim("kv/missing", 'said: "z is 3."\nfigure: "3"\nlabel: derived\ninputs: {a: "claim:kv/nowhere"}\n'
                     "compute: {b: a}\n")
    tmp_ledger.claim("kv/calls", 'said: "It is 1 B."\nfigure: 1 B\nlabel: estimate\ninputs: {a: 2 B}\n'
                     "assumptions: {a: two bytes}\ncompute:\n  b: -a + max(a, 3 * B)\n")  # a sign and a call
    tmp_ledger.claim("kv/nowhere", 'said: "It is 48."\nfigure: "48"\nlabel: quoted\ninputs: {n: "nowhere#layers"}\n'
                     "compute: {v: n}\n")  # a source that does not exist: an error page
    tmp_ledger.source("bad", "title: a source\ngrade: excellent\n")
    assert _same(tmp_ledger.verify()) >= 5


def test_a_row_with_a_value_that_cannot_be_a_key_is_laid_out_each_time():
    from workings.render.claimpage import _step

    pages = ClaimPages(environment(), "../")
    args = ("x", ["a"], "1", "1", "1")
    assert pages._row(_step, args) == _step(*args)
    assert pages._rows == {}


def test_a_row_is_kept_by_all_it_is_laid_out_from():
    """A step's or an input's row is laid out from its arguments alone, and kept under all of them:
    two rows differing in any one argument are two rows (a field added to a row is an argument, so it
    is in the key by construction)."""
    import inspect

    from workings.render.claimpage import _step

    pages = ClaimPages(environment(), "../")
    for make, base in ((_step, ("x", "a * b", "2 bytes", "2 B", "2 B")),
                       (pages._input, ("a", "source", "48", "48", "48", "layers", "layers", "48 layers", "cfg#layers",
                                       None, "cfg", "sources/cfg.html", "copy", None))):
        assert len(inspect.signature(make).parameters) == len(base)
        assert pages._row(make, base) == make(*base)
        for place in range(len(base)):
            changed = list(base)
            changed[place] = "other"
            assert pages._row(make, tuple(changed)) == make(*changed)
        assert sum(kept == make for kept, _ in pages._rows) == len(base) + 1  # each change, a row of its own


@pytest.mark.parametrize("value", ["plain", SCRIPT, "caf\u00e9 \u202eevil", 0, 12, None, True, 1.5, Markup("<b>x</b>")])
def test_each_piece_is_its_macros_markup(value):
    env = environment()
    macros = '{% import "macros.html" as m with context %}'

    def jinja(call: str, **context) -> str:
        return env.from_string(macros + call).render(up="../", **context)

    up = markup.e("../")
    link = {"id": value, "href": "claims/x.html", "status": value, "grade": value}
    for href in ("claims/x.html", None, ""):
        link["href"] = href
        assert markup.claim_link(link, up) == jinja("{{ m.claim_link(l) }}", l=link)
        assert markup.source_link(link, up) == jinja("{{ m.source_link(l) }}", l=link)
    for s in (value, "verified", "drift", "copy"):
        assert markup.status(s) == jinja("{{ m.status(s) }}", s=s)
        assert markup.grade(s) == jinja("{{ m.grade(s) }}", s=s)
    for line in (0, 7, value):
        assert markup.place(value, line, value) == jinja("{{ m.place(f, l, k) }}", f=value, l=line, k=value)
        assert markup.place(value, line) == jinja("{{ m.place(f, l) }}", f=value, l=line)

    class Message:
        kind, text, file, line, key = value, value, value, 3, value
    items = [Message(), Message()]
    assert markup.messages(items) == jinja("{{ m.messages(items) }}", items=items)
    assert markup.messages([]) == jinja("{{ m.messages(items) }}", items=[])
    assert markup.e(value) == jinja("{{ v }}", v=value)
    for t in ({"before": value, "mark": value, "after": value}, {"before": value, "mark": "", "after": "."}):
        assert markup.title(t) == jinja("{{ m.title(t) }}", t=t)
