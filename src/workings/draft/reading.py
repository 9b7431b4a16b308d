"""Reading a draft file, within limits: every command that reads a draft (check-draft, new
--from-draft) reads it here.

A draft is UTF-8 text of at most ``MAX_DRAFT_BYTES``, and no number in it has more than
``MAX_DIGITS`` digits. Anything else is one ``LedgerError`` naming the file and the place (exit 2,
"the input could not be used"), never a traceback, and never exit 1, which would read as "a figure
is not backed":

* bytes that are not UTF-8: the line and the byte offset of the first one (a UTF-16 file is named
  as such);
* a file larger than the limit (a newsletter draft is tens of kilobytes; the check's work grows
  linearly, about 5 s a MiB on a small machine), or not a file at all (a device, a socket);
* a run of more than ``MAX_DIGITS`` digits (``196,608``, ``1.5`` and ``12 345`` count their digits
  across the separators): no printed figure needs more, and reading one costs the square of its
  length (a line of 1,000,000 digits took 32 s; beyond 4,300 digits Python refuses outright).

The limits are checked before any figure is read, in one linear pass.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path

from ..errors import LedgerError

MAX_DRAFT_BYTES = 1 << 20  # 1 MiB
MAX_DIGITS = 100
# A run of digits (any script's), joined by the separators a figure may be grouped with.
_DIGIT_RUN = re.compile(r"\d(?:[,.\u00a0\u2009\u202f]?+\d)*+")


def read_draft(path: str | Path) -> str:
    """The text of the draft at ``path``; a LedgerError, naming the file and place, when it cannot
    be read as a draft."""
    path = Path(path)
    raw = _read_bytes(path)
    text = decode(raw, str(path))
    check_digits(text, str(path))
    return text


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
                raise LedgerError(f"{path}: not a file (a device or a socket); a draft is a text file")
            raw = handle.read(MAX_DRAFT_BYTES + 1)
    except OSError as exc:
        raise LedgerError(f"{path}: cannot read: {exc.strerror}") from None
    if len(raw) > MAX_DRAFT_BYTES:
        raise LedgerError(f"{path}: larger than {MAX_DRAFT_BYTES:,} bytes (1 MiB), the most check-draft reads; "
                          "a draft is tens of kilobytes: check one article at a time")
    return raw


def decode(raw: bytes, file: str) -> str:
    """``raw`` as UTF-8 (a byte-order mark is allowed); else a LedgerError at the first bad byte."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not raw.startswith(codecs.BOM_UTF8):
        raise LedgerError(f"{file}: the file is UTF-16 (it starts with a UTF-16 byte-order mark); "
                          "save the draft as UTF-8")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _place(raw[:exc.start])
        raise LedgerError(f"{file}:{line}: byte {column} of the line (offset {exc.start:,} in the file) is "
                          f"0x{raw[exc.start]:02x}, not UTF-8 ({exc.reason}); save the draft as UTF-8") from None


def check_digits(text: str, file: str) -> None:
    """A LedgerError at the first number of more than MAX_DIGITS digits."""
    for match in _DIGIT_RUN.finditer(text):
        if match.end() - match.start() <= MAX_DIGITS:
            continue  # not even its characters could be too many digits
        digits = sum(1 for char in match.group() if char.isdigit())
        if digits > MAX_DIGITS:
            line, column = _place(text[:match.start()])
            raise LedgerError(f"{file}:{line}:{column}: a number of {digits:,} digits; check-draft reads numbers "
                              f"of at most {MAX_DIGITS} digits (no printed figure needs more)")


def _place(before: str | bytes) -> tuple[int, int]:
    """The 1-based line and column just after ``before`` (str or bytes), lines ending at LF, CRLF
    or CR as the draft reader counts them (``text.paragraphs``)."""
    if isinstance(before, bytes):
        before = before.decode("latin-1")  # one character per byte: the same lines, the same columns
    newline, cr = "\n", "\r"
    lines = before.count(newline) + before.count(cr) - before.count(cr + newline)
    return lines + 1, len(before) - (max(before.rfind(newline), before.rfind(cr)) + 1) + 1
