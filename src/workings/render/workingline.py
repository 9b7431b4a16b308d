"""A claim's whole working as HTML: the line and the numbered list of its leaves, the markup the
claim page's template used to build with recursive macros and a loop, built here in Python.

A working written out to its leaves has up to ~60 leaves and as many operators; as Jinja macros that
was a few hundred macro calls per page, the largest part of render at 10,000 claims. The markup is
the same, byte for byte (tests/test_working_line.py holds it to those macros): every value goes
through the environment's ``finalize`` (bidi controls made visible) and is escaped, as ``{{ value }}``
does under autoescape; nothing from a record is ever marked safe.

Workings share their parts (``working.Expander``: a chain's first claim is written out inside each
claim after it), and so does their markup: each part's markup is built once, with a slot where a
leaf's number goes (a leaf is numbered where it first appears in the whole working, so the same part
has other numbers on another page), and each page fills the slots in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ..working import Node, Working
from .markup import claim_link, e, source_link
from .views import _TERM

if TYPE_CHECKING:
    from .views import Site


class Lines:
    """The whole working's line and list of leaves, for the claim pages of one site (``up`` leads
    from a page to the site's root)."""

    def __init__(self, site: Site, up: str):
        self.site, self.up = site, e(up)
        self._parts: dict[int, tuple[Node, tuple]] = {}  # a working's children (by id) -> (it, its markup)
        self._slots: dict[tuple[str, str], int] = {}     # a numbered leaf's key -> its slot
        self._items: dict[tuple[str, str], str] = {}     # a numbered leaf's key -> its item in the list
        self._marks: dict[tuple, tuple] = {}             # a leaf's (claim, input or unit, caption) -> its markup
        self._groups: dict[str, str] = {}               # a claim -> the opening of its group ("" where unlinked)
        self._kept: dict[str, list[tuple[dict, Any]]] = {}  # a claim -> what is kept for it, where
        self._page = ""
        self._next_slot = 0

    def _keep(self, claim_id: str, where: dict, key: Any) -> None:
        self._kept.setdefault(claim_id, []).append((where, key))

    def forget(self, claim_id: str) -> None:
        """Drop what is kept for ``claim_id``'s working and leaves (no page left to render holds them)."""
        for where, key in self._kept.pop(claim_id, ()):
            where.pop(key, None)

    def markup(self, work: Working) -> tuple[Markup, Markup]:
        """The working's tree as the page shows it, and its numbered leaves: what each value is and
        where it comes from ("" where there are none). One pass over the leaves numbers both."""
        pieces: list = []
        self._page = work.claim
        self._node(work.tree, pieces, shared=True)
        slots, items = self._slots, self._items  # a leaf without a link has no slot: None, never asked for
        numbers: dict[int | None, str] = {}
        listed = ['<ol class="leaves">\n']
        for number, leaf in enumerate(work.order, start=1):
            key = (leaf.claim, leaf.input)
            while number >= len(_NUMBERED):
                n = len(_NUMBERED)
                _NUMBERED.append((str(n), f'<li id="leaf-{n}" data-leaf="{n}">'))
            text, opening = _NUMBERED[number]
            numbers[slots.get(key)] = text
            item = items.get(key)
            if item is None:
                item = items[key] = _item(self.site.leaf(leaf), self.up)
                self._keep(leaf.claim, items, key)
            listed.append(opening)
            listed.append(item)
        line = Markup("".join([p if p.__class__ is str else numbers[p] for p in pieces]))
        if not work.order:
            return line, Markup("")
        listed.append("</ol>\n")
        return line, Markup("".join(listed))

    def _slot(self, key: tuple[str, str]) -> int:
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = self._next_slot
            self._next_slot += 1
            self._keep(key[0], self._slots, key)
        return slot

    def _node(self, n: Node, out: list, shared: bool = False) -> None:
        """``n``'s markup into ``out``; ``shared``: it is a working any page may hold (a page's own, an
        input claim's), so its markup is kept."""
        if n.paren:
            out.append('<span class="paren" data-term="(">(</span>')
        group = None
        if n.claim:
            group = self._groups.get(n.claim)
            if group is None:
                claim = self.site.claim_link(n.claim)
                group = self._groups[n.claim] = (
                    f'<span class="group" data-claim="{e(claim["id"])}" data-status="{e(claim["status"])}">'
                    if claim["href"] else "")
                self._keep(n.claim, self._groups, n.claim)
            if group:
                out.append(group)
        if n.op != "leaf" and (shared or n.claim):  # the same children: the same markup, built once
            found = self._parts.get(id(n.children))
            if found is None:
                inner: list = []
                self._inner(n, inner)
                found = self._parts[id(n.children)] = (n, _joined(inner))
                self._keep(n.claim or self._page, self._parts, id(n.children))
            out.extend(found[1])
        else:
            self._inner(n, out)
        if group:
            out.append("</span>")
        if n.paren:
            out.append('<span class="paren" data-term=")">)</span>')

    def _inner(self, n: Node, out: list) -> None:
        op, children = n.op, n.children
        if op == "leaf":
            self._leaf(n, out)
        elif op == "neg":
            out.append('<span data-term="-">−</span>')
            self._node(children[0], out)
        elif op == "call":
            call = e(n.call)
            out.append(f'<span data-term="{call}(">{call}(</span>')
            for index, child in enumerate(children):
                self._node(child, out)
                if index < len(children) - 1:
                    out.append('<span data-term=",">, </span>')
            out.append('<span data-term=")">)</span>')
        else:
            self._node(children[0], out)
            mark = _OPS.get(op)
            if mark is None:
                mark = _OPS[op] = f' <span class="op" data-term="{e(_TERM.get(op, op))}">{e(op)}</span> '
            out.append(mark)
            self._node(children[1], out)

    def _leaf(self, n: Node, out: list) -> None:
        leaf = n.leaf
        assert leaf is not None  # a leaf node holds its leaf
        if leaf.kind == "number":
            key: tuple = (None, str(leaf.value.value) if leaf.value else "")
        else:  # a numbered leaf (by its claim and input), or a unit (no claim, its name)
            key = (leaf.claim, leaf.input or leaf.name, n.caption)
        found = self._marks.get(key)
        if found is None:
            found = self._marks[key] = self._mark(n)
            self._keep(leaf.claim, self._marks, key)
        out.extend(found)

    def _mark(self, n: Node) -> tuple:
        """A leaf's markup in the line: the whole of it, or around the slot for its number."""
        assert n.leaf is not None
        leaf = self.site.leaf(n.leaf)
        kind = leaf["kind"]
        if kind == "unit":
            return (f'<span class="unit" data-term="{e(leaf["term"])}">{e(leaf["text"])}</span>',)
        if kind == "number":
            return (f'<span class="num const" data-term="{e(leaf["term"])}">{e(leaf["text"])}</span>',)
        caption = n.caption.replace("_", " ")
        caption = f' <span class="caption">{e(caption)}</span>' if caption else ""
        inner = f'<span class="num">{e(leaf["text"])}</span>{caption}'
        if leaf["href"]:
            return (f'<a class="leaf leaf-{e(kind)}" href="{self.up}{e(leaf["href"])}" data-leaf-link="',
                    self._slot((n.leaf.claim, n.leaf.input)), f'" data-term="{e(leaf["term"])}">{inner}</a>')
        return (f'<span class="leaf leaf-{e(kind)}" data-term="{e(leaf["term"])}">{inner}</span>',)


_OPS: dict[str, str] = {}  # an operator's markup
_NUMBERED: list[tuple[str, str]] = []  # a leaf's number as text, and its item's opening tag, by the number


def _joined(pieces: list) -> tuple:
    """``pieces`` with each run of markup joined into one string (slots stay as they are)."""
    out: list = []
    run: list[str] = []
    for piece in pieces:
        if piece.__class__ is str:
            run.append(piece)
        else:
            if run:
                out.append("".join(run))
                run = []
            out.append(piece)
    if run:
        out.append("".join(run))
    return tuple(out)


def _item(leaf: dict, up: str) -> str:
    """A leaf's item in the list, after its opening tag (which holds its number)."""
    out = [f'<span class="num" data-leaf-value>{e(leaf["text"])}</span> <span class="leaf-name">{e(leaf["name"])}</span>:\n']
    kind = leaf["kind"]
    if kind == "source":
        out.append(f"read from {source_link(leaf['source'], up)}")
        if leaf["href"]:
            out.append(f' <a href="{up}{e(leaf["href"])}" data-leaf-source>{e(leaf["key"])}</a>')
        if leaf["snapshot"]:
            out.append(f' (<a href="{up}{e(leaf["snapshot"])}">archived copy</a>)')
        if leaf["passage"]:
            out.append(f'<blockquote class="passage">{e(leaf["passage"])}</blockquote>')
    elif kind == "literal":
        out.append("assumed")
        if leaf["assumption"]:
            out.append(f': <span class="why-inline">{e(leaf["assumption"])}</span>')
        out.append(f' (<a href="{up}{e(leaf["href"])}">where it is stated</a>)\n')
    elif kind == "claim" and leaf.get("upstream"):
        out.append(f"the value of {claim_link(leaf['upstream'], up)}")
    out.append("</li>\n")
    return "".join(out)
