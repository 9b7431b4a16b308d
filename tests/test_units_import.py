"""pint is imported without NumPy and SciPy (``units._import_pint``): the commands never load them,
and what they print is the same whether pint was imported with NumPy or without."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

RUN = ("import sys, runpy\n"
       "if sys.argv[1] == 'numpy-first':\n"
       " import numpy\n"
       "sys.argv = ['workings'] + sys.argv[2:]\n"
       "try:\n runpy.run_module('workings', run_name='__main__')\n"
       "except SystemExit as e:\n"
       " import pint.compat\n"
       " print('LOADED', [m for m in ('numpy', 'scipy') if m in sys.modules], 'HAS_NUMPY', pint.compat.HAS_NUMPY,"
       " 'EXIT', e.code, file=sys.stderr)\n")


def _run(order: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RUN, order, *args], capture_output=True, text=True,
                          env={**__import__("os").environ, "WORKINGS_NO_CACHE": "1"})


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ledger")
    for folder in ("claims", "ledger"):
        shutil.copytree(REPO / folder, root / folder)
    return root


def test_the_commands_load_neither_numpy_nor_scipy(ledger, tmp_path):
    article = str(ledger / "claims" / "kv-bytes-per-token" / "article.md")
    for args in (["verify", "--root", str(ledger), "--json", str(tmp_path / "r.json")],
                 ["show", "kv-bytes-per-token/qwen25-14b-head-size", "--root", str(ledger)],
                 ["check-draft", article, "--root", str(ledger)]):
        done = _run("plain", *args)
        assert "LOADED [] HAS_NUMPY False" in done.stderr, (args, done.stderr[-2000:])
        assert "EXIT 0" in done.stderr or "EXIT 1" in done.stderr, (args, done.stderr[-2000:])


def test_the_outputs_are_the_same_with_numpy_imported_first(ledger, tmp_path):
    pytest.importorskip("numpy")
    article = str(ledger / "claims" / "kv-bytes-per-token" / "article.md")
    outputs = {}
    for order in ("plain", "numpy-first"):
        json_path = tmp_path / f"{order}.json"
        verify = _run(order, "verify", "--root", str(ledger), "--json", str(json_path), "--junit",
                      str(tmp_path / f"{order}.xml"))
        assert f"HAS_NUMPY {order == 'numpy-first'}" in verify.stderr, verify.stderr[-2000:]
        draft = _run(order, "check-draft", article, "--root", str(ledger), "--format", "json")
        show = _run(order, "show", "kv-bytes-per-token/qwen25-14b-head-size", "--root", str(ledger))
        outputs[order] = (verify.stdout, json_path.read_bytes(), (tmp_path / f"{order}.xml").read_bytes(),
                          draft.stdout, show.stdout)
    assert outputs["plain"] == outputs["numpy-first"]
    report = json.loads(outputs["plain"][1])
    assert report["claims"] and outputs["plain"][3].startswith("{")


def test_numpy_still_imports_after_pint():
    pytest.importorskip("numpy")
    code = "import workings.units; workings.units.registry(); import numpy; print(type(numpy.zeros(2)).__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ndarray"
