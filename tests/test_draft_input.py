"""A draft that cannot be read as one ends in one clear error (exit 2, "the input could not be
used"), naming the file and the place, never a traceback and never exit 1 (which reads as "a figure
is not backed"): bytes that are not UTF-8, UTF-16, a file over MAX_DRAFT_BYTES, a device, a number of
more than MAX_DIGITS digits. No test is timed: the work is counted (figures read, bytes read)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from workings.draft import check as check_module
from workings.draft import reading
from workings.draft.reading import MAX_DIGITS, MAX_DRAFT_BYTES, read_draft
from workings.errors import LedgerError

OK = 'said: "x is 1."\nfigure: "1 B"\nlabel: derived\ninputs:\n  b: 1 B\nassumptions: {b: y}\ncompute:\n  a: b\n'


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ledger" / "claims" / "t").mkdir(parents=True)
    (tmp_path / "ledger" / "claims" / "t" / "ok.yaml").write_text(OK)
    return tmp_path / "ledger"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workings", *args], capture_output=True, text=True, timeout=120)


def _both(draft: Path, root: Path) -> list[subprocess.CompletedProcess]:
    """check-draft and new --from-draft on the same draft: both read it through draft.reading."""
    return [_run("check-draft", str(draft), "--root", str(root)),
            _run("new", "--from-draft", str(draft), "--issue", "new-issue", "--root", str(root))]


def _assert_refused(done: subprocess.CompletedProcess, message: str, root: Path) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stderr == f"error: {message}\n"
    assert done.stdout == ""
    assert not (root / "claims" / "new-issue").exists()  # new wrote nothing


def test_bytes_that_are_not_utf8_are_named_by_line_and_offset(tmp_path, root):
    draft = tmp_path / "draft.md"
    draft.write_bytes("The cache holds 196,608 bytes per token.\nA café \xff costs 3 GB.\n".encode("latin-1"))
    for done in _both(draft, root):
        _assert_refused(done, f"{draft}:2: byte 6 of the line (offset 46 in the file) is 0xe9, not UTF-8 "
                              "(invalid continuation byte); save the draft as UTF-8", root)


def test_a_utf16_draft_is_named_as_such(tmp_path, root):
    draft = tmp_path / "draft.txt"
    draft.write_bytes("The cache holds 196,608 bytes per token.\n".encode("utf-16"))
    for done in _both(draft, root):
        _assert_refused(done, f"{draft}: the file is UTF-16 (it starts with a UTF-16 byte-order mark); "
                              "save the draft as UTF-8", root)


def test_a_5001_digit_operand_is_refused_at_its_place(tmp_path, root):
    draft = tmp_path / "draft.md"
    draft.write_text("Intro.\n\nThe sum " + "7" * 5001 + " + 1 = 2 holds.\n")
    for done in _both(draft, root):
        _assert_refused(done, f"{draft}:3:9: a number of 5,001 digits; check-draft reads numbers of at most "
                              "100 digits (no printed figure needs more)", root)


@pytest.mark.parametrize("number, digits", [("9" * 1_000_000, 1_000_000),
                                            ("1" + ",000" * 40, 121),       # grouped: the digits are counted
                                            ("1." + "5" * 100, 101),
                                            ("١" * 101, 101)])              # Arabic-Indic digits
def test_no_figure_is_read_from_a_draft_with_an_overlong_number(tmp_path, root, monkeypatch, number, digits):
    """The limit is checked before the finder runs: not one figure is read (no int or Fraction of a
    million digits is ever built)."""
    from workings.engine import verify

    draft = tmp_path / "draft.md"
    draft.write_text(f"We have {number} tokens.\n", encoding="utf-8")
    calls = []
    monkeypatch.setattr(check_module, "find_figures", lambda *a, **k: calls.append(a))
    with pytest.raises(LedgerError, match=f"^{draft}:1:9: a number of {digits:,} digits"):
        check_module.check_file(draft, verify(root))
    assert calls == []


def test_numbers_up_to_the_limit_are_figures(tmp_path, root):
    draft = tmp_path / "draft.md"
    longest = "1" + "0" * (MAX_DIGITS - 1)
    draft.write_text(f"We have {longest} tokens and 1,000,000,000 bytes, and 12 345 more.\n")
    assert read_draft(draft).startswith("We have")
    done = _run("check-draft", str(draft), "--root", str(root), "--format", "json")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f'"text": "{longest} tokens"' in done.stdout


def test_a_draft_over_the_size_limit_is_refused_after_reading_only_the_limit(tmp_path, root):
    """A 50 MB draft through a pipe: the writer gets no further than the limit (and the pipe's
    buffer) before the reader refuses, so the work is bounded by the limit, not the file."""
    fifo = tmp_path / "draft.md"
    os.mkfifo(fifo)
    written = [0]

    def writer() -> None:
        chunk = b"The cache holds 196,608 bytes per token. " * 1600  # 64 KiB
        try:
            with open(fifo, "wb") as handle:
                while written[0] < 50_000_000:
                    handle.write(chunk)
                    written[0] += len(chunk)
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=writer)
    thread.start()
    with pytest.raises(LedgerError) as raised:
        read_draft(fifo)
    thread.join(timeout=30)
    assert str(raised.value) == (f"{fifo}: larger than 1,048,576 bytes (1 MiB), the most check-draft reads; "
                                 "a draft is tens of kilobytes: check one article at a time")
    assert not thread.is_alive() and written[0] <= MAX_DRAFT_BYTES + 2 * (1 << 20)


def test_a_50mb_file_is_exit_2(tmp_path, root):
    draft = tmp_path / "draft.md"
    with open(draft, "wb") as handle:
        handle.truncate(50_000_000)
    done = _run("check-draft", str(draft), "--root", str(root))
    _assert_refused(done, f"{draft}: larger than 1,048,576 bytes (1 MiB), the most check-draft reads; "
                          "a draft is tens of kilobytes: check one article at a time", root)


def test_a_draft_of_exactly_the_limit_is_read(tmp_path):
    draft = tmp_path / "draft.md"
    tail = b"The cache holds 196,608 bytes per token.\n"
    draft.write_bytes(b"\n" * (MAX_DRAFT_BYTES - len(tail)) + tail)
    assert read_draft(draft).endswith("per token.\n")
    assert reading._place("a\r\nb\rc\nd") == (4, 2)


def test_a_device_is_not_a_draft(root):
    done = _run("check-draft", "/dev/null", "--root", str(root))
    _assert_refused(done, "/dev/null: not a file (a device or a socket); a draft is a text file", root)
