"""A small ledger for the HTML tests: one claim of each status, a text source, a measurement.

Written by the tests themselves (never the live claims/), so the gold files change only when the
page or the engine's wording does. ``WORKINGS_UPDATE_GOLD=1`` rewrites them.
"""

from __future__ import annotations

from fractions import Fraction

from conftest import PER_TOKEN, PER_TOKEN_SHAPE, TmpLedger

BLOG = b"""Qwen2.5-1M, the blog post (excerpt)

Processing 1M tokens needs 71 GB of VRAM for activations alone.
The KV cache grows with every token of the context.
"""

SOURCE_BLOG = """\
title: Qwen2.5-1M blog post, as quoted in a review
publisher: a reviewer (third party)
url: https://example.org/qwen-1m
grade: transcription
retrieved: {{"on": "2026-11-01", how: quoted in the review, url: "https://example.org/review"}}
snapshot: {snapshot}
format: text
values:
  activations: {{value: 71 GB, passage: "needs 71 GB of VRAM"}}
passages:
  growth: "The KV cache grows with every token of the context."
notes: The blog itself was not archived; this is a review's quotation.
"""

CLAIMS = {
    "kv/per-token": PER_TOKEN + "cites: [blog#growth]\n",
    # drift: printed 190.0 GB, recomputed 198.6 GB
    "kv/full-window": """\
said: "At the full window, one chat needs 190.0 GB of cache."
figure: 190.0 GB
label: derived
inputs:
  per_token: claim:kv/per-token
  window: qwen#max_position_embeddings token
compute:
  cache: per_token * window
""",
    # drift through its input: the figure holds, but the claim it rests on drifted
    "kv/two-chats": """\
said: "Two such chats need 397.1 GB."
figure: 397.1 GB
label: derived
inputs:
  per_chat: claim:kv/full-window
  chats: "2"
assumptions:
  chats: The article's example runs two chats at once.
compute:
  total: per_chat * chats
""",
    # unchecked: a vendor figure, nothing recomputes it
    "kv/vendor-hbm": """\
said: "The vendor lists 141 GB of HBM3e."
figure: 141 GB
label: vendor
notes: A vendor figure, taken as given; nothing recomputes it.
""",
    # error: tokens added to a pure number
    "kv/broken-units": """\
said: "48 layers and a million tokens make 1,010,048."
figure: "1,010,048"
label: derived
inputs:
  layers: qwen#num_hidden_layers
  window: qwen#max_position_embeddings token
compute:
  total: layers + window
""",
    # erratum: wrong as printed, the correction recorded
    "kv/full-window-corrected": """\
said: "A full window takes 200 GB of cache."
figure: 200 GB
label: derived
inputs:
  per_token: claim:kv/per-token
  window: qwen#max_position_embeddings token
compute:
  cache: per_token * window
erratum: {reason: "The issue rounded up; 198.6 GB is right.", recomputed: 198.6 GB}
""",
    # a check, verified, that uses a source value
    "weights/activations-exceed-cache": """\
said: "The activations alone take more than a third of the full-window cache."
check: activations > cache / 3
label: bound
inputs:
  activations: blog#activations
  cache: claim:kv/full-window
compute:
  third: cache / 3
""",
}


# The text as published, kept beside the claims: a backed figure, a drifted one, an erratum, an
# unchecked vendor figure and a figure no claim states (the 7 kettles).
ARTICLE = """\
---
title: The cache at the full window
published: 2026-11-02
url: https://example.org/issue-1
format: plain
---
The sum
2 x 48 x 8 x 128 x 2 = 196,608 bytes per token.
At the full window, one chat needs 190.0 GB of cache.
A full window takes 200 GB of cache.
The vendor lists 141 GB of HBM3e.
That is as much memory as 7 kettles hold.
"""


def write_ledger(ledger: TmpLedger) -> TmpLedger:
    from workings.measurements import Device, Measurement, Software, Value, write

    ledger.source("qwen")
    name = ledger.snapshot(BLOG, "txt")
    ledger.source("blog", SOURCE_BLOG.format(snapshot=name))
    for claim_id, text in CLAIMS.items():
        ledger.claim(claim_id, text)
    (ledger.root / "claims" / "kv" / "article.md").write_text(ARTICLE, encoding="utf-8")
    per_token = Value(value=Fraction(196_608), unit="B/token")
    write(Measurement(
        claim="kv/per-token", probe="kv-bytes", measures="per_token", result=per_token, estimate=per_token,
        relation="equal", tolerance=Fraction(0),
        device=Device(type="cpu", name="Test CPU", memory_bytes=2**34, allocator="storage"),
        software=Software(torch="2.13.0+cpu", python="3.11.7"),
        command="workings probe kv/per-token --device cpu", date="2026-11-29",
        samples=({"tokens": 16, "requested_bytes": 3_145_728, "measured_bytes": 3_145_728, "rounding_bytes": 0},
                 {"tokens": 32, "requested_bytes": 6_291_456, "measured_bytes": 6_291_456, "rounding_bytes": 0}),
        details={"shape": PER_TOKEN_SHAPE},
    ), ledger.root)
    return ledger
