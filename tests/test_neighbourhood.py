"""``show`` reads one claim's neighbourhood, and prints what a whole-ledger run would."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from workings import neighbourhood, readahead, verify
from workings.cli import main
from workings.neighbourhood import show_claim
from workings.show import derivation

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402


FORKS = hasattr(os, "fork") and sys.platform != "darwin"


@pytest.fixture
def forced(monkeypatch, second_of) -> list[int]:
    """A child scans for "used by" whatever the ledger's size, the records in parts of three; the
    list gets how many parts each scan took from the child."""
    if not FORKS:
        pytest.skip("the scan runs in one process where fork is not used")
    assert threading.active_count() == 1, f"threads left running by earlier tests: {threading.enumerate()}"
    monkeypatch.setattr(readahead, "MIN_RECORDS", 0)
    monkeypatch.setattr(neighbourhood, "_PART", 3)
    return second_of(readahead, "outcomes")


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_claim_of_this_repository_shows_as_the_whole_ledger_shows_it(tmp_path, jobs, request):
    if jobs == 2:
        request.getfixturevalue("forced")
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, tmp_path / part)
    whole = verify(tmp_path)
    assert len(whole.claims) > 50
    for claim in whole.claims:
        near = show_claim(tmp_path, claim.id, jobs=jobs)
        assert near.claim is not None, claim.id
        assert derivation(near.report, near.claim) == derivation(whole, claim), claim.id


def test_show_parses_the_chain_it_rests_on_and_its_users_only(tmp_path):
    bench.make_ledger(tmp_path, 50, "b")
    near = show_claim(tmp_path, "g0/c28")
    assert near.claim.status == "verified"
    assert near.claim.used_by == ("g0/c29",)
    assert sorted(near.report.claims[i].id for i in range(len(near.report.claims))) == [f"g0/c{i}" for i in range(20, 29)]
    assert near.parsed == 9 + 1 + 1  # the chain c20..c28, its config's source record, c29 to confirm "used by"
    whole = verify(tmp_path)
    assert derivation(near.report, near.claim) == derivation(whole, whole.claim("g0/c28"))


def _users_everywhere(root: Path) -> None:
    """Beside bench's chain (c29 uses c28): records that name ``claim:g0/c28`` at both ends of the
    scan (claims/extra/ before g0/, claims/zz/ after), some using it, some only mentioning it
    (parsed, not counted), and one that is a link."""
    for folder in ("extra", "zz"):
        (root / "claims" / folder).mkdir()
    for index in range(12):
        uses = index % 3 == 0
        prev = "  prev: claim:g0/c28\n" if uses else ""
        (root / "claims" / ("extra", "zz")[index % 2] / f"x{index:02}.yaml").write_text(
            ("" if uses else "# written beside claim:g0/c28, which it does not use\n")
            + 'said: "An extra claim is 1 B/token."\nfigure: 1 B/token\nlabel: derived\n'
            + f"inputs:\n{prev}  more: 1 B/token\nassumptions:\n  more: One byte more.\n"
            + f"compute:\n  total: {'more + prev - prev' if uses else 'more'}\n")
    (root / "claims" / "extra" / "link.yaml").symlink_to(root / "claims" / "extra" / "x00.yaml")


def _slowed(child: float, parent: float):
    """``read_record`` that waits first: ``child`` seconds in a child process, ``parent`` here."""
    real = neighbourhood.read_record
    here = os.getpid()

    def read(path, regular=False):
        time.sleep(parent if os.getpid() == here else child)
        return real(path, regular)
    return read


@pytest.mark.parametrize("child, parent", [(0.003, 0.0005), (0.0, 0.004)])
def test_show_finds_the_same_users_with_the_scan_split_between_two_processes(tmp_path, forced, monkeypatch, child, parent):
    bench.make_ledger(tmp_path, 50, "b")
    _users_everywhere(tmp_path)
    alone = show_claim(tmp_path, "g0/c28", jobs=1)
    assert alone.claim.used_by == ("extra/x00", "extra/x06", "g0/c29", "zz/x03", "zz/x09")
    assert alone.parsed == 9 + 1 + 5 + 8  # the chain, its source, the users, the mentions
    assert forced == [0]
    monkeypatch.setattr(neighbourhood, "read_record", _slowed(child, parent))
    split = show_claim(tmp_path, "g0/c28", jobs=2)
    parts = -(-len(neighbourhood.record_files(tmp_path)) // 3)
    assert 0 < forced[1] <= parts, forced  # the child scanned some of the parts
    assert forced[1] < parts or parent > child, forced  # and this process some, where the child was slower
    assert split.claim.used_by == alone.claim.used_by and split.parsed == alone.parsed
    assert derivation(split.report, split.claim) == derivation(alone.report, alone.claim)


def test_the_neighbourhood_is_read_while_the_child_scans(tmp_path, forced, monkeypatch):
    """The child is forked before the claim and what it rests on are read (pint imported, the chain
    evaluated): the scan and that work overlap."""
    bench.make_ledger(tmp_path, 30, "b")
    events: list[str] = []
    real_fork, real_load = readahead._fork, neighbourhood.records._load_claim
    monkeypatch.setattr(readahead, "_fork", lambda *a: (events.append("fork"), real_fork(*a))[1])
    monkeypatch.setattr(neighbourhood.records, "_load_claim", lambda *a: (events.append("load"), real_load(*a))[1])
    near = show_claim(tmp_path, "g0/c18", jobs=2)
    assert near.claim.used_by == ("g0/c19",)
    assert events[:2] == ["fork", "load"] and events.count("fork") == 1


def test_show_of_an_unknown_claim_still_hints(tmp_path):
    bench.make_ledger(tmp_path, 12, "a")
    result = CliRunner().invoke(main, ["show", "c11", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert "did you mean: g0/c11" in result.output
    result = CliRunner().invoke(main, ["show", "claims/g0/c11.yaml", "--root", str(tmp_path)])
    assert result.exit_code == 0 and "used by" not in result.output and "uses: g0/c10" in result.output


def test_show_and_check_draft_exit_with_what_they_built_frozen_out_of_the_last_collection(tmp_path):
    """As verify does: at exit, what is still alive is frozen before the interpreter's last
    collection, which would only rescan it (a handler registered first runs last and sees it)."""
    import subprocess

    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, tmp_path / part)
    probe = ("import atexit, gc, sys\n"
             "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 10_000, file=sys.stderr))\n"
             "from workings.cli import main\n"
             "main()\n")
    for args in (["show", "kv-bytes-per-token/qwen25-14b-head-size"],
                 ["check-draft", str(tmp_path / "claims" / "kv-bytes-per-token" / "article.md")]):
        done = subprocess.run([sys.executable, "-c", probe, *args, "--root", str(tmp_path)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 1), done.stderr
        assert "frozen at exit: True" in done.stderr, args


def test_reading_a_record_without_its_size_gives_the_same_bytes_and_refusals(tmp_path):
    """``read_record(path, regular=True)`` (the walk saw a regular file: no ``fstat``) gives what the
    size-first read gives for every kind of entry a claims/ folder may hold; the walk says regular
    only of regular files."""
    import os

    from workings.loader import MAX_RECORD_BYTES
    from workings.neighbourhood import read_record, record_files, record_paths

    folder = tmp_path / "claims" / "g"
    folder.mkdir(parents=True)
    sizes = {"empty": 0, "one": 1, "small": 700, "chunk-1": 2**16 - 1, "chunk": 2**16, "chunk+1": 2**16 + 1,
             "limit": MAX_RECORD_BYTES, "over": MAX_RECORD_BYTES + 1}
    for name, size in sizes.items():
        (folder / f"{name}.yaml").write_bytes(b"said: x\n"[:size] + b"#" * max(0, size - 8))
    os.mkfifo(folder / "pipe.yaml")
    (folder / "link.yaml").symlink_to(folder / "small.yaml")
    (folder / "dir.yaml").mkdir()
    (folder / "dir.yaml" / "inner.yml").write_bytes(b"figure: 2\n")
    walked = record_files(tmp_path)
    assert [p for p, _ in walked] == record_paths(tmp_path)
    regular = {Path(p).name: r for p, r in walked}
    assert regular == {**{f"{n}.yaml": True for n in sizes}, "pipe.yaml": False, "link.yaml": False,
                       "inner.yml": True}
    for path, is_regular in walked:
        assert read_record(path, is_regular) == read_record(path), path
        if is_regular and Path(path).stat().st_size <= MAX_RECORD_BYTES:
            assert read_record(path, True) == Path(path).read_bytes()
    assert read_record(folder / "over.yaml", True) is None and read_record(folder / "pipe.yaml") is None
    assert read_record(folder / "link.yaml") is None and read_record(folder / "gone.yaml", True) is None
