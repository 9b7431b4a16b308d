"""The explainer page: what the template lays out and the JSON its script computes from.

Every number in the payload is one of the Explainer's Figures (a claim's recomputed value, exact, as
numerator and denominator strings for the script's BigInt arithmetic), with the link to its claim page,
its status and its grade. ``script_json`` escapes the payload so that no record text can end the
``<script type="application/json">`` element it sits in.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from ..explainer import ATTENTION, Explainer, Figure, weakest
from ..figures import format_number
from ..models import GRADES
from .views import STATUS_SYMBOL

PAGE = "explainer.html"
# What each kind of attention means for the figure; the page says it beside the model, so that a
# figure that is not the standard formula never passes for it.
ATTENTION_NOTE = {
    "standard": "standard attention: 2 × layers × KV heads × head size × bytes per value, every token, every layer",
    "mla": "multi-head latent attention: one compressed vector per layer and token, not the standard formula",
    "compressed": "compressed caches shared by groups of layers: the ledger's own figure, not the standard formula",
    "hybrid": "hybrid layers: only some layers keep a growing cache, the others a fixed-size state",
}
assert set(ATTENTION_NOTE) == set(ATTENTION)
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(data: object) -> Markup:
    """``data`` as JSON that is safe inside ``<script type="application/json">``: ``<``, ``>`` and ``&``
    are written as \\u escapes (so ``</script>`` and ``<!--`` cannot occur), as are U+2028 and U+2029.
    Sorted keys and no spaces: the same data gives the same bytes."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    for char, escape in _ESCAPES.items():
        text = text.replace(char, escape)
    return Markup(text)  # every character that HTML could read as markup is escaped above


class ExplainerView:
    """The explainer of one Report, with links into the site at ``claim_pages``."""

    def __init__(self, explainer: Explainer, claim_pages: dict[str, str]):
        self.ex = explainer
        self.claim_pages = claim_pages

    def figure(self, fig: Figure | None) -> dict[str, Any] | None:
        if fig is None:
            return None
        value = fig.value
        return {"ref": fig.ref, "claim": fig.claim, "step": fig.step,
                "href": self.claim_pages.get(fig.claim) if fig.claim else None,
                "status": fig.status, "symbol": STATUS_SYMBOL.get(fig.status, "–"), "grade": fig.grade,
                "label": fig.label, "display": fig.display, "printed_only": fig.printed_only, "unit": fig.unit,
                "n": str(value.numerator) if value is not None else None,
                "d": str(value.denominator) if value is not None else None}

    def payload(self) -> dict[str, Any]:
        f = self.figure
        return {
            "format": 1, "grades": list(GRADES),
            "models": [{"id": m.id, "name": m.name, "attention": m.attention, "attention_note": ATTENTION_NOTE[m.attention],
                        "cache_format": m.cache_format, "per_token": f(m.per_token), "window": f(m.window),
                        "weights": f(m.weights), "leaves_out": m.leaves_out,
                        "fixed": [{"name": x.name, "bytes": f(x.bytes), "context": [f(c) for c in x.context]}
                                  for x in m.fixed],
                        "context": [f(c) for c in m.context]} for m in self.ex.models],
            "machines": [{"id": m.id, "name": m.name, "memory": f(m.memory)} for m in self.ex.machines],
            "formats": [{"id": x.id, "name": x.name, "smaller_by": f(x.smaller_by), "basis": f(x.basis)}
                        for x in self.ex.formats],
            "defaults": self.ex.defaults,
        }

    def context(self) -> dict[str, Any]:
        """What the template shows without the script: every model, machine and format with its figures."""
        f = self.figure
        models = []
        for m in self.ex.models:
            figures = [m.per_token, m.window, m.weights] + [x.bytes for x in m.fixed]
            models.append({"id": m.id, "name": m.name, "attention": m.attention,
                           "attention_note": ATTENTION_NOTE[m.attention], "cache_format": m.cache_format,
                           "per_token": f(m.per_token), "window": f(m.window), "weights": f(m.weights),
                           "fixed": [{"name": x.name, "bytes": f(x.bytes), "context": [f(c) for c in x.context]}
                                     for x in m.fixed],
                           "context": [f(c) for c in m.context], "leaves_out": m.leaves_out,
                           "weakest": weakest(figures)})
        return {"models": models,
                "machines": [{"id": m.id, "name": m.name, "memory": f(m.memory),
                              "bytes": format_number(m.memory.value) if m.memory.value is not None else None}
                             for m in self.ex.machines],
                "formats": [{"id": x.id, "name": x.name, "smaller_by": f(x.smaller_by), "basis": f(x.basis)}
                            for x in self.ex.formats],
                "problems": [str(p) for p in self.ex.problems],
                "data": script_json(self.payload())}
