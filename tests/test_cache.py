"""verify's content-keyed cache (workings.cache, workings.cachestore).

A warm run recomputes exactly the claims whose inputs changed (asserted on the ids recomputed, never
on time), its output is byte for byte a cold run's (terminal, annotations, JSON, JUnit, step summary),
and a cache it did not write itself (planted, forged, corrupt, deleted mid-run) changes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from workings import cache, cachestore
from workings.cli import main

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402


def outputs(root: Path, tmp: Path, cache_dir: Path | None, tag: str) -> tuple[dict[str, bytes], str, int]:
    """Everything verify writes (stdout with GitHub annotations, JSON, JUnit, step summary), its stderr
    and exit code; ``cache_dir`` None: --no-cache."""
    out = tmp / f"out-{tag}"
    out.mkdir(parents=True, exist_ok=True)
    summary = out / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary),
           "WORKINGS_CACHE_DIR": str(cache_dir) if cache_dir else None, "WORKINGS_NO_CACHE": None}
    args = ["verify", "--root", str(root), "--json", str(out / "ledger.json")] + ([] if cache_dir else ["--no-cache"])
    result = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    files = {"stdout": result.stdout.encode(), "json": (out / "ledger.json").read_bytes(),
             "junit": (out / "junit.xml").read_bytes(), "summary": summary.read_bytes() if summary.exists() else b""}
    return files, result.stderr, result.exit_code


def warm_equals_cold(root: Path, tmp: Path, cache_dir: Path, tag: str) -> str:
    """Run warm then cold; assert the same bytes and exit code; return the warm run's stderr."""
    warm, said, code = outputs(root, tmp, cache_dir, f"{tag}-warm")
    cold, _, cold_code = outputs(root, tmp, None, f"{tag}-cold")
    assert code == cold_code
    for name in cold:
        assert warm[name] == cold[name], f"{tag}: {name} differs between the warm and the cold run"
    return said


def recomputed(said: str) -> tuple[int, int]:
    found = re.search(r"cache: recomputed ([\d,]+) of ([\d,]+) claims", said)
    assert found, said
    return int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))


def run_ids(root: Path, cache_dir: Path) -> tuple[str, ...]:
    """The claims a warm run through the library recomputed."""
    store = cachestore.Store.for_root(root, cache_dir)
    _, stats = cache.verify(root, store)
    assert not stats.why_cold
    return stats.ids


@pytest.fixture
def generated(tmp_path: Path) -> Path:
    """60 generated claims in chains of 10 (g0/c0 .. g0/c59), reading configs through source records."""
    root = tmp_path / "gen"
    bench.make_ledger(root, 60, "b")
    return root


def chain(first: int, last: int) -> tuple[str, ...]:
    return tuple(sorted(f"g0/c{i}" for i in range(first, last + 1)))


def test_each_kind_of_edit_recomputes_only_what_depends_on_it_and_gives_a_cold_runs_bytes(generated, tmp_path):
    root, cache_dir = generated, tmp_path / "cache"
    said = warm_equals_cold(root, tmp_path, cache_dir, "first")
    assert recomputed(said) == (60, 60)
    assert run_ids(root, cache_dir) == ()
    assert recomputed(warm_equals_cold(root, tmp_path, cache_dir, "again")) == (0, 60)
    claims = root / "claims" / "g0"

    # a claim's figure: it drifts, and so does every claim built on it
    path = claims / "c23.yaml"
    path.write_text(path.read_text().replace("786,432", "786,433"))  # said and figure, as an editor types it
    assert run_ids(root, cache_dir) == chain(23, 29)
    assert recomputed(warm_equals_cold(root, tmp_path, cache_dir, "figure")) == (0, 60)

    # a source record's key: every claim that reads the source (c10 .. c19)
    source = root / "ledger" / "sources" / "bench-cfg-1.yaml"
    source.write_text(source.read_text() + "publisher: Example Labs\n")
    assert run_ids(root, cache_dir) == chain(10, 19)
    warm_equals_cold(root, tmp_path, cache_dir, "source")

    # a snapshot swapped for other bytes (the record names the new one): the claims reading it drift
    raw = bench.config_bytes(2).replace(b'"num_hidden_layers": 48', b'"num_hidden_layers": 40')
    name = f"{hashlib.sha256(raw).hexdigest()}.json"
    (root / "ledger" / "snapshots" / name).write_bytes(raw)
    source = root / "ledger" / "sources" / "bench-cfg-2.yaml"
    source.write_text(re.sub(r"snapshot: \S+", f"snapshot: {name}", source.read_text()))
    assert run_ids(root, cache_dir) == chain(20, 29)
    files, _, code = outputs(root, tmp_path, cache_dir, "swapped")
    assert code == 1 and b"DRIFT" in files["stdout"]
    warm_equals_cold(root, tmp_path, cache_dir, "swapped")

    # a snapshot's bytes changed in place (same name): the source is invalid, its claims cannot use it
    snapshot = root / "ledger" / "snapshots" / name
    snapshot.write_bytes(raw.replace(b"40", b"41"))
    assert run_ids(root, cache_dir) == chain(20, 29)
    assert recomputed(warm_equals_cold(root, tmp_path, cache_dir, "in-place")) == (0, 60)
    snapshot.write_bytes(raw)
    assert run_ids(root, cache_dir) == chain(20, 29)

    # a claim deleted: the claims built on it recompute (their input is gone); the rest is reused
    kept = (claims / "c35.yaml").read_bytes()
    (claims / "c35.yaml").unlink()
    assert run_ids(root, cache_dir) == chain(36, 39)
    said = warm_equals_cold(root, tmp_path, cache_dir, "deleted")
    assert recomputed(said) == (0, 59)

    # a claim added, built on another: only it recomputes (c59's used_by changes, from the links)
    (claims / "c60.yaml").write_text((claims / "c59.yaml").read_text().replace("g0/c58", "g0/c59"))
    assert run_ids(root, cache_dir) == ("g0/c60",)
    warm_equals_cold(root, tmp_path, cache_dir, "added")

    # an upstream claim's steps changed (same figure): it and everything built on it
    path = claims / "c40.yaml"
    path.write_text(path.read_text().replace("head_dim: hidden / heads", "head_dim: hidden / heads * 1"))
    assert run_ids(root, cache_dir) == chain(40, 49)
    warm_equals_cold(root, tmp_path, cache_dir, "upstream")

    # the deleted claim back: its dependants recompute again, to exactly the first results
    (claims / "c35.yaml").write_bytes(kept)
    assert run_ids(root, cache_dir) == chain(35, 39)
    warm_equals_cold(root, tmp_path, cache_dir, "restored")


def test_the_repository_ledger_warm_after_edits_is_the_cold_run_byte_for_byte(tmp_path):
    root, cache_dir = tmp_path / "repo", tmp_path / "cache"
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    said = warm_equals_cold(root, tmp_path, cache_dir, "first")
    total = recomputed(said)[1]
    assert recomputed(warm_equals_cold(root, tmp_path, cache_dir, "again")) == (0, total)
    users = {c["id"]: c["used_by"] for c in _claims(tmp_path / "out-again-warm" / "ledger.json")}
    # an upstream claim with dependants: it and exactly the claims above it recompute
    upstream = next(i for i, used in sorted(users.items()) if used)
    path = root / "claims" / f"{upstream}.yaml"
    path.write_text(path.read_text() + "# edited by the cache test\n")
    expected = _above(upstream, users)
    assert run_ids(root, cache_dir) == tuple(sorted(expected))
    assert 1 < len(expected) < total
    warm_equals_cold(root, tmp_path, cache_dir, "upstream")
    # a measurement: the claim it measures and the claims above that one, nothing else
    measurement = sorted((root / "ledger" / "measurements").rglob("*.yaml"))[0]
    measured = re.search(r"^claim: (\S+)$", measurement.read_text(), re.M).group(1)
    text = measurement.read_text()
    assert "command: workings probe" in text
    measurement.write_text(text.replace("command: workings probe", "command: workings  probe"))
    assert run_ids(root, cache_dir) == tuple(sorted(_above(measured, users)))
    warm_equals_cold(root, tmp_path, cache_dir, "measurement")
    # a claim deleted, one added, an invalid record
    (root / "claims" / f"{upstream}.yaml").unlink()
    (root / "claims" / "extra").mkdir()
    (root / "claims" / "extra" / "bad.yaml").write_text("said: x\n")
    (root / "claims" / "extra" / "one.yaml").write_text('said: "one"\nfigure: "1"\nlabel: derived\n')
    warm_equals_cold(root, tmp_path, cache_dir, "deleted-added")


def _claims(path: Path) -> list[dict]:
    return json.loads(path.read_text())["claims"]


def _above(claim_id: str, users: dict[str, list[str]]) -> set[str]:
    found, pending = {claim_id}, [claim_id]
    while pending:
        for user in users.get(pending.pop(), []):
            if user not in found:
                found.add(user)
                pending.append(user)
    return found


def test_a_change_of_workings_code_recomputes_everything(generated, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    run_ids(generated, cache_dir)
    assert run_ids(generated, cache_dir) == ()
    monkeypatch.setattr(cache, "code_fingerprint", lambda: b"other code")
    assert len(run_ids(generated, cache_dir)) == 60


def test_a_file_hash_is_remembered_only_when_old_enough_and_a_same_size_rewrite_is_seen(generated, tmp_path,
                                                                                          monkeypatch):
    cache_dir = tmp_path / "cache"
    store = cachestore.Store.for_root(generated, cache_dir)
    cache.verify(generated, store)
    cache.verify(generated, store)
    assert store.read()["hashes"] == {}  # every snapshot was written under 2 s ago: hashed on each run
    monkeypatch.setattr(cache, "RACY_NS", 0)
    cache.verify(generated, store)
    hashes = store.read()["hashes"]
    assert len(hashes) == bench.CONFIGS
    # the same size, mtime put back: the identity (ctime) changes, so the bytes are hashed again
    source = (generated / "ledger" / "sources" / "bench-cfg-3.yaml").read_text()
    name = re.search(r"snapshot: (\S+)", source).group(1)
    snapshot = generated / "ledger" / "snapshots" / name
    before = snapshot.stat()
    import time

    time.sleep(0.05)
    snapshot.write_bytes(snapshot.read_bytes().replace(b'"num_hidden_layers": 48', b'"num_hidden_layers": 47'))
    os.utime(snapshot, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert snapshot.stat().st_size == before.st_size
    report, stats = cache.verify(generated, store)
    assert stats.ids == chain(30, 39)
    assert {c.status for c in report.claims if c.id in chain(30, 39)} == {"error"}


def test_a_forged_or_corrupt_cache_is_ignored_with_a_note_and_rebuilt(generated, tmp_path):
    cache_dir = tmp_path / "cache"
    path = generated / "claims" / "g0" / "c5.yaml"
    assert recomputed(warm_equals_cold(generated, tmp_path, cache_dir, "first")) == (60, 60)
    store = cachestore.Store.for_root(generated, cache_dir)
    good = store.path.read_bytes()
    # the claim drifts; a forger puts the verified result back under its new bytes' entry
    pack = store.read()
    path.write_text(path.read_text().replace("1,179,648", "1,179,649"))  # said and figure alike
    digest = next(d for d, e in pack["claims"].items() if e[0] == "g0/c5")
    entry = pack["claims"].pop(digest)
    new_digest = cache._digest(b"claim", b"claims/g0/c5.yaml", path.read_bytes())
    pack["claims"][new_digest] = entry
    store.path.write_bytes(cachestore.pack_bytes(b"k" * 32, pack))  # made as a pack is, with another key
    files, said, code = outputs(generated, tmp_path, cache_dir, "forged")
    assert code == 1 and "not one this user wrote" in said and recomputed(said) == (60, 60)
    assert "DRIFT" in files["stdout"].decode()
    # signed with the user's own key, an entry under the new bytes still carries the old key: not served
    pack = store.read()
    pack["claims"][new_digest] = entry
    store.write(pack)
    assert "g0/c5" in run_ids(generated, cache_dir)
    # truncated, garbage, empty: each ignored with one line, the results a cold run's
    flipped = bytearray(good)
    flipped[len(good) * 2 // 3] ^= 1  # one bit inside one segment of claims
    for tag, data in (("truncated", good[: len(good) // 2]), ("garbage", b"\0junk" * 100), ("empty", b""),
                      ("flipped", bytes(flipped))):
        store.path.write_bytes(data)
        said = warm_equals_cold(generated, tmp_path, cache_dir, tag)
        assert recomputed(said) == (60, 60)
        assert "ignored and rebuilt" in said and said.count("\n") == 2, said
    assert recomputed(warm_equals_cold(generated, tmp_path, cache_dir, "rebuilt")) == (0, 60)


def test_an_authenticated_pack_still_cannot_build_anything_but_records(generated, tmp_path):
    cache_dir = tmp_path / "cache"
    _Boom.target = str(tmp_path / "boom")
    store = cachestore.Store.for_root(generated, cache_dir)
    store.write({"format": cache.FORMAT, "code": cache.code_fingerprint(), "claims": {},
                 "sources": {}, "hashes": {}, "x": _Boom()})
    _, stats = cache.verify(generated, store)
    assert stats.recomputed == 60
    assert any("could not be loaded (UnpicklingError)" in note for note in store.notes), store.notes
    assert not (tmp_path / "boom").exists()


class _Boom:
    target = ""

    def __reduce__(self):
        return (os.mkdir, (self.target,))


def test_a_cache_folder_inside_the_ledger_is_never_used(generated, tmp_path):
    planted = generated / ".cache"
    files, said, code = outputs(generated, tmp_path, planted, "planted")
    assert code == 0 and "cache: not used" in said and "inside" in said
    assert not planted.exists()
    with pytest.raises(cachestore.CacheRefused):
        cachestore.Store.for_root(generated, generated.parent)  # a folder holding the ledger


def test_a_key_file_others_can_read_is_refused(generated, tmp_path):
    cache_dir = tmp_path / "cache"
    store = cachestore.Store.for_root(generated, cache_dir)
    cache.verify(generated, store)
    assert (cache_dir / "secret").stat().st_mode & 0o777 == 0o600
    assert cache_dir.stat().st_mode & 0o777 == 0o700
    os.chmod(cache_dir / "secret", 0o644)
    _, said, code = outputs(generated, tmp_path, cache_dir, "shared-key")
    assert code == 0 and "not a private file" in said and recomputed(said) == (60, 60)


def test_deleting_the_cache_mid_run_changes_nothing(generated, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    outputs(generated, tmp_path, cache_dir, "first")
    write = cachestore.Store.write

    def deleted_first(self, content):
        shutil.rmtree(cache_dir)
        return write(self, content)

    path = generated / "claims" / "g0" / "c5.yaml"
    path.write_text(path.read_text().replace("Synthetic", "Edited"))
    monkeypatch.setattr(cachestore.Store, "write", deleted_first)
    said = warm_equals_cold(generated, tmp_path, cache_dir, "deleted")
    assert recomputed(said) == (5, 60)
    monkeypatch.setattr(cachestore.Store, "write", write)
    said = warm_equals_cold(generated, tmp_path, cache_dir, "after")  # its key went with the folder
    assert "ignored and rebuilt" in said and recomputed(said) == (60, 60)
    assert recomputed(warm_equals_cold(generated, tmp_path, cache_dir, "then")) == (0, 60)


def test_no_cache_and_the_environment_variable_leave_no_cache(generated, tmp_path):
    cache_dir = tmp_path / "cache"
    result = CliRunner().invoke(main, ["verify", "--root", str(generated), "--no-cache"],
                                env={"WORKINGS_CACHE_DIR": str(cache_dir)})
    assert result.exit_code == 0 and result.stderr == "" and not cache_dir.exists()
    result = CliRunner().invoke(main, ["verify", "--root", str(generated)],
                                env={"WORKINGS_CACHE_DIR": str(cache_dir), "WORKINGS_NO_CACHE": "1"})
    assert result.exit_code == 0 and result.stderr == "" and not cache_dir.exists()


def test_two_records_with_one_claim_id_are_evaluated_cold(generated, tmp_path):
    cache_dir = tmp_path / "cache"
    outputs(generated, tmp_path, cache_dir, "first")
    (generated / "claims" / "g0" / "c5.yml").write_bytes((generated / "claims" / "g0" / "c5.yaml").read_bytes())
    said = warm_equals_cold(generated, tmp_path, cache_dir, "twins")
    assert "two records give the claim id 'g0/c5'" in said


def test_a_cycle_is_recomputed_every_run_and_reported_as_cold(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    for a, b in (("x/a", "x/b"), ("x/b", "x/a")):
        tmp_ledger.claim(a, f'said: "1"\nfigure: "1"\nlabel: derived\ninputs:\n  o: claim:{b}\ncompute:\n  r: o\n')
    cache_dir = tmp_path / "cache"
    warm_equals_cold(tmp_ledger.root, tmp_path, cache_dir, "first")
    assert run_ids(tmp_ledger.root, cache_dir) == ("x/a", "x/b")


def test_the_warm_verify_path_imports_nothing_heavy(generated, tmp_path):
    code = ("import sys, runpy; sys.argv=['workings','verify','--root',sys.argv[1]];\n"
            "import workings.ending as ending\n"
            "ending.end = lambda exit: None  # ends as always: looked at after\n"
            "try:\n runpy.run_module('workings', run_name='__main__')\n"
            "except SystemExit as e:\n"
            " heavy=[m for m in ('torch','huggingface_hub','requests','jinja2') if m in sys.modules]\n"
            " print('HEAVY', heavy, 'EXIT', e.code)")
    env = {**os.environ, "WORKINGS_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("WORKINGS_NO_CACHE", None)
    for expected in ("recomputed 60 of 60", "recomputed 0 of 60"):
        out = subprocess.run([sys.executable, "-c", code, str(generated)], capture_output=True, text=True,
                             check=True, env=env)
        assert "HEAVY [] EXIT 0" in out.stdout and expected in out.stderr, out.stderr


def test_pickle_is_what_the_pack_uses_and_the_allowed_names_exist():
    """Every name the restricted unpickler allows is importable (a rename would silently make every
    pack unreadable, and every run cold)."""
    import importlib

    for module, name in cachestore._ALLOWED:
        assert hasattr(importlib.import_module(module), name), (module, name)
    assert pickle.loads(cachestore.dumps([1])) == [1]


def test_packs_unused_for_30_days_are_pruned_and_the_folder_follows_xdg(generated, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    store = cachestore.Store.for_root(generated, cache_dir)
    cache.verify(generated, store)
    old, recent = store.path.with_name("0" * 32 + ".pack"), store.path.with_name("1" * 32 + ".pack")
    for pack, days in ((old, 31), (recent, 29)):
        pack.write_bytes(b"another ledger's")
        stamp = pack.stat().st_mtime - days * 86400
        os.utime(pack, (stamp, stamp))
    (generated / "claims" / "g0" / "c1.yaml").write_text("said: x\n")  # a change: the pack is written again
    cache.verify(generated, store)
    assert store.path.exists() and recent.exists() and not old.exists()
    monkeypatch.delenv("WORKINGS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cachestore.cache_dir() == tmp_path / "xdg" / "workings"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored, as the XDG spec says
    assert cachestore.cache_dir() == Path(os.path.expanduser("~")) / ".cache" / "workings"


EDITS = ("figure", "steps", "source", "snapshot-new", "snapshot-in-place", "delete", "add", "invalid", "restore")


def _edit(root: Path, kind: str, index: int, saved: dict) -> None:
    """One edit of a generated ledger of 30 claims (chains of 10; claim i reads bench-cfg-(i // 10))."""
    claims = root / "claims" / "g0"
    path = claims / f"c{index}.yaml"
    cfg = root / "ledger" / "sources" / f"bench-cfg-{index // 10}.yaml"
    if kind in ("figure", "steps", "invalid") and path.exists():
        text = path.read_text()
        path.write_text({"figure": text.replace(" B/token\n", "1 B/token\n", 1),
                         "steps": text.replace("hidden / heads", "hidden / heads * 1"),
                         "invalid": "said: x\n"}[kind])
    elif kind == "source":
        cfg.write_text(cfg.read_text() + f"# {index}\n")
    elif kind == "snapshot-new":
        raw = bench.config_bytes(index).replace(b'"num_hidden_layers": 48', b'"num_hidden_layers": 40')
        name = f"{hashlib.sha256(raw).hexdigest()}.json"
        (root / "ledger" / "snapshots" / name).write_bytes(raw)
        cfg.write_text(re.sub(r"snapshot: \S+", f"snapshot: {name}", cfg.read_text()))
    elif kind == "snapshot-in-place":
        name = re.search(r"snapshot: (\S+)", cfg.read_text()).group(1)
        snapshot = root / "ledger" / "snapshots" / name
        snapshot.write_bytes(snapshot.read_bytes().replace(b"5120", b"5121"))
    elif kind == "delete" and path.exists():
        saved[index] = path.read_bytes()
        path.unlink()
    elif kind == "add":
        (claims / f"extra{index}.yaml").write_text((claims / "c1.yaml").read_text().replace("g0/c0", f"g0/c{index}"))
    elif kind == "restore" and saved:
        gone = sorted(saved)[0]
        (claims / f"c{gone}.yaml").write_bytes(saved.pop(gone))


def _all_outputs(report) -> tuple:
    from workings import outputs

    return ("".join(outputs.json_lines(report)), outputs.junit(report), outputs.table(report),
            outputs.github_annotations(report), outputs.markdown_summary(report), report.exit_code)


@pytest.mark.parametrize("seed", range(6))
def test_random_edit_sequences_never_serve_a_stale_result(tmp_path, seed):
    """Random sequences of every kind of edit: after each, the warm run's outputs are the cold run's."""
    import random

    from workings import verify as cold_verify

    rng = random.Random(seed)
    root, cache_dir = tmp_path / "gen", tmp_path / "cache"
    bench.make_ledger(root, 30, "b")
    saved: dict = {}
    for step in range(6):
        store = cachestore.Store.for_root(root, cache_dir)
        warm, stats = cache.verify(root, store)
        assert _all_outputs(warm) == _all_outputs(cold_verify(root)), f"seed {seed}, step {step}"
        assert store.notes == []
        if step == 0:
            assert stats.recomputed == stats.total == 30
        for _ in range(rng.randint(1, 3)):
            _edit(root, rng.choice(EDITS), rng.randrange(30), saved)
