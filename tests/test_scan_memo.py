"""check-draft remembers what its scan read of each claim record, by file identity (``draft.scanmemo``).

A later check-draft reads only the records whose identity changed, and says what a check that reads
every record says: the same verdicts, the same records parsed. An edit is seen even where it keeps
the record's size and mtime (its ctime moves); a record written within the last 2 seconds is not
remembered; a memory that is not this user's, or of other code, is ignored; removing a record forgets
it. Work is counted (records read, records parsed), never timed.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from workings.cachestore import Store
from workings.cli import main
from workings.draft import match, near, scanmemo
from workings.draft.check import check_file
from workings.draft.near import Neighbourhood

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402

DRAFT = "Each token keeps 2 x 48 x 8 x 128 x 2 = 196,608 bytes per token.\n"


@pytest.fixture
def settled(monkeypatch):
    """Files written a moment ago count as settled (else none is remembered: ``test_racy``)."""
    monkeypatch.setattr(scanmemo, "RACY_NS", 0)


def _memo(root: Path) -> scanmemo.ScanMemo:
    return scanmemo.ScanMemo(Store.for_root(root, kind=".scan"))


def _check(draft: Path, root: Path, memo: scanmemo.ScanMemo | None = None) -> tuple[dict, Neighbourhood]:
    neighbourhood = Neighbourhood(root, memo)
    return check_file(draft, neighbourhood).to_dict(), neighbourhood


def _records(root: Path) -> int:
    return len(list((root / "claims").rglob("*.yaml")))


def _ledger(tmp_path: Path, n: int = 200) -> Path:
    root = tmp_path / "ledger"
    for part in ("claims", "ledger"):
        shutil.copytree(REPO / part, root / part)
    bench.make_ledger(root, n, "b", group_prefix="bench-g")
    return root


def test_a_second_check_reads_no_record_and_says_what_reading_every_record_says(tmp_path, settled):
    root = _ledger(tmp_path)
    article = root / bench.ARTICLE
    fresh, plain = _check(article, root)
    first = _memo(root)
    got, near1 = _check(article, root, first)
    assert first.reads == _records(root) and got == fresh and near1.parsed == plain.parsed
    sentences = {text for entry in near.scan(root) for text in entry.said or ()}
    assert first.words_made == len(sentences) > 200  # each plain record's sentence, by its text
    second = _memo(root)
    got, near2 = _check(article, root, second)
    assert second.reads == 0 and second.words_made == 0  # every sentence's words remembered
    assert got == fresh and near2.parsed == plain.parsed
    assert near.scan(root, _memo(root)) == near.scan(root)  # entry by entry, not plain ones included
    remembered = Store.for_root(root, kind=".scan").read()["words"]
    assert remembered.keys() == sentences and all(got == match.words(text) for text, got in remembered.items())


def test_an_edit_that_keeps_the_size_and_the_mtime_is_seen(tmp_ledger, settled):
    tmp_ledger.qwen()
    root = tmp_ledger.root
    draft = root / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    before, _ = _check(draft, root, _memo(root))
    assert [f["status"] for f in before["figures"]] == ["holds", "backed"]  # the arithmetic, the claim

    record = root / "claims" / "kv" / "per-token.yaml"
    text = record.read_text(encoding="utf-8")
    said = "2 x 48 x 8 x 128 x 2 = 196,608 bytes per token."
    other = "Apples and pears weigh 196,608 bytes per token."
    assert len(other) == len(said) and said in text
    old = os.lstat(record)
    while True:  # the same size and mtime; only the ctime (and the bytes) tell
        record.write_text(text.replace(said, other), encoding="utf-8")
        os.utime(record, ns=(old.st_atime_ns, old.st_mtime_ns))
        now = os.lstat(record)
        if now.st_ctime_ns != old.st_ctime_ns:
            break
        time.sleep(0.01)
    assert (now.st_size, now.st_mtime_ns) == (old.st_size, old.st_mtime_ns)

    memo = _memo(root)
    after, _ = _check(draft, root, memo)
    assert memo.reads == 1 and memo.words_made == 1  # the new sentence's words; the old one's forgotten
    assert other in Store.for_root(root, kind=".scan").read()["words"]
    assert said not in Store.for_root(root, kind=".scan").read()["words"]
    assert after == _check(draft, root)[0]
    assert [f["status"] for f in after["figures"]] == ["holds", "unbacked"]  # its claim no longer says this


def test_a_record_written_in_the_last_two_seconds_is_read_again(tmp_ledger):
    tmp_ledger.qwen()
    root = tmp_ledger.root
    draft = root / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    for _ in range(2):
        memo = _memo(root)
        _check(draft, root, memo)
        assert memo.reads == 2  # both records were written a moment ago: neither is remembered


def test_a_removed_record_is_forgotten_and_a_new_one_read(tmp_path, settled):
    root = _ledger(tmp_path)
    article = root / bench.ARTICLE
    _check(article, root, _memo(root))
    gone = sorted((root / "claims").rglob("c7.yaml"))[0]
    rel = os.path.relpath(gone, root / "claims")
    assert rel in Store.for_root(root, kind=".scan").read()["files"]
    text = gone.read_text(encoding="utf-8")
    gone.unlink()
    memo = _memo(root)
    assert _check(article, root, memo)[0] == _check(article, root)[0]
    assert memo.reads == 0
    gone.with_name("c7-again.yaml").write_text(text, encoding="utf-8")
    memo = _memo(root)
    assert _check(article, root, memo)[0] == _check(article, root)[0]
    assert memo.reads == 1
    assert rel not in Store.for_root(root, kind=".scan").read()["files"]


def test_a_record_not_in_the_plain_form_is_remembered_as_such_and_still_parsed(tmp_ledger, settled):
    tmp_ledger.qwen()
    root = tmp_ledger.root
    record = root / "claims" / "kv" / "per-token.yaml"
    record.write_text(yaml.safe_dump(yaml.safe_load(record.read_text(encoding="utf-8")), default_flow_style=True),
                      encoding="utf-8")  # one flow mapping: read by the parser only
    draft = root / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    assert [e.said for e in near.scan(root) if e.id == "kv/per-token"] == [None]
    fresh, plain = _check(draft, root)
    assert [f["status"] for f in fresh["figures"]] == ["holds", "backed"]
    _check(draft, root, _memo(root))
    memo = _memo(root)
    got, again = _check(draft, root, memo)
    assert memo.reads == 0 and got == fresh and again.parsed == plain.parsed
    assert Store.for_root(root, kind=".scan").read()["files"][os.path.join("kv", "per-token.yaml")][1] is None


def test_a_memory_of_other_code_or_not_this_user_s_is_ignored(tmp_path, settled, monkeypatch):
    root = _ledger(tmp_path, 50)
    article = root / bench.ARTICLE
    fresh = _check(article, root)[0]
    _check(article, root, _memo(root))
    monkeypatch.setattr(scanmemo, "fingerprint", lambda: b"other code")
    memo = _memo(root)
    assert _check(article, root, memo)[0] == fresh and memo.reads == _records(root)
    monkeypatch.undo()
    monkeypatch.setattr(scanmemo, "RACY_NS", 0)
    _check(article, root, _memo(root))

    path = Store.for_root(root, kind=".scan").path
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    memo = _memo(root)
    assert _check(article, root, memo)[0] == fresh and memo.reads == _records(root)
    assert any("not one this user wrote" in note for note in memo.notes)


def test_remembered_words_that_are_not_a_set_of_words_are_worked_out_again(tmp_path, settled):
    """The memory is authenticated and of this code, so this cannot come from a file; the last guard
    still holds: a remembered value that is not a frozenset is not used."""
    root = _ledger(tmp_path, 30)
    article = root / bench.ARTICLE
    fresh = _check(article, root)[0]
    _check(article, root, _memo(root))
    store = Store.for_root(root, kind=".scan")
    pack = store.read()
    text = next(iter(pack["words"]))
    pack["words"][text] = ["not", "a", "set"]
    store.write(pack)
    memo = _memo(root)
    assert _check(article, root, memo)[0] == fresh
    assert memo.reads == 0 and memo.words_made == 1
    assert Store.for_root(root, kind=".scan").read()["words"][text] == match.words(text)


def test_the_memory_is_of_the_code_that_makes_a_sentence_s_words_too(tmp_path, monkeypatch):
    before = scanmemo.fingerprint()
    changed = tmp_path / "match.py"
    changed.write_bytes(Path(match.__file__).read_bytes() + b"\n# another stop word\n")
    monkeypatch.setattr(match, "__file__", str(changed))
    scanmemo.fingerprint.cache_clear()
    try:
        assert scanmemo.fingerprint() != before
    finally:
        monkeypatch.undo()
        scanmemo.fingerprint.cache_clear()
    assert scanmemo.fingerprint() == before


def _cli(root: Path, *args: str):
    return CliRunner().invoke(main, ["check-draft", "--root", str(root), *args, str(root / bench.ARTICLE)])


def test_the_command_keeps_its_memory_beside_verify_s_and_not_when_told_not_to(tmp_path, settled, monkeypatch):
    root = _ledger(tmp_path, 50)
    cache = tmp_path / "cache"
    monkeypatch.setenv("WORKINGS_CACHE_DIR", str(cache))
    cold = _cli(root, "--no-cache")
    assert cold.exit_code in (0, 1) and cold.stderr == "" and not cache.exists()
    monkeypatch.setenv("WORKINGS_NO_CACHE", "1")
    off = _cli(root)
    assert (off.exit_code, off.stdout, off.stderr) == (cold.exit_code, cold.stdout, "") and not cache.exists()
    monkeypatch.delenv("WORKINGS_NO_CACHE")
    for _ in range(2):
        warm = _cli(root)
        assert (warm.exit_code, warm.stdout, warm.stderr) == (cold.exit_code, cold.stdout, "")
    assert [p.suffix for p in (cache / "ledgers").iterdir()] == [".scan"]

    monkeypatch.setenv("WORKINGS_CACHE_DIR", str(root / "cache"))  # inside the ledger: never used
    inside = _cli(root)
    assert (inside.exit_code, inside.stdout) == (cold.exit_code, cold.stdout)
    assert inside.stderr.startswith("cache: not used: the cache folder") and not (root / "cache").exists()


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="one process where fork is not used")
def test_a_scan_made_by_a_child_says_what_one_process_says(tmp_path, settled, monkeypatch, second_of):
    """At thousands of records a child scans and chooses while this process builds pint's registry
    (``readahead.aside``): the verdicts, the records parsed, the memory written and what the memory
    counted are the ones one process gives, cold, first with a memory, then warm."""
    import json
    import threading

    from workings import readahead

    assert threading.active_count() == 1, f"threads left running by earlier tests: {threading.enumerate()}"
    monkeypatch.setattr(readahead, "MIN_RECORDS", 0)
    taken = second_of(readahead, "aside")
    said = {}
    for jobs in (1, 2):
        root = _ledger(tmp_path / f"jobs{jobs}", n=60)
        article = root / bench.ARTICLE
        for memory in ("none", "first", "second"):
            memo = None if memory == "none" else _memo(root)
            neighbourhood = Neighbourhood(root, memo)
            neighbourhood.jobs = jobs
            verdicts = check_file(article, neighbourhood).to_dict()
            said[jobs, memory] = (json.dumps(verdicts).replace(str(root), "ROOT"), neighbourhood.parsed,
                                  [note.replace(str(root), "ROOT") for note in neighbourhood.notes],
                                  None if memo is None else (memo.reads, memo.words_made))
        remembered = Store.for_root(root, kind=".scan").read()
        said[jobs, "kept"] = (sorted(remembered["files"]), remembered["words"])
    assert taken == [False] * 3 + [True] * 3
    for key in ("none", "first", "second", "kept"):
        assert said[1, key] == said[2, key], key
    assert said[2, "first"][3][0] == _records(tmp_path / "jobs2" / "ledger") and said[2, "second"][3] == (0, 0)


def test_reading_every_record_at_once_is_reading_each(tmp_path, settled):
    """``ScanMemo.read_all`` (the scan's loop over known records, kept short) gives, keeps and counts
    what ``read`` does record by record: unchanged records, an edited one, one made a link or a pipe,
    one gone since the walk, one new, and remembered readings of the wrong shape."""
    root = _ledger(tmp_path, n=30)
    first = _memo(root)
    near.scan(root, first)
    first.save()
    claims = root / "claims" / "bench-g0"
    (claims / "c3.yaml").write_text((claims / "c3.yaml").read_text().replace("Synthetic", "Generated"))
    (claims / "c4.yaml").unlink()
    (claims / "c4.yaml").symlink_to(claims / "c5.yaml")
    (claims / "c6.yaml").unlink()
    (claims / "c7.yaml").unlink()
    if hasattr(os, "mkfifo"):
        os.mkfifo(claims / "c7.yaml")
    (claims / "c99.yaml").write_text((claims / "c9.yaml").read_text())
    files = near.record_files(root) + [(str(claims / "c6.yaml"), True)]  # gone since the walk
    store = Store.for_root(root, kind=".scan")
    pack = store.read()
    for rel in list(pack["files"])[:3]:  # what a damaged memory could hold: never trusted beyond its type
        pack["files"][rel] = (pack["files"][rel][0], ["not", "a", "reading"])
    pack["files"][next(iter(pack["files"]))] = "not an identity"
    link = os.lstat(claims / "c4.yaml")  # a link now holding what was remembered (an inode used again): never known
    pack["files"]["bench-g0/c4.yaml"] = ((link.st_dev, link.st_ino, link.st_size, link.st_mtime_ns, link.st_ctime_ns),
                                         (("The link's sentence.",), "1 GB"))
    store.write(pack)
    prefix = len(str(root / "claims")) + 1
    each, at_once = _memo(root), _memo(root)
    by_one = [each.read(name, name[prefix:], regular) for name, regular in files]
    assert at_once.read_all(files, prefix) == by_one
    assert at_once._kept == each._kept and at_once.reads == each.reads
    assert 4 <= each.reads <= 5 < len(files) - 20  # the edited, the damaged and the new were read; the rest known
