"""The whole working's line and its list of leaves are built in Python (render/workingline.py) as the
claim page's macros and loop built them: the same bytes, for every claim of this repository and
generated chains."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from workings import verify
from workings.render import environment
from workings.render.views import Site
from workings.render.workingline import leaves_list, working_line

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402

# The macros as the claim page had them (templates/macros.html before the line moved to Python).
MACROS = """{% macro node(n) %}{% if n.paren %}<span class="paren" data-term="(">(</span>{% endif %}{% if n.claim and n.claim.href %}<span class="group" data-claim="{{ n.claim.id }}" data-status="{{ n.claim.status }}">{% endif %}{% if n.op == "leaf" %}{{ leaf(n.leaf) }}{% elif n.op == "neg" %}<span data-term="-">−</span>{{ node(n.children[0]) }}{% elif n.op == "call" %}<span data-term="{{ n.call }}(">{{ n.call }}(</span>{% for c in n.children %}{{ node(c) }}{% if not loop.last %}<span data-term=",">, </span>{% endif %}{% endfor %}<span data-term=")">)</span>{% else %}{{ node(n.children[0]) }} <span class="op" data-term="{{ n.term }}">{{ n.op }}</span> {{ node(n.children[1]) }}{% endif %}{% if n.claim and n.claim.href %}</span>{% endif %}{% if n.paren %}<span class="paren" data-term=")">)</span>{% endif %}{% endmacro %}
{% macro leaf(l) %}{% if l.kind == "unit" %}<span class="unit" data-term="{{ l.term }}">{{ l.text }}</span>{% elif l.kind == "number" %}<span class="num const" data-term="{{ l.term }}">{{ l.text }}</span>{% elif l.href %}<a class="leaf leaf-{{ l.kind }}" href="{{ up }}{{ l.href }}" data-leaf-link="{{ l.index }}" data-term="{{ l.term }}"><span class="num">{{ l.text }}</span>{% if l.caption %} <span class="caption">{{ l.caption }}</span>{% endif %}</a>{% else %}<span class="leaf leaf-{{ l.kind }}" data-term="{{ l.term }}"><span class="num">{{ l.text }}</span>{% if l.caption %} <span class="caption">{{ l.caption }}</span>{% endif %}</span>{% endif %}{% endmacro %}"""

# The list of leaves as claim.html had it.
LEAVES = """{% if working.leaves %}
<ol class="leaves">
{% for leaf in working.leaves %}
<li id="leaf-{{ leaf.index }}" data-leaf="{{ leaf.index }}"><span class="num" data-leaf-value>{{ leaf.text }}</span> <span class="leaf-name">{{ leaf.name }}</span>:
{% if leaf.kind == "source" %}read from {{ m.source_link(leaf.source) }}{% if leaf.href %} <a href="{{ up }}{{ leaf.href }}" data-leaf-source>{{ leaf.key }}</a>{% endif %}{% if leaf.snapshot %} (<a href="{{ up }}{{ leaf.snapshot }}">archived copy</a>){% endif %}{% if leaf.passage %}<blockquote class="passage">{{ leaf.passage }}</blockquote>{% endif %}
{% elif leaf.kind == "literal" %}assumed{% if leaf.assumption %}: <span class="why-inline">{{ leaf.assumption }}</span>{% endif %} (<a href="{{ up }}{{ leaf.href }}">where it is stated</a>)
{% elif leaf.kind == "claim" %}{% if leaf.upstream %}the value of {{ m.claim_link(leaf.upstream) }}{% endif %}
{% endif %}</li>
{% endfor %}
</ol>
{% endif %}
"""


def _both(report) -> int:
    env = environment()
    template = env.from_string(MACROS + "{{ node(tree) }}")
    listed = env.from_string('{% import "macros.html" as m with context %}' + LEAVES)
    site = Site(report, {})
    compared = 0
    for claim in report.claims:
        working = site.working(claim)
        if working is None:
            continue
        for up in ("../", ""):
            assert str(working_line(working["tree"], up)) == template.render(tree=working["tree"], up=up), claim.id
            expected = listed.render(working=working, up=up)
            assert (str(leaves_list(working["leaves"], up)) if working["leaves"] else "") == expected, claim.id
        compared += 1
    return compared


def test_every_working_of_this_repository_is_the_macros_markup(tmp_path):
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, tmp_path / part)
    assert _both(verify(tmp_path)) > 50


def test_generated_chains_are_the_macros_markup(tmp_path):
    bench.make_ledger(tmp_path, 40, "b")  # chains of 10: each working holds the claims it rests on
    assert _both(verify(tmp_path)) == 40
