"""What an interrupted refresh leaves behind, and the lock that tells it from a refresh still running.

Two things can be left when a refresh is killed (kill -9, a power cut) mid-run:

- temporary files in `ledger/snapshots/` and `ledger/sources/` (`.<name>.<8 chars>.tmp`: how
  `workings.atomic` names the file it writes before renaming it into place), up to 64 MiB each;
- scratch folders in the system's temporary folder (`workings-refresh-<8 chars>`), where changes are
  tried on a copy of the ledger.

The next refresh removes them, but only what is unmistakably ours and stale:

- a temporary file only if its name has exactly that shape for a snapshot or source record, it is a
  plain file (not a link) owned by this user, and this refresh holds the ledger's lock, so no other
  refresh is writing it: `ledger_lock` takes an exclusive `flock` on the `ledger/snapshots/` folder
  for the whole run (a killed process's lock is released by the kernel);
- a scratch folder only if its name has that shape, it is a real folder owned by this user, it holds
  the marker file a refresh writes there, and no process holds the `flock` its refresh took on it.

Where `fcntl.flock` does not exist (Windows), nothing is locked and nothing is removed.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from workings.errors import LedgerError

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]

SCRATCH_PREFIX = "workings-refresh-"
SCRATCH_MARKER = ".workings-refresh-scratch"
_SCRATCH = re.compile(re.escape(SCRATCH_PREFIX) + r"[a-z0-9_]{8}")
_TEMP_NAMES = {  # tempfile.mkstemp's 8 characters between the target's name and ".tmp"
    "ledger/snapshots": re.compile(r"\.[0-9a-f]{64}\.[a-z0-9]{1,8}\.[a-z0-9_]{8}\.tmp"),
    "ledger/sources": re.compile(r"\.[a-z0-9][a-z0-9._-]{0,200}\.ya?ml\.[a-z0-9_]{8}\.tmp"),
}


def _ours(path: Path, kind: int) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_IFMT(info.st_mode) == kind and (not hasattr(os, "getuid") or info.st_uid == os.getuid())


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


@contextlib.contextmanager
def ledger_lock(root: Path) -> Iterator[bool]:
    """Hold the ledger's lock (an exclusive flock on `ledger/snapshots/`) while writing to it.

    Yields True when held (False where flock does not exist, or there is no snapshots folder yet).
    Another refresh holding it is an error: two runs must not archive into one ledger at once."""
    folder = Path(root) / "ledger" / "snapshots"
    if fcntl is None or not folder.is_dir():
        yield False
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        if not _try_lock(fd):
            raise LedgerError("another workings refresh is writing this ledger (it holds the lock on "
                              "ledger/snapshots/); run again when it has ended")
        yield True
    finally:
        os.close(fd)  # closing the folder releases the lock


def stale_temporary_files(root: Path) -> list[Path]:
    """Temporary files an interrupted write left in the ledger (see the module docstring): call it
    only while holding `ledger_lock`."""
    found = []
    for folder, pattern in _TEMP_NAMES.items():
        path = Path(root) / folder
        if path.is_dir() and not path.is_symlink():
            found += [p for p in sorted(path.iterdir()) if pattern.fullmatch(p.name) and _ours(p, stat.S_IFREG)]
    return found


def remove_stale_temporary_files(root: Path) -> list[str]:
    """Remove them; returns their paths relative to `root`."""
    removed = []
    for path in stale_temporary_files(root):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path.relative_to(root).as_posix())
    return removed


def remove_stale_scratch(folder: str | os.PathLike[str] | None = None) -> list[str]:
    """Remove scratch folders that killed refreshes left in the temporary folder; returns their paths."""
    if fcntl is None:
        return []
    base = Path(folder or tempfile.gettempdir())
    removed = []
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return []
    for path in entries:
        if not _SCRATCH.fullmatch(path.name) or not _ours(path, stat.S_IFDIR):
            continue
        if not _ours(path / SCRATCH_MARKER, stat.S_IFREG):
            continue  # not made by this version of refresh, or still being set up
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            if _try_lock(fd):  # no live refresh holds it
                shutil.rmtree(path, ignore_errors=True)
                if not path.exists():
                    removed.append(str(path))
        finally:
            os.close(fd)
    return removed


@contextlib.contextmanager
def scratch_folder() -> Iterator[Path]:
    """A scratch folder in the temporary folder, locked while in use and removed afterwards; a run
    killed before the end leaves it for `remove_stale_scratch` to find."""
    path = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
    fd = os.open(path, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        (path / SCRATCH_MARKER).write_bytes(b"")  # written once locked: see remove_stale_scratch
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        os.close(fd)
