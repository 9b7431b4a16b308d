"""A bug in workings has an exit code of its own (70, EX_SOFTWARE), never 1 (a drifted figure) or
2 (input that could not be used), with its traceback and one line saying it is a bug and where.

The bug is provoked for real: the command runs in a subprocess in which one of workings' own
functions is replaced by one that raises (no library is mocked)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

PLANT = textwrap.dedent("""\
    import importlib, sys
    module, name = sys.argv[1], sys.argv[2]
    def planted(*args, **kwargs):
        raise KeyError("planted by the test")
    setattr(importlib.import_module(module), name, planted)
    from workings.cli import main
    sys.argv = ["workings", *sys.argv[3:]]
    main()
""")


def run(module: str, name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PLANT, module, name, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("module, name, args, where", [
    ("workings.engine", "_order", ["verify", "--json", "{tmp}/r.json"], "workings/engine.py"),
    ("workings.engine", "_order", ["render", "--out", "{tmp}/site"], "workings/engine.py"),
    ("workings.engine", "_order", ["check-draft", "{tmp}/draft.md"], "workings/engine.py"),
    ("workings.movements", "compare", ["diff", "{tmp}/r.json", "{tmp}/r.json"], "workings/cli.py"),
    ("workings.schema", "dumps", ["schema", "claim"], "workings/cli.py"),
])
def test_an_internal_bug_exits_70_and_says_so(module, name, args, where, tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    (tmp_path / "draft.md").write_text("The cache takes 196,608 bytes per token.\n", encoding="utf-8")
    (tmp_path / "r.json").write_text('{"format": 2, "claims": []}', encoding="utf-8")
    done = run(module, name, *[a.format(tmp=tmp_path) for a in args], cwd=tmp_ledger.root)
    assert done.returncode == 70, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: this is a bug in workings (KeyError at " + where), last
    assert "planted by the test" in last and "Exit 70." in last
    assert "Traceback (most recent call last)" in done.stderr


def test_the_planting_alone_changes_nothing(tmp_ledger, tmp_path):
    """With the same function put back in the same way, verify exits 0: the 70 is the bug's."""
    tmp_ledger.qwen()
    harmless = PLANT.replace("def planted(*args, **kwargs):\n    raise KeyError(\"planted by the test\")",
                             "original = getattr(importlib.import_module(module), name)\n"
                             "def planted(*args, **kwargs):\n    return original(*args, **kwargs)")
    assert harmless != PLANT
    done = subprocess.run([sys.executable, "-c", harmless, "workings.engine", "_order", "verify", "--json",
                           str(tmp_path / "r.json")], cwd=tmp_ledger.root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_usage_errors_and_help_are_not_bugs(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "workings", "verify", "--no-such-option"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120)
    assert bad.returncode == 2 and "bug" not in bad.stderr
    help_ = subprocess.run([sys.executable, "-m", "workings", "--help"], capture_output=True, text=True, timeout=120)
    assert help_.returncode == 0 and "exits 70 on a bug" in help_.stdout
