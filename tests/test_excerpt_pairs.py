"""verify and refresh read a config excerpt kept as text (`"key": number` pairs) with one reader:
a key printed with two values is refused by verify and listed by refresh, never dropped."""

from __future__ import annotations

import hashlib

import pytest

from workings.errors import LedgerError
from workings.refresh.diff import key_changes, snapshot_keys
from workings.sources import Snapshot

EXCERPT = """From the model card's config (an excerpt):
  "hidden_size": 5120,
  "num_attention_heads": 40,
  "rope_theta": 1e6,
  "num_hidden_layers": 48,
  ... and in the vision tower:
  "num_hidden_layers": 27,
  "head_dim": 128
"""


def _snapshot(text: str) -> Snapshot:
    raw = text.encode()
    return Snapshot.read(hashlib.sha256(raw).hexdigest() + ".txt", raw, "text")


def test_verify_and_refresh_read_every_key_alike():
    snap = _snapshot(EXCERPT)
    pairs = snapshot_keys(EXCERPT.encode(), "text")
    assert pairs == {"hidden_size": "5120", "num_attention_heads": "40", "rope_theta": "1e6",
                     "num_hidden_layers": "48, 27", "head_dim": "128"}
    for key, value in pairs.items():
        if ", " in value:
            with pytest.raises(LedgerError, match="has several values"):
                snap.lookup(key)
        else:
            assert snap.lookup(key) == value
    with pytest.raises(LedgerError, match="is not in snapshot"):
        snap.lookup("vocab_size")
    assert "vocab_size" not in pairs


def test_a_key_that_comes_to_have_two_values_is_listed_not_dropped():
    old = snapshot_keys(b'"num_hidden_layers": 48, "head_dim": 128', "text")
    new = snapshot_keys(b'"num_hidden_layers": 48, "head_dim": 128, "num_hidden_layers": 27', "text")
    assert key_changes(old, new, old_was_excerpt=False) == [("num_hidden_layers", "48", "48, 27")]
    # and the other way: a copy that printed two values, now one
    assert key_changes(new, old, old_was_excerpt=False) == [("num_hidden_layers", "48, 27", "48")]
