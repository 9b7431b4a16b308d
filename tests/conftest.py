"""Fixtures: ledgers the tests write themselves, never the repo's live claims/."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis's per-example deadline is a wall-clock assertion: on a loaded machine it fails tests
# whose work did not change. Speed is measured in scripts/bench.py; the tests assert on results.
settings.register_profile("workings", deadline=None)
settings.load_profile("workings")


@pytest.fixture(autouse=True, scope="session")
def _verify_cache_outside_home(tmp_path_factory):
    """verify's cache (workings.cache) goes to a folder of this test session, never the user's
    ~/.cache; each fixture ledger has its own pack there, so a second verify of one is a warm run."""
    import os

    os.environ["WORKINGS_CACHE_DIR"] = str(tmp_path_factory.mktemp("workings-cache"))
    os.environ.pop("WORKINGS_NO_CACHE", None)
    yield

@pytest.fixture
def second_of(monkeypatch):
    """``second_of(module, name)``: ``module.name`` made to note, in the list returned, the second item
    of what each call gives (``readahead.outcomes``'s records read by a child, ``readahead.aside``'s
    whether the child's answer was used)."""
    def counting(module, name: str) -> list:
        noted: list = []
        real = getattr(module, name)

        def counted(*args, **kwargs):
            result = real(*args, **kwargs)
            noted.append(result[1])
            return result

        monkeypatch.setattr(module, name, counted)
        return noted
    return counting


QWEN_CONFIG = b"""{
  "hidden_size": 5120,
  "max_position_embeddings": 1010000,
  "num_attention_heads": 40,
  "num_hidden_layers": 48,
  "num_key_value_heads": 8,
  "torch_dtype": "bfloat16"
}
"""

PER_TOKEN = """\
said: "2 x 48 x 8 x 128 x 2 = 196,608 bytes per token."
figure: 196,608 B/token
label: derived
inputs:
  layers: qwen#num_hidden_layers
  kv_heads: qwen#num_key_value_heads
  hidden: qwen#hidden_size
  heads: qwen#num_attention_heads
  value_bytes: 2 B
assumptions:
  value_bytes: BF16, the format of the weights.
compute:
  head_dim: hidden / heads
  per_token: 2 * layers * kv_heads * head_dim * value_bytes / token
"""

# The cache PER_TOKEN's kv-bytes probe builds (the per-token formula over layers, kv_heads, head_dim and
# value_bytes, with query heads), as a measurement of it records it in details.shape.
PER_TOKEN_SHAPE = {"batch": 1, "dtype": "bfloat16", "head_dim": 128, "heads": 40, "kv_heads": 8, "layers": 48}

FULL_WINDOW = """\
said: "At the full window, one chat needs 198.6 GB of cache."
figure: 198.6 GB
label: derived
inputs:
  per_token: claim:kv/per-token
  window: qwen#max_position_embeddings token
compute:
  cache: per_token * window
"""


class TmpLedger:
    """A ledger folder under tmp_path with helpers to write records and snapshots."""

    def __init__(self, root: Path):
        self.root = root
        (root / "claims").mkdir(parents=True, exist_ok=True)
        (root / "ledger" / "sources").mkdir(parents=True, exist_ok=True)
        (root / "ledger" / "snapshots").mkdir(parents=True, exist_ok=True)

    def snapshot(self, raw: bytes, ext: str = "json") -> str:
        name = f"{hashlib.sha256(raw).hexdigest()}.{ext}"
        (self.root / "ledger" / "snapshots" / name).write_bytes(raw)
        return name

    def source(self, source_id: str, text: str | None = None, *, raw: bytes | None = None, fmt: str = "json",
               grade: str = "copy", extra: str = "") -> Path:
        if text is None:
            name = self.snapshot(raw if raw is not None else QWEN_CONFIG, "json" if fmt == "json" else "txt")
            text = (f"title: {source_id} config\ngrade: {grade}\nurl: https://example.org/{source_id}\n"
                    f"snapshot: {name}\nformat: {fmt}\n") + extra
            if grade == "primary":  # the official bytes: read at a commit, which the record names
                text += "retrieved: {commit: " + hashlib.sha1(source_id.encode()).hexdigest() + "}\n"
        path = self.root / "ledger" / "sources" / f"{source_id}.yaml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def claim(self, claim_id: str, text: str | bytes) -> Path:
        path = self.root / "claims" / f"{claim_id}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def qwen(self) -> TmpLedger:
        """The standard small ledger: a Qwen config source, the per-token claim and the full window."""
        self.source("qwen")
        self.claim("kv/per-token", PER_TOKEN)
        self.claim("kv/full-window", FULL_WINDOW)
        return self

    def doubling_chain(self) -> TmpLedger:
        """``big/base`` (48, from the Qwen config) and ``big/c1``..``big/c7``, each the sum of the one
        before taken twice: each doubles the leaves, so 2**7 = 128 written out would be too many."""
        self.source("qwen")
        self.claim("big/base", 'said: "x is 48."\nfigure: "48"\nlabel: quoted\ninputs: {n: qwen#num_hidden_layers}\n'
                   "compute: {v: n}\n")
        previous = "big/base"
        for i in range(1, 8):
            self.claim(f"big/c{i}", f'said: "y{i} is {48 * 2 ** i:,}."\nlabel: derived\nfigure: "{48 * 2 ** i:,}"\n'
                       f"inputs: {{a: 'claim:{previous}', b: 'claim:{previous}'}}\ncompute: {{v: a + b}}\n")
            previous = f"big/c{i}"
        return self

    def verify(self):
        from workings.engine import verify

        return verify(self.root)


@pytest.fixture
def tmp_ledger(tmp_path: Path) -> TmpLedger:
    return TmpLedger(tmp_path / "ledger-root")
