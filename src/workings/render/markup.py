"""The small pieces of markup pages share (templates/macros.html's links, marks and lists), in Python,
for the parts of pages laid out in Python (the claim page, the whole working): the same bytes as
the macros (tests/test_claim_page.py holds each to its macro).

``e`` is ``{{ value }}`` under the environment's autoescape: finalized (bidi controls made visible),
then escaped; nothing from a record is ever marked safe.
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import escape

from ..models import GRADE_MEANING
from .views import STATUS_SYMBOL
from .words import finalize

_SPECIAL = re.compile(r"[&<>'\"]")


def e(value: Any) -> str:
    """``{{ value }}`` under autoescape: finalize, then escape (plain ASCII text without a character
    to escape is returned as it is, the common case, without building a Markup)."""
    if value.__class__ is str and value.isascii():
        return value if _SPECIAL.search(value) is None else str(escape(value))
    if value.__class__ is int:
        return str(value)
    return str(escape(finalize(value)))


def status(s: Any) -> str:
    return (f'<span class="status status-{e(s)}"><span class="sym" aria-hidden="true">{e(STATUS_SYMBOL.get(s, ""))}'
            f"</span> {e(s)}</span>")


def grade(g: Any) -> str:
    if g:
        return f'<span class="grade grade-{e(g)}" title="{e(GRADE_MEANING.get(g, ""))}">{e(g)}</span>'
    return '<span class="grade">no grade</span>'


def source_link(link: dict, up: str) -> str:
    """``up`` is already escaped (as ``e(up)`` gives it)."""
    if link["href"]:
        return f'<a href="{up}{e(link["href"])}">{e(link["id"])}</a> {grade(link["grade"])}'
    return f'<span class="missing">{e(link["id"])}</span> (no such source)'


def claim_link(link: dict, up: str) -> str:
    """``up`` is already escaped (as ``e(up)`` gives it)."""
    if link["href"]:
        return (f'<a class="claim-link" href="{up}{e(link["href"])}" data-claim="{e(link["id"])}" '
                f'data-status="{e(link["status"])}">{e(link["id"])}</a> {status(link["status"])}')
    return (f'<span class="claim-link missing" data-claim="{e(link["id"])}" data-status="error">{e(link["id"])}</span>'
            " (no such claim)")


def place(file: Any, line: Any, key: Any = "") -> str:
    return (f'<code class="place">{e(file)}' + (f":{e(line)}" if line else "") + (f" {e(key)}" if key else "")
            + "</code>")


def messages(items) -> str:
    if not items:
        return ""
    out = ['<ul class="messages">\n']
    for m in items:
        where = f" {place(m.file, m.line, m.key)}" if m.file else ""
        out.append(f'<li class="message message-{e(m.kind)}"><span class="kind">{e(m.kind)}</span> {e(m.text)}{where}</li>\n')
    out.append("</ul>\n")
    return "".join(out)
