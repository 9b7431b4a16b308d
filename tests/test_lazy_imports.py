"""What verify leaves unimported, and why that changes nothing it finds.

verify reads a claim's sentence with check-draft's finder when the quick reading cannot decide
(``workings.said``); the finder reads equations only in a paragraph that prints a relation sign, and
the sentence check needs only where the finder's figures stand (``finder.spans_in``), not the rest of
``identity``. Neither module is imported for this repository's ledger: each costs its compile at
every start from source. The skip is exact: ``equations.find`` finds nothing without "=" or "≈".
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from workings.draft import equations, finder, identity
from workings.draft.text import paragraphs

REPO = Path(__file__).resolve().parent.parent
PROBE = ("import runpy, sys\nsys.argv = ['workings', *sys.argv[1:]]\n"
         "try:\n    runpy.run_module('workings', run_name='__main__')\nexcept SystemExit:\n    pass\n"
         "print('loaded:', sorted(m for m in ('workings.draft.equations', 'workings.draft.identity')"
         " if m in sys.modules), file=sys.stderr)\n")

PIECES = ["2", "48", "8", "128", "196,608", "0.33", "1.5", "128K", "1M", " ", " ", "×", "*", "x", "÷", "/", "+", "−",
          "-", "–", "·", "=", "≈", "~=", "~", "bytes", "B", "GB", "GiB", "MB", "KiB", "/ token", "heads", "layers", ",",
          ".", "(", ")", "\n", "is", "about"]


def test_verify_imports_neither_equations_nor_identity(tmp_path):
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, tmp_path / part)
    done = subprocess.run([sys.executable, "-c", PROBE, "verify", "--no-cache", "--quiet", "--root", str(tmp_path),
                           "--json", str(tmp_path / "r.json")], capture_output=True, text=True, timeout=300)
    assert "loaded: []" in done.stderr, done.stderr[-2000:]
    assert (tmp_path / "r.json").read_text().startswith("{")


def test_identity_still_offers_spans_in():
    assert identity.spans_in is finder.spans_in


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_a_paragraph_without_a_relation_sign_holds_no_equation(pieces):
    text = "".join(pieces)
    for paragraph in paragraphs(text, markdown=False):
        found = equations.find(paragraph)
        assert finder._equations(paragraph) == found
        if "=" not in paragraph.text and "≈" not in paragraph.text:
            assert found == []
