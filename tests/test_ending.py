"""The program ends without the interpreter's teardown (``workings.ending``), and with everything of
Python's exit that anyone can see: the exit code, the ``atexit`` handlers (once), stdout and stderr
whole. Where that cannot be had as Python has it (a flush that fails, another thread, an exit code
that is not a number, a process that goes on), it exits as Python always does.

Each program runs for real in a subprocess (``python -m workings``, or ``cli.run`` after a few lines
of set-up), on a ledger the tests build; nothing is mocked."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workings import coldshares, ending
from workings.loader import Ledger

REPO = Path(__file__).resolve().parent.parent

# run as the program after a handler and an object that says when teardown frees it
PROGRAM = textwrap.dedent("""\
    import atexit, os, sys
    left_open = open(os.environ["TORN"], "w")  # never closed: the interpreter's teardown flushes it
    left_open.write("torn down")
    atexit.register(lambda: sys.stderr.write("handler ran\\n"))
    sys.stdout.write("buffered, never flushed by hand\\n")
    from workings.cli import run
    sys.argv = ["workings", *sys.argv[1:]]
    run()
""")


DRIFTED = """\
    said: "It takes 999 B/token."
    figure: 999 B/token
    label: derived
    inputs: {a: 1000 B/token}
    assumptions: {a: as stated}
    compute: {b: a}
"""


def program(*args: str, cwd: Path, code: str = PROGRAM) -> tuple[subprocess.CompletedProcess, str]:
    """The run, and what reached the file its set-up left open (only the interpreter's teardown
    flushes it)."""
    torn = cwd.parent / "left-open.txt"
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "TORN": str(torn)})
    return done, torn.read_text(encoding="utf-8")


def test_the_program_ends_without_teardown_and_with_all_the_rest(tmp_ledger):
    tmp_ledger.qwen()
    done, torn = program("verify", "--no-cache", cwd=tmp_ledger.root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("buffered, never flushed by hand\n")
    assert done.stdout.rstrip().endswith("verified")  # the table's summary line, whole
    assert done.stderr.count("handler ran") == 1  # the atexit handler, once
    assert torn == ""  # no teardown: nothing was freed (nor flushed) object by object
    assert (tmp_ledger.root / "reports" / "ledger.json").read_text(encoding="utf-8").endswith("}\n")


@pytest.mark.parametrize("make, args, code", [
    ("drift", ["verify", "--no-cache"], 1),
    ("bad", ["verify", "--no-cache"], 2),
    ("qwen", ["verify", "--no-such-option"], 2),
    ("qwen", ["--version"], 0),
    ("qwen", ["show", "no-such-claim"], 2),
])
def test_each_exit_code_is_the_command_s(tmp_ledger, make, args, code):
    tmp_ledger.qwen()
    if make == "drift":
        tmp_ledger.claim("drifted", DRIFTED)
    elif make == "bad":
        (tmp_ledger.root / "claims" / "broken.yaml").write_text("said: [unclosed\n", encoding="utf-8")
    done, torn = program(*args, cwd=tmp_ledger.root)
    assert done.returncode == code, done.stderr
    assert done.stderr.count("handler ran") == 1 and torn == ""


def test_the_same_outputs_as_python_s_own_exit(tmp_ledger, tmp_path):
    """stdout, stderr, the exit code and the reports: as ``main`` gives them, ending as always."""
    tmp_ledger.qwen()
    tmp_ledger.claim("drifted", DRIFTED)
    outs = []
    for entry in ("run", "main"):
        code = PROGRAM.replace("from workings.cli import run", f"from workings.cli import {entry} as run")
        done, torn = program("verify", "--no-cache", "--json", str(tmp_path / f"{entry}.json"), cwd=tmp_ledger.root,
                             code=code)
        outs.append((done.returncode, done.stdout, done.stderr))
        assert torn == ("" if entry == "run" else "torn down")  # main: the interpreter's exit, as always
    assert outs[0] == outs[1] and outs[0][0] == 1
    assert (tmp_path / "run.json").read_bytes() == (tmp_path / "main.json").read_bytes()


END = textwrap.dedent("""\
    import sys, threading, time
    from workings import ending
    case = sys.argv[1]
    if case != "outside":
        ending.start()
    code = 0
    if case == "flush":
        class Failing:
            def write(self, text): return len(text)
            def flush(self): raise BrokenPipeError(32, "Broken pipe")
        sys.stdout = Failing()
    elif case == "thread":
        threading.Thread(target=time.sleep, args=(0.5,)).start()
    elif case == "text":
        code = "a message"
    exit = SystemExit(code)
    ending.end(exit)
    sys.stderr.write(f"went on: {case}\\n")
    raise exit  # as cli.run does
""")


@pytest.mark.parametrize("case", ["flush", "thread", "text", "outside"])
def test_it_exits_as_python_does_where_it_cannot_end_early(case):
    done = subprocess.run([sys.executable, "-c", END, case], capture_output=True, text=True, timeout=60)
    assert f"went on: {case}" in done.stderr  # end returned: the interpreter exits as always
    if case == "flush":  # Python's exit meets the failing flush again, says so and exits 120
        assert done.returncode == 120 and "BrokenPipeError" in done.stderr, done.stderr
    elif case == "text":  # Python prints the message and exits 1
        assert done.returncode == 1 and done.stderr.endswith("a message\n")
    else:
        assert done.returncode == 0


def test_it_ends_at_once_with_the_code_masked_as_the_system_masks_it():
    for code, status in ((0, 0), (3, 3), (256 + 7, 7), (-1, 255)):
        done = subprocess.run([sys.executable, "-c", END.replace("code = 0\n", f"code = {code}\n"), "plain"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == status and "went on" not in done.stderr


def test_verify_keeps_its_ledger_only_in_the_program(tmp_ledger, monkeypatch):
    tmp_ledger.qwen()
    monkeypatch.setattr(ending, "_kept", None)
    coldshares.verify(tmp_ledger.root)
    assert ending._kept is None  # a process that goes on: nothing held
    monkeypatch.setattr(ending, "_kept", [])
    report = coldshares.verify(tmp_ledger.root)
    assert [type(kept) for kept in ending._kept] == [Ledger]
    assert set(ending._kept[0].claims) == {c.id for c in report.claims}


def test_python_m_workings_and_the_installed_command_run_the_program(tmp_ledger):
    tmp_ledger.qwen()
    by_module = PROGRAM.replace("from workings.cli import run\nsys.argv = [\"workings\", *sys.argv[1:]]\nrun()",
                                "import runpy\nsys.argv = [\"workings\", *sys.argv[1:]]\n"
                                "runpy.run_module(\"workings\", run_name=\"__main__\")")
    assert by_module != PROGRAM
    done, torn = program("verify", "--no-cache", cwd=tmp_ledger.root, code=by_module)
    assert done.returncode == 0 and done.stderr.count("handler ran") == 1 and torn == ""
    assert 'workings = "workings.cli:run"' in (REPO / "pyproject.toml").read_text(encoding="utf-8")
