"""pint is imported without NumPy and SciPy (``units._import_pint``): the commands never load them,
and what they print is the same whether pint was imported with NumPy or without. Nor does its import
load importlib.metadata, while every library it imports still knows its own version."""

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
       "import workings.ending as ending\n"
       "ending.end = lambda exit: None  # ends as always: looked at after\n"
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


VERSIONS = ("import sys\n"
            "first = sys.argv[1] == 'metadata-first'\n"
            "if first:\n import importlib.metadata\n"
            "from workings import units\n"
            "units.registry()\n"
            "import flexcache, flexparser, pint\n"
            "loaded = 'importlib.metadata' in sys.modules\n"
            "import importlib.metadata as real\n"
            "print(loaded, [m.__version__ for m in (pint, flexcache, flexparser)],"
            " [real.version(n) for n in ('pint', 'flexcache', 'flexparser')], hasattr(real, 'distributions'))\n")


@pytest.mark.parametrize("order", ["plain", "metadata-first"])
def test_pint_and_what_it_imports_know_their_versions_without_importlib_metadata(order):
    done = subprocess.run([sys.executable, "-c", VERSIONS, order], capture_output=True, text=True, check=True)
    loaded, ours, theirs, real = _fields(done.stdout)
    assert loaded == (order == "metadata-first")  # not loaded by pint's import; used if already there
    assert ours == theirs and "unknown" not in ours  # each __version__ the one importlib.metadata gives
    assert real  # a later import gets the real module


def _fields(out: str):
    import ast

    loaded, rest = out.split(" ", 1)
    ours, rest = rest.split("] ", 1)
    theirs, real = rest.rsplit("] ", 1)
    return loaded == "True", ast.literal_eval(ours + "]"), ast.literal_eval(theirs + "]"), real.strip() == "True"


def test_the_stand_in_hands_what_it_cannot_answer_to_importlib_metadata(monkeypatch):
    import importlib.metadata

    from workings import installed, units

    stand_in = units._metadata_stand_in()
    assert stand_in.version("pint") == importlib.metadata.version("pint")
    assert stand_in.PackageNotFoundError is importlib.metadata.PackageNotFoundError
    monkeypatch.setattr(installed, "dist_info_version", lambda name: None)  # no single .dist-info folder
    assert stand_in.version("flexparser") == importlib.metadata.version("flexparser")
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        stand_in.version("no-such-package-here")
    with pytest.raises(AttributeError):
        stand_in.__path__  # noqa: B018  # a plain module to the import system, not a package


def test_installed_versions_are_importlib_metadata_s():
    import importlib.metadata

    from workings.installed import dist_info_version, version

    for name in ("pint", "flexcache", "flexparser", "jinja2", "click", "hypothesis", "typing_extensions"):
        assert version(name) == importlib.metadata.version(name), name
    assert dist_info_version("pint") == importlib.metadata.version("pint")  # read off the folder's name
    assert dist_info_version("os") is None and dist_info_version("no-such-package-here") is None
