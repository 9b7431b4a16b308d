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
