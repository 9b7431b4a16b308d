"""Atomic file writes: a temporary file in the same folder, flushed, then renamed over the target.

A reader (or a crash) sees the old file or the new one, never half of one. Every write of the
project goes through here: reports, snapshots, source records, measurements, new claim records."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Replace ``path`` with ``data``, keeping the file's permissions (or the umask's for a new one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    temp = _temporary(path, data)
    try:
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 text with '\\n' newlines, whatever the platform."""
    write_bytes(path, text.encode("utf-8"))


def create_text(path: str | os.PathLike, text: str) -> bool:
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


def _temporary(path: Path, data: bytes) -> str:
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
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
