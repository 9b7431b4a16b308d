"""Reading a ledger from disk: claims, sources, snapshots and measurements.

All I/O happens here; the models validate plain data. Every problem is collected with its file and
line, and a bad record never stops the others from loading. Paths in problems are relative to the
ledger root, so CI annotations point at files in the repository.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import readahead
from .frozen import frozen
from .errors import LedgerError, Problem
from .models import CLAIM_ID, SOURCE_ID, Claim
from .sources import Snapshot, Source
from .yamlio import Document, YamlError, load

# Where a ledger keeps what, under its root: defined here only (refresh, probes, show and the
# measurement records import them).
CLAIMS_DIR = "claims"
SOURCES_DIR = "ledger/sources"
SNAPSHOTS_DIR = "ledger/snapshots"
MEASUREMENTS_DIR = "ledger/measurements"


@frozen(kw_only=True)
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
    plain: set = field(default_factory=set)  # the records the walk saw as plain files (their paths' text)


def load_ledger(root: str | os.PathLike, *, jobs: int | None = None) -> Ledger:
    """Every record of the ledger at ``root``, checked. ``jobs``: how many processes may read the
    claim records (``readahead``; default: the processors this one may use; 1: this one alone).
    The ledger is the same whatever the number."""
    root = Path(root)
    ledger = Ledger(root=root)
    check_root(root)
    by_id: dict[str, list[Path]] = {}
    for path in _yaml_files(ledger, SOURCES_DIR):
        by_id.setdefault(path.stem, []).append(path)
    # The claims are walked before the sources are loaded, so that a child reading the claim records
    # ahead (``readahead``) starts while this process loads the sources (and imports pint for their
    # values: the child needs neither). The problems stay in the order of a walk after the loading.
    before = len(ledger.problems)
    claim_paths = _walk(ledger, CLAIMS_DIR)
    walked = ledger.problems[before:]
    del ledger.problems[before:]

    def load_sources() -> None:
        for source_id, paths in by_id.items():
            if len(paths) == 1:
                _load_source(ledger, paths[0])
            else:
                _duplicate_sources(ledger, source_id, paths)
        ledger.problems.extend(walked)

    claims = _load_claims(ledger, claim_paths, jobs, load_sources)
    _keep_unique_claims(ledger, claims)
    _yaml_files(ledger, SNAPSHOTS_DIR)  # nothing is read from there by walking, but a link or pipe is reported
    _load_measurements(ledger)
    return ledger


def check_root(root: Path) -> None:
    if not (root / CLAIMS_DIR).is_dir() and not (root / SOURCES_DIR).is_dir():
        raise LedgerError(f"{root}: no claims/ or ledger/sources/ here; is --root the ledger's folder?")


RECORD_SUFFIXES = (".yaml", ".yml")


def _yaml_files(ledger: Ledger, folder: str) -> list[Path]:
    """The record files under ``folder`` (relative to the root), in order: ``_walk``'s, as Paths."""
    return [Path(path) for path in _walk(ledger, folder)]


def _walk(ledger: Ledger, folder: str) -> list[str]:
    """The record files under ``folder`` (relative to the root), in order, each path's text (the
    root's text joined with the names: what ``str`` of that Path gives).

    Nothing is skipped without a word: a symbolic link (to a folder, to a file outside, or to nothing)
    and anything that is neither a plain file nor a folder (a pipe, a device, a socket) is a problem
    naming its path, and the rest of the walk goes on. A link or pipe named like a record is returned
    as one, so that its record is refused where it stands (``read_plain_file``). No Path is built for
    an entry: at 10,000 records, building them was nine tenths of the walk, which runs before the
    records are read."""
    found: list[str] = []
    top = ledger.root / folder
    parts = Path(folder).parts
    for depth in range(1, len(parts) + 1):  # ledger/ itself, then ledger/sources/
        here = ledger.root.joinpath(*parts[:depth])
        if here.is_symlink():
            _not_read(ledger, here, "is a symbolic link; folders of the ledger must be plain folders inside it, "
                      "so nothing under it is read")
            return []
    if not top.is_dir():
        return []
    pending = [str(top)]
    while pending:
        folder_text = pending.pop()
        try:
            entries = sorted(os.scandir(folder_text), key=lambda e: e.name)
        except OSError as exc:
            _not_read(ledger, folder_text, f"cannot be read: {exc.strerror}")
            continue
        folders = []
        for entry in entries:
            path = entry.path
            is_record = _suffix(entry.name) in RECORD_SUFFIXES
            try:
                if entry.is_symlink():
                    if is_record and not entry.is_dir():
                        found.append(path)  # refused as a record, with its place
                    else:
                        what = ("a folder" if entry.is_dir() else "a file" if os.path.exists(path)
                                else "nothing (a dangling link)")
                        _not_read(ledger, path, f"is a symbolic link to {what}; links are not followed in the "
                                  "ledger: put the files themselves here")
                elif entry.is_dir(follow_symlinks=False):
                    folders.append(path)
                elif entry.is_file(follow_symlinks=False):
                    if is_record:
                        found.append(path)
                        ledger.plain.add(path)
                elif is_record:
                    found.append(path)  # a pipe or device named like a record: refused as one
                else:
                    _not_read(ledger, path, "is neither a plain file nor a folder (a pipe, device or socket); "
                              "it is not read")
            except OSError as exc:
                _not_read(ledger, path, f"cannot be read: {exc.strerror}")
        pending.extend(reversed(folders))
    # Path order is the order of the paths' parts (PurePath.__lt__ compares them on POSIX; every path
    # here starts with the same folder, so its text split at each separator orders alike)
    return sorted(found, key=_parts)


def _suffix(file: str) -> str:
    """pathlib's ``suffix`` of a path's text: its last name's last dot on, where that dot neither starts
    nor ends the name."""
    name = file.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def _parts(path: str) -> list[str] | tuple[str, ...]:
    return path.split(os.sep) if os.name == "posix" else tuple(part.lower() for part in Path(path).parts)


def _not_read(ledger: Ledger, path: Path | str, why: str) -> None:
    ledger.problems.append(Problem(file=_rel(ledger, path), line=0, key="", message=why))


def _rel(ledger: Ledger, path: Path | str) -> str:
    # Every path here was made by joining names onto the root: its text starts with the root's, and
    # cutting that is pathlib's relative_to without its parsing (a tenth of loading a claim).
    text, root = str(path), str(ledger.root)
    prefix = "" if root == "." else root.rstrip(os.sep) + os.sep
    if text.startswith(prefix) and len(text) > len(prefix) and ".." not in text[len(prefix):]:
        rest = text[len(prefix):]
        return rest if os.sep == "/" else rest.replace(os.sep, "/")
    try:
        return Path(path).relative_to(ledger.root).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _read(ledger: Ledger, path: Path | str, raw: bytes | None = None,
          file: str | None = None) -> tuple[Document | None, list[Problem]]:
    """The record at ``path`` parsed; ``raw``: its bytes, already read (the cache keys on them);
    ``file``: its path from the root, where the caller has it."""
    file = _rel(ledger, path) if file is None else file
    try:
        if raw is None:
            raw = read_plain_file(path, MAX_RECORD_BYTES, walked=str(path) in ledger.plain)
        return load(raw, file), []
    except YamlError as exc:
        return None, [Problem(file=file, line=exc.line, key="", message=str(exc))]
    except LedgerError as exc:
        return None, [Problem(file=file, line=0, key="", message=str(exc))]


MAX_RECORD_BYTES = 1_000_000
MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024


def read_plain_file(path: Path | str, limit: int, *, walked: bool = False) -> bytes:
    """The bytes of a regular file inside the ledger, at most ``limit`` of them.

    A record or snapshot that is a symbolic link, a device or a pipe is refused: a pull request could
    otherwise point one at /dev/zero, a FIFO, or a file outside the ledger whose hash the error
    message would then reveal. ``walked``: the walk (``_yaml_files``) has just seen a plain file at
    ``path`` (the directory entry's type, no system call), so its ``lstat`` is not asked again; the
    open descriptor is checked as always (``_read_sized``), and a file swapped since is refused there
    with the same messages."""
    if walked:
        return _read_sized(path, limit)
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise LedgerError(f"cannot read: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise LedgerError(_LINK)
    if not stat.S_ISREG(info.st_mode):
        raise LedgerError("is not a plain file")
    if info.st_size > limit:
        raise LedgerError(f"is larger than {limit:,} bytes")
    return _read_sized(path, limit)


_LINK = "is a symbolic link; records and snapshots must be plain files in the ledger"
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def _read_sized(path: Path | str, limit: int) -> bytes:
    """Read a regular file whose size the open descriptor states (fstat), not a ``limit``-sized
    buffer: asking for 64 MiB allocates 64 MiB, for every record. O_NOFOLLOW and the second check
    on the descriptor refuse a file swapped for a link or a pipe after the lstat above."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP and os.path.islink(path):  # O_NOFOLLOW met a link: say so, as lstat would have
            raise LedgerError(_LINK) from None
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
            if len(chunks) == 1 and size == info.st_size:
                break  # one read gave the stated size and not the byte asked beyond it: the end (no second read)
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        return data[: limit + 1]
    except OSError as exc:
        raise LedgerError(f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)


def _duplicate_sources(ledger: Ledger, source_id: str, paths: list[Path]) -> None:
    """Two records with one source id (``x.yaml`` beside ``x.yml``, or one in a subfolder): neither is
    used, so a pull request cannot change a grade or a snapshot from a file the reviewer does not read."""
    files = [_rel(ledger, p) for p in paths]
    problems = tuple(Problem(file=f, line=0, key="", message=(
        f"duplicate source id {source_id!r} (also {', '.join(o for o in files if o != f)}): "
        "neither record is used; keep one")) for f in files)
    ledger.problems.extend(problems)
    ledger.bad_sources[source_id] = BadRecord(id=source_id, file=files[0], problems=problems)


def _load_source(ledger: Ledger, path: Path, raw: bytes | None = None) -> None:
    source_id = path.stem
    doc, problems = _read(ledger, path, raw)
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
    for folder in (ledger.root / "ledger", ledger.root / SNAPSHOTS_DIR):
        if folder.is_symlink():  # read_plain_file checks the file itself; its folder must not lead elsewhere
            return [Problem(file=source.file, line=line, key="snapshot", message=(
                f"{_rel(ledger, folder)} is a symbolic link; snapshots are read only from the ledger's own folder"))]
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


def _load_claim(ledger: Ledger, path: Path | str, raw: bytes | None = None) -> Claim | None:
    file = _rel(ledger, path)
    claim, bad = _checked_claim(ledger, path, file, _read(ledger, path, raw, file))
    if bad is not None:
        _bad_claim(ledger, *bad)
    return claim


def _checked_claim(ledger: Ledger, path: Path | str, file: str, read: tuple[Document | None, list[Problem]]
                   ) -> tuple[Claim | None, tuple[str, str, list[Problem]] | None]:
    """The claim of a record as ``_read`` gave it, or None and (its id, file, problems) for the
    ledger's list of bad records: nothing is added to the ledger here."""
    suffix = _suffix(file)
    if file.startswith(f"{CLAIMS_DIR}/") and suffix and file.endswith(suffix):
        rel = file[len(CLAIMS_DIR) + 1:-len(suffix)]  # claims/kv/x.yaml -> kv/x
    else:  # pragma: no cover - every claim path is under claims/ with a record suffix
        rel = Path(path).relative_to(ledger.root / CLAIMS_DIR).with_suffix("").as_posix()
    doc, problems = read
    if not CLAIM_ID.fullmatch(rel):
        doc, problems = None, [Problem(file=file, line=0, key="", message=(
            f"the path gives the claim id {rel!r}; ids are lower-case letters, digits, '-', '_' and '.', "
            "in folders"))]
    claim = None
    if doc is not None:
        claim, problems = Claim.from_document(doc, rel)
    return claim, (None if claim is not None else (rel, file, problems))


def _load_claims(ledger: Ledger, paths: Sequence[Path | str], jobs: int | None,
                 meanwhile: Callable[[], None] | None = None) -> list[Claim]:
    """The claims of the records at ``paths``, in their order, each bad record added to the ledger in
    that order (after ``meanwhile``: as ``checked_claims``)."""
    claims: list[Claim] = []
    for claim, bad, _ in checked_claims(ledger, paths, jobs, meanwhile=meanwhile):
        if bad is not None:
            _bad_claim(ledger, *bad)
        if claim is not None:
            claims.append(claim)
    return claims


Checked = tuple[Claim | None, tuple[str, str, list[Problem]] | None, bytes | None]


def checked_claims(ledger: Ledger, paths: Sequence[Path | str], jobs: int | None, *,
                   keyed: Callable[[str, bytes], bytes] | None = None,
                   meanwhile: Callable[[], None] | None = None) -> list[Checked]:
    """Each record at ``paths``, read and checked: its claim, or None and (its id, file, problems) for
    the caller to add to the ledger's bad records (nothing is added here); and ``keyed(file, raw)`` of
    its bytes, where given and the bytes could be read (the cache's digest). A large ledger's records
    are read and parsed by a second process too (``readahead``); each is checked here, whichever
    read it. ``meanwhile``: called here once, before the first check (``readahead.outcomes``)."""
    from . import said  # the sentence check, whose answers are worked out where a record is read

    files = [_rel(ledger, path) for path in paths]
    Read = tuple[Document | None, list[Problem], bytes | None]

    def read(index: int) -> Read:  # in either process
        path, file = paths[index], files[index]
        try:
            raw = read_plain_file(path, MAX_RECORD_BYTES, walked=str(path) in ledger.plain)
        except LedgerError as exc:  # as ``_read`` reports it
            return None, [Problem(file=file, line=0, key="", message=str(exc))], None
        doc, problems = _read(ledger, path, raw, file)
        if doc is not None:  # the sentence check's answers, worked out by whichever process read it
            doc.known = said.answers(doc.data)
        return doc, problems, keyed(file, raw) if keyed is not None else None

    def check(index: int, got: Read) -> Checked:
        return (*_checked_claim(ledger, paths[index], files[index], got[:2]), got[2])

    return readahead.outcomes(len(paths), read, check, jobs, encode=_plain_read,
                              decode=lambda index, plain: _read_of(files[index], plain), meanwhile=meanwhile)[0]


def _plain_read(got: tuple[Document | None, list[Problem], bytes | None]) -> tuple:
    """A record's outcome as plain data, for the pipe from the child that read it (``readahead``)."""
    doc, problems, digest = got
    if doc is not None:
        return ("doc", digest, doc.data, doc.text, doc._lines, doc.known)
    return ("problems", digest, [(p.file, p.line, p.key, p.message) for p in problems])


def _read_of(file: str, plain: tuple) -> tuple[Document | None, list[Problem], bytes | None]:
    """The outcome ``_plain_read`` made plain, as this process would have read it."""
    if plain[0] == "doc":
        doc = Document(file, plain[2], plain[3], plain[4])
        doc.known = plain[5]
        return doc, [], plain[1]
    return None, [Problem(file=f, line=n, key=k, message=m) for f, n, k, m in plain[2]], plain[1]


def _bad_claim(ledger: Ledger, claim_id: str, file: str, problems) -> None:
    ledger.problems.extend(problems)
    ledger.bad_claims.append(BadRecord(id=claim_id, file=file, problems=tuple(problems)))


def _keep_unique_claims(ledger: Ledger, claims: list[Claim]) -> None:
    """Each claim id names one record. When several records give the same id, a record whose path
    gives it (``claims/kv/x.yaml`` for ``kv/x``) keeps it and each ``id:`` that repeats it is the
    error; when the path gives it to more than one (``x.yaml`` beside ``x.yml``), none is used. Which
    record sorts first never decides, so a new file cannot take over a claim a reviewer knows."""
    by_id: dict[str, list[Claim]] = {}
    for claim in claims:
        by_id.setdefault(claim.id, []).append(claim)
    for claim_id, group in by_id.items():
        if len(group) == 1:
            ledger.claims[claim_id] = group[0]
            continue
        by_path = [c for c in group if _path_id(c) == claim_id]
        keep = by_path[0] if len(by_path) == 1 else None
        if keep is not None:
            ledger.claims[claim_id] = keep
        for claim in group:
            if claim is keep:
                continue
            others = ", ".join(c.file for c in group if c is not claim)
            why = "" if keep is not None else ": none of them is used; keep one"
            # a twin (x.yaml beside x.yml) is listed under its file name, so each entry of the report and
            # each page of the site stays one record's
            listed = _path_id(claim) if _path_id(claim) != claim_id else claim.file.removeprefix(f"{CLAIMS_DIR}/")
            _bad_claim(ledger, listed, claim.file, [Problem(
                file=claim.file, line=claim.line_of("id") if claim.explicit_id else 0, key="id" if claim.explicit_id else "",
                message=f"duplicate claim id {claim_id!r} (also {others}){why}")])


def _path_id(claim: Claim) -> str:
    """The id the record's path gives: ``claims/kv/x.yaml`` -> ``kv/x``."""
    return Path(claim.file).relative_to(CLAIMS_DIR).with_suffix("").as_posix()


def _load_measurements(ledger: Ledger) -> None:
    folder = ledger.root / MEASUREMENTS_DIR
    if not folder.is_dir():
        return
    from .measurements import load_measurement  # no torch there; imported only where a ledger has measurements

    for path in _yaml_files(ledger, MEASUREMENTS_DIR):
        doc, problems = _read(ledger, path)
        if doc is not None:
            measurement, problems = load_measurement(doc)
            if measurement is not None:
                ledger.measurements.append(measurement)
        ledger.problems.extend(problems)
