"""Atomic file writes: a temporary file in the same folder, flushed, then renamed over the target.

A reader (or a crash) sees the old file or the new one, never half of one. Every write of the
project goes through here: reports, snapshots, source records, measurements, new claim records.
Records, snapshots, measurements and the cache are also forced to disk (``fsync``, the file then its
folder) before the call returns, so a power cut keeps them. A report, which the next run makes again
from the ledger, is written ``durable=False``: replaced atomically all the same, and left to the
system to write back, as render's site is (at 10,000 claims, forcing verify's 30 MB JSON report to
disk was about 0.08 s of a cold verify's wait).

``check_inside`` keeps a write the user did not name inside the ledger: a ``reports/`` (or
``claims/<group>/``, ``ledger/measurements/``) that a pull request turned into a symbolic link to
elsewhere is refused, never written through."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from .errors import LedgerError


def check_inside(root: str | os.PathLike[str], path: str | os.PathLike[str], *, instead: str = "") -> None:
    """Refuse (LedgerError) a write to ``path``, a file or folder under ``root``, when any part of
    it below ``root`` is a symbolic link or it would land outside ``root``. ``instead`` names the
    option that writes elsewhere on purpose (an explicit path is the user's choice, not checked)."""
    root, path = Path(root), Path(path)
    hint = f"; to write elsewhere, say so with {instead}" if instead else ""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        raise LedgerError(f"refusing to write {path}: it is outside the ledger's folder {root}{hint}") from None
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise LedgerError(f"refusing to write {path}: {current} is a symbolic link (to {os.readlink(current)}), "
                              f"and workings writes only inside the ledger's folder{hint}")
    if ".." in parts or not path.resolve().is_relative_to(root.resolve()):
        raise LedgerError(f"refusing to write {path}: it resolves outside the ledger's folder {root}{hint}")


def write_bytes(path: str | os.PathLike[str], data: bytes | _Chunks | _Parts, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data``, keeping the file's permissions (or the umask's for a new one).
    ``durable``: forced to disk before this returns (see the module's doc)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        found = os.lstat(path)
        if not stat.S_ISREG(found.st_mode):  # renamed over, a link, pipe or device would be lost, not written
            kind = "a symbolic link" if stat.S_ISLNK(found.st_mode) else "a folder" if stat.S_ISDIR(found.st_mode) \
                else "a pipe, device or socket"
            raise LedgerError(f"refusing to write {path}: it is {kind}, not a file; name a file")
        mode = found.st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    temp = _temporary(path, data, durable)
    try:
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    if durable:
        _fsync_dir(path.parent)


def write_text(path: str | os.PathLike[str], text: str, *, durable: bool = True) -> None:
    """Write UTF-8 text with '\\n' newlines, whatever the platform."""
    write_bytes(path, text.encode("utf-8"), durable=durable)


def write_lines(path: str | os.PathLike[str], lines: Iterable[str]) -> None:
    """``write_text`` of the text ``lines`` join to, written as the lines come: a long report is
    never held whole in memory (nor its UTF-8 bytes). The same atomic replacement: a failure while
    the lines are made leaves the old file in place."""
    write_bytes(path, _Chunks(lines))


def write_parts(path: str | os.PathLike[str], parts: Iterable[bytes | memoryview], *, durable: bool = True) -> None:
    """``write_bytes`` of the bytes ``parts`` join to, written one by one (never joined in memory)."""
    write_bytes(path, _Parts(parts), durable=durable)


def create_text(path: str | os.PathLike[str], text: str) -> bool:
    """Write ``text`` to ``path`` only if nothing is there; True when written.

    The complete file is linked into place, which fails if the name is taken, so a record a person
    wrote is never replaced, even by a race."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        return False
    temp = _temporary(path, text.encode("utf-8"))
    try:
        os.link(temp, path)
    except FileExistsError:
        return False
    finally:
        os.unlink(temp)
    _fsync_dir(path.parent)
    return True


class _Chunks:
    """Text made piece by piece, to be written as UTF-8 in blocks of about 1 MiB."""

    def __init__(self, lines: Iterable[str]):
        self.lines = lines

    def write_to(self, handle: BinaryIO) -> None:
        block: list[str] = []
        size = 0
        for line in self.lines:
            block.append(line)
            size += len(line)
            if size >= 1 << 20:
                handle.write("".join(block).encode("utf-8"))
                block, size = [], 0
        handle.write("".join(block).encode("utf-8"))


class _Parts:
    """Bytes in pieces, written as they come, in blocks of about 1 MiB (a write per piece of a
    report of 10,000 lines was most of writing it)."""

    def __init__(self, parts: Iterable[bytes | memoryview]):
        self.parts = parts

    def write_to(self, handle: BinaryIO) -> None:
        block: list[bytes | memoryview] = []
        size = 0
        for part in self.parts:
            if len(part) >= 1 << 20:
                handle.write(b"".join(block))
                handle.write(part)
                block, size = [], 0
                continue
            block.append(part)
            size += len(part)
            if size >= 1 << 20:
                handle.write(b"".join(block))
                block, size = [], 0
        handle.write(b"".join(block))


def _temporary(path: Path, data: bytes | _Chunks | _Parts, durable: bool = True) -> str:
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, (_Chunks, _Parts)):
                data.write_to(handle)
            else:
                handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
    except BaseException:
        os.unlink(temp)
        raise
    return temp


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable; a platform that cannot open a folder skips this."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
