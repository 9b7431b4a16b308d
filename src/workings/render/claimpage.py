"""A claim's page, laid out in Python: the markup the claim page's template made, byte for byte.

A site has a page per claim (10,000 and more); through Jinja each cost about as much as everything
else render does for it (attribute lookups, a few dozen macro calls, the macros module imported
again with the page's context). The frame (head, header, footer) is still base.html's, rendered once
per site; this module lays out the page's own part from ``Site.claim``'s view, as the template did.
tests/test_claim_page.py holds it to that template (kept as tests/claim_template.html) on this
repository's ledger, a
generated one and one of broken records. As in the template, every value is finalized (bidi controls
made visible) and escaped (``markup.e``); nothing a record holds is marked safe.
"""

from __future__ import annotations

from jinja2 import Environment
from markupsafe import Markup

from .markup import claim_link, e, grade, messages, place, source_link, status, title
from .views import GRADE_MEANING
from .words import page_title

_FRAME = '{% extends "base.html" %}{% block title %}\x00{% endblock %}{% block main %}\x01{% endblock %}'


class ClaimPages:
    """Claim pages for one site; ``up`` leads from a page to the site's root."""

    def __init__(self, env: Environment, up: str):
        frame = env.from_string(_FRAME).render(up=up)
        opened, closed = frame.index("<title>") + len("<title>"), frame.index("</title>")
        self.head, self.middle, self.foot = frame[:opened], frame[closed:frame.index("\x01")], \
            frame[frame.index("\x01") + 1:]
        if "\x00" in self.head + self.middle + self.foot or frame[opened:closed] != str(page_title(Markup("\x00"))):
            raise ValueError("base.html's frame is not as claim pages expect it")  # pragma: no cover
        self.up = e(up)
        self._links: dict[tuple, str] = {}  # a link's (kind, id, href, status or grade) -> its markup
        self._rows: dict[tuple, str] = {}  # a step's or an input's row, by all it shows

    def _claim_link(self, link: dict) -> str:
        key = ("claim", link["id"], link["href"], link["status"])
        found = self._links.get(key)
        if found is None:
            found = self._links[key] = claim_link(link, self.up)
        return found

    def _source_link(self, link: dict) -> str:
        key = ("source", link["id"], link["href"], link["grade"])
        found = self._links.get(key)
        if found is None:
            found = self._links[key] = source_link(link, self.up)
        return found

    def page(self, view: dict) -> str:
        """The page of one claim, from ``Site.claim``'s view of it."""
        out = [self.head, str(page_title(Markup(e(view["title"]["text"])))), self.middle]
        self._main(view, out)
        out.append(self.foot)
        return "".join(out)

    def _main(self, v: dict, out: list[str]) -> None:
        up = self.up
        claim = v["claim"]
        cid, cstatus = e(claim.id), e(claim.status)
        t = v["title"]
        out.append(f'<article class="claim" data-claim="{cid}" data-status="{cstatus}">\n'
                   f'<p class="crumbs"><a href="{up}index.html">All claims</a> › {e(claim.group or "(no group)")}</p>\n'
                   f'<h1 class="title">{title(t)}</h1>\n'
                   f'<p class="verdict status-{cstatus}">{status(claim.status)} <span class="reason">{e(claim.reason)}</span></p>\n')
        if v["printed_in"]:
            places = "; ".join(f'<a href="{up}{e(p["href"])}">{e(p["title"])}</a> (“{e(p["text"])}”)' for p in v["printed_in"])
            out.append(f'<p class="printed-in">Printed in {places}.</p>\n')
        out.append('\n<section class="recomputed">\n<h2>The figure</h2>\n')
        label = f'<dt>Label</dt><dd><span class="label">{e(claim.label or "none")}</span>' + \
            (f": {e(v['label_note'])}" if v["label_note"] else "") + "</dd>\n"
        basis = ""
        if v["basis"]:
            basis = f'<dt>Basis</dt><dd class="basis" data-basis="{e(v["basis"])}">{e(v["basis"])}' + \
                (f": {e(v['basis_note'])}" if v["basis_note"] else "") + "</dd>"
        if claim.about:  # the model the record says the claim is about
            label = f'<dt>About</dt><dd class="about">{e(claim.about)}</dd>\n' + label
        comparison, result = v["comparison"], v["result"]
        if comparison:
            c = comparison
            out.append('<dl class="facts">\n'
                       f'<dt>Printed</dt><dd class="num"><span class="printed" data-printed>{e(c["printed"])}</span></dd>\n'
                       f'<dt>Recomputed</dt><dd class="num"><span class="value" data-recomputed>{e(c["reader"])}</span></dd>\n'
                       f'<dt>Exactly</dt><dd class="num"><span data-exact>{e(c["exact"])}</span></dd>\n'
                       f'<dt>Compared</dt><dd>{e(c["rule"])}, in {e(c["unit"] or "pure numbers")}: '
                       + ("<b>holds</b>" if c["holds"] else "<b>does not hold</b>") + "</dd>\n"
                       + label + basis + "</dl>\n")
        elif result:
            out.append('<dl class="facts">\n'
                       + (f"<dt>Asserts</dt><dd><code>{e(claim.check)}</code></dd>" if claim.check else "")
                       + f'<dt>Result</dt><dd class="num"><span class="value" data-recomputed>{e(result["reader"])}</span></dd>\n'
                       f'<dt>Exactly</dt><dd class="num"><span data-exact>{e(result["exact"])}</span></dd>\n'
                       + label + basis + "</dl>\n")
        else:
            out.append(f'<p class="none">Not recomputed: {e(claim.reason or claim.status)}.</p>\n')
            if claim.figure:
                out.append(f'<p>Printed: <span class="num">{e(claim.figure)}</span>. Label: <span class="label">'
                           f'{e(claim.label or "none")}</span>' + (f": {e(v['label_note'])}" if v["label_note"] else "")
                           + ".</p>")
        if v["moved"]:
            items = "".join(f"<li><code>{e(link['name'])}</code> from {self._claim_link(link)}</li>" for link in v["moved"])
            out.append(f'<p>Inputs that moved:</p>\n<ul class="links">{items}</ul>\n')
        if claim.erratum:
            out.append(f'<p class="erratum"><b>Erratum.</b> The right figure is <span class="num">{e(v["correction"])}</span>: '
                       f'{e(claim.erratum["reason"])}</p>\n')
        out.append("</section>\n\n")
        working = v["working"]
        if working:
            out.append('<section class="whole-working" aria-labelledby="whole-working">\n'
                       '<h2 id="whole-working">The whole working</h2>\n'
                       f'<p class="working" data-working>{working["line"]}')
            if working["result"]:
                out.append(f' <span class="eq">=</span> <span class="num result" data-working-result>{e(working["result"])}</span>')
            else:
                out.append(f': <b data-working-holds>{"holds" if working["holds"] else "does not hold"}</b>')
            out.append("</p>\n")
            if not working["agrees"]:
                out.append('<p class="message message-drift">Written out in one line, these values do not give the '
                           "engine's result; the steps below are the engine's own.</p>")
            if working["claims"]:
                out.append('<p class="note">Each group in brackets is the working of another claim this one uses '
                           f'({len(working["claims"])} in all; see Related claims), written out down to its sources.</p>')
            if not working["complete"]:
                out.append('<p class="note">Some claims are kept as one value (linked) to keep the line readable.</p>')
            if working["leaves"]:
                out.append(str(working["leaves"]))
            out.append("</section>\n")
        out.append("\n")
        if v["steps"]:
            out.append("<section>\n<h2>Step by step</h2>\n<ol class=\"steps\">\n")
            for s in v["steps"]:
                out.append(self._row(_step, (s["name"], s["expression"], s["reader"], s["exact"], s["display"])))
            out.append("</ol>\n<p class=\"note\">Steps run in order; the last is the result. Units are checked at "
                       "every step.</p>\n</section>\n")
        out.append("\n")
        if v["inputs"]:
            out.append('<section>\n<h2>Inputs</h2>\n<div class="scroll">\n<table class="inputs">\n'
                       '<thead><tr><th scope="col">name</th><th scope="col">value</th><th scope="col">from</th></tr></thead>\n'
                       "<tbody>\n")
            for i in v["inputs"]:
                link = i.get("source") or i.get("claim") or {}
                out.append(self._row(self._input, (i["name"], i["kind"], i["reader"], i["exact"], i["display"], i["key"],
                                                   i.get("key_anchor"), i["passage"], i["text"], i["assumption"],
                                                   link.get("id"), link.get("href"), link.get("grade"),
                                                   link.get("status"))))
            out.append("</tbody>\n</table>\n</div>\n</section>\n")
        out.append("\n")
        if v["cites"]:
            items = "".join(f'<li>{self._source_link(c)} <code>#{e(c["passage_id"])}</code><blockquote class="passage">'
                            f'{e(c["text"] or "")}</blockquote></li>' for c in v["cites"])
            out.append(f'<section>\n<h2>Passages relied on</h2>\n<ul class="cites">{items}</ul>\n</section>\n')
        out.append("\n")
        out.append('<section>\n<h2>Related claims</h2>\n<dl class="facts">\n'
                   f'<dt>Uses</dt><dd>{self._list(v["uses"])}</dd>\n'
                   f'<dt>Used by</dt><dd>{self._list(v["used_by"])}</dd>\n'
                   "</dl>\n</section>\n\n<section>\n<h2>Rests on</h2>\n")
        if v["rests_on"]:
            items = "".join(f"<li>{self._source_link(s)}</li>" for s in v["rests_on"])
            meaning = f' ({e(GRADE_MEANING.get(claim.grade, ""))})' if claim.grade else ""
            out.append(f'<ul class="links">{items}</ul>\n'
                       f"<p>Least certain grade among them: {grade(claim.grade)}{meaning}.</p>\n")
        else:
            out.append('<p class="none">No archived source.</p>\n')
        out.append("</section>\n\n")
        if v["measurements"]:
            out.append('<section>\n<h2>Measurements</h2>\n<ul class="measurements">\n')
            for x in v["measurements"]:
                agrees = "<b>agrees</b>" if x["holds"] else "<b>disagrees</b>"
                out.append(f'<li><p><b>{e(x["probe"])}</b> on {e(x["device"])}, {e(x["date"])}: measured <span class="num">'
                           f'{e(x["result"])}</span> against the estimate <span class="num">{e(x["estimate"])}</span> '
                           f'({e(x["relation"])}): {agrees}, {e(x["agreement"])}.</p>\n')
                if x["stale"]:
                    out.append(f'<p class="message message-drift"><span class="kind">stale</span> {e(x["stale"])}</p>')
                out.append(f'<p class="note">{e(x["software"])}; <code>{e(x["command"])}</code>; {place(x["file"], 0)}</p></li>\n')
            out.append("</ul>\n</section>\n")
        out.append("\n")
        if claim.notes:
            out.append(f'<section>\n<h2>Notes</h2>\n<p class="notes">{e(claim.notes)}</p>\n</section>\n')
        out.append("\n")
        out.append('<details class="editors">\n<summary>For editors: the record and every message</summary>\n'
                   f'<dl class="facts">\n<dt>Claim</dt><dd><code>{cid}</code></dd>\n'
                   f"<dt>Record</dt><dd>{place(claim.file, claim.line)}</dd>\n")
        if claim.figure:
            out.append(f"<dt>figure:</dt><dd><code>{e(claim.figure)}</code></dd>")
        if claim.check:
            out.append(f"<dt>check:</dt><dd><code>{e(claim.check)}</code></dd>")
        if claim.said:
            out.append(f"<dt>said:</dt><dd>{e(claim.said)}</dd>")
        out.append("</dl>\n")
        if v["assumptions"]:
            items = "".join(f"<dt><code>{e(a['name'])} = {e(a['text'])}</code></dt><dd>{e(a['why'])}</dd>"
                            for a in v["assumptions"])
            out.append(f'<h3>Assumptions</h3>\n<dl class="facts">{items}</dl>\n')
        if v["messages"]:
            out.append(f"<h3>Messages</h3>{messages(v['messages'])}")
        else:
            out.append('<p class="none">No messages.</p>')
        out.append("</details>\n</article>\n")

    def _row(self, make, args: tuple) -> str:
        """``make(*args)``: a step's or an input's row, once per distinct row (claims reading one
        config share many). A row is laid out from its arguments alone, so they are the whole key: a
        field a row shows is an argument, and so is part of the key, by construction."""
        try:
            found = self._rows.get((make, args))
        except TypeError:  # an unhashable value: laid out each time
            return make(*args)
        if found is None:
            found = self._rows[(make, args)] = make(*args)
        return found

    def _input(self, name, kind, reader, exact, display, key, key_anchor, passage, text, assumption,
               link_id, link_href, link_grade, link_status) -> str:
        """An input's row; ``link_*``: its source's link (id, href, grade) or its claim's (id, href, status)."""
        up = self.up
        name = e(name)
        exact = f'<span class="exact">exactly {e(exact)}</span>' if exact and exact != display else ""
        out = [f'<tr data-input="{name}" id="input-{name}">\n<td data-th="name"><code>{name}</code></td>\n'
               f'<td data-th="value" class="num">{e(reader or "?")}{exact}</td>\n<td data-th="from">\n']
        if kind == "source":
            if key_anchor and link_href:
                shown = f'<a href="{up}{e(link_href)}#key-{e(key_anchor)}"><code>#{e(key)}</code></a>'
            else:
                shown = f"<code>#{e(key)}</code>"
            passage = f'<blockquote class="passage">{e(passage)}</blockquote>' if passage else ""
            out.append(f"{self._source_link({'id': link_id, 'href': link_href, 'grade': link_grade})} {shown}{passage}")
        elif kind == "claim":
            out.append(f"{self._claim_link({'id': link_id, 'href': link_href, 'status': link_status})}\n")
        else:
            why = f'<span class="why">{e(assumption)}</span>' if assumption else ""
            out.append(f"assumed: <code>{e(text)}</code>{why}")
        out.append("</td>\n</tr>\n")
        return "".join(out)

    def _list(self, links: list[dict]) -> str:
        if not links:
            return "no other claim"
        return '<ul class="links">' + "".join(f"<li>{self._claim_link(link)}</li>" for link in links) + "</ul>"


def _step(name, expression, reader, exact, display) -> str:
    """A step's row."""
    exact = f' <span class="exact">(exactly {e(exact)})</span>' if exact and exact != display else ""
    return (f'<li data-step="{e(name)}"><code class="expr"><var>{e(name)}</var> = '
            f'{e(expression)}</code>\n<span class="step-value">= <span class="num">'
            f'{e(reader or "?")}</span>{exact}</span></li>\n')
