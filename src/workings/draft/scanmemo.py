"""check-draft's memory of its scan: what each claim record's bytes said, kept by file identity.

check-draft reads every record under claims/ to find the few a draft could be about (``draft.near``:
each record's sentences and printed figure, read off its bytes, or that it is not in the plain form
and must be parsed). At 10,000 records that reading was most of what check-draft's time grew by
with the ledger. A scan now keeps, for each record that is a regular file, its file identity (device,
inode, size, mtime, ctime) with what its bytes said; a later scan ``lstat``s each record and reads
only those whose identity is not the one remembered.

The rules are verify's cache's (``workings.cache``, ``workings.cachestore``):

- ctime cannot be set by a user, and an identity is remembered only for a file whose ctime and mtime
  were over ``RACY_NS`` (2 s) old when it was read (git's "racily clean" rule), so a write in the same
  clock tick cannot go unseen; the identity is taken before the bytes are read, so a write during the
  read leaves an identity that the next scan does not find again.
- What is remembered is only what the scan reads (sentences, figure, "not plain"), and the words of
  each sentence it found (``match.words``, by the sentence's text: a function of the text alone, the
  first step of holding every record's sentence against the draft's, and at 10,000 records three
  fifths of what that matching cost); a record chosen for the draft is parsed from its bytes as before, and
  so is every record not plain, so a verdict never rests on remembered text, only the choice of
  which records to parse does.
- The memory is one file beside verify's pack (``ledgers/<hash of the ledger's real path>.scan``),
  authenticated with the same per-user key, never in or above the ledger's folder, kept under a
  fingerprint of the scan's own code (this module, ``draft.near`` and ``draft.match``), workings'
  version and Python's;
  a file that does not match is ignored and rebuilt. Delete it at any time: the next scan reads every
  record. ``--no-cache`` or ``WORKINGS_NO_CACHE=1`` neither reads nor writes it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

from .. import __version__
from ..cachestore import RACY_NS, CacheRefused, Store, disabled_by_env
from ..neighbourhood import read_record
from . import match, near

FORMAT = 2  # 2: the words of each sentence kept beside the files


@functools.cache
def fingerprint() -> bytes:
    """What the remembered readings depend on: the code that reads a record (``draft.near``, where
    ``_plain`` is, and this module), the code that makes a sentence's words (``draft.match``),
    workings' version and Python's."""
    h = hashlib.blake2b(digest_size=20)
    for part in (f"scan {FORMAT}", __version__, sys.version):
        h.update(part.encode() + b"\0")
    for module in (near, match, sys.modules[__name__]):
        h.update(Path(module.__file__ or "").read_bytes())
        h.update(b"\0")
    return h.digest()


def _valid(got: Any) -> bool:
    """A remembered reading has the shape ``near.plain`` gives: the file is authenticated and its
    fingerprint is this code's, so this is the last guard, kept cheap (10,000 are asked)."""
    return got is None or (type(got) is tuple and len(got) == 2 and type(got[0]) is tuple)


class ScanMemo:
    """One check-draft's use of the memory: read at the start, written after the scan."""

    def __init__(self, store: Store):
        self.store = store
        self.reads = 0  # records whose bytes this scan read (the rest were known by identity)
        self._known: dict[str, Any] = {}
        self._kept: dict[str, tuple[tuple[int, ...], near.Read]] = {}
        self.words = near.Words({})  # a sentence's text -> match.words(text): remembered, and this scan's
        pack = store.read()
        if isinstance(pack, dict) and pack.get("format") == FORMAT and pack.get("code") == fingerprint() \
                and isinstance(pack.get("files"), dict) and isinstance(pack.get("words"), dict):
            self._known = pack["files"]
            self.words = near.Words(pack["words"])
        self._now = time.time_ns()

    @property
    def notes(self) -> list[str]:
        return self.store.notes

    def read(self, name: str, rel: str, regular: bool) -> near.Read:
        """``near.read(name, regular)``, or what the record's bytes gave when the file last had this
        identity."""
        try:
            info = os.lstat(name)
        except OSError:
            return near.read(name, regular)
        if not stat.S_ISREG(info.st_mode):
            return near.read(name, regular)  # a link, a pipe: never remembered
        identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        known = self._known.get(rel)
        if type(known) is tuple and len(known) == 2 and known[0] == identity and _valid(known[1]):
            self._kept[rel] = known
            return known[1]
        raw = read_record(name, regular)
        self.reads += 1
        got = near.plain(raw) if raw is not None else None
        if raw is not None and self._now - max(info.st_ctime_ns, info.st_mtime_ns) > RACY_NS:
            self._kept[rel] = (identity, got)  # "not plain" (None) is remembered too: it is the bytes' doing
        return got

    def read_all(self, files: list[tuple[str, bool]], prefix: int) -> list[near.Read]:
        """``read`` of each of ``files`` (the walk's, ``prefix`` the length of the claims folder's
        path and its separator), in their order. The same answers; the loop over 10,000 records
        known by identity, which was twice what their ``lstat``s cost, is kept to what those need
        (a record not known as it is now goes through ``read``)."""
        known, kept, out = self._known, self._kept, []
        lstat, regular_file = os.lstat, stat.S_ISREG
        for name, regular in files:
            rel = name[prefix:]
            remembered = known.get(rel)
            if type(remembered) is tuple and len(remembered) == 2:
                try:
                    info = lstat(name)
                except OSError:
                    info = None
                if info is not None and regular_file(info.st_mode) and remembered[0] == (
                        info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns):
                    if _valid(remembered[1]):
                        kept[rel] = remembered
                        out.append(remembered[1])
                        continue
            out.append(self.read(name, rel, regular))
        return out

    @property
    def words_made(self) -> int:
        """Sentences of this scan whose words were worked out, not remembered."""
        return self.words.made

    def save(self) -> None:
        """Write what this scan kept and the words of the sentences it found, unless both are what
        was read (nothing changed, nothing removed)."""
        found = self.words.found if self.words.found is not None else {}
        if self._kept == self._known and not self.words.made and found.keys() == self.words.known.keys():
            return
        # one object per distinct set of words, and one string per word: each written once in the memory
        same: dict[frozenset[str], frozenset[str]] = {}
        words: dict[str, frozenset[str]] = {}
        for text, got in found.items():
            kept = same.get(got)
            if kept is None:
                kept = same[got] = frozenset(map(sys.intern, got))
            words[text] = kept
        self.store.write({"format": FORMAT, "code": fingerprint(), "files": self._kept, "words": words})


def memo_for(root: Path) -> tuple[ScanMemo | None, list[str]]:
    """The scan memory of the ledger at ``root``, or None (off by ``WORKINGS_NO_CACHE``, or refused:
    the note says why)."""
    if disabled_by_env():
        return None, []
    try:
        return ScanMemo(Store.for_root(root, kind=".scan")), []
    except CacheRefused as exc:
        return None, [f"cache: not used: {exc}"]
