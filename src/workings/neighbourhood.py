"""One claim's neighbourhood: the claim, every claim it rests on, their sources, and the claims
that use it, read without loading the whole ledger.

``workings show`` prints one derivation; evaluating 10,000 claims to print one cost seconds. Here
the claim's record is read by its path (``claims/<id>.yaml``), then the records it names
(``claim:`` inputs, ``source#key`` inputs, ``cites``), and so on up the chain: what the claim's
result depends on, and nothing else, so its result is the one a whole-ledger run gives. Which
claims use it ("used by") needs every record's bytes, but only those whose bytes name
``claim:<id>`` are parsed, to confirm it. At 10,000 records that scan of bytes is as long as all the
rest of ``show`` past pint's import; where a second processor may be used and the ledger holds
``readahead.MIN_RECORDS`` records or more, a child process scans them (``readahead.outcomes``)
while this one reads and evaluates the neighbourhood, which the scan does not need.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from . import loader as records
from .engine import evaluate_ledger
from .loader import CLAIMS_DIR, SOURCES_DIR, Ledger
from .report import ClaimResult, Report

SUFFIXES = records.RECORD_SUFFIXES  # a record's name as the loader takes it: pathlib's suffix (records._suffix)


@dataclass
class Neighbourhood:
    report: Report              # the neighbourhood's report: the claim, what it rests on, their sources
    claim: ClaimResult | None   # None: no record at claims/<id>.yaml (or the path cannot be trusted)
    parsed: int = 0             # records parsed (claims and sources), for tests and the curious


def show_claim(root: str | os.PathLike, claim_id: str, jobs: int | None = None) -> Neighbourhood:
    """``jobs``: the processes the scan for "used by" may use (``readahead.outcomes``; None: as many
    as this process may run on)."""
    root = Path(root)
    ledger = Ledger(root=root)
    if not _claim_paths(root, claim_id):
        return Neighbourhood(report=evaluate_ledger(ledger), claim=None)
    rests_on: list[Neighbourhood] = []
    naming = _naming(root, claim_id, jobs, meanwhile=lambda: rests_on.append(_rests_on(ledger, claim_id)))
    near = rests_on[0]
    if near.claim is not None:
        used_by, checked = _used_by(root, claim_id, naming)
        near = replace(near, claim=replace(near.claim, used_by=used_by), parsed=near.parsed + checked)
    return near


def _rests_on(ledger: Ledger, claim_id: str) -> Neighbourhood:
    """The claim, every claim it rests on and their sources, read and evaluated ("used by" left to
    ``_used_by``)."""
    root, parsed = ledger.root, 0
    wanted, seen_claims, seen_sources = [claim_id], set(), set()
    while wanted:
        current = wanted.pop()
        if current in seen_claims:
            continue
        seen_claims.add(current)
        loaded = []
        for path in _claim_paths(root, current):
            loaded += [c for c in [records._load_claim(ledger, path)] if c is not None]
            parsed += 1
        records._keep_unique_claims(ledger, loaded)  # x.yaml beside x.yml: both refused, as verify does
        claim = ledger.claims.get(current)
        if claim is None:
            continue
        for item in claim.inputs:
            if item.kind == "claim":
                wanted.append(item.claim)
            elif item.kind == "source":
                seen_sources.add(item.source)
        seen_sources.update(ref.split("#", 1)[0] for ref in claim.cites)
    by_id: dict[str, list[Path]] = {}
    for path in records._yaml_files(ledger, SOURCES_DIR):  # names only: a second record of one id is seen
        by_id.setdefault(path.stem, []).append(path)
    for source_id in sorted(seen_sources):
        paths = by_id.get(source_id, [])
        if len(paths) > 1:
            records._duplicate_sources(ledger, source_id, paths)
        for path in paths[:1] if len(paths) == 1 else []:
            records._load_source(ledger, path)
            parsed += 1
    records._load_measurements(ledger)
    report = evaluate_ledger(ledger)
    return Neighbourhood(report=report, claim=report.claim(claim_id), parsed=parsed)


def _claim_paths(root: Path, claim_id: str) -> list[Path]:
    from .models import CLAIM_ID

    if not CLAIM_ID.fullmatch(claim_id):
        return []
    folder = root / CLAIMS_DIR
    return [p for p in (folder / f"{claim_id}{s}" for s in SUFFIXES) if _inside(folder, p)]


def _inside(folder: Path, path: Path) -> bool:
    """``path`` is a file (or a link, which the loader refuses with its message) under ``folder``
    reached through real folders only, as the whole-ledger walk finds it. A name the system refuses (too
    long: ``show`` given 5,000 characters) is no file."""
    try:
        if not (path.is_file() or path.is_symlink()):
            return False
        return path.parent.resolve().is_relative_to(folder.resolve()) and not any(
            p.is_symlink() for p in [path.parent, *path.parent.parents] if p.is_relative_to(folder))
    except OSError:
        return False


_PART = 256  # records a scan's part holds: each part's answer is one frame on readahead's pipe


def _naming(root: Path, claim_id: str, jobs: int | None, meanwhile: Callable[[], object]) -> list[str]:
    """The records under claims/ whose bytes name ``claim:<claim_id>`` (in the walk's order), scanned
    in parts, by a child process too where ``readahead.outcomes`` forks one; ``meanwhile`` runs here
    once (while the child scans, where one does)."""
    from . import readahead

    files = record_files(root)
    parts = [files[start:start + _PART] for start in range(0, len(files), _PART)]
    needle = f"claim:{claim_id}".encode()

    def scan(index: int) -> list[int]:  # the places, in its part, of the records naming the claim
        found = []
        for place, (name, regular) in enumerate(parts[index]):
            raw = read_record(name, regular)  # None: a link, a pipe, unreadable: verify's to report, not show's
            if raw is not None and needle in raw:
                found.append(place)
        return found

    def check(index: int, places: list[int]) -> list[str]:
        return [parts[index][place][0] for place in places]

    answers, _ = readahead.outcomes(len(parts), scan, check, jobs, size=len(files), meanwhile=meanwhile,
                                    flush=0)  # a part's answer is a few bytes: sent as soon as made
    return [name for names in answers for name in names]


def _used_by(root: Path, claim_id: str, naming: list[str]) -> tuple[tuple[str, ...], int]:
    """The claims whose inputs name ``claim_id``, of the records ``naming`` (whose bytes name it):
    each parsed to confirm."""
    found, parsed = set(), 0
    for name in naming:
        claim = records._load_claim(Ledger(root=root), Path(name))
        parsed += 1
        if claim is not None and any(i.kind == "claim" and i.claim == claim_id for i in claim.inputs):
            found.add(claim.id)
    return tuple(sorted(found)), parsed


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_CHUNK = 1 << 16  # a record is a few hundred bytes: one read holds it


def read_record(path: str | Path, regular: bool = False) -> bytes | None:
    """The bytes of a plain file (None: a link, a pipe, too large, unreadable: the loader says why).

    ``regular``: the walk's directory entry said a regular file (``record_files``). Then one read
    and a second that finds the end give a small record without asking its size (a ``fstat`` for
    each of 10,000 records was a fifth of reading them); anything else (a larger file, a file that
    changed, an empty one) is read as before, size first."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        if regular:
            raw = os.read(fd, _CHUNK)
            if 0 < len(raw) < _CHUNK and not os.read(fd, 1):
                return raw
            os.lseek(fd, 0, os.SEEK_SET)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > records.MAX_RECORD_BYTES:
            return None
        raw = os.read(fd, info.st_size + 1)
        return raw if len(raw) == info.st_size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def record_paths(root: Path) -> list[str]:
    """The paths of claims/'s records, as the loader's walk finds them (``loader._yaml_files``: no
    symbolic link to a folder followed; a link or pipe named like a record listed, for the loader to
    refuse), without building a Path for each: what a scan of 10,000 records' bytes walks."""
    return [path for path, _ in record_files(root)]


def record_files(root: Path) -> list[tuple[str, bool]]:
    """``record_paths``, each with whether its directory entry is a regular file (known from the
    walk itself on most file systems: no ``stat``), for ``read_record``."""
    top = root / CLAIMS_DIR
    if top.is_symlink() or not top.is_dir():
        return []
    found: list[tuple[str, bool]] = []
    pending = [str(top)]
    while pending:
        here = pending.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif records._suffix(entry.name) in SUFFIXES and not (entry.is_symlink() and entry.is_dir()):
                    found.append((entry.path, entry.is_file(follow_symlinks=False)))
            except OSError:
                continue
    return sorted(found)
