"""Writing the site: everything into a fresh folder beside the target, then swapped in.

A reader (or a crash) sees the previous site or the new one, never half of one: the new site is
complete on disk before the old one moves.

What a re-render may delete is vouched for by the files themselves, not by a marker anyone could
commit: ``.workings-site`` lists every file render wrote with its sha256 (the ``sha256sum`` line
format, after ``#`` comment lines). The folder is replaced only when every file in it is the marker
or a listed file whose bytes still hash as listed; one other file, a changed file, a link, or a marker
without the list (an older workings, or one planted by hand) stops the render before anything moves,
naming that file. So a marker a pull request plants can vouch only for bytes it already knows, and a
file a person put in the folder, or edited there, is never removed.

The folder is looked at three times: before rendering, again just before the swap (it may have
changed meanwhile) and file by file as the old site is removed. The first look reads the marker and
the names: a file the marker does not list, a link or anything not a plain file stops the render
there. Each old file's bytes are then vouched for once: compared byte for byte with the page that
replaces it (below), or else hashed at the look before the swap. A file vouched for is trusted at a
later look while its ``lstat`` (inode, size, modification and change times) is the one it had when
vouched for and had not changed in the ``RACY_NS`` before that look began: writing a file always
moves its change time, which no user-space call can set back, so an unchanged ``lstat`` of a file
that was already still is unchanged bytes (the rule git and the snapshots use).

A page whose bytes are the ones the old site holds under its name is hard-linked into the new site
rather than written again (``Staging._link``), after the old file is read and found to be those very
bytes: the same bytes, the same file. Re-rendering an unchanged ledger then makes no new file but the
changed ones, frees none when the old site goes (at 10,000 pages, most of the system's time), and
hashes none of the unchanged ones (a comparison costs a fraction of a sha256); an unchanged page keeps
its modification time. The old site's file is never written through: a page written twice drops the
linked name first. A file another name also holds (a user's hard link) or whose mode or owner is not
a written page's is written, never linked.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import LedgerError
from ..loader import MAX_SNAPSHOT_BYTES, read_plain_file

if TYPE_CHECKING:
    from ..report import SourceResult

MARKER = ".workings-site"
MARKER_HEAD = ("# A site rendered by `workings render`. A later render replaces this folder only while it holds\n"
               "# nothing but these files, each unchanged (sha256, then the path); anything else stops it.\n")
MAX_MARKER_BYTES = 16 << 20
_LISTED = re.compile(r"^([0-9a-f]{64})  ([^\\\x00-\x1f]+)$")
_SNAPSHOT_NAME = re.compile(r"^[0-9a-f]{64}\.[A-Za-z0-9]{1,8}$")
# Opened from the site, these show as text or a document and load nothing else; any other kind
# (an archived .html page, say) is copied with .txt appended, so that opening it cannot reach out.
_INERT = {"txt", "json", "csv", "md", "yaml", "yml", "pdf", "png", "jpg", "jpeg"}
# A page's file: created (or emptied: a name written twice keeps the last bytes, as before), never
# followed through a symbolic link; its mode is the umask's, as open() gives.
_WRITE = (os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
          | getattr(os, "O_BINARY", 0))  # Windows: bytes as given, no newline translation
_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_BUFFER = memoryview(bytearray(1 << 18))  # what _sha256 reads into (render runs in one thread)


RACY_NS = 2_000_000_000  # a file changed this close before a look is hashed at every later look
_Key = tuple[int, int, int, int]


class Looked(dict[str, str]):
    """The files the marker lists (path -> sha256), with what the look saw of each: ``still`` maps a
    path to its ``lstat`` key where the file was vouched for (its bytes hashed as listed, or found to
    be a page's bytes and linked) and had not changed for ``RACY_NS`` before the look began; ``seen``
    (the first look, which reads no file) each listed file's key where it had not changed for
    ``RACY_NS`` before that look: not vouched for, only the file a link may take."""

    still: dict[str, _Key]
    seen: dict[str, _Key]


def _key(info: os.stat_result) -> _Key:
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def check_target(out: Path, before: Looked | None = None, *, first: bool = False) -> Looked:
    """Refuse a target that is not a new or empty folder, or an unchanged site render wrote; return
    the files the marker lists (path -> sha256), which are all the folder holds besides it. ``before``:
    an earlier look, whose files still as they were then are not hashed again. ``first``: the look
    before rendering, which checks the names and reads no file (``Looked.seen``): a changed file is
    then found by the look before the swap, still before anything moves."""
    if out.is_symlink():
        raise LedgerError(f"refusing to render into {out}: it is a symbolic link")
    looked = Looked()
    looked.still, looked.seen = {}, {}
    if not out.exists():
        return looked
    if not out.is_dir():
        raise LedgerError(f"refusing to render into {out}: it is a file, not a folder")
    if not any(out.iterdir()):
        return looked
    looked.update(_listed(out))
    for relative, problem in _unvouched(out, looked, before.still if before is not None else {}, looked.still,
                                        looked.seen if first else None):
        raise LedgerError(f"refusing to replace {out}: {relative} {problem}, so it may be someone's file; "
                          "nothing was removed: move it out, or choose a new or empty folder with --out")
    return looked


def _listed(out: Path) -> dict[str, str]:
    """The files ``out/.workings-site`` lists, or a LedgerError saying why the folder is not ours."""
    hint = "choose a new or empty folder with --out"
    marker = out / MARKER
    if not marker.exists() and not marker.is_symlink():
        raise LedgerError(f"refusing to replace {out}: it is not empty and holds no {MARKER} file, so it is not "
                          f"a site workings rendered; {hint}")
    try:
        text = read_plain_file(marker, MAX_MARKER_BYTES).decode("utf-8")
    except (LedgerError, UnicodeDecodeError) as exc:
        raise LedgerError(f"refusing to replace {out}: its {MARKER} cannot be read ({exc}); {hint}") from None
    listed, bad = {}, []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#") or not line:
            continue
        match = _LISTED.match(line)
        if match and all(part not in ("", ".", "..") for part in match.group(2).split("/")):
            listed[match.group(2)] = match.group(1)
        else:
            bad.append(number)
    if listed and bad:
        raise LedgerError(f"refusing to replace {out}: {MARKER} line {bad[0]} is not '<sha256>  <path>' "
                          f"(a relative path inside the folder); {hint}")
    if not listed:
        raise LedgerError(f"refusing to replace {out}: its {MARKER} lists no files (an older workings wrote it, or "
                          f"it was written by hand), so nothing in the folder is known to be render's; remove the "
                          f"folder yourself if it is only a site, or {hint}")
    return listed


def _unvouched(folder: Path, listed: dict[str, str], known: dict[str, _Key],
               still: dict[str, _Key], seen: dict[str, _Key] | None = None) -> Iterator[tuple[str, str]]:
    """Each entry under ``folder`` that ``listed`` does not vouch for: (relative path, why). A file
    whose ``lstat`` key is the one ``known`` holds is not hashed again, and stays in ``still``; each
    file hashed and vouched for that had been still for ``RACY_NS`` goes into ``still`` too. With
    ``seen``, no file is hashed: each listed one still for ``RACY_NS`` goes into ``seen``."""
    settled = time.time_ns() - RACY_NS
    root = os.fspath(folder)
    for top, dirs, names in os.walk(root):
        inside = os.path.relpath(top, root).replace(os.sep, "/")
        prefix = "" if inside == "." else inside + "/"
        for name in sorted(dirs + names):
            relative = prefix + name
            path = os.path.join(top, name)
            info = os.lstat(path)
            if stat.S_ISDIR(info.st_mode):
                continue
            if relative == MARKER:
                continue
            if not stat.S_ISREG(info.st_mode):
                yield relative, "is not a plain file"
            elif relative not in listed:
                yield relative, f"is not listed in {MARKER} as a file render wrote"
            else:
                key = _key(info)
                if seen is not None:
                    if key[3] < settled:
                        seen[relative] = key
                elif known.get(relative) == key:
                    still[relative] = key  # trusted before and unchanged since: trusted still
                elif _sha256(path) != listed[relative]:
                    yield relative, "was changed since render wrote it"
                elif key[3] < settled:
                    still[relative] = key


def _sha256(path: str | Path) -> str:
    """The file's sha256 (hex), read through its descriptor into one reused buffer (no file object,
    no buffer made per file: a look may read every file of the old site); never through a
    symbolic link: a file that is one now, or cannot be read, gives "" (no listed hash)."""
    digest = hashlib.sha256()
    try:
        fd = os.open(path, _READ)
    except OSError:
        return ""
    try:
        for block in _blocks(fd):
            digest.update(block)
    except OSError:
        return ""
    finally:
        os.close(fd)
    return digest.hexdigest()


def _holds(path: str, data: bytes) -> bool:
    """Whether the file ``path`` holds exactly ``data`` (read through its descriptor, never through a
    link; no more than one byte past ``data`` is read)."""
    try:
        fd = os.open(path, _READ)
    except OSError:
        return False
    try:
        held = os.read(fd, len(data) + 1)
        while len(held) <= len(data) and (more := os.read(fd, len(data) + 1 - len(held))):
            held += more
    except OSError:
        return False
    finally:
        os.close(fd)
    return held == data


def _blocks(fd: int) -> Iterator[bytes | memoryview]:
    if hasattr(os, "readv"):
        while count := os.readv(fd, (_BUFFER,)):
            yield _BUFFER[:count]
    else:  # Windows
        while block := os.read(fd, 1 << 18):
            yield block


class Staging:
    """A temporary folder beside ``out``; ``commit`` swaps it in, leaving the context discards it."""

    def __init__(self, out: Path):
        self.out = out

    def __enter__(self) -> Staging:
        self.looked = check_target(self.out, first=True)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.", suffix=".new", dir=self.out.parent))
        os.chmod(self.path, 0o755)  # mkdtemp makes it private; a site is for reading
        self.committed = False
        self.written: dict[str, str] = {}
        self.folders: set[str] = {""}  # folders made already (relative): one mkdir per folder, not per page
        self.linked: set[str] = set()  # files of the old site linked into the new one (same bytes)
        umask = os.umask(0o022)
        os.umask(umask)
        self.mode = 0o666 & ~umask  # what os.open gives a page: a linked file must have it too
        self.uid = getattr(os, "geteuid", lambda: None)()
        self.linking = hasattr(os, "link") and bool(self.looked.seen)
        return self

    def write(self, relative: str, data: bytes) -> None:
        """Write ``data`` as the file ``relative`` (a path with ``/``) of the new site: straight through
        the descriptor (10,000 and more pages: no Path and no buffered file object per page), into a
        folder only this render has written to, so a file there is never followed through a link.

        Where the site being replaced holds this very file with these very bytes (the hash the first
        look found, its ``lstat`` unchanged since), that file is linked in instead (``_link``): no file
        is made for it, and none is freed when the old site is removed."""
        digest = hashlib.sha256(data).hexdigest()
        if self.linking and self.looked.get(relative) == digest and relative not in self.written \
                and self._link(relative, data):
            self.written[relative] = digest
            return
        self._put(relative, (data,), None)
        self.written[relative] = digest

    def rewrite(self, relative: str, data: bytes) -> None:
        """``write`` of a file this process wrote before, as if the first write had not been: the
        old site's file is linked in where it holds ``data`` (a claim page made again once the
        articles' figures came, ``render/forked.py``, keeps its file as any unchanged page does)."""
        if relative in self.linked:  # the old site's file: drop the name, never write through it
            os.unlink(f"{self.path}/{relative}")
            self.linked.discard(relative)
        elif relative in self.written:
            os.unlink(f"{self.path}/{relative}")
        self.written.pop(relative, None)
        self.write(relative, data)

    def write_parts(self, relative: str, parts: Iterable[bytes | memoryview]) -> None:
        """``write`` of the bytes ``parts`` make, written and hashed part by part as they come (the
        JSON report: never held whole); always a new file."""
        digest = hashlib.sha256()
        self._put(relative, parts, digest)
        self.written[relative] = digest.hexdigest()

    def _folder(self, relative: str) -> None:
        folder, _, _ = relative.rpartition("/")
        if folder not in self.folders:
            (self.path / folder).mkdir(parents=True, exist_ok=True)
            self.folders.add(folder)

    def _put(self, relative: str, parts: Iterable[bytes | memoryview], digest: hashlib._Hash | None) -> None:
        self._folder(relative)
        if relative in self.linked:  # the old site's file, written again: drop the name, never write through it
            os.unlink(f"{self.path}/{relative}")
            self.linked.discard(relative)
        fd = os.open(f"{self.path}/{relative}", _WRITE, 0o666)
        try:
            for part in parts:
                if digest is not None:
                    digest.update(part)
                view = memoryview(part)
                while view:  # os.write may write less than it is given
                    view = view[os.write(fd, view):]
        finally:
            os.close(fd)

    def _link(self, relative: str, data: bytes) -> bool:
        """Hard-link the old site's ``relative`` into the new site, where it holds exactly ``data`` (read
        and compared), is the file the first look saw (the same ``lstat``, settled before that look),
        no other name holds it, and it has the mode and owner a written page would; say whether it
        was linked.

        The new site is then the same bytes, and each unchanged page keeps its file and modification
        time. Linking moves the file's change time, so the ``lstat`` after the link is what the later
        looks trust. An edit racing the link, after the comparison, lands in the one file both sites
        then hold: it is kept, in the new site, whose next render finds it changed and stops."""
        key = self.looked.seen.get(relative)
        if key is None:
            return False
        old = f"{self.out}/{relative}"
        try:
            info = os.lstat(old)
        except OSError:
            return False
        if (_key(info) != key or info.st_nlink != 1 or stat.S_IMODE(info.st_mode) != self.mode
                or (self.uid is not None and info.st_uid != self.uid) or not _holds(old, data)):
            return False
        self._folder(relative)
        new = f"{self.path}/{relative}"
        try:
            os.link(old, new, follow_symlinks=False)
        except FileExistsError:
            return False  # then written as any page is, which refuses what is there (a planted link, say)
        except OSError:  # a file system without hard links: every later page is written
            self.linking = False
            return False
        after = os.lstat(new)
        if not stat.S_ISREG(after.st_mode) or (after.st_ino, after.st_size, after.st_mtime_ns) != key[:3]:
            os.unlink(new)  # not the file looked at (replaced meanwhile): write the page instead
            return False
        self.linked.add(relative)
        self.looked.still[relative] = _key(after)
        del self.looked.seen[relative]  # vouched for now: one key held, not two
        return True

    def state_of(self, names: list[str]) -> dict[str, Any]:
        """What this staging noted of the files ``names`` (written by this process), as plain data for
        another process's ``adopt``: each one's sha256, and for each linked from the old site the
        ``lstat`` key the later looks trust (``render/forked.py``)."""
        return {"written": {name: self.written[name] for name in names},
                "linked": {name: list(self.looked.still[name]) for name in names if name in self.linked}}

    def adopt(self, state: dict[str, Any]) -> None:
        """Note, as if written here, the files another process wrote into this staging folder and
        described with ``state_of``."""
        self.written.update(state["written"])
        for name, key in state["linked"].items():
            self.linked.add(name)
            self.looked.still[name] = tuple(key)
            self.looked.seen.pop(name, None)

    def commit(self) -> None:
        marker = MARKER_HEAD + "".join(f"{digest}  {name}\n" for name, digest in sorted(self.written.items()))
        (self.path / MARKER).write_text(marker, encoding="utf-8")
        listed = check_target(self.out, self.looked)  # again: the folder may have changed meanwhile
        old = None
        if self.out.exists():
            old = self.path.with_suffix(".old")
            os.rename(self.out, old)
        try:
            os.rename(self.path, self.out)
        except BaseException:
            if old is not None:
                os.rename(old, self.out)
            raise
        self.committed = True
        if old is not None:
            _remove_site(old, listed)

    def __exit__(self, *exc: object) -> None:
        if not self.committed:
            shutil.rmtree(self.path, ignore_errors=True)


def _remove_site(old: Path, listed: Looked) -> None:
    """Remove the previous site, moved aside: the marker, each listed file still as listed, then the
    folders left empty. Anything else (a file that arrived after the check) stays, and is named."""
    for relative, digest in listed.items():
        path = os.path.join(old, relative)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and (listed.still.get(relative) == _key(info) or _sha256(path) == digest):
            os.unlink(path)
    (old / MARKER).unlink(missing_ok=True)
    for top, dirs, names in sorted(os.walk(old, topdown=False), key=lambda item: -len(item[0])):
        try:
            os.rmdir(top)
        except OSError:
            pass
    if old.exists():
        raise LedgerError(f"the new site is in place, but files that arrived in the old one while it was "
                          f"rendered were kept in {old}")


def copy_snapshots(staging: Staging, root: Path, sources: Iterable[SourceResult]) -> dict[str, str]:
    """Copy each source's snapshot into ``snapshots/``; return source id -> its path in the site.

    A snapshot is copied only when its name is a sha256 file name and its bytes still hash to the
    source's ``sha256``: the page links only what it can vouch for."""
    copied = {}
    for source in sources:
        name = source.snapshot
        if not name or not source.sha256 or not _SNAPSHOT_NAME.match(name):
            continue
        try:  # a plain file inside the ledger only: never a link to elsewhere, a device or a pipe
            raw = read_plain_file(root / "ledger" / "snapshots" / name, MAX_SNAPSHOT_BYTES)
        except LedgerError:
            continue
        if hashlib.sha256(raw).hexdigest() != source.sha256:
            continue
        shown = name if name.rsplit(".", 1)[1].lower() in _INERT else f"{name}.txt"
        staging.write(f"snapshots/{shown}", raw)
        copied[source.id] = f"snapshots/{shown}"
    return copied
