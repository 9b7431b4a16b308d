"""Where verify's cache lives, and how it is read and written so that nobody else's file is believed.

Claims arrive in pull requests from strangers, and CI verifies them; a cache that a pull request could
write would let it declare a drifted claim verified. So:

- the cache is kept outside the ledger: ``$WORKINGS_CACHE_DIR``, else ``$XDG_CACHE_HOME/workings``,
  else ``~/.cache/workings``; one file per ledger, ``ledgers/<sha256 of the root's real path>.pack``.
  A cache folder inside the ledger's folder (or holding it) is refused: it is not used at all;
- every pack is authenticated: HMAC-SHA256 over each of its segments and over the table of their
  MACs, with a 32-byte key made at random in ``<cache>/secret`` (mode 0600, in a 0700 folder) the
  first time; a pack where any MAC does not match (planted, tampered, truncated, made under another
  key) is ignored and rebuilt, with a one-line note. The claims are kept in SHARDS shards, so a
  write pickles and authenticates again only the shards whose entries changed; each shard is two
  segments, its pickle and its raw bytes (the long bytes its entries hold: results, JSON lines,
  pickled out of band, protocol 5's buffers), which a read gives back as views of the pack's bytes,
  never copied;
- even an authenticated pack is unpickled by a restricted unpickler that builds only the report's
  own record types (``_ALLOWED``), never an arbitrary callable;
- it is written atomically (``atomic.write_bytes``): a reader sees the old pack or the new one. It can
  be deleted at any time, even during a run: the run then starts cold or its write is skipped with a
  note, and the results are the same.

The pack holds no result that is believed because it is there: ``workings.cache`` serves an entry
only when its key, a hash of everything the result depends on, is the key of the input it sees now.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import pickle
import secrets
import stat
import tempfile
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAGIC = b"workings-cache 3\n"
MAC_BYTES = 32
SHARDED = "claims"  # the part of a pack kept in segments: written again only where it changed
SHARDS = 64
ENV_DIR = "WORKINGS_CACHE_DIR"
ENV_OFF = "WORKINGS_NO_CACHE"
RACY_NS = 2_000_000_000  # what a file's identity vouches for is remembered only when its ctime is older than this
KINDS = (".pack", ".scan")  # verify's pack; check-draft's scan (``draft.scanmemo``)

# what a pack may build: the report's records, the source records, exact numbers; nothing callable
_ALLOWED = {
    ("fractions", "Fraction"),
    ("workings.report", "ClaimResult"), ("workings.report", "Quantity"), ("workings.report", "Message"),
    ("workings.report", "StepResult"), ("workings.report", "InputResult"), ("workings.report", "Comparison"),
    ("workings.report", "Citation"), ("workings.dependence", "Dependence"),
    ("workings.sources", "Source"), ("workings.sources", "Value"), ("workings.sources", "Hub"),
    ("copyreg", "__newobj__"), ("copyreg", "_reconstructor"), ("builtins", "object"),
}


class _Restricted(pickle.Unpickler):
    def __init__(self, file: Any, buffers: list[memoryview] | None = None):
        super().__init__(file, buffers=buffers)  # a shard's long bytes: views of its raw segment

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"the cache names {module}.{name}, which it may not build")
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("the cache holds a reference it may not follow")


RAW_MIN = 256  # bytes at least this long (a result, a JSON line) are kept in a shard's raw segment


class Spill:
    """An unnamed temporary file in the cache's folder that a run's new JSON lines are set aside in
    as they are made (``Spilled``): the pack and the JSON report are written from it, so a run that
    fills the cache never holds every line in memory (about 30 MB at 10,000 claims). It has no name
    and goes with the process; no later run reads it."""

    def __init__(self, handle: Any):
        self.handle = handle
        self.size = 0  # bytes set aside
        self.written = 0  # of which written to the file
        self.held: list[bytes | memoryview] = []

    @classmethod
    def open(cls, folder: Path) -> Spill | None:
        """A new spill in ``folder`` (None where it cannot be made: the lines are then held)."""
        if not hasattr(os, "pread"):  # (Windows has no positioned reads)
            return None
        try:
            _private_folder(folder)
            handle = tempfile.TemporaryFile(dir=folder, buffering=0)
        except OSError:
            return None
        spill = cls(handle)
        weakref.finalize(spill, handle.close)  # closed when its last line is let go (or at exit)
        return spill

    def add(self, data: bytes | memoryview) -> Spilled:
        """``data`` set aside (written in blocks of about 1 MiB); OSError where the file cannot take it."""
        at = self.size
        self.held.append(data)
        self.size += len(data)
        if self.size - self.written >= 1 << 20:
            self.flush()
        return Spilled(self, at, len(data))

    def flush(self) -> None:
        block = b"".join(self.held)
        self.held = []
        while block:
            done = os.pwrite(self.handle.fileno(), block, self.written)
            self.written += done
            block = block[done:]


class Spilled:
    """Bytes set aside in a ``Spill``: ``bytes()`` reads them back."""

    __slots__ = ("spill", "at", "size")

    def __init__(self, spill: Spill, at: int, size: int):
        self.spill, self.at, self.size = spill, at, size

    def __len__(self) -> int:
        return self.size

    def __bytes__(self) -> bytes:
        spill = self.spill
        if self.at + self.size > spill.written:
            spill.flush()
        data = os.pread(spill.handle.fileno(), self.size, self.at)
        if len(data) != self.size:
            raise OSError(f"the cache's temporary file gave {len(data)} bytes of {self.size}")
        return data


_EMPTY = b""


def _out_of_band(entry: Any, spilled: dict[int, Spilled]) -> Any:
    """``entry`` (an entry of a shard) with the long bytes at its top level (and any view of them)
    wrapped to be pickled out of band (``pickle.PickleBuffer``), to be written after the shard's
    pickle, raw: reading a pack then makes one view of them each, never a copy. (Bytes deeper
    inside are pickled in it, as any other value.) Bytes set aside in a spill are read back only as
    the pack is written: an empty buffer stands for them here (``spilled``, by its id)."""
    if type(entry) is not tuple:
        return entry
    out = []
    for part in entry:
        kind = type(part)
        if kind is memoryview or (kind is bytes and len(part) >= RAW_MIN):
            part = pickle.PickleBuffer(part)
        elif kind is Spilled:
            stand_in = pickle.PickleBuffer(_EMPTY)
            spilled[id(stand_in)] = part
            part = stand_in
        out.append(part)
    return tuple(out)


def dump_shard(shard: dict[Any, Any]) -> tuple[bytes, list[bytes | memoryview | Spilled]]:
    """A shard of claims as (its pickle, its raw bytes in the pieces they are held in: never joined,
    so writing a pack never holds a second copy of its long bytes). The pickle is the lengths of
    those pieces, then the shard with each piece out of band (protocol 5's buffers): pickled by
    pickle's own C code alone, with no Python call per object."""
    raw: list[pickle.PickleBuffer] = []
    spilled: dict[int, Spilled] = {}
    entries = {name: _out_of_band(entry, spilled) for name, entry in shard.items()}
    pickled = pickle.dumps(entries, protocol=5, buffer_callback=raw.append)
    pieces: list[bytes | memoryview | Spilled] = [spilled[id(part)] if id(part) in spilled else part.raw()
                                                  for part in raw]
    return dumps([len(piece) for piece in pieces]) + pickled, pieces


def loads(data: bytes | memoryview) -> Any:
    return _Restricted(io.BytesIO(data)).load()


def dumps(value: object) -> bytes:
    return pickle.dumps(value, protocol=5)


def cache_dir() -> Path:
    """``$WORKINGS_CACHE_DIR``, else ``$XDG_CACHE_HOME/workings`` (an absolute path only, as the XDG
    spec says), else ``~/.cache/workings``; CacheRefused when there is no home folder to put it in."""
    given = os.environ.get(ENV_DIR)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            raise CacheRefused(f"there is no home folder to keep it in; set {ENV_DIR}")
        base = os.path.join(home, ".cache")
    return Path(base) / "workings"


def disabled_by_env() -> bool:
    return os.environ.get(ENV_OFF, "").strip().lower() not in ("", "0", "no", "false")


@dataclass
class Store:
    """One ledger's pack: read once at the start of a run, written once at its end."""

    path: Path  # the pack
    secret_path: Path
    notes: list[str] = field(default_factory=list)  # one line each, for the user
    _key: bytes | None = None
    _refused: bool = False
    _shards: dict[int, tuple[dict[Any, Any], list[_Segment]]] = field(default_factory=dict)

    @classmethod
    def for_root(cls, root: Path, folder: Path | None = None, kind: str = ".pack") -> Store:
        """The store for the ledger at ``root`` (``kind``: verify's ``.pack``, or check-draft's
        ``.scan``); CacheRefused when the cache folder overlaps the ledger's folder."""
        assert kind in KINDS
        folder = Path(folder) if folder is not None else cache_dir()
        real_root, real_folder = Path(os.path.realpath(root)), Path(os.path.realpath(folder))
        if real_folder.is_relative_to(real_root) or real_root.is_relative_to(real_folder):
            raise CacheRefused(f"the cache folder {folder} {'is inside' if real_folder.is_relative_to(real_root) else 'holds'} "
                               f"the ledger's folder {root}; a cache there could be planted by a pull request, so "
                               f"none is used (set {ENV_DIR} to a folder outside it)")
        name = hashlib.sha256(os.fsencode(real_root)).hexdigest()[:32]
        return cls(path=folder / "ledgers" / f"{name}{kind}", secret_path=folder / "secret")

    def key(self) -> bytes | None:
        """The MAC key, made the first time (0600 in a 0700 folder); None when it cannot be trusted."""
        if self._key is None and not self._refused:
            try:
                self._key = _secret(self.secret_path)
            except (OSError, CacheRefused) as exc:
                self._refused = True
                self.notes.append(f"cache: not used: {exc}")
        return self._key

    def read(self) -> Any:
        """The pack's content, or None (a note says why, unless there was simply no pack yet, or one in
        an earlier format, which a newer workings rebuilds as it does a pack of other code)."""
        key = self.key()
        if key is None:
            return None
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.notes.append(f"cache {self.path} could not be read ({exc.strerror}); starting cold")
            return None
        self._shards.clear()
        if data.startswith(b"workings-cache ") and not data.startswith(MAGIC):
            return None  # written by an earlier workings: never read, rebuilt
        segments = _open(key, data)
        if segments is None:
            self.notes.append(f"cache {self.path} is not one this user wrote (corrupt, truncated or tampered); "
                              "ignored and rebuilt")
            return None
        try:
            stream = io.BytesIO(data)  # shares the bytes: each segment is unpickled where it lies

            def load(index: int, raw: memoryview | None = None) -> Any:
                start, payload, _ = segments[index]
                stream.seek(start)
                views = None
                if raw is not None:  # the lengths of the raw segment's pieces, then the shard
                    sizes = _Restricted(stream).load()
                    if type(sizes) is not list or not all(type(n) is int and n >= 0 for n in sizes) \
                            or sum(sizes) != len(raw):
                        raise ValueError("a shard's pieces do not fill its raw segment")
                    views, at = [], 0
                    for size in sizes:
                        views.append(raw[at:at + size])
                        at += size
                value = _Restricted(stream, views).load()
                if stream.tell() != start + len(payload):
                    raise ValueError("a segment's pickle does not end where the segment does")
                return value

            content = load(0)
            if not isinstance(content, dict) or content.get(SHARDED) != SHARDS or len(segments) != 1 + 2 * SHARDS:
                raise ValueError("the pack's segments do not fit together")
            loaded = [load(1 + 2 * i, segments[2 + 2 * i][1]) for i in range(SHARDS)]
            if not all(isinstance(shard, dict) for shard in loaded):
                raise ValueError("a shard of the pack is not a table")
        except Exception as exc:  # noqa: BLE001 - an authenticated pack that does not load is rebuilt, never fatal
            self.notes.append(f"cache {self.path} could not be loaded ({type(exc).__name__}); ignored and rebuilt")
            return None
        claims: dict[Any, Any] = {}
        for index, shard in enumerate(loaded):
            claims.update(shard)  # its two segments' bytes and MACs, written again if it is unchanged:
            self._shards[index] = (shard, [([view], len(view), mac) for _, view, mac in
                                           (segments[1 + 2 * index], segments[2 + 2 * index])])
        content = {k: v for k, v in content.items() if k != SHARDED}
        content[SHARDED] = claims
        _touch(self.path)
        return content

    def write(self, content: dict[str, Any]) -> None:
        """Write ``content`` (a dict; its ``claims`` dict, keyed by bytes, kept in SHARDS segments by
        key): a segment whose entries are the very objects this store read is written from the bytes
        read, not pickled and authenticated again."""
        key = self.key()
        if key is None:
            return
        shards: list[dict[Any, Any]] = [{} for _ in range(SHARDS)]
        for name, entry in content.get(SHARDED, {}).items():
            shards[name[0] % SHARDS if name else 0][name] = entry
        head = {k: v for k, v in content.items() if k != SHARDED}
        head[SHARDED] = SHARDS
        segments = [_seal(key, [dumps(head)])]
        try:  # (a shard's raw bytes may be read back from this run's spill)
            for index, shard in enumerate(shards):
                old = self._shards.get(index)
                if old is not None and old[0].keys() == shard.keys() and all(shard[k] is v for k, v in old[0].items()):
                    segments.extend(old[1])
                else:
                    pickled, raw = dump_shard(shard)
                    segments.extend((_seal(key, [pickled]), _seal(key, raw)))
            _private_folder(self.path.parent)
            from . import atomic  # on writing only: a check-draft whose scan memory is unchanged writes nothing

            atomic.write_parts(self.path, _layout(key, segments))
        except OSError as exc:  # deleted or unwritable during the run: the results stand, uncached
            self.notes.append(f"cache {self.path} was not written ({exc.strerror or exc}); the next run starts cold")
            return
        _prune(self.path.parent)


class CacheRefused(Exception):
    """The cache cannot be used here (a folder inside the ledger, a key file others may write)."""


def _touch(path: Path) -> None:
    """A pack that served a run is marked used (``_prune`` keeps it)."""
    try:
        os.utime(path)
    except OSError:
        pass


PRUNE_DAYS = 30


def _prune(folder: Path) -> None:
    """Remove the packs no run has used for PRUNE_DAYS days (ledger folders long gone, or moved):
    at worst, a ledger's next run starts cold."""
    cutoff = time.time() - PRUNE_DAYS * 86400
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(KINDS) and entry.is_file(follow_symlinks=False) \
                        and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.path)
    except OSError:
        pass


def _mac(key: bytes, payload: bytes | memoryview) -> bytes:
    """HMAC-SHA256 (SHA-256 runs in the processor's own instructions here: twice BLAKE2b's speed)."""
    return hmac.digest(key, payload, "sha256")


# A pack: MAGIC, the MAC of its table, the table (the number of segments, then each one's length and
# MAC), then the segments: the first the pack's head (a pickled dict), then for each of SHARDS shards
# of its claims, the shard's pickle and its raw bytes. The table's MAC covers every segment's MAC, and
# each of those its segment's bytes: a change anywhere is seen, as with one MAC over the whole, and a
# segment that did not change keeps its MAC. A segment is held as the pieces it is made of (its
# bytes, their length and their MAC): a shard's raw bytes are never joined into one copy.
_Segment = tuple[list[bytes | memoryview | Spilled], int, bytes]


def _seal(key: bytes, parts: list[bytes | memoryview | Spilled]) -> _Segment:
    mac = hmac.new(key, digestmod="sha256")
    size = 0
    for part in parts:
        mac.update(bytes(part) if type(part) is Spilled else part)  # type: ignore[arg-type]
        size += len(part)
    return parts, size, mac.digest()


def _layout(key: bytes, segments: list[_Segment]) -> Iterator[bytes | memoryview]:
    """The pack's bytes in parts, each set-aside piece read back as it is written."""
    table = len(segments).to_bytes(4, "little") + b"".join(
        size.to_bytes(8, "little") + mac for _, size, mac in segments)
    yield from (MAGIC, _mac(key, MAGIC + table), table)
    for parts, _, _ in segments:
        for part in parts:
            yield bytes(part) if type(part) is Spilled else part  # type: ignore[misc]


def pack_bytes(key: bytes, content: dict[str, Any]) -> bytes:
    """The bytes of a pack of ``content`` made with ``key`` (as ``Store.write`` makes them)."""
    shards: list[dict[Any, Any]] = [{} for _ in range(SHARDS)]
    for name, entry in content.get(SHARDED, {}).items():
        shards[name[0] % SHARDS if name else 0][name] = entry
    head = {k: v for k, v in content.items() if k != SHARDED}
    head[SHARDED] = SHARDS
    segments = [_seal(key, [dumps(head)])]
    for shard in shards:
        pickled, raw = dump_shard(shard)
        segments.extend((_seal(key, [pickled]), _seal(key, raw)))
    return b"".join(bytes(part) for part in _layout(key, segments))


def _open(key: bytes, data: bytes) -> list[tuple[int, memoryview, bytes]] | None:
    """A pack's segments (each its offset, a view of ``data`` and its MAC), None when anything fails
    to match."""
    view = memoryview(data)  # no copies of a pack of tens of MB
    at = len(MAGIC) + MAC_BYTES
    if not data.startswith(MAGIC) or len(data) < at + 4:
        return None
    count = int.from_bytes(data[at:at + 4], "little")
    end = at + 4 + count * (8 + MAC_BYTES)
    if count < 1 or len(data) < end or not hmac.compare_digest(data[len(MAGIC):at], _mac(key, MAGIC + data[at:end])):
        return None
    segments, offset = [], end
    for index in range(count):
        row = at + 4 + index * (8 + MAC_BYTES)
        size, mac = int.from_bytes(data[row:row + 8], "little"), data[row + 8:row + 8 + MAC_BYTES]
        payload = view[offset:offset + size]
        if len(payload) != size or not hmac.compare_digest(mac, _mac(key, payload)):
            return None
        segments.append((offset, payload, mac))
        offset += size
    return segments if offset == len(data) else None


def _private_folder(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)


def _secret(path: Path) -> bytes:
    """The key in ``path``, made at random (0600) if there is none. One that is not a plain file of
    this user's, or that others may write or read, is refused (a key anyone can read authenticates
    anything)."""
    _private_folder(path.parent)
    if not os.path.lexists(path):  # made whole, then linked into place: a second run sees all of it or none
        temp = path.with_name(f".secret-{secrets.token_hex(8)}")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, secrets.token_bytes(32))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, path)
        except FileExistsError:
            pass  # another run made it first: its key is the one
        finally:
            os.unlink(temp)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077 or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            raise CacheRefused(f"{path} is not a private file of this user's (it must be mode 0600 and yours)")
        key = os.read(fd, 64)
    finally:
        os.close(fd)
    if len(key) < 32:
        raise CacheRefused(f"{path} holds too short a key; delete it and run again")
    return key
