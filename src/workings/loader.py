"""Reading a ledger from disk: claims, sources, snapshots and measurements.

All I/O happens here; the models validate plain data. Every problem is collected with its file and
line, and a bad record never stops the others from loading. Paths in problems are relative to the
ledger root, so CI annotations point at files in the repository.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .errors import LedgerError, Problem
from .models import CLAIM_ID, SOURCE_ID, Claim
from .sources import Snapshot, Source
from .yamlio import Document, YamlError, load

CLAIMS_DIR = "claims"
SOURCES_DIR = "ledger/sources"
SNAPSHOTS_DIR = "ledger/snapshots"
MEASUREMENTS_DIR = "ledger/measurements"


@dataclass(frozen=True, kw_only=True)
class BadRecord:
    """A record that could not be used: its id as far as known, and why."""

    id: str
    file: str
    problems: tuple[Problem, ...]


@dataclass(kw_only=True)
class Ledger:
    root: Path
    claims: dict = field(default_factory=dict)  # id -> Claim
    sources: dict = field(default_factory=dict)  # id -> Source
    snapshots: dict = field(default_factory=dict)  # source id -> Snapshot
    measurements: list = field(default_factory=list)
    bad_claims: list = field(default_factory=list)  # BadRecord
    bad_sources: dict = field(default_factory=dict)  # id -> BadRecord
    problems: list = field(default_factory=list)  # every Problem, claims and sources alike


def load_ledger(root: str | os.PathLike) -> Ledger:
    root = Path(root)
    ledger = Ledger(root=root)
    if not (root / CLAIMS_DIR).is_dir() and not (root / SOURCES_DIR).is_dir():
        raise LedgerError(f"{root}: no claims/ or ledger/sources/ here; is --root the ledger's folder?")
    for path in _yaml_files(root / SOURCES_DIR):
        _load_source(ledger, path)
    for path in _yaml_files(root / CLAIMS_DIR):
        _load_claim(ledger, path)
    _load_measurements(ledger)
    return ledger


def _yaml_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def _rel(ledger: Ledger, path: Path) -> str:
    try:
        return path.relative_to(ledger.root).as_posix()
    except ValueError:
        return path.as_posix()


def _read(ledger: Ledger, path: Path) -> tuple[Document | None, list[Problem]]:
    file = _rel(ledger, path)
    try:
        return load(read_plain_file(path, MAX_RECORD_BYTES), file), []
    except YamlError as exc:
        return None, [Problem(file=file, line=exc.line, key="", message=str(exc))]
    except LedgerError as exc:
        return None, [Problem(file=file, line=0, key="", message=str(exc))]


MAX_RECORD_BYTES = 1_000_000
MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024


def read_plain_file(path: Path, limit: int) -> bytes:
    """The bytes of a regular file inside the ledger, at most ``limit`` of them.

    A record or snapshot that is a symbolic link, a device or a pipe is refused: a pull request could
    otherwise point one at /dev/zero, a FIFO, or a file outside the ledger whose hash the error
    message would then reveal."""
    try:
        info = path.lstat()
    except OSError as exc:
        raise LedgerError(f"cannot read: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise LedgerError("is a symbolic link; records and snapshots must be plain files in the ledger")
    if not stat.S_ISREG(info.st_mode):
        raise LedgerError("is not a plain file")
    if info.st_size > limit:
        raise LedgerError(f"is larger than {limit:,} bytes")
    return _read_sized(path, limit)


def _read_sized(path: Path, limit: int) -> bytes:
    """Read a regular file whose size the open descriptor states (fstat), not a ``limit``-sized
    buffer: asking for 64 MiB allocates 64 MiB, for every record. O_NOFOLLOW and the second check
    on the descriptor refuse a file swapped for a link or a pipe after the lstat above."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise LedgerError(f"cannot read: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LedgerError("is not a plain file")
        if info.st_size > limit:
            raise LedgerError(f"is larger than {limit:,} bytes")
        chunks, size, want = [], 0, info.st_size + 1  # one byte more: a file that grew is seen to
        while size < limit + 1:
            chunk = os.read(fd, max(want - size, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        return data[: limit + 1]
    except OSError as exc:
        raise LedgerError(f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)


def _load_source(ledger: Ledger, path: Path) -> None:
    source_id = path.stem
    doc, problems = _read(ledger, path)
    if not SOURCE_ID.fullmatch(source_id):
        doc, problems = None, [Problem(file=_rel(ledger, path), line=0, key="", message=(
            f"the file name gives the source id {source_id!r}; ids are lower-case letters, digits, '-', '_' and '.'"))]
    source = None
    if doc is not None:
        source, problems = Source.from_document(doc, source_id)
    if source is not None:
        problems = _check_snapshot(ledger, source)
    if problems:
        ledger.problems.extend(problems)
        ledger.bad_sources[source_id] = BadRecord(id=source_id, file=_rel(ledger, path), problems=tuple(problems))
        return
    ledger.sources[source_id] = source


def _check_snapshot(ledger: Ledger, source: Source) -> list[Problem]:
    if not source.snapshot:
        return []
    path = ledger.root / SNAPSHOTS_DIR / source.snapshot
    line = source.line_of("snapshot")
    if not path.exists() and not path.is_symlink():
        return [Problem(file=source.file, line=line, key="snapshot", message=f"no file {SNAPSHOTS_DIR}/{source.snapshot}")]
    try:
        raw = read_plain_file(path, MAX_SNAPSHOT_BYTES)
    except LedgerError as exc:
        return [Problem(file=source.file, line=line, key="snapshot", message=f"{SNAPSHOTS_DIR}/{source.snapshot} {exc}")]
    try:
        snap = Snapshot.read(source.snapshot, raw, source.format)
    except LedgerError as exc:
        return [Problem(file=source.file, line=line, key="snapshot", message=str(exc))]
    problems = []
    for pid, passage in source.passages.items():
        if not snap.has_passage(passage):
            problems.append(Problem(file=source.file, line=source.line_of("passages", pid), key=f"passages.{pid}",
                                    message="passage does not occur in the snapshot"))
    for name, value in source.values.items():
        if not snap.has_passage(value.passage):
            problems.append(Problem(file=source.file, line=source.line_of("values", name, "passage"),
                                    key=f"values.{name}.passage", message="passage does not occur in the snapshot"))
    if not problems:
        ledger.snapshots[source.id] = snap
    return problems


def _load_claim(ledger: Ledger, path: Path) -> None:
    rel = path.relative_to(ledger.root / CLAIMS_DIR).with_suffix("").as_posix()
    doc, problems = _read(ledger, path)
    if not CLAIM_ID.fullmatch(rel):
        doc, problems = None, [Problem(file=_rel(ledger, path), line=0, key="", message=(
            f"the path gives the claim id {rel!r}; ids are lower-case letters, digits, '-', '_' and '.', "
            "in folders"))]
    claim = None
    if doc is not None:
        claim, problems = Claim.from_document(doc, rel)
    if claim is not None and claim.id in ledger.claims:
        other = ledger.claims[claim.id]
        problems = [Problem(file=claim.file, line=claim.line_of("id"), key="id",
                            message=f"duplicate claim id {claim.id!r} (also {other.file})")]
        claim = None
    if claim is None:
        ledger.problems.extend(problems)
        ledger.bad_claims.append(BadRecord(id=rel, file=_rel(ledger, path), problems=tuple(problems)))
        return
    ledger.claims[claim.id] = claim


def _load_measurements(ledger: Ledger) -> None:
    folder = ledger.root / MEASUREMENTS_DIR
    if not folder.is_dir():
        return
    try:
        from .measurements import load_measurement  # written by the probe work; no torch there
    except ImportError:
        return
    for path in _yaml_files(folder):
        doc, problems = _read(ledger, path)
        if doc is not None:
            measurement, problems = load_measurement(doc)
            if measurement is not None:
                ledger.measurements.append(measurement)
        ledger.problems.extend(problems)
