"""A warm verify takes each unchanged claim's share of the outputs from the cache (``workings.written``)
and writes what a cold run writes, byte for byte: terminal (full and ``--quiet``), JSON, JUnit, GitHub
annotations and step summary. Held on a generated ledger, a copy of this repository's ledger and a
ledger of broken records, after edits to a claim, a source, a snapshot and a measurement; and the
work done is counted (claims formatted, records read), never timed."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from workings import cache, cachestore
from workings.cli import main

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402


def run(root: Path, tmp: Path, cache_dir: Path | None, tag: str, *, quiet: bool, actions: bool) -> tuple[dict, int]:
    """Everything verify writes; ``cache_dir`` None: --no-cache."""
    out = tmp / f"out-{tag}"
    out.mkdir(parents=True, exist_ok=True)
    summary = out / "summary.md"
    env = {"GITHUB_ACTIONS": "true" if actions else None, "GITHUB_STEP_SUMMARY": str(summary) if actions else None,
           "WORKINGS_CACHE_DIR": str(cache_dir) if cache_dir else None, "WORKINGS_NO_CACHE": None}
    args = ["verify", "--root", str(root), "--json", str(out / "ledger.json")]
    args += (["-q"] if quiet else []) + ([] if cache_dir else ["--no-cache"])
    result = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    files = {"stdout": result.stdout, "json": (out / "ledger.json").read_bytes(),
             "junit": (out / "junit.xml").read_bytes(), "summary": summary.read_bytes() if summary.exists() else b""}
    return files, result.exit_code


def same_as_cold(root: Path, tmp: Path, cache_dir: Path, tag: str) -> None:
    """Every output of a warm run, in each mode, is the cold run's (the warm run goes first)."""
    for quiet in (False, True):
        for actions in (False, True):
            mode = f"{tag}-{'q' if quiet else 'full'}-{'gh' if actions else 'plain'}"
            warm, code = run(root, tmp, cache_dir, f"{mode}-warm", quiet=quiet, actions=actions)
            cold, cold_code = run(root, tmp, None, f"{mode}-cold", quiet=quiet, actions=actions)
            assert code == cold_code, mode
            for name in cold:
                assert warm[name] == cold[name], f"{mode}: {name} differs between the warm and the cold run"


def stats(root: Path, cache_dir: Path) -> cache.Stats:
    _, done = cache.verify(root, cachestore.Store.for_root(root, cache_dir))
    assert not done.why_cold, done.why_cold
    return done


def chain(first: int, last: int, group: str = "g0") -> tuple[str, ...]:
    return tuple(sorted(f"{group}/c{i}" for i in range(first, last + 1)))


def test_a_warm_run_formats_only_the_claims_that_changed_and_writes_a_cold_runs_bytes(tmp_path):
    root, cache_dir = tmp_path / "gen", tmp_path / "cache"
    bench.make_ledger(root, 60, "b")
    same_as_cold(root, tmp_path, cache_dir, "first")
    again = stats(root, cache_dir)
    assert (again.recomputed, again.formatted, again.total) == (0, 0, 60)
    claims = root / "claims" / "g0"

    # one claim's sentence: it and the claims built on it are recomputed and formatted, nothing else
    path = claims / "c23.yaml"
    path.write_text(path.read_text().replace("Synthetic claim", "Synthetic claim, edited"))
    done = stats(root, cache_dir)
    assert done.ids == chain(23, 29) and done.formatted == 7
    same_as_cold(root, tmp_path, cache_dir, "claim")

    # a source record (its grade is part of every claim resting on it): the claims reading it
    source = root / "ledger" / "sources" / "bench-cfg-1.yaml"
    source.write_text(source.read_text().replace("grade: copy", "grade: transcription"))
    done = stats(root, cache_dir)
    assert done.ids == chain(10, 19) and done.formatted == 10
    same_as_cold(root, tmp_path, cache_dir, "source")

    # a new claim built on c59: c59 is not recomputed, but what uses it changed: formatted again
    (claims / "c60.yaml").write_text((claims / "c59.yaml").read_text().replace("g0/c58", "g0/c59"))
    done = stats(root, cache_dir)
    assert done.ids == ("g0/c60",) and done.formatted == 2
    same_as_cold(root, tmp_path, cache_dir, "added")


def test_the_repository_ledger_and_a_broken_one_warm_are_the_cold_run_in_every_mode(tmp_path):
    root, cache_dir = tmp_path / "repo", tmp_path / "cache"
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    bench.make_ledger(root, 30, "b", group_prefix="gen")
    same_as_cold(root, tmp_path, cache_dir, "first")
    # broken records of every kind, a drift, a measurement that disagrees with its estimate
    gen = root / "claims" / "gen0"
    (gen / "c13.yaml").write_text((gen / "c13.yaml").read_text().replace("786,432", "786,433"))
    (gen / "c25.yaml").write_text("said: x\n")
    (gen / "c21.yaml").write_text((gen / "c21.yaml").read_text().replace("bench-cfg-2#", "nosuch#", 1))
    for a, b in (("cyc-a", "cyc-b"), ("cyc-b", "cyc-a")):
        (gen / f"{a}.yaml").write_text(f'said: "1"\nfigure: "1"\nlabel: derived\ninputs:\n  o: claim:gen0/{b}\n'
                                       "compute:\n  r: o\n")
    (root / "ledger" / "sources" / "broken.yaml").write_text("title: [\n")
    measured = sorted((root / "ledger" / "measurements").rglob("fp8-halves--cpu--*.yaml"))
    text = measured[0].read_text()
    changed = re.sub(r"(result:\n  unit: \S+\n  value: ')(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 7),
                     text, count=1)
    assert changed != text
    measured[0].write_text(changed)
    same_as_cold(root, tmp_path, cache_dir, "broken")
    files, code = run(root, tmp_path, cache_dir, "check", quiet=True, actions=True)
    assert code == 2 and "DISAGREES" in files["stdout"] and "DRIFT" in files["stdout"] and "ERROR" in files["stdout"]
    assert b'type="measurement"' in files["junit"] and b"Drifted or failing" in files["summary"]
    # again: the failing claims' shares come from the cache (their whole results, for the annotations,
    # from their cached results); only the invalid record and the cycle, never cached, are made again
    done = stats(root, cache_dir)
    assert done.ids == ("gen0/c25", "gen0/cyc-a", "gen0/cyc-b") and done.formatted == 3
    same_as_cold(root, tmp_path, cache_dir, "broken-again")


def test_a_record_known_by_its_file_identity_is_not_read_and_a_same_size_rewrite_is_seen(tmp_path, monkeypatch):
    root, cache_dir = tmp_path / "gen", tmp_path / "cache"
    bench.make_ledger(root, 30, "b")
    assert stats(root, cache_dir).read == 30  # a first run reads every record
    assert stats(root, cache_dir).read == 30  # written under 2 s ago: no identity remembered, read again
    monkeypatch.setattr(cache, "RACY_NS", 0)
    stats(root, cache_dir)
    assert stats(root, cache_dir).read == 0  # every identity known: no record read
    # the same size, mtime put back: the ctime changed, so it is read, and it and its chain recompute
    path = root / "claims" / "g0" / "c24.yaml"
    before = path.stat()
    import os
    import time

    time.sleep(0.05)
    path.write_text(path.read_text().replace("Synthetic claim 24", "Synthetic claim 42"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    done = stats(root, cache_dir)
    assert done.ids == chain(24, 29) and done.read == 6  # c24 to see its change, c25 .. c29 to evaluate them
    same_as_cold(root, tmp_path, cache_dir, "rewritten")
    # a claim whose upstream changed is parsed again: its bytes are read then, and must still hash the same
    upstream = root / "claims" / "g0" / "c20.yaml"
    upstream.write_text(upstream.read_text().replace("Synthetic claim", "Synthetic claim, edited"))
    done = stats(root, cache_dir)
    assert done.ids == chain(20, 29) and done.read == 10


@pytest.mark.parametrize("kind", ["link", "pipe"])
def test_a_link_or_pipe_among_the_records_is_reported_as_the_cold_run_does(tmp_path, kind):
    import os

    root, cache_dir = tmp_path / "gen", tmp_path / "cache"
    bench.make_ledger(root, 20, "b")
    same_as_cold(root, tmp_path, cache_dir, "first")
    odd = root / "claims" / "g0" / "odd.yaml"
    if kind == "link":
        odd.symlink_to(root / "claims" / "g0" / "c1.yaml")
    else:
        os.mkfifo(odd)
    same_as_cold(root, tmp_path, cache_dir, kind)


def test_a_pack_segment_that_did_not_change_is_written_from_the_bytes_read(tmp_path, monkeypatch):
    root, cache_dir = tmp_path / "gen", tmp_path / "cache"
    bench.make_ledger(root, 200, "b")
    stats(root, cache_dir)
    shards = []
    dump_shard = cachestore.dump_shard
    monkeypatch.setattr(cachestore, "dump_shard", lambda shard: shards.append(shard) or dump_shard(shard))
    path = root / "claims" / "g0" / "c57.yaml"
    path.write_text(path.read_text().replace("Synthetic claim", "Synthetic claim, edited"))
    assert stats(root, cache_dir).ids == chain(57, 59)
    assert 1 <= len(shards) <= 4 < cachestore.SHARDS  # holding c57 (old and new bytes), c58, c59
    monkeypatch.setattr(cachestore, "dump_shard", dump_shard)
    assert stats(root, cache_dir).recomputed == 0  # and the pack so written reads back whole
