"""scripts/bench.py runs at a small size, so it cannot rot (CI runs it; no timing is asserted)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402


@pytest.mark.parametrize("variant", ["a", "b"])
def test_generated_ledgers_verify_with_every_claim_verified(tmp_path, variant):
    from workings import verify

    bench.make_ledger(tmp_path, 30, variant)
    report = verify(tmp_path)
    assert len(report.claims) == 30
    assert {c.status for c in report.claims} == {"verified"}, [(c.id, c.reason) for c in report.claims]
    chained = report.claim("g0/c29")
    assert chained.uses == ("g0/c28",)
    if variant == "b":  # read from a config snapshot through its source record
        assert {i.source for i in chained.inputs if i.kind == "source"} == {"bench-cfg-2"}
    else:
        assert not any(i.kind == "source" for i in chained.inputs)


def test_bench_runs_every_command_at_a_small_size():
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "bench.py"), "--n", "50", "--runs", "1"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "x the floor" in done.stdout
    for row in ("this repository's ledger (cold)", "again, nothing changed", "again, one claim's record changed",
                "its imports alone (cold)", "show one claim, this repository's ledger",
                "check-draft, this repository's ledger (warm)"):
        assert re.search(rf"^.*{re.escape(row)}[^:]*: +\d+\.\d\d s \(.*\(\d+\.\d\dx the floor", done.stdout,
                         re.MULTILINE), done.stdout
    assert len(re.findall(r"^  its imports alone[^:]*: +\d+\.\d\d s ", done.stdout, re.MULTILINE)) == 3, done.stdout
    for command in bench.COMMANDS:
        for variant in "ab":
            assert f"| {command} | {variant} | " in done.stdout, done.stdout


def test_bench_with_bytecode_cached_beforehand():
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "bench.py"), "--n", "20", "--runs", "1", "--variant",
                           "b", "--only", "show", "--only", "check-draft", "--bytecode"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("bytecode: compiled once beforehand")
    assert "| show | b | " in done.stdout and "| check-draft | b | " in done.stdout


def _valgrind() -> str:
    """valgrind's path; a skip where it is not installed, unless WORKINGS_REQUIRE_VALGRIND=1 (as
    ``.ci/run`` sets, after ``scripts/test.sh`` installed it), where its absence fails."""
    found = shutil.which("valgrind")
    if found is None:
        if os.environ.get("WORKINGS_REQUIRE_VALGRIND") == "1":
            pytest.fail("WORKINGS_REQUIRE_VALGRIND=1 but valgrind is not installed")
        pytest.skip("valgrind is not installed (Debian: apt-get install valgrind); scripts/test.sh installs it as root")
    return found


def test_bench_counts_instructions_under_callgrind():
    _valgrind()
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "bench.py"), "--instructions", "--n", "10",
                           "--variant", "b", "--only", "show"], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    counted, alone = {}, []
    for line in done.stdout.splitlines():
        found = re.search(r"^(\S.*?):?\s+(\d+\.\d{3}) G instructions(?:\s+\((\d+\.\d\d)x the floor\))?", line.strip())
        if found:
            label = found.group(1).strip()
            if label.startswith("its imports alone"):  # one after each command's rows: the command is the last seen
                alone.append((previous, float(found.group(2))))
            else:
                counted[label] = (float(found.group(2)), found.group(3))
                previous = label
    floor = counted["floor (python + import yaml + pint's registry)"][0]
    cold, ratio = counted["verify, this repository's ledger (cold)"]
    assert 0.05 < floor < cold < 50, done.stdout  # real counts: Python with pint is hundreds of millions
    assert ratio is not None and abs(float(ratio) - cold / floor) < 0.011, done.stdout  # the ratio of the counts
    assert counted["again, nothing changed (cache warm)"][0] < cold, done.stdout  # no unit parsed, no pint
    for row in ("show one claim, this repository's ledger", "check-draft, this repository's ledger (warm)"):
        count, ratio = counted[row]
        assert floor < count < 50 and ratio is not None, done.stdout  # each evaluates claims: pint is imported
    # each command's imports alone: more than the floor (its modules imported, though no teardown), less
    # than the command itself, which imports them and then works
    commands = ["again, one claim's record changed", "show one claim, this repository's ledger",
                "check-draft, this repository's ledger (warm)"]
    assert [command for command, _ in alone] == commands, done.stdout
    for (command, count), before in zip(alone, ["verify, this repository's ledger (cold)", *commands[1:]]):
        assert floor < count < counted[before][0], (command, count, done.stdout)
    assert re.search(r"^\| show \| b \| \d+\.\d{3} G instructions \|$", done.stdout, re.MULTILINE), done.stdout
    assert " s CPU" not in done.stdout  # nothing timed under valgrind is printed as time


def test_instructions_sum_every_process_a_command_forks_counting_each_instruction_once(tmp_path, monkeypatch):
    _valgrind()
    monkeypatch.setattr(bench, "COUNTING", tmp_path)
    work = "sum(i * i for i in range(300_000))"

    def count(code: str) -> int:
        counted = bench.run_once([sys.executable, "-S", "-c", code]).instructions
        assert counted
        return counted

    alone = count(work)
    # both processes do the work after the fork: counting the parent alone would give about ``alone``
    after = count(f"import os\npid = os.fork()\n{work}\nif pid: os.waitpid(pid, 0)\nelse: os._exit(0)")
    # the parent works, then forks a child that does nothing: a child counted with the costs it
    # inherited from before the fork would give about twice ``alone``
    before = count(f"import os\n{work}\npid = os.fork()\nif pid: os.waitpid(pid, 0)\nelse: os._exit(0)")
    assert after > 1.6 * alone, (alone, after)
    assert before < 1.2 * alone, (alone, before)
    monkeypatch.setattr(bench, "COUNTING", None)
    timed = bench.run_once([sys.executable, "-S", "-c", "pass"])
    assert timed.instructions is None and timed.seconds > 0


def test_imports_of_a_command_are_the_modules_it_imported_and_imports_alone_imports_them(tmp_path):
    bench.make_ledger(tmp_path, 12, "b")
    names = bench.imports_of(["verify", "--no-cache", "--quiet", "--root", str(tmp_path)], tmp_path / "listed.txt")
    for name in ("workings.cli", "workings.engine", "workings.loader", "click", "pint", "yaml"):
        assert name in names, names
    assert "__main__" not in names and len(names) == len(set(names))
    shown = bench.imports_of(["show", "g0/c3", "--root", str(tmp_path)], tmp_path / "listed.txt")
    assert "workings.show" in shown and "workings.show" not in names  # each command's own, not one list
    assert subprocess.run(bench.imports_alone(names), capture_output=True).returncode == 0
    # it imports what it is given: a module that does not exist fails it
    failed = subprocess.run(bench.imports_alone([*names, "workings.no_such_module"]), capture_output=True, text=True)
    assert failed.returncode != 0 and "workings.no_such_module" in failed.stderr


def test_instructions_without_valgrind_say_what_is_missing(tmp_path):
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "bench.py"), "--instructions", "--n", "1"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": str(tmp_path)})  # an empty folder: no valgrind on it
    assert done.returncode != 0
    assert "valgrind, which is not installed" in done.stderr
