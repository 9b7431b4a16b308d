"""scripts/bench.py runs at a small size, so it cannot rot (CI runs it; no timing is asserted)."""

from __future__ import annotations

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
    for row in ("this repository's ledger (cold)", "again, nothing changed", "again, one claim's record changed"):
        assert row in done.stdout, done.stdout
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
