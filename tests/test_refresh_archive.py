"""Archiving: atomic writes, content-addressed snapshots, and source records edited in place."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from workings.refresh import archive
from workings.refresh.archive import ArchiveError, edit_record, store_snapshot, write_atomic
from workings.refresh.fetch import Fetched, Limits
from workings.refresh.refresh import refresh

RECORD = """\
# A person's record: comments, order and folded prose are theirs.
title: "config.json of Qwen/Qwen2.5-14B-Instruct-1M"
hub: {repo: Qwen/Qwen2.5-14B-Instruct-1M, file: config.json}
grade: copy   # until the official file is read
retrieved:  # how the copy was read
  # from a stored copy of the page
  url: https://huggingface.co/someone/copy/blob/main/config.json
  how: >-
    Stored copy of the rendered page,
    byte for byte.
snapshot: 'aaaa.txt'
notes: >-
  Keep this paragraph.
  # not a comment: part of the folded notes
"""


def test_edit_record_changes_only_the_values_refresh_owns() -> None:
    edited = edit_record(RECORD, {
        "snapshot": "b" * 64 + ".json",
        "grade": "primary",
        "format": "json",
        "retrieved": {"on": "2026-11-29T12:00:00Z", "how": "huggingface_hub: a, b", "commit": "c" * 40},
    })
    assert edited == (
        "# A person's record: comments, order and folded prose are theirs.\n"
        'title: "config.json of Qwen/Qwen2.5-14B-Instruct-1M"\n'
        "hub: {repo: Qwen/Qwen2.5-14B-Instruct-1M, file: config.json}\n"
        "grade: primary   # until the official file is read\n"
        "# from a stored copy of the page\n"
        'retrieved: {"on": "2026-11-29T12:00:00Z", how: "huggingface_hub: a, b", commit: ' + "c" * 40 + "}"
        "  # how the copy was read\n"
        f"snapshot: {'b' * 64}.json\n"
        "format: json\n"
        "notes: >-\n"
        "  Keep this paragraph.\n"
        "  # not a comment: part of the folded notes\n"
    )


def test_edit_record_replaces_an_existing_flow_mapping_and_adds_missing_keys() -> None:
    text = "title: t\ngrade: copy\nretrieved: {on: 2020-01-01, how: pasted}  # old\nsnapshot: a.txt\n"
    edited = edit_record(text, {"retrieved": {"on": "x", "how": "z"}, "safetensors": {"parameters": {"BF16": 7}}})
    assert edited == ('title: t\ngrade: copy\nretrieved: {"on": x, how: z}  # old\nsnapshot: a.txt\n'
                      "safetensors: {parameters: {BF16: 7}}\n")


@pytest.mark.parametrize("value", ["yes", "2026-11-29", "1e5", "0123", "a: b", "#x", "null", "it's", '"q"'])
def test_scalars_that_yaml_would_misread_are_quoted(value: str) -> None:
    edited = edit_record("title: t\nnotes: n\n", {"notes": value})
    assert yaml.safe_load(edited)["notes"] == value


def test_edit_record_refuses_a_record_it_cannot_read() -> None:
    with pytest.raises(ArchiveError, match="not valid YAML"):
        edit_record("title: [unclosed\n", {"grade": "primary"})


def test_write_atomic_keeps_the_old_file_when_the_write_fails(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "record.yaml"
    target.write_bytes(b"old\n")

    def broken_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.yaml"]  # no temporary file left


def test_write_atomic_keeps_the_file_mode(tmp_path: Path) -> None:
    target = tmp_path / "record.yaml"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    write_atomic(target, b"new\n")
    assert (target.read_bytes(), target.stat().st_mode & 0o777) == (b"new\n", 0o640)


def test_an_intact_snapshot_is_not_rewritten(tmp_path: Path) -> None:
    name = store_snapshot(tmp_path, b"bytes", "txt")
    path = tmp_path / "ledger/snapshots" / name
    os.utime(path, (1, 1))
    assert store_snapshot(tmp_path, b"bytes", "txt") == name
    assert path.stat().st_mtime == 1


def test_prune_removes_only_snapshots_no_record_mentions(tmp_path: Path) -> None:
    kept = store_snapshot(tmp_path, b"kept", "txt")
    dropped = store_snapshot(tmp_path, b"dropped", "txt")
    other = store_snapshot(tmp_path, b"someone else's work in progress", "txt")
    (tmp_path / "ledger/sources").mkdir(parents=True)
    (tmp_path / "ledger/sources/broken.yaml").write_text(f"snapshot: {kept}\n  : not yaml [\n")
    assert archive.prune(tmp_path, [kept, dropped]) == [dropped]
    assert sorted(p.name for p in (tmp_path / "ledger/snapshots").iterdir()) == sorted([kept, other])


def test_fetches_run_at_most_jobs_at_a_time(tmp_ledger) -> None:
    for index in range(8):
        tmp_ledger.source(f"s{index}", extra=f"hub: {{repo: org/m{index}, file: config.json}}\n")
    in_flight, most, lock = [0], [0], threading.Lock()

    def fetcher(target: tuple) -> Fetched:
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return Fetched(url="http://127.0.0.1/x", data=b"{}", commit="0" * 40)

    ticks: list[int] = []
    result = refresh(tmp_ledger.root, check=True, limits=Limits(concurrency=3), fetcher=fetcher,
                     progress=lambda total: ticks.append(total) or ticks.append)
    assert len(result.sources) == 8 and 1 < most[0] <= 3
    assert ticks == [8] + [1] * 8


def test_importing_the_cli_loads_no_network_library() -> None:
    code = "import sys, workings.cli; print(sorted(m for m in ('requests', 'huggingface_hub', 'httpx') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"
