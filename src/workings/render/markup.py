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


_SHORT = 120  # text up to this long is escaped once and remembered (ids, names, statuses, values)
_ESCAPED: dict[str, str] = {}


def e(value: Any) -> str:
    """``{{ value }}`` under autoescape: finalize, then escape (plain ASCII text without a character
    to escape is returned as it is, the common case, without building a Markup)."""
    if value.__class__ is str:
        found = _ESCAPED.get(value)
        if found is None:
            if value.isascii():
                found = value if _SPECIAL.search(value) is None else str(escape(value))
            else:
                found = str(escape(finalize(value)))
            if len(value) <= _SHORT and len(_ESCAPED) < 1 << 16:
                _ESCAPED[value] = found
        return found
    if value.__class__ is int:
        return str(value)
    return str(escape(finalize(value)))


def status(s: Any) -> str:
    found = _STATUS.get(s) if s.__class__ is str else None
    if found is None:
        found = (f'<span class="status status-{e(s)}"><span class="sym" aria-hidden="true">{e(STATUS_SYMBOL.get(s, ""))}'
                 f"</span> {e(s)}</span>")
        if s.__class__ is str and len(_STATUS) < 64:  # a handful of statuses, shown on every link
            _STATUS[s] = found
    return found


def grade(g: Any) -> str:
    found = _GRADE.get(g) if g.__class__ is str else None
    if found is None:
        if g:
            found = f'<span class="grade grade-{e(g)}" title="{e(GRADE_MEANING.get(g, ""))}">{e(g)}</span>'
        else:
            found = '<span class="grade">no grade</span>'
        if g.__class__ is str and len(_GRADE) < 64:  # a handful of grades, shown on every source link
            _GRADE[g] = found
    return found


_STATUS: dict[str, str] = {}  # a status's mark, by the status (the same text on every page)
_GRADE: dict[str, str] = {}   # a grade's mark, by the grade


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


def title(t: dict) -> str:
    return e(t["before"]) + (f'<mark class="figure">{e(t["mark"])}</mark>' if t["mark"] else "") + e(t["after"])


def claim_list(links, up: str) -> str:
    """Each claim link as an item (``<li>``): the links of a list on a source page or a claim page."""
    return "".join(f"<li>{claim_link(link, up)}</li>" for link in links)


def claim_rows(items, up: str) -> str:
    """The index's table of claims (``Site.row`` each): status, printed, recomputed, label, sentence."""
    out = ['<div class="scroll">\n<table class="claims">\n<thead><tr><th scope="col">status</th><th scope="col">printed'
           '</th><th scope="col">recomputed</th><th scope="col">label</th><th scope="col">as printed</th></tr></thead>\n'
           "<tbody>\n"]
    for c in items:
        cid, cstatus = e(c["id"]), e(c["status"])
        if c["figure"]:
            printed = f'<td data-th="printed" class="num">{e(c["figure"])}</td>'
        elif c["check"]:
            printed = f'<td data-th="printed" class="relation"><span class="check">asserts <code>{e(c["check"])}</code></span></td>'
        else:
            printed = '<td data-th="printed" class="relation"><span class="none">none</span></td>'
        recomputed = e(c["reader"]) if c["reader"] else '<span class="none">not recomputed</span>'
        basis = f'<span class="basis">{e(c["basis"])}</span>' if c["basis"] else ""
        reason = f'<span class="reason">{e(c["reason"])}</span>' if c["status"] != "verified" and c["reason"] else ""
        out.append(f'<tr data-claim="{cid}" data-status="{cstatus}" data-label="{e(c["label"] or "")}">\n'
                   f'<td data-th="status">{status(c["status"])}</td>\n{printed}\n'
                   f'<td data-th="recomputed" class="num">{recomputed}</td>\n'
                   f'<td data-th="label">{e(c["label"] or "no label")}</td>\n'
                   f'<td data-th="claim"><a href="{up}{e(c["href"])}" data-claim="{cid}" data-status="{cstatus}">'
                   f'{title(c["title"])}</a><span class="id">{cid}</span>{basis}{reason}</td>\n</tr>\n')
    out.append("</tbody>\n</table>\n</div>\n")
    return "".join(out)
