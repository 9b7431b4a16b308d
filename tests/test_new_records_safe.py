"""``workings new --from-draft`` writes records a stranger's draft cannot steer: the draft's file
name (printed in a comment) cannot add a key, and the sentence comes back exactly as printed, line
separators and control characters included (round trip: load the written record, compare ``said``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from workings.yamlio import load

# literal inputs only: an estimate, the label that may rest on a stated assumption alone
OK = 'said: "x is 1."\nfigure: "1 B"\nlabel: estimate\ninputs:\n  b: 1 B\nassumptions: {b: y}\ncompute:\n  a: b\n'
KEYS = {"said", "figure", "label", "notes"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ledger" / "claims" / "t").mkdir(parents=True)
    (tmp_path / "ledger" / "claims" / "t" / "ok.yaml").write_text(OK)
    return tmp_path / "ledger"


def _new(draft: Path, root: Path) -> list[Path]:
    done = subprocess.run([sys.executable, "-m", "workings", "new", "--from-draft", str(draft), "--issue", "fresh",
                           "--root", str(root)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return sorted((root / "claims" / "fresh").glob("*.yaml"))


@pytest.mark.parametrize("name", ["x\nid: t-evil\nlabel: quoted\n.md",        # newline: keys of its own
                                  "x\x85id: evil\u2028label: quoted\u2029.md",  # YAML's other line breaks
                                  "x\rfigure: 9 B\x1b[2K\x01\xff.md"])
def test_the_draft_file_name_cannot_add_a_key(tmp_path, root, name):
    draft = tmp_path / name
    draft.write_text("The cache holds 196,608 bytes per token.\n", encoding="utf-8")
    [record] = _new(draft, root)
    raw = record.read_bytes()
    data = yaml.safe_load(raw)
    assert set(data) == KEYS and data["label"] == "derived" and data["figure"] == "196,608 B/token"
    assert load(raw, "r.yaml").data.keys() == KEYS  # the ledger's own loader agrees
    comment = raw.decode().split("\n")[0]
    assert comment.startswith("# Starting record from x") and comment.endswith("written by `workings new --from-draft`.")


SENTENCES = [
    "The cache holds 196,608 bytes per token\x85in BF16.",                 # NEL
    "The cache holds 196,608 bytes per token\u2028in BF16\u2029today.",    # line and paragraph separators
    "The cache holds 196,608 bytes\x9bK per token \x7f\ufeff\u202e in \"BF16\": no\t'yes'.",
    "no: 196,608 bytes per token # not a comment, &anchor *alias {a: b} [c] | > %.",
]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_the_sentence_comes_back_exactly(tmp_path, root, sentence):
    draft = tmp_path / "draft.txt"
    draft.write_text(sentence + "\n", encoding="utf-8")
    [record] = _new(draft, root)
    data = load(record.read_bytes(), "r.yaml").data
    assert data["said"] == sentence
    assert set(data) == KEYS
    done = subprocess.run([sys.executable, "-m", "workings", "verify", "--root", str(root), "-q"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "1 unchecked" in done.stdout, done.stdout + done.stderr
