"""verify with a content-keyed cache: a warm run reads and evaluates only what changed.

Each claim's result is stored under a key that hashes everything the result depends on:

- the claim record's path and bytes (``file digest``);
- for each source it reads or cites: that source record's path and bytes, which name its snapshot by
  sha256 (the snapshot must still hash to that name: see below), or that it is invalid or absent;
- for each claim it uses: that claim's key (so a change reaches every claim built on it), or that it
  is an invalid record or absent;
- the measurements recorded for it;
- workings' version, a hash of every file of the installed package, the versions of Python, pint and
  PyYAML, and this cache's format (``code_fingerprint``): a change of code recomputes everything.

A result is served only when its key is the key of what is on disk now, so it cannot be stale. The
links between claims (what uses each, the sources it rests on, their least grade, its measurements
beside it) are computed again on every run (from each result's uses and own sources, kept beside it
as plain data), and so are invalid records, the source list and every problem: the outputs are the
ones a cold run writes, byte for byte.

What a warm run reads: every claim record's ``stat``, and its bytes only when its file identity is
not the one remembered with its hash or when it must be parsed (then they must hash the same); every
source record's bytes; and the pack. A snapshot or claim record is re-hashed unless its (device,
inode, size, mtime, ctime) are those it had when it was last hashed; ctime cannot be set by a user,
and a hash is remembered only for a file whose ctime was over 2 seconds old when it was read (git's
"racily clean" rule), so a write in the same clock tick cannot go unseen. A snapshot a recomputed
claim reads is read and checked again in full.

What a warm run formats: each claim's share of the outputs (``written.Piece``) is kept beside its
result under a key of the claim's key and its links; only a claim whose key changed is evaluated and
formatted again, and one whose key is the same but whose links changed (only what uses it can) has
its JSON line's ``used_by`` written again (``cacheshares.relinked``).

What the pack keeps of a result: what a claim built on it reads (its status, reason, basis, shown
value and exact value), as plain data (``upstream_form``), and the whole result only for a claim
the annotations and the step summary show (failing, an erratum, or disagreeing with a measurement),
unpickled only for those. A run that formats many claims (the first) sets their JSON lines aside in
a temporary file as they are made (``cachestore.Spill``) and writes the pack and the report from it.

When two records give one claim id (or an invalid record gives a good one's), the warm path steps
aside and the whole ledger is evaluated cold.
The ledger has no folder-level settings today (everything a claim's result depends on is in the
records, snapshots and measurements above); a setting added to the loader must enter the key here.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from .frozen import frozen
from . import __version__, readahead, units
from .cachestore import RACY_NS, Spill, Store, dumps, loads  # RACY_NS: a hash is remembered only for a file older than this
from .cacheshares import own_sources, shares
from .coldshares import verified as verified_cold
from .engine import evaluate_claims
from .errors import LedgerError
from .loader import (CLAIMS_DIR, MAX_RECORD_BYTES, MAX_SNAPSHOT_BYTES, RECORD_SUFFIXES, SNAPSHOTS_DIR, SOURCES_DIR, Ledger,
                     _bad_claim, _duplicate_sources, _load_claim, _load_measurements, _load_source, _rel, _suffix,
                     _yaml_files, check_root, checked_claims, load_ledger, read_plain_file)
from .models import Claim
from .sources import Snapshot
from .written import Verified

FORMAT = 3  # 2: each claim's share of the outputs (written.Piece) and its links kept beside its result;
# 3: the whole result kept only for a claim the annotations show, and what a claim built on it reads as plain data


@frozen
class Stats:
    total: int  # claims in the report, invalid records included
    recomputed: int  # claims read and evaluated this run (invalid records are always read)
    path: Path
    why_cold: str = ""  # when the whole ledger was evaluated without the cache
    ids: tuple[str, ...] = ()  # the claims recomputed, by id
    formatted: int = 0  # claims whose share of the outputs was made this run (the rest came formatted)
    read: int = 0  # claim records whose bytes were read this run (the rest were known by file identity)

    def line(self) -> str:
        if self.why_cold:
            return f"cache: recomputed {self.total:,} of {self.total:,} claims ({self.why_cold}; cache: {self.path})"
        return f"cache: recomputed {self.recomputed:,} of {self.total:,} claims (cache: {self.path})"


def verify(root: str | os.PathLike[str], store: Store, *, jobs: int | None = None) -> tuple[Verified, Stats]:
    """``engine.verify`` with the cache in ``store``: what the outputs are made from (byte for byte
    a cold run's), and what was recomputed. ``jobs``: as ``load_ledger``'s, where the whole ledger
    is evaluated cold."""
    from .gcpause import paused

    with paused():  # as engine.verify: many small objects, few cycles
        root = Path(root)
        check_root(root)
        pack = store.read()
        warm = _Warm(root, pack if _usable(pack) else None, store.path.parent, jobs)
        try:
            verified = warm.run()
        except (_Cold, LedgerError) as why:
            cold = verified_cold(load_ledger(root, jobs=jobs), jobs=jobs)  # a LedgerError here is the cold run's to report
            every = len(cold.claims)
            return cold, Stats(total=every, recomputed=every, path=store.path, why_cold=str(why),
                               ids=tuple(sorted(c.id for c in cold.claims)), formatted=every, read=every)
        if warm.changed:
            store.write(warm.new_pack)
        return verified, Stats(total=len(verified.claims), recomputed=len(warm.recomputed), path=store.path,
                             ids=tuple(sorted(warm.recomputed)), formatted=warm.pieces_made + len(warm.ledger.bad_claims),
                             read=warm.records_read)


class _Cold(Exception):
    """The warm path cannot be sure of this ledger: evaluate all of it."""


@functools.cache
def code_fingerprint() -> bytes:
    """workings' own files (every one under the package), its version, and the versions of what
    computes with it: a change to any of them changes every key."""
    import yaml

    h = hashlib.blake2b(digest_size=20)
    for part in (f"format {FORMAT}", __version__, sys.version, _installed_version("pint"), yaml.__version__,
                 str(getattr(yaml, "__with_libyaml__", None))):
        h.update(part.encode() + b"\0")
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
            h.update(path.relative_to(package).as_posix().encode() + b"\0")
            h.update(hashlib.blake2b(path.read_bytes(), digest_size=20).digest())
    return h.digest()


def _installed_version(name: str) -> str:
    """The installed version of package ``name`` (``installed.version``: off its ``.dist-info``
    folder's name, rather than by importing it: a warm run that recomputes nothing does not import
    pint, with its registry about three fifths of the floor's instructions)."""
    from .installed import version

    return version(name)


def _usable(pack: object) -> bool:
    return (isinstance(pack, dict) and pack.get("format") == FORMAT and pack.get("code") == code_fingerprint()
            and all(isinstance(pack.get(k), dict) for k in ("claims", "sources", "hashes", "files")))


def _b(text: str) -> bytes:
    """Text as bytes for a key: a file name that is not UTF-8 keeps its bytes (surrogateescape)."""
    return text.encode("utf-8", "surrogateescape")


def _digest(*parts: bytes) -> bytes:
    h = hashlib.blake2b(digest_size=20)
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.digest()


class _LazySnapshots(dict[str, Any]):
    """``ledger.snapshots`` for a warm run: a snapshot is read (and checked against its name) only
    when a recomputed claim looks it up. The engine reads snapshots only through ``get``."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[str, Callable[[], Snapshot]] = {}

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self and key in self.pending:
            self[key] = self.pending.pop(key)()  # a LedgerError here is that claim's error, as in a cold run
        return super().get(key, default)


@dataclass
class _Record:
    """One good claim record as this run sees it."""

    digest: bytes
    rel: str  # its path from the root
    raw: bytes | None  # its bytes, when they were read
    claim_id: str
    uses: tuple[str, ...]  # claim ids its inputs name
    reads: tuple[str, ...]  # source ids its inputs read and its cites quote
    entry: tuple[Any, ...] | None  # the pack's entry for these bytes
    claim: Claim | None = None  # parsed, when it was
    key: bytes | None = None
    links: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # its result's uses, and the sources it reads itself


class _Warm:
    def __init__(self, root: Path, pack: dict[str, Any] | None, folder: Path | None = None,
                 jobs: int | None = None):
        self.root = root
        self.jobs = jobs  # processes that may read the records where every one is read (``checked_claims``)
        self.folder = folder  # the cache's folder, where a run's new JSON lines are set aside (``spill``)
        old = pack or {"claims": {}, "sources": {}, "hashes": {}, "files": {}}
        self.old_claims: dict[bytes, tuple[Any, ...]] = old["claims"]
        self.old_sources: dict[bytes, tuple[Any, ...]] = old["sources"]
        self.old_hashes: dict[str, tuple[Any, ...]] = old["hashes"]
        self.old_files: dict[str, tuple[Any, ...]] = old["files"]
        self.new_pack: dict[str, Any] = {"format": FORMAT, "code": code_fingerprint(), "claims": {}, "sources": {},
                                         "hashes": {}, "files": {}}
        self.changed = pack is None
        self.recomputed: list[str] = []
        self.pieces_made = self.pieces_kept = 0  # claims formatted this run, and taken formatted from the pack
        self.records_read = 0
        self.ledger = Ledger(root=root)
        self.snapshots = self.ledger.snapshots = _LazySnapshots()
        self.source_state: dict[str, bytes] = {}
        self.plain: dict[int, tuple[Any, Any]] = {}  # by id: a value or shown quantity, and its plain form

    def run(self) -> Verified:
        self.sources()
        records = self.claims()
        _yaml_files(self.ledger, SNAPSHOTS_DIR)  # as the loader: a link or pipe there is reported
        _load_measurements(self.ledger)
        measured: dict[str, list[str]] = {}
        for m in self.ledger.measurements:
            measured.setdefault(m.claim, []).append(repr(m))
        order = self.keys(records, measured)
        if any(b.id in records for b in self.ledger.bad_claims):
            raise _Cold("an invalid record gives the id of a good one")
        reused: list[_Record] = []
        evaluate: list[_Record] = []
        for claim_id in order:
            record = records[claim_id]
            if record.key is not None and record.entry is not None and record.entry[3] == record.key:
                reused.append(record)
            else:
                evaluate.append(record)
        for record in evaluate:
            if record.claim is None:
                raw = record.raw if record.raw is not None else self.read_again(record.rel, record.digest)
                record.claim = _load_claim(self.ledger, self.root / record.rel, raw)
                if record.claim is None:  # parsed before under these bytes: cannot fail now
                    raise _Cold(f"{record.rel} could not be read again")
            self.ledger.claims[record.claim_id] = record.claim
        needed = {used for record in evaluate for used in record.uses}
        # only the results the claims evaluated now read are unpickled; the rest stay bytes
        done = evaluate_claims(self.ledger, {r.claim_id: self.upstream(r) for r in reused if r.claim_id in needed})
        self.recomputed = [r.claim_id for r in evaluate] + [b.id for b in self.ledger.bad_claims]
        for record in evaluate:
            result = done[record.claim_id][0]
            record.links = (result.uses, own_sources(result))
        verified = shares(self, records, order, done)
        self.changed = (self.changed or bool(evaluate) or self.pieces_made > 0
                        or self.new_pack["claims"].keys() != self.old_claims.keys()
                        or self.new_pack["sources"].keys() != self.old_sources.keys()
                        or self.new_pack["hashes"] != self.old_hashes or self.new_pack["files"] != self.old_files)
        return verified

    def spill(self) -> Spill | None:
        """Where the JSON lines made this run are set aside until the pack and the report are written
        (None: held in memory)."""
        return Spill.open(self.folder) if self.folder is not None else None

    def blob(self, result: Any) -> bytes:
        """A result evaluated this run, pickled whole for the pack: kept only for a claim the
        annotations and the step summary show (``written.is_notable``)."""
        return dumps(result)

    def sources(self) -> None:
        ledger = self.ledger
        by_id: dict[str, list[Path]] = {}
        for path in _yaml_files(ledger, SOURCES_DIR):
            by_id.setdefault(path.stem, []).append(path)
        for source_id, paths in by_id.items():
            if len(paths) != 1:
                _duplicate_sources(ledger, source_id, paths)
                self.source_state[source_id] = _digest(b"duplicate", *(_b(str(p)) for p in paths))
                continue
            path = paths[0]
            try:
                raw = read_plain_file(path, MAX_RECORD_BYTES)
            except LedgerError:
                _load_source(ledger, path)  # refused again there, with its place
                self.source_state[source_id] = b"unreadable"
                continue
            digest = _digest(b"source", _b(_rel(ledger, path)), raw)
            entry = self.old_sources.get(digest)
            if entry is not None and self.snapshot_holds(entry[0]):
                source = entry[1]
                ledger.sources[source_id] = source
                if source.snapshot:
                    self.snapshots.pending[source_id] = functools.partial(
                        _read_snapshot, self.root / SNAPSHOTS_DIR / source.snapshot, source.snapshot, source.format)
            else:
                _load_source(ledger, path, raw)
                if source_id in ledger.sources:
                    source = ledger.sources[source_id]
                    entry = (source.snapshot, replace(source, doc=None))
            if source_id in ledger.sources and entry is not None:
                self.new_pack["sources"][digest] = entry
                self.source_state[source_id] = digest
            else:
                self.source_state[source_id] = _digest(b"invalid", digest)

    def snapshot_holds(self, name: str | None) -> bool:
        """The snapshot ``name`` is still a plain file in the ledger's own folder whose bytes hash to
        its name (remembered by file identity, or hashed again)."""
        if name is None:
            return True
        if (self.root / "ledger").is_symlink() or (self.root / SNAPSHOTS_DIR).is_symlink():
            return False
        path = self.root / SNAPSHOTS_DIR / name
        try:
            info = os.lstat(path)
        except OSError:
            return False
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SNAPSHOT_BYTES:
            return False
        identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        known = self.old_hashes.get(name)
        if known is not None and tuple(known[:5]) == identity:
            sha = known[5]
        else:
            try:
                sha = hashlib.sha256(read_plain_file(path, MAX_SNAPSHOT_BYTES)).hexdigest()
            except LedgerError:
                return False
            self.changed = True
        if time.time_ns() - max(info.st_ctime_ns, info.st_mtime_ns) > RACY_NS:
            self.new_pack["hashes"][name] = (*identity, sha)
        return bool(sha == name.split(".", 1)[0])

    def claims(self) -> dict[str, _Record]:
        """Every good claim record by id, parsed only where its bytes are new; invalid records are
        read and reported as a cold run reports them. A record whose file identity (device, inode,
        size, mtime, ctime) is the one it had when its bytes were last hashed is not read again (as
        a snapshot: see ``snapshot_holds``); it is read when it must be parsed, and checked then."""
        ledger = self.ledger
        records: dict[str, _Record] = {}
        listing: list[tuple[str, os.stat_result | None]] | None = _plain_records(self.root)  # type: ignore[assignment]
        if listing is None:  # something the loader's walk reports (a link, a pipe): its walk, its words
            listing = [(_rel(ledger, path), None) for path in _yaml_files(ledger, CLAIMS_DIR)]
        now = time.time_ns()
        ahead = None
        if not self.old_files and not self.old_claims and readahead.forks(len(listing), self.jobs):
            # nothing known (a first run, new code): every record is read and parsed, here by two
            # processes (``readahead``), and checked in this one as below
            ahead = checked_claims(ledger, [self.root / rel for rel, _ in listing], self.jobs,
                                   keyed=lambda file, raw: _digest(b"claim", _b(file), raw))
        for index, (rel, info) in enumerate(listing):
            raw: bytes | None = None
            known = path = None
            if info is not None:
                identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
                known = self.old_files.get(rel)
                if known is not None and known[:5] != identity:
                    known = None
            if ahead is not None:
                self.records_read += 1
                claim, bad, digest = ahead[index]
                if bad is not None:
                    _bad_claim(ledger, *bad)  # unreadable or refused, as ``_load_claim`` reports it
                if digest is None:  # its bytes could not be read
                    continue
                if info is not None and now - max(info.st_ctime_ns, info.st_mtime_ns) > RACY_NS:
                    self.new_pack["files"][rel] = (*identity, digest)
                if claim is not None:
                    self._parsed(records, claim, digest, rel, None)
                continue
            if known is not None:
                digest = known[5]
                self.new_pack["files"][rel] = known  # the same entry: the same identity, still old enough
            else:
                path = self.root / rel
                self.records_read += 1
                try:
                    raw = read_plain_file(path, MAX_RECORD_BYTES)
                except LedgerError:
                    _load_claim(ledger, path)  # refused again there, with its place
                    continue
                digest = _digest(b"claim", _b(rel), raw)
                if info is not None and now - max(info.st_ctime_ns, info.st_mtime_ns) > RACY_NS:
                    self.new_pack["files"][rel] = (*identity, digest)
            entry = self.old_claims.get(digest)
            if entry is not None and entry[0] == rel[len(CLAIMS_DIR) + 1:].rsplit(".", 1)[0]:  # the id its path gives
                if entry[0] in records:
                    raise _Cold(f"two records give the claim id {entry[0]!r}")
                # its bytes are kept while it may still have to be parsed
                records[entry[0]] = _Record(digest=digest, rel=rel, raw=raw, claim_id=entry[0], uses=entry[1],
                                            reads=entry[2], entry=entry, claim=None, links=entry[5])
                continue
            # new bytes, or a record that sets its own id: read
            raw = raw if raw is not None else self.read_again(rel, digest)
            claim = _load_claim(ledger, self.root / rel if path is None else path, raw)
            if claim is not None:
                self._parsed(records, claim, digest, rel, entry)
        return records

    def _parsed(self, records: dict[str, _Record], claim: Claim, digest: bytes, rel: str,
                entry: tuple[Any, ...] | None) -> None:
        """A parsed claim's record, by its id."""
        if claim.id in records:
            raise _Cold(f"two records give the claim id {claim.id!r}")
        uses = tuple(sorted({i.claim for i in claim.inputs if i.kind == "claim" and i.claim is not None}))
        reads = tuple(sorted({i.source for i in claim.inputs if i.source is not None}
                             | {ref.split("#", 1)[0] for ref in claim.cites}))
        records[claim.id] = _Record(digest=digest, rel=rel, raw=None, claim_id=claim.id, uses=uses, reads=reads,
                                    entry=entry, claim=claim, links=entry[5] if entry is not None else ((), ()))

    def read_again(self, rel: str, digest: bytes) -> bytes:
        """A record not read this run because its file identity was known: its bytes, which must still
        hash to what its key was made from (or the run starts again cold)."""
        self.records_read += 1
        try:
            raw = read_plain_file(self.root / rel, MAX_RECORD_BYTES)
        except LedgerError as exc:
            raise _Cold(f"{rel} changed during the run ({exc})") from None
        if _digest(b"claim", _b(rel), raw) != digest:
            raise _Cold(f"{rel} changed during the run")
        return raw

    def keys(self, records: dict[str, _Record], measured: dict[str, list[str]]) -> list[str]:
        """Each record's key, in dependency order (the order returned); None on a cycle or above one."""
        bad = {b.id for b in self.ledger.bad_claims}
        code = code_fingerprint()
        order: list[str] = []
        state: dict[str, str] = {}
        for start in sorted(records):
            if start in state:
                continue
            stack = [(start, iter(records[start].uses))]
            state[start] = "open"
            while stack:
                node, pending = stack[-1]
                child = next(pending, None)
                if child is None:
                    stack.pop()
                    state[node] = "done"
                    order.append(node)
                    records[node].key = self.key(records[node], records, bad, measured, code)
                elif child in records and child not in state:
                    state[child] = "open"
                    stack.append((child, iter(records[child].uses)))
        return order

    def key(self, record: _Record, records: dict[str, _Record], bad: set[str], measured: dict[str, list[str]],
            code: bytes) -> bytes | None:
        parts = [code, record.digest, *(_b(m) for m in measured.get(record.claim_id, ()))]
        for source_id in record.reads:
            parts.append(b"source " + _b(source_id) + b" " + self.source_state.get(source_id, b"absent"))
        for used in record.uses:
            if used in records:
                upstream = records[used].key  # None while open (a cycle) or keyless
                if upstream is None:
                    return None
                parts.append(b"claim " + _b(used) + b" " + upstream)
            else:
                parts.append(b"claim " + _b(used) + (b" invalid" if used in bad else b" absent"))
        return _digest(*parts)

    def load(self, record: _Record) -> Any:
        """A reused claim's whole result (kept for a claim the annotations show)."""
        assert record.entry is not None and record.entry[4] is not None
        return loads(record.entry[4])

    def upstream_form(self, result: Any, value: Any) -> tuple[Any, ...] | None:
        """``upstream_form``: each value and each shown quantity made plain once (claims share them)."""
        return upstream_form(result, value, self.plain)

    def upstream(self, record: _Record) -> tuple[Any, Any]:
        """A reused claim as a claim built on it reads it (``_Upstream``), and its value."""
        assert record.entry is not None
        return upstream_of(record.entry[9])


def _plain_records(root: Path) -> list[tuple[str, os.stat_result]] | None:
    """The claim records under ``root/claims`` as (path from the root, lstat), in the order of the
    loader's walk (``loader._yaml_files``), when every entry there is a plain folder or file: None
    when anything is a link, a pipe or unreadable, which that walk reports in its own words."""
    if (root / CLAIMS_DIR).is_symlink():
        return None
    found: list[tuple[str, os.stat_result]] = []
    pending = [CLAIMS_DIR]
    try:
        while pending:
            here = pending.pop()
            folders = []
            for entry in sorted(os.scandir(root / here), key=lambda e: e.name):
                rel = f"{here}/{entry.name}"
                if entry.is_symlink():
                    return None
                if entry.is_dir(follow_symlinks=False):
                    folders.append(rel)
                elif entry.is_file(follow_symlinks=False):
                    if _suffix(entry.name) in RECORD_SUFFIXES:  # pathlib's suffix, as the loader's walk
                        found.append((rel, entry.stat(follow_symlinks=False)))
                else:
                    return None
            pending.extend(reversed(folders))
    except OSError:
        return None
    found.sort(key=lambda item: item[0].split("/"))  # as the walk sorts its paths: part by part
    return found


def _read_snapshot(path: Path, name: str, fmt: str) -> Snapshot:
    return Snapshot.read(name, read_plain_file(path, MAX_SNAPSHOT_BYTES), fmt)


@frozen
class _Upstream:
    """What a claim reads of a claim it uses (``engine._Evaluation.resolve_new`` and its basis for
    ``dependence.analyse``), for a reused claim whose whole result the pack does not keep."""

    status: str
    reason: str
    basis: str
    result: Any  # report.Quantity | None


def upstream_form(result: Any, value: Any, plain: dict[int, tuple[Any, Any]] | None = None) -> tuple[Any, ...] | None:
    """``_Upstream`` and the value as plain data (text, whole numbers, tuples; None: a value this
    cache does not store, so that claim is recomputed on every run). ``plain``: the forms made so
    far, by the id of what they were made from (kept beside it, so the id stays its own)."""
    plain = {} if plain is None else plain
    known = plain.get(id(value))
    if known is None or known[0] is not value:
        known = plain[id(value)] = (value, _value_form(value))
    form = known[1]
    if form is False:
        return None
    shown = result.result
    quantity = None
    if shown is not None:
        made = plain.get(id(shown))
        if made is None or made[0] is not shown:
            exact = type(shown.value) is Fraction and type(shown.unit) is str and type(shown.display) is str
            made = plain[id(shown)] = (shown, (shown.value.numerator, shown.value.denominator, shown.unit,
                                               shown.display) if exact else False)
        quantity = made[1]
        if quantity is False:
            return None
    return result.status, result.reason, result.basis, quantity, form


def upstream_of(form: tuple[Any, ...]) -> tuple[_Upstream, Any]:
    from .report import Quantity

    status, reason, basis, quantity, value = form
    shown = None if quantity is None else Quantity(value=Fraction(quantity[0], quantity[1]), unit=quantity[2],
                                                   display=quantity[3])
    return _Upstream(status=status, reason=reason, basis=basis, result=shown), _value(value)


def _value_form(value: Any) -> Any:
    """A claim's value as plain data (False: one this cache does not store; that claim is recomputed
    on every run): None; ("n", numerator, denominator) for an exact number; a pint quantity with an
    exact magnitude as ("q", numerator, denominator, its units' powers: (name, a whole number or
    (numerator, denominator))))."""
    if value is None:
        return None
    if type(value) is Fraction:
        return ("n", value.numerator, value.denominator)
    if units.is_quantity(value) and type(value._magnitude) is Fraction and value._units._non_int_type is Fraction:
        items = []
        for k, p in value._units.items():
            if type(k) is not str or type(p) not in (int, Fraction):
                return False
            items.append((k, p if type(p) is int else (p.numerator, p.denominator)))
        return ("q", value._magnitude.numerator, value._magnitude.denominator, tuple(items))
    return False


def _value(form: Any) -> Any:
    if form is None:
        return None
    if form[0] == "n":
        return Fraction(form[1], form[2])
    from pint.util import UnitsContainer

    from .quick import make

    _, numerator, denominator, items = form
    return make(Fraction(numerator, denominator),
                UnitsContainer({k: (p if type(p) is int else Fraction(*p)) for k, p in items}, non_int_type=Fraction))
