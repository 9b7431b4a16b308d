"""workings diff: what a pull-request-like change moves, held against main's report."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import PER_TOKEN
from workings import movements
from workings.cli import main
from workings.errors import LedgerError

REPO = Path(__file__).resolve().parents[1]

# The per-token claim with its working replaced by the printed number: nothing sourced backs it.
TYPED_ONLY = """\
said: "2 x 48 x 8 x 128 x 2 = 196,608 bytes per token."
figure: 196,608 B/token
label: derived
compute:
  per_token: 196608 * B / token
"""


def run(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)


def report_of(root: Path, out: Path) -> Path:
    run("verify", "--root", root, "--json", out)
    return out


def test_a_claim_made_unchecked_fails_the_comparison(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    base = report_of(tmp_ledger.root, tmp_path / "base.json")
    tmp_ledger.claim("kv/per-token", TYPED_ONLY)
    new = report_of(tmp_ledger.root, tmp_path / "new.json")
    summary = tmp_path / "summary.md"
    result = run("diff", base, new, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert [line.split()[:3] for line in lines if line.startswith("FAIL")] == [
        ["FAIL", "verified->unchecked", "kv/full-window"], ["FAIL", "verified->unchecked", "kv/per-token"]]
    assert "claims/kv/per-token.yaml:1: moved verified->unchecked (fails: --fail-on verified->*)" in result.output
    assert lines[-1] == "2 claims moved; 2 of them fail the check."
    written = summary.read_text()
    assert "| ❌ | `kv/per-token` | verified->unchecked |" in written


def test_a_corrected_figure_is_listed_but_passes(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/per-token", PER_TOKEN.replace("196,608", "196,680"))
    base = report_of(tmp_ledger.root, tmp_path / "base.json")
    tmp_ledger.claim("kv/per-token", PER_TOKEN)
    new = report_of(tmp_ledger.root, tmp_path / "new.json")
    result = run("diff", base, new)
    assert result.exit_code == 0, result.output
    assert "     drift->verified" in result.output
    assert result.output.splitlines()[-1] == "2 claims moved; 0 of them fail the check."


def test_nothing_moved(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    base = report_of(tmp_ledger.root, tmp_path / "base.json")
    result = run("diff", base, base)
    assert (result.exit_code, result.output) == (0, "No claim changed status or value.\n")


def test_policy_can_be_widened_or_switched_off(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    base = report_of(tmp_ledger.root, tmp_path / "base.json")
    (tmp_ledger.root / "claims" / "kv" / "full-window.yaml").unlink()
    new = report_of(tmp_ledger.root, tmp_path / "new.json")
    assert run("diff", base, new).exit_code == 0  # a removed claim must be named to fail
    assert run("diff", base, new, "--fail-on", "verified->removed").exit_code == 1
    assert run("diff", base, new, "--fail-on", "none").exit_code == 0
    bad = run("diff", base, new, "--fail-on", "verified->gone")
    assert bad.exit_code == 2 and "--fail-on 'verified->gone'" in bad.output


def test_an_unreadable_report_is_exit_2_naming_it(tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text('{"claims": 3}')
    result = CliRunner().invoke(main, ["diff", str(junk), str(junk)])
    assert result.exit_code == 2 and f"{junk}: not a workings report" in result.output
    with pytest.raises(LedgerError, match="no such report"):
        movements.load_report(tmp_path / "missing.json")


def test_on_a_copy_of_this_repository_a_drifted_source_value_moves_everything_built_on_it(tmp_path):
    root = tmp_path / "repo"
    for folder in ("claims", "ledger"):
        shutil.copytree(REPO / folder, root / folder)
    base = report_of(root, tmp_path / "base.json")
    claim = root / "claims" / "kv-bytes-per-token" / "qwen25-14b-bytes-per-token.yaml"
    claim.write_text(claim.read_text().replace("196,608", "196,680"))  # said and figure, as an editor types it
    new = report_of(root, tmp_path / "new.json")
    moves = movements.compare(movements.load_report(base), movements.load_report(new))
    moved = {m.claim: m.arrow for m in moves}
    assert moved["kv-bytes-per-token/qwen25-14b-bytes-per-token"] == "verified->drift"
    assert moved["kv-bytes-per-token/qwen25-14b-cache-full-window-gb"] == "verified->drift"
    assert all(arrow == "verified->drift" for arrow in moved.values())
    assert run("diff", base, new).exit_code == 1


def test_the_pull_request_script_compares_against_the_base_commit(tmp_path):
    """scripts/pr-moves.sh as the workflow runs it: a clone whose origin holds the base commit, a
    change on top, the change's report, and the script fetching, installing and verifying the base."""
    import os
    import subprocess

    origin, clone = tmp_path / "origin", tmp_path / "clone"
    shutil.copytree(REPO, origin, ignore=shutil.ignore_patterns(".git", "reports", "*.egg-info", "__pycache__",
                                                                 ".hypothesis", ".pytest_cache", "build",
                                                                 ".mypy_cache"))  # mypy's sqlite files come and go

    def git(*args, cwd):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                              capture_output=True, text=True).stdout.strip()

    git("init", "-q", "-b", "main", cwd=origin)
    git("add", "-A", cwd=origin)
    git("commit", "-q", "-m", "base", cwd=origin)
    base_sha = git("rev-parse", "HEAD", cwd=origin)
    git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
    claim = clone / "claims" / "kv-bytes-per-token" / "qwen25-14b-bytes-per-token.yaml"
    claim.write_text(claim.read_text().replace("196,608", "196,680"))  # said and figure, as an editor types it
    assert run("verify", "--root", clone, "--json", clone / "reports" / "ledger.json").exit_code == 1
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "TMPDIR": str(scratch)}
    done = subprocess.run(["bash", "scripts/pr-moves.sh", base_sha], cwd=clone, capture_output=True, text=True,
                          env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL verified->drift" in done.stdout and "kv-bytes-per-token/qwen25-14b-bytes-per-token" in done.stdout
    assert list(scratch.iterdir()) == [], "the script leaves nothing behind"
    assert git("worktree", "list", "--porcelain", cwd=clone).count("worktree ") == 1
