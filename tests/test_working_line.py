"""The whole working's line and its list of leaves are built in Python (render/workingline.py) as the
claim page's macros and loop built them, from workings expanded as the earlier expansion did
(tests/working_oracle.py: each claim's working built on its own, leaf by leaf, then evaluated whole):
the same workings and the same bytes, for every claim of this repository, generated chains (whose
later claims are too large to write out whole) and claims that each use one claim twice."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import working_oracle as oracle
from workings import verify
from workings.render import environment
from workings.render.views import _TERM, Site
from workings.working import Expander, expand

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


def _node(site: Site, node) -> dict:
    """The tree as views.py gave it to the macros (before the markup was built in Python)."""
    out = {"op": node.op, "paren": node.paren, "call": node.call, "term": _TERM.get(node.op, node.op),
           "children": [_node(site, c) for c in node.children],
           "claim": site.claim_link(node.claim) if node.claim else None}
    if node.leaf is not None:
        out["leaf"] = _leaf(site, node.leaf) | {"caption": node.caption.replace("_", " ")}
    return out


def _leaf(site: Site, leaf) -> dict:
    """A leaf as views.py gave it to the macros: its own number (``index``) inside."""
    if leaf.kind == "unit":
        return {"kind": "unit", "text": leaf.name, "href": None, "index": 0, "term": leaf.name}
    return site.leaf(leaf) | {"index": leaf.index}


def _shape(node, number) -> tuple:
    """A tree as plain tuples, each leaf with the number ``number`` gives it."""
    leaf = node.leaf
    if leaf is not None:
        leaf = (leaf.kind, leaf.value, leaf.name, number(leaf), leaf.claim, leaf.input, leaf.source, leaf.key,
                leaf.passage, leaf.grade, leaf.assumption, leaf.upstream, leaf.upstream_status)
    return (node.op, node.call, node.claim, node.caption, node.paren, leaf,
            tuple(_shape(c, number) for c in node.children))


def _leaves(leaves) -> tuple:
    return tuple((leaf.kind, leaf.value, leaf.name, leaf.index, leaf.claim, leaf.input, leaf.source, leaf.key,
                  leaf.passage, leaf.grade, leaf.assumption, leaf.upstream, leaf.upstream_status) for leaf in leaves)


def _both(report) -> int:
    """Every claim: the shared expansion is the one-claim-at-a-time one, and the page's markup is the
    macros' markup of it."""
    env = environment()
    template = env.from_string(MACROS + "{{ node(tree) }}")
    listed = env.from_string('{% import "macros.html" as m with context %}' + LEAVES)
    site = Site(report, {})
    shared = Expander(report)
    compared = 0
    for claim in report.claims:
        before = oracle.expand(report, claim.id)
        work = shared.working(claim.id)
        alone = expand(report, claim.id)
        assert (work is None) == (before is None) == (alone is None), claim.id
        if work is None:
            continue
        numbered = lambda leaf: work.numbers.get((leaf.claim, leaf.input), 0) if leaf.kind not in ("number", "unit") else 0  # noqa: E731
        seen = (_shape(work.tree, numbered), _leaves(work.leaves), work.result, work.claims, work.agrees,
                work.complete, work.holds)
        assert seen == (_shape(before.tree, lambda leaf: leaf.index), _leaves(before.leaves), before.result,
                        before.claims, before.agrees, before.complete, before.holds), claim.id
        assert alone.text() == work.text() == before.text(), claim.id
        page = site.working(claim)
        tree, leaves = _node(site, before.tree), [_leaf(site, leaf) for leaf in before.leaves]
        assert str(page["line"]) == template.render(tree=tree, up="../"), claim.id
        expected = listed.render(working={"leaves": leaves}, up="../")
        assert str(page["leaves"]) == expected, claim.id
        compared += 1
    return compared


def test_every_working_of_this_repository_is_the_macros_markup(tmp_path):
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, tmp_path / part)
    assert _both(verify(tmp_path)) > 50


def test_generated_chains_are_the_macros_markup(tmp_path):
    bench.make_ledger(tmp_path, 40, "b")  # chains of 10: each working holds the claims it rests on
    report = verify(tmp_path)
    assert _both(report) == 40
    # the later claims of a chain are too large to write out whole: the claim before stays one value
    assert not Expander(report).working("g0/c9").complete and Expander(report).working("g0/c5").complete


def test_a_claim_used_twice_is_written_out_twice_with_the_same_numbers(tmp_ledger):
    tmp_ledger.doubling_chain()
    tmp_ledger.claim("big/ratio", 'said: "y2 is four times x."\nlabel: derived\n'
                     "inputs: {y: 'claim:big/c2', x: 'claim:big/base'}\ncheck: y == 4 * x\n")
    report = tmp_ledger.verify()
    assert _both(report) == 9
    work = Expander(report).working("big/c3")
    assert work.complete and len(work.leaves) == 1 and work.text().count("48") == 8  # one leaf, eight times


def test_what_workings_share_is_dropped_after_the_last_page_holding_it(tmp_path):
    bench.make_ledger(tmp_path, 60, "b")
    report = verify(tmp_path)
    site, fresh = Site(report, {}), Site(report, {})
    held = []
    for claim, view in site.claim_views():  # the pages' order: a chain's claims are far apart in it
        assert view["working"] == fresh.working(claim), claim.id  # as if nothing had been dropped
        held.append(len(site.expander._parts))
    assert max(held) > 10 and site.expander._parts == {} and site._lines._parts == {} and site._lines._items == {}
    assert set(site._leaves) <= {""}  # only units' views, kept throughout


def test_nodes_and_leaves_built_without_their_init_are_the_dataclasses_own():
    """``working._node`` and ``working._leaf`` skip the frozen dataclasses' ``__init__`` (a site builds
    hundreds of thousands): what they build equals, prints, hashes and pickles as the constructor's,
    with the same fields in the same order, and stays frozen."""
    import dataclasses
    import pickle
    from fractions import Fraction

    from workings.report import Quantity
    from workings.working import Leaf, Node, _leaf, _node

    value = Quantity(value=Fraction(48), unit="", display="48")
    fast_leaf = _leaf("source", value, "layers", "a/b", "layers", "cfg", "num_hidden_layers", "48 layers", "copy",
                      None, None, None)
    leaf = Leaf(kind="source", value=value, name="layers", claim="a/b", input="layers", source="cfg",
                key="num_hidden_layers", passage="48 layers", grade="copy")
    fast = _node("×", (_node("leaf", (), fast_leaf, "", "", "layers"),), None, "", "a/b", "", True)
    slow = Node(op="×", children=(Node(op="leaf", leaf=leaf, caption="layers"),), claim="a/b", paren=True)
    for built, made in ((fast_leaf, leaf), (fast, slow)):
        assert built == made and repr(built) == repr(made) and hash(built) == hash(made)
        assert list(vars(built)) == list(vars(made)) == [f.name for f in dataclasses.fields(made)]
        assert pickle.loads(pickle.dumps(built)) == made
        try:
            built.claim = "else"
        except dataclasses.FrozenInstanceError:
            pass
        else:  # pragma: no cover
            raise AssertionError("a node built without __init__ is not frozen")
