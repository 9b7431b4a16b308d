"""A claim's whole working as HTML: the line and the numbered list of its leaves, the markup the
claim page's template used to build with recursive macros and a loop, built here in Python.

A working written out to its leaves has up to ~60 leaves and as many operators; as Jinja macros that
was a few hundred macro calls per page, the largest part of render at 10,000 claims. The markup is
the same, byte for byte (tests/test_working_line.py renders both): every value goes through the
environment's ``finalize`` (bidi controls made visible) and is escaped, as ``{{ value }}`` does under
autoescape; nothing from a record is ever marked safe.
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup, escape

from ..models import GRADE_MEANING
from .views import STATUS_SYMBOL
from .words import finalize


_SPECIAL = re.compile(r"[&<>'\"]")


def _e(value: Any) -> str:
    """``{{ value }}`` under autoescape: finalize, then escape (plain ASCII text without a character
    to escape is returned as it is, the common case, without building a Markup)."""
    if value.__class__ is str and value.isascii():
        return value if _SPECIAL.search(value) is None else str(escape(value))
    if value.__class__ is int:
        return str(value)
    return str(escape(finalize(value)))


def working_line(tree: dict, up: str) -> Markup:
    """The working's tree (``Site.node``) as the page shows it; ``up`` leads to the site's root."""
    out: list[str] = []
    _node(tree, _e(up), out)
    return Markup("".join(out))


def _node(n: dict, up: str, out: list[str]) -> None:
    if n["paren"]:
        out.append('<span class="paren" data-term="(">(</span>')
    claim = n["claim"]
    grouped = bool(claim and claim["href"])
    if grouped:
        out.append(f'<span class="group" data-claim="{_e(claim["id"])}" data-status="{_e(claim["status"])}">')
    op, children = n["op"], n["children"]
    if op == "leaf":
        _leaf(n["leaf"], up, out)
    elif op == "neg":
        out.append('<span data-term="-">−</span>')
        _node(children[0], up, out)
    elif op == "call":
        call = _e(n["call"])
        out.append(f'<span data-term="{call}(">{call}(</span>')
        for index, child in enumerate(children):
            _node(child, up, out)
            if index < len(children) - 1:
                out.append('<span data-term=",">, </span>')
        out.append('<span data-term=")">)</span>')
    else:
        _node(children[0], up, out)
        out.append(f' <span class="op" data-term="{_e(n["term"])}">{_e(op)}</span> ')
        _node(children[1], up, out)
    if grouped:
        out.append("</span>")
    if n["paren"]:
        out.append('<span class="paren" data-term=")">)</span>')


def _leaf(leaf: dict, up: str, out: list[str]) -> None:
    kind = leaf["kind"]
    if kind == "unit":
        out.append(f'<span class="unit" data-term="{_e(leaf["term"])}">{_e(leaf["text"])}</span>')
    elif kind == "number":
        out.append(f'<span class="num const" data-term="{_e(leaf["term"])}">{_e(leaf["text"])}</span>')
    else:
        caption = f' <span class="caption">{_e(leaf["caption"])}</span>' if leaf["caption"] else ""
        inner = f'<span class="num">{_e(leaf["text"])}</span>{caption}'
        if leaf["href"]:
            out.append(f'<a class="leaf leaf-{_e(kind)}" href="{up}{_e(leaf["href"])}" data-leaf-link="{_e(leaf["index"])}" '
                       f'data-term="{_e(leaf["term"])}">{inner}</a>')
        else:
            out.append(f'<span class="leaf leaf-{_e(kind)}" data-term="{_e(leaf["term"])}">{inner}</span>')


def leaves_list(leaves: list[dict], up: str) -> Markup:
    """The numbered leaves (``Site.leaf`` each, in order): what each value is and where it comes from."""
    up = _e(up)
    out = ['<ol class="leaves">\n']
    for leaf in leaves:
        index = _e(leaf["index"])
        out.append(f'<li id="leaf-{index}" data-leaf="{index}"><span class="num" data-leaf-value>{_e(leaf["text"])}</span> '
                   f'<span class="leaf-name">{_e(leaf["name"])}</span>:\n')
        kind = leaf["kind"]
        if kind == "source":
            out.append(f"read from {_source_link(leaf['source'], up)}")
            if leaf["href"]:
                out.append(f' <a href="{up}{_e(leaf["href"])}" data-leaf-source>{_e(leaf["key"])}</a>')
            if leaf["snapshot"]:
                out.append(f' (<a href="{up}{_e(leaf["snapshot"])}">archived copy</a>)')
            if leaf["passage"]:
                out.append(f'<blockquote class="passage">{_e(leaf["passage"])}</blockquote>')
        elif kind == "literal":
            out.append("assumed")
            if leaf["assumption"]:
                out.append(f': <span class="why-inline">{_e(leaf["assumption"])}</span>')
            out.append(f' (<a href="{up}{_e(leaf["href"])}">where it is stated</a>)\n')
        elif kind == "claim" and leaf.get("upstream"):
            out.append(f"the value of {_claim_link(leaf['upstream'], up)}")
        out.append("</li>\n")
    out.append("</ol>\n")
    return Markup("".join(out))


def _grade(grade: Any) -> str:
    if grade:
        return f'<span class="grade grade-{_e(grade)}" title="{_e(GRADE_MEANING.get(grade, ""))}">{_e(grade)}</span>'
    return '<span class="grade">no grade</span>'


def _source_link(link: dict, up: str) -> str:
    if link["href"]:
        return f'<a href="{up}{_e(link["href"])}">{_e(link["id"])}</a> {_grade(link["grade"])}'
    return f'<span class="missing">{_e(link["id"])}</span> (no such source)'


def _claim_link(link: dict, up: str) -> str:
    status = link["status"]
    if link["href"]:
        return (f'<a class="claim-link" href="{up}{_e(link["href"])}" data-claim="{_e(link["id"])}" '
                f'data-status="{_e(status)}">{_e(link["id"])}</a> <span class="status status-{_e(status)}">'
                f'<span class="sym" aria-hidden="true">{_e(STATUS_SYMBOL.get(status, ""))}</span> {_e(status)}</span>')
    return (f'<span class="claim-link missing" data-claim="{_e(link["id"])}" data-status="error">{_e(link["id"])}</span>'
            " (no such claim)")
