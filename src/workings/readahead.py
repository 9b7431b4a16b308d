"""Records read and parsed by a second process while this one checks them.

At 10,000 claims, reading and parsing the claim records (the bytes, libyaml's composer, the plain
data) is about two thirds of loading them and a quarter of a cold verify; checking each parsed record
(``Claim.from_document``) is the rest of loading. Where this process may use a second processor
and there are at least ``MIN_RECORDS`` records, ``outcomes`` forks one child (``os.fork``: it
starts with the list of paths and everything imported, nothing copied) that reads and parses the
records from the first on and sends each one's outcome back through a pipe, in order, in frames of
``marshal`` bytes, each a list of outcomes (plain data only: the types are kept exactly, an integer
key stays one, and loading it runs no code; what two outcomes of a frame share is written once).
Meanwhile this process checks each outcome as it arrives and, whenever nothing has arrived, reads,
parses and checks a record itself, from the last one back. Where the two meet, the
child is stopped. Neither waits for the other, so the split follows whichever is faster on the day.

The child is only a reader ahead: an outcome it could not give (a bug, a value ``marshal`` cannot
carry) comes as ``None`` and this process reads that record itself, as does any record the child
never reached (it failed, was killed, or the fork was refused). A record is read once, by one of the
two, and this process checks every record; the caller applies what the checks found in the
records' order (``loader``), so the ledger, its problems and every report are the ones one process
gives, byte for byte (``tests/test_readahead.py``).

``outcomes`` knows nothing of records: ``engine.split_batches`` hands it batches of claims to
evaluate (each batch whole groups of claims that share none), the child sending what it made of
each batch (results, or verify's shares of the outputs) as pickled bytes inside the same frames;
the size held against ``MIN_RECORDS`` is then the claims'.

``aside`` is the simpler case: one piece of work (check-draft's scan of the records and its choice of
claims) done by a child while this process does its own (pint's import), the child's answer sent
back whole in one frame; and ``outcomes``'s ``flush`` sends each outcome at once where each is a few
bytes standing for much work (show's scan for the claims that use one).

One process only where fork is not how this platform makes processes (Windows; macOS, where it is
unsafe), where another thread runs (fork copies only the calling one: a lock another held would
stay held in the child), below ``MIN_RECORDS`` records, or when asked (``jobs`` 1: ``workings verify
--jobs 1``).
"""

from __future__ import annotations

import marshal
import os
import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_RECORDS = 2000  # below this, a fork and the pipe would cost more than they save
_HEADER = 4  # each frame: its length (4 bytes, little-endian), then its marshal bytes (a list of outcomes)
_BATCH = 1 << 16  # the child writes its outcomes in frames of about this many bytes


def default_jobs() -> int:
    """The processors this process may run on (its affinity where the system says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    """Whether a child may be forked here: a platform where fork is how processes are made, and no
    other thread running."""
    return hasattr(os, "fork") and sys.platform != "darwin" and threading.active_count() == 1


def _same(value: Any) -> Any:
    return value


def _same_at(index: int, value: Any) -> Any:
    return value


def forks(count: int, jobs: int | None, size: int | None = None) -> bool:
    """Whether ``outcomes`` of ``count`` items would ask a child to work ahead (``size``: the records
    the items stand for, held against ``MIN_RECORDS``; by default ``count``)."""
    jobs = default_jobs() if jobs is None else jobs
    return jobs >= 2 and count >= 2 and (count if size is None else size) >= MIN_RECORDS and can_fork()


def outcomes(count: int, read: Callable[[int], R], check: Callable[[int, R], T], jobs: int | None = None, *,
             encode: Callable[[R], Any] = _same, decode: Callable[[int, Any], R] = _same_at,
             size: int | None = None, meanwhile: Callable[[], Any] | None = None,
             flush: int = _BATCH) -> tuple[list[T], int]:
    """``check(i, read(i))`` for every ``i`` below ``count``, in a list by ``i``; and how many of the
    ``read`` calls a child made.

    ``read`` runs in either process. The child sends ``encode(read(i))``, plain data that ``marshal``
    carries, and this process checks ``decode(i, that)``, which must be what ``read(i)`` would have
    given here (a record the child could not read or encode comes as None and is read here).
    ``check`` always runs here, in whatever order the records arrive (later ones first), so it must
    leave the applying of what it finds to the caller. ``size``: as ``forks``. ``meanwhile``: called
    once here before the first ``check``, once the child is reading (work of this process's own that
    the child does not need, done while it reads ahead). ``flush``: the bytes of outcomes the child
    gathers before it writes them (0: each as soon as it is made, where each stands for much work and
    is small)."""
    if not forks(count, jobs, size):
        if meanwhile is not None:
            meanwhile()
        return [check(i, read(i)) for i in range(count)], 0
    import signal  # only where a child is forked: a small ledger's verify imports no more than before

    try:
        pid, pipe = _fork(count, lambda index: encode(read(index)), flush)
    except OSError:  # no process to be had (a limit, memory): this one reads every record
        if meanwhile is not None:
            meanwhile()
        return [check(i, read(i)) for i in range(count)], 0
    results: list[Any] = [None] * count
    front, back = 0, count  # the child's outcomes are checked from the front; this one's from the back
    buffer, start = bytearray(), 0
    open_ = True
    try:
        if meanwhile is not None:
            meanwhile()
        while front < back:
            chunk = None
            if open_:
                try:
                    chunk = os.read(pipe, 1 << 20)
                except BlockingIOError:
                    chunk = None
                if chunk == b"":
                    open_ = False  # the child ended (done, failed or killed): what is left is read here
            if chunk:
                buffer += chunk
                while front < back and len(buffer) - start >= _HEADER:
                    size = int.from_bytes(buffer[start:start + _HEADER], "little")
                    if len(buffer) - start - _HEADER < size:
                        break
                    frame = marshal.loads(memoryview(buffer)[start + _HEADER:start + _HEADER + size])
                    start += _HEADER + size
                    for outcome in frame:  # the outcomes of front, front + 1, ... (``_frame``)
                        if front >= back:
                            break
                        results[front] = check(front, read(front) if outcome is None else decode(front, outcome))
                        front += 1
                if start > 1 << 20:
                    del buffer[:start]
                    start = 0
                continue
            back -= 1
            results[back] = check(back, read(back))
        return results, front
    finally:  # the child may still be reading records this process has checked: it is ended
        os.close(pipe)  # a write it is blocked in fails, and it ends
        try:
            # SIGTERM, whose default action the child restored: under valgrind (scripts/bench.py
            # --instructions) a child ended so still writes its counts, which SIGKILL would lose
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # reaped already: a program that ignores SIGCHLD
            pass


def aside(work: Callable[[], R], meanwhile: Callable[[], Any], jobs: int | None = None, *, size: int,
          encode: Callable[[R], Any] = _same, decode: Callable[[Any], R] = _same) -> tuple[R, bool]:
    """``work()``, done by a child while this process runs ``meanwhile()`` (work of its own that
    ``work`` does not need and that would be done next anyway); and whether the child's answer was
    used. ``size``: the records ``work`` reads, held against ``MIN_RECORDS`` as ``forks`` does; below
    it, or where no child may be had, ``work()`` runs here and ``meanwhile`` is not called.

    The child sends ``encode(work())``, plain data that ``marshal`` carries, in one frame (its
    length first), and ends; this process takes ``decode(that)``. A child that fails, is killed or
    sends less than its frame leaves ``work()`` to this process, which then meets any failure
    itself. A failure in ``meanwhile`` ends and reaps the child."""
    if not forks(2, jobs, size):
        return work(), False
    import signal

    try:
        pid, pipe = fork_with_pipe()
    except OSError:
        return work(), False
    if not pid:  # the child: its one answer, then it ends; it never returns
        try:
            for number in (signal.SIGINT, signal.SIGTERM):
                signal.signal(number, signal.SIG_DFL)
            try:
                data = marshal.dumps(encode(work()))
            except Exception:  # noqa: BLE001  # this process does the work, and meets the failure there
                data = b""
            view = memoryview(len(data).to_bytes(8, "little") + data if data else b"")
            while view:
                view = view[os.write(pipe, view):]
        finally:
            os._exit(0)  # never the parent's exit handlers or buffered output
    received = bytearray()
    try:
        meanwhile()
        while chunk := os.read(pipe, 1 << 20):
            received += chunk
    finally:
        os.close(pipe)
        try:
            os.kill(pid, signal.SIGTERM)  # done already, unless meanwhile failed
        except OSError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    if len(received) >= 8 and int.from_bytes(received[:8], "little") == len(received) - 8:
        try:
            return decode(marshal.loads(memoryview(received)[8:])), True
        except (EOFError, ValueError, TypeError):
            pass
    return work(), False


def fork_with_pipe() -> tuple[int, int]:
    """``os.fork`` with a pipe from the child to the parent: in the parent (the child's pid, the
    pipe's reading end), in the child (0, its writing end); each end closed where it is not used.
    OSError where no process can be had, with nothing left open."""
    reader, writer = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        raise
    os.close(writer if pid else reader)
    return pid, (reader if pid else writer)


def _fork(count: int, read: Callable[[int], Any], flush: int = _BATCH) -> tuple[int, int]:
    import signal

    pid, pipe = fork_with_pipe()
    if pid:
        os.set_blocking(pipe, False)
        return pid, pipe
    writer = pipe
    try:  # the child: every record's outcome, in order, then it ends; it never returns
        for number in (signal.SIGINT, signal.SIGTERM):  # Ctrl-C, or the parent, ends it at once
            signal.signal(number, signal.SIG_DFL)
        try:
            import fcntl

            fcntl.fcntl(writer, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)  # write ahead, unblocked
        except (ImportError, OSError):
            pass
        items: list[Any] = []
        per_frame = 1 if flush <= 0 else 8  # outcomes in the next frame: about ``flush`` bytes' worth
        unsent: deque[memoryview] = deque()  # frames the pipe had no room for yet (``_send``)
        os.set_blocking(writer, False)
        for index in range(count):
            try:
                items.append(read(index))
            except Exception:  # noqa: BLE001  # the parent reads this record itself, and meets the failure there
                items.append(None)
            if len(items) >= per_frame or index == count - 1:
                data = _frame(items)
                unsent.append(memoryview(len(data).to_bytes(_HEADER, "little") + data))
                _send(writer, unsent, last=index == count - 1)
                if flush > 0:
                    per_frame = max(1, min(4096, flush * len(items) // max(1, len(data))))
                items = []
    finally:
        os._exit(0)  # never the parent's exit handlers or buffered output


def _send(writer: int, unsent: deque[memoryview], *, last: bool) -> None:
    """Write the child's frames in order, as far as the pipe takes them now; ``last``: all of them,
    waiting for room. A full pipe never stops the child reading: while this process loads the sources
    and imports pint (about 0.15 s at 10,000 claims) it took no outcome, and the child, blocked once
    the pipe held about 1,400 records' (1 MiB, the most a pipe is given unprivileged), waited out the
    rest of that time instead of reading ahead; the frames wait in its memory instead (at most what
    it reads, about 8 MB at 10,000 claims)."""
    if last:
        os.set_blocking(writer, True)
    while unsent:
        try:
            written = os.write(writer, unsent[0])
        except BlockingIOError:  # the pipe is full: the next record is read, and this tried again then
            return
        if written < len(unsent[0]):
            unsent[0] = unsent[0][written:]
        else:
            unsent.popleft()


def _frame(items: list[Any]) -> bytes:
    """``items`` as one ``marshal`` list: what two of them share (the keys of records, the lines they
    repeat) is written once and loaded as one object, where a frame per outcome loaded each again (a
    third of what a record cost this process to take from the child). An item ``marshal`` cannot
    carry is None, which the parent reads itself."""
    try:
        return marshal.dumps(items)
    except ValueError:
        carried = []
        for item in items:
            try:
                marshal.dumps(item)
            except ValueError:
                item = None
            carried.append(item)
        return marshal.dumps(carried)
