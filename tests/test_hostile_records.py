"""Hostile records found in review, run through the real CLI in a subprocess: each must end as one
claim or source error (exit 2), never a traceback (exit 1, which would read as drift), a segfault or
a hang; the good claim beside it still verifies."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

# The good claim beside each hostile one: an estimate, the label that may rest on a stated assumption alone.
OK = 'said: "x is 1."\nfigure: "1 B"\nlabel: estimate\ninputs:\n  b: 1 B\nassumptions: {b: y}\ncompute:\n  a: b\n'


def _claim(figure: str, *steps: str) -> str:
    body = "".join(f"  s{i}: {s}\n" for i, s in enumerate(steps))
    return f'said: "x is {figure}."\nfigure: "{figure}"\nlabel: derived\ncompute:\n{body}'


def _ledger(tmp_path: Path, hostile: str, snapshot: bytes | None = None) -> Path:
    (tmp_path / "claims" / "t").mkdir(parents=True)
    (tmp_path / "claims" / "t" / "ok.yaml").write_text(OK)
    (tmp_path / "claims" / "t" / "h.yaml").write_text(hostile)
    if snapshot is not None:
        name = f"{hashlib.sha256(snapshot).hexdigest()}.json"
        (tmp_path / "ledger" / "snapshots").mkdir(parents=True)
        (tmp_path / "ledger" / "sources").mkdir(parents=True)
        (tmp_path / "ledger" / "snapshots" / name).write_bytes(snapshot)
        (tmp_path / "ledger" / "sources" / "src.yaml").write_text(
            f"title: t\ngrade: copy\nsnapshot: {name}\nformat: json\n")
    return tmp_path


def _verify(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workings", "verify", "--root", str(root), "-q"],
                          capture_output=True, text=True, timeout=30)


CASES = {
    "call-arity": _claim("1", "abs(1, 2)"),
    "min-one-arg": _claim("1", "min(1)"),
    "float-overflow-literal": _claim("1", "1e999"),
    "squared-unit": 'said: "x is 1."\nfigure: "1 B"\nlabel: derived\ninputs:\n  v: 1 B\nassumptions: {v: y}\n'
                    "compute:\n  sq: v * v\n",
    "unit-exponent-growth": _claim("1", "percent ** 64", "s0 ** 64", "s1 ** 64", "s2 ** 64"),
    "yaml-nested-1000": "said: " + "[" * 1000 + "]" * 1000 + "\n",
    "yaml-nested-50000": "said: " + "[" * 50000 + "]" * 50000 + "\n",
    "yaml-5000-digit-int": "said: " + "9" * 5000 + "\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_claim_is_one_error_not_a_crash(tmp_path, name):
    done = _verify(_ledger(tmp_path, CASES[name]))
    assert "Traceback" not in done.stderr, done.stderr[-500:]
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-500:])
    assert "claims/t/h.yaml" in done.stdout
    assert "t/ok" not in done.stdout or "1 verified" in done.stdout


@pytest.mark.parametrize("value", ["1e5000", "1e999999999"])
def test_huge_exponent_in_a_snapshot_is_an_error_not_a_crash_or_hang(tmp_path, value):
    hostile = 'said: x is 1.\nfigure: "1"\nlabel: derived\ninputs:\n  a: src#x\ncompute:\n  b: a\n'
    done = _verify(_ledger(tmp_path, hostile, f'{{"x": {value}}}\n'.encode()))
    assert "Traceback" not in done.stderr and done.returncode == 2


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_snapshot_that_is_not_a_regular_file_is_refused(tmp_path):
    (tmp_path / "claims" / "t").mkdir(parents=True)
    (tmp_path / "claims" / "t" / "ok.yaml").write_text(OK)
    (tmp_path / "ledger" / "snapshots").mkdir(parents=True)
    (tmp_path / "ledger" / "sources").mkdir(parents=True)
    name = f"{hashlib.sha256(b'x').hexdigest()}.txt"
    (tmp_path / "ledger" / "snapshots" / name).symlink_to("/dev/zero")
    (tmp_path / "ledger" / "sources" / "z.yaml").write_text(f"title: t\ngrade: copy\nsnapshot: {name}\n")
    done = _verify(tmp_path)
    assert done.returncode == 2 and "ledger/sources/z.yaml" in done.stdout


def test_a_printed_number_typed_into_a_step_is_not_verified(tmp_path):
    done = _verify(_ledger(tmp_path, _claim("196,608 B/token", "196608 * B / token")))
    assert done.stdout.endswith("2 claims: 1 verified, 1 unchecked\n") and done.returncode == 0


def test_a_plain_number_result_compares_without_a_crash(tmp_path):
    hostile = 'said: "x is 4."\nfigure: "4"\nlabel: estimate\ninputs:\n  n: 2\nassumptions: {n: y}\ncompute:\n  r: 2 * n\n'
    done = _verify(_ledger(tmp_path, hostile))
    assert done.returncode == 0 and done.stdout.endswith("2 claims: 2 verified\n")


def test_a_symlinked_record_is_refused(tmp_path):
    root = _ledger(tmp_path, OK)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text(OK)
    (root / "claims" / "t" / "link.yaml").symlink_to(outside)
    done = _verify(root)
    assert done.returncode == 2 and "claims/t/link.yaml" in done.stdout and "symbolic link" in done.stdout
