"""Writing the site: everything into a fresh folder beside the target, then swapped in.

A reader (or a crash) sees the previous site or the new one, never half of one: the new site is
complete on disk before the old one moves. Only folders this module made, and a previous site
marked as ours, are ever removed; anything else at the target is refused, never deleted.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from ..errors import LedgerError
from ..loader import MAX_SNAPSHOT_BYTES, read_plain_file

MARKER = ".workings-site"
MARKER_TEXT = "A site rendered by `workings render`; the whole folder is replaced on the next render.\n"
_SNAPSHOT_NAME = re.compile(r"^[0-9a-f]{64}\.[A-Za-z0-9]{1,8}$")
# Opened from the site, these show as text or a document and load nothing else; any other kind
# (an archived .html page, say) is copied with .txt appended, so that opening it cannot reach out.
_INERT = {"txt", "json", "csv", "md", "yaml", "yml", "pdf", "png", "jpg", "jpeg"}


def check_target(out: Path) -> None:
    """Refuse a target that is not a new, empty, or earlier workings site folder."""
    if out.is_symlink():
        raise LedgerError(f"refusing to render into {out}: it is a symbolic link")
    if not out.exists():
        return
    if not out.is_dir():
        raise LedgerError(f"refusing to render into {out}: it is a file, not a folder")
    if any(out.iterdir()) and not (out / MARKER).is_file():
        raise LedgerError(f"refusing to replace {out}: it is not empty and holds no {MARKER} file, so it is not "
                          "a site workings rendered; choose a new or empty folder with --out")


class Staging:
    """A temporary folder beside ``out``; ``commit`` swaps it in, leaving the context discards it."""

    def __init__(self, out: Path):
        self.out = out

    def __enter__(self) -> Staging:
        check_target(self.out)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.", suffix=".new", dir=self.out.parent))
        os.chmod(self.path, 0o755)  # mkdtemp makes it private; a site is for reading
        self.committed = False
        return self

    def write(self, relative: str, data: bytes) -> None:
        target = self.path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def commit(self) -> None:
        self.write(MARKER, MARKER_TEXT.encode())
        check_target(self.out)  # again: the folder may have changed while the site was built
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
            shutil.rmtree(old)

    def __exit__(self, *exc) -> None:
        if not self.committed:
            shutil.rmtree(self.path, ignore_errors=True)


def copy_snapshots(staging: Staging, root: Path, sources) -> dict[str, str]:
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
