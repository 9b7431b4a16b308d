"""What verify leaves unimported, and why that changes nothing it finds.

A verify that finds every claim's result in its cache parses no unit and formats no value: it does not
import pint (``units.pint`` is imported on first use), which with its registry is about three fifths
of the floor's instructions; the cache's key reads pint's version from its installed metadata rather
than by importing it.

verify reads a claim's sentence with check-draft's finder when the quick reading cannot decide
(``workings.said``); the finder reads equations only in a paragraph that prints a relation sign, and
the sentence check needs only where the finder's figures stand (``finder.spans_in``), not the rest of
``identity``. Neither module is imported for this repository's ledger: each costs its compile at
every start from source. The skip is exact: ``equations.find`` finds nothing without "=" or "≈".
"""

from __future__ import annotations

import os
import re
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
         "import workings.ending as ending\n"
         "ending.end = lambda exit: None  # ends as always: looked at after\n"
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


PINT_PROBE = ("import runpy, sys\nsys.argv = ['workings', *sys.argv[1:]]\n"
              "import workings.ending as ending\n"
              "ending.end = lambda exit: None  # ends as always: looked at after\n"
              "try:\n    runpy.run_module('workings', run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
              "print('pint loaded:', 'pint' in sys.modules, 'exit', code, file=sys.stderr)\n")


def _verify(root: Path, cache: Path, *extra: str) -> tuple[str, str]:
    env = {**os.environ, "WORKINGS_CACHE_DIR": str(cache)}
    env.pop("WORKINGS_NO_CACHE", None)
    done = subprocess.run([sys.executable, "-c", PINT_PROBE, "verify", "--root", str(root), *extra],
                          capture_output=True, text=True, timeout=300, env=env)
    return done.stdout, done.stderr


def test_a_verify_that_recomputes_nothing_does_not_import_pint(tmp_path):
    root = tmp_path / "ledger"
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, root / part)
    cache = tmp_path / "cache"
    reports = {}
    for run in ("cold", "filling", "warm"):
        extra = ("--no-cache",) if run == "cold" else ()
        out, err = _verify(root, cache, "--json", str(tmp_path / f"{run}.json"), "--junit", str(tmp_path / f"{run}.xml"),
                           *extra)
        reports[run] = (out, (tmp_path / f"{run}.json").read_bytes(), (tmp_path / f"{run}.xml").read_bytes())
        assert f"pint loaded: {run != 'warm'} exit 0" in err, (run, err[-2000:])
    assert "cache: recomputed 0 of " in err  # the cache's line is on stderr
    # the same outputs, byte for byte, with pint imported and without
    assert reports["cold"] == reports["filling"] == reports["warm"]
    # one claim changed: it is evaluated again, with pint
    claim = root / "claims" / "kv-bytes-per-token" / "qwen25-14b-head-size.yaml"
    claim.write_text(claim.read_text() + "\n# edited\n")
    out, err = _verify(root, cache)
    assert "pint loaded: True exit 0" in err, err[-2000:]
    recomputed = re.search(r"cache: recomputed (\d+) of ", err)
    assert recomputed and int(recomputed.group(1)) >= 1, err[-2000:]


def test_the_cache_key_reads_pint_s_version_as_importlib_metadata_does():
    from importlib.metadata import version

    from workings.cache import _installed_version

    assert _installed_version("pint") == version("pint")


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
