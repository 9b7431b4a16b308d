"""``show`` reads one claim's neighbourhood, and prints what a whole-ledger run would."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from click.testing import CliRunner

from workings import verify
from workings.cli import main
from workings.neighbourhood import show_claim
from workings.show import derivation

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402


def test_every_claim_of_this_repository_shows_as_the_whole_ledger_shows_it(tmp_path):
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, tmp_path / part)
    whole = verify(tmp_path)
    assert len(whole.claims) > 50
    for claim in whole.claims:
        near = show_claim(tmp_path, claim.id)
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
