"""What the ledger page shows, derived from a Report: links, safe URLs, status words, page views.

Nothing here computes a result: every value comes from the Report, and every number shown was
formatted by ``figures`` (``Quantity.display`` from ``format_number``, exact values from
``format_exact``). Templates receive these plain mappings and only lay them out.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from ..figures import format_exact
from ..models import GRADE_MEANING  # noqa: F401  (re-exported for the templates)
from ..report import BASIS_MEANING, FAILING, STATUSES, ClaimResult, Report

# Status is never shown by colour alone: each has a symbol and a word (the colour only repeats them).
STATUS_SYMBOL = {"verified": "✓", "erratum": "✎", "drift": "≠", "unchecked": "?", "error": "✗"}
STATUS_MEANING = {
    "verified": "recomputed and printed agree",
    "erratum": "wrong as printed; the correction is recorded",
    "drift": "recomputed and printed disagree, or an input claim drifted",
    "unchecked": "nothing to recompute it from",
    "error": "the record itself cannot be used",
}
LABEL_MEANING = {
    "derived": "computed from sourced values",
    "quoted": "as a source states it",
    "estimate": "an estimate, under stated assumptions",
    "bound": "an upper or lower bound",
    "vendor": "a vendor's figure, taken as given",
    "measured": "measured on real hardware",
}
_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_HUB_PART = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")


def safe_url(url) -> str | None:
    """``url`` when it is an absolute http(s) URL with a host, else None (``javascript:``, ``data:``,
    relative paths, and anything with whitespace or control characters are never linked)."""
    if not isinstance(url, str) or not url or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return url


def hub_url(hub) -> str | None:
    """The Hugging Face page of a ``hub:`` entry, when its parts are plain path segments."""
    if not isinstance(hub, dict):
        return None
    parts = [hub.get("repo"), hub.get("revision") or "main", hub.get("file")]
    if not all(isinstance(p, str) and _HUB_PART.match(p) and ".." not in p for p in parts):
        return None
    repo, revision, file = (quote(p, safe="/") for p in parts)
    return safe_url(f"https://huggingface.co/{repo}/blob/{revision}/{file}")


def page_names(ids, folder: str) -> dict[str, str]:
    """A file per id (``claims/kv--per-token.html``): flat, portable, unique even on a case-blind disk."""
    names, taken = {}, set()
    for item in sorted(ids):
        stem = _SLUG_UNSAFE.sub("-", item.replace("/", "--")).strip(".-")[:120] or "item"
        candidate, n = stem, 1
        while candidate.lower() in taken:
            n += 1
            candidate = f"{stem}-{n}"
        taken.add(candidate.lower())
        names[item] = f"{folder}/{candidate}.html"
    return names


class Site:
    """The pages of one Report and the links between them."""

    def __init__(self, report: Report, snapshots: dict[str, str]):
        self.report = report
        self.snapshots = snapshots  # source id -> path of its copied snapshot inside the site
        self.claim_pages = page_names([c.id for c in report.claims], "claims")
        self.source_pages = page_names([s.id for s in report.sources], "sources")
        self.by_id = {c.id: c for c in report.claims}
        self.sources = {s.id: s for s in report.sources}

    def claim_link(self, claim_id: str) -> dict:
        claim = self.by_id.get(claim_id)
        return {"id": claim_id, "href": self.claim_pages.get(claim_id),
                "status": claim.status if claim else None}

    def source_link(self, source_id: str | None) -> dict:
        source = self.sources.get(source_id) if source_id else None
        return {"id": source_id, "href": self.source_pages.get(source_id) if source else None,
                "grade": source.grade if source else None}

    def index(self) -> dict:
        claims = self.report.claims
        groups: dict[str, list] = {}
        for claim in claims:
            groups.setdefault(claim.group or "(no group)", []).append(self.row(claim))
        failing = [c for c in claims if c.status in FAILING]
        attention = [self.row(c) for c in sorted(failing, key=lambda c: (FAILING.index(c.status), c.id))]
        labels = sorted({c.label for c in claims if c.label})
        anchors = page_names(groups, "group")
        return {"summary": self.report.summary, "statuses": STATUSES, "labels": labels,
                "attention": attention, "corrections": [self.row(c) for c in claims if c.status == "erratum"],
                "groups": [{"name": name, "anchor": anchors[name][len("group/"):-len(".html")], "claims": items,
                            "failing": sum(c["status"] in FAILING for c in items)}
                           for name, items in sorted(groups.items())],
                "problems": [str(p) for p in self.report.problems],
                "sources": [self.source_link(s.id) | {"title": s.title, "status": s.status,
                                                      "cited": len(s.cited_by)} for s in self.report.sources]}

    def row(self, claim: ClaimResult) -> dict:
        recomputed = claim.comparison.recomputed.display if claim.comparison else (
            claim.result.display if claim.result else None)
        return {"id": claim.id, "href": self.claim_pages[claim.id], "status": claim.status, "label": claim.label,
                "figure": claim.figure, "check": claim.check, "said": claim.said, "recomputed": recomputed,
                "reason": claim.reason, "grade": claim.grade}

    def claim(self, claim: ClaimResult) -> dict:
        comparison = None
        if claim.comparison:
            c = claim.comparison
            comparison = {"printed": c.printed, "unit": c.unit, "rule": c.rule, "holds": c.holds,
                          "recomputed": c.recomputed.display,
                          "exact": f"{format_exact(c.recomputed.value)} {c.recomputed.unit}".strip()}
        result = None
        if claim.result:
            result = {"display": claim.result.display,
                      "exact": f"{format_exact(claim.result.value)} {claim.result.unit}".strip()}
        moved = [self.claim_link(i.claim) | {"name": i.name} for i in claim.inputs
                 if i.kind == "claim" and i.claim_status == "drift"]
        return {
            "claim": claim, "comparison": comparison, "result": result, "moved": moved,
            "inputs": [self.input(i) for i in claim.inputs],
            "steps": [{"name": s.name, "expression": s.expression, "line": s.line,
                       "display": s.result.display if s.result else None,
                       "exact": f"{format_exact(s.result.value)} {s.result.unit}".strip() if s.result else None,
                       "unit": s.result.unit if s.result else None} for s in claim.steps],
            "assumptions": [{"name": i.name, "text": i.text, "why": i.assumption}
                            for i in claim.inputs if i.assumption],
            "cites": [self.source_link(c.source) | {"passage_id": c.passage_id, "text": c.text}
                      for c in claim.cites],
            "uses": [self.claim_link(u) for u in claim.uses],
            "used_by": [self.claim_link(u) for u in claim.used_by],
            "rests_on": [self.source_link(s) for s in claim.sources],
            "measurements": [self.measurement(m, claim) for m in claim.measurements],
            "messages": [m for m in claim.messages if m.kind != "note" or m.text != claim.reason],
            "label_note": LABEL_MEANING.get(claim.label or ""),
            "basis_note": BASIS_MEANING.get(claim.basis, ""),
        }

    def input(self, item) -> dict:
        out = {"name": item.name, "text": item.text, "kind": item.kind, "key": item.key,
               "passage": item.passage, "assumption": item.assumption,
               "display": item.result.display if item.result else None,
               "exact": f"{format_exact(item.result.value)} {item.result.unit}".strip() if item.result else None}
        if item.kind == "source":
            out["source"] = self.source_link(item.source)
        if item.kind == "claim":
            out["claim"] = self.claim_link(item.claim)
        return out

    def measurement(self, m, claim: ClaimResult) -> dict:
        from ..measurements import Measurement, beside  # no torch: the record and its comparison only

        view = beside(m, claim).to_dict() if isinstance(m, Measurement) else dict(m.to_dict())
        software = view.get("software") or {}
        view["software"] = ", ".join(f"{k} {v}" for k, v in sorted(software.items()) if v)
        return view

    def source(self, source) -> dict:
        retrieved = [{"key": k, "text": str(v), "href": safe_url(v)} for k, v in (source.retrieved or {}).items()]
        hub = source.hub if isinstance(source.hub, dict) else None
        return {"source": source, "url": safe_url(source.url), "retrieved": retrieved,
                "hub": hub, "hub_url": hub_url(hub), "snapshot_href": self.snapshots.get(source.id),
                "grade_note": GRADE_MEANING.get(source.grade or ""),
                "cited_by": [self.claim_link(c) for c in source.cited_by],
                "passages": list((source.passages or {}).items()),
                "values": [{"name": k, "value": v.get("value"), "passage": v.get("passage")}
                           for k, v in (source.values or {}).items()]}
