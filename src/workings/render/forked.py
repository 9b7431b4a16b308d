"""Claim pages made by more than one process, where the machine has the cores for it.

Laying out and writing the claim pages is about half of a render at 10,000 claims, and each page is
made from the Report alone: no page reads another. So a large site's claim pages are cut into
contiguous parts (a chain of claims stays together, and shares its workings' values), and each part
after the first is made by a child of this process (``os.fork``: the child starts with the Report,
the site's views and the staging folder as they are, nothing copied). Each process writes its pages
into the one staging folder, under names no other process writes; a child then tells the parent,
through a pipe and as JSON (never pickle), what ``Staging`` would have noted of each page it wrote
(its sha256; for a page linked from the old site, the file's ``lstat``), and ends with ``os._exit``
(never running the parent's clean-up, which would remove the staging folder). The parent notes the
same and goes on as if it had written them: the marker, the look before the swap and the swap are
its own, unchanged. The site is the same bytes whatever the number of processes
(``tests/test_render_forked.py``). The children start before the articles are checked and the site's
other pages are made (``claim_pages_beside``): this process does those meanwhile and sends each child
the article figures each claim page lists (a child makes again the few pages it made before they
came), then makes its own part, the smaller by more than what it did meanwhile (``OTHER_PAGES``),
then asks each child for the end of what it has left and makes that too, so that the processes end
together however long the rest took.

One process only where fork is not how this platform makes processes (Windows; macOS, where it is
unsafe), where another thread is running (fork copies only the calling one), below ``MIN_CLAIMS``
claims (a fork and the merge would cost more than they save), where two claims share an id (their
page is written twice, and the last write must be the later claim's), or when asked (``workings
render --jobs 1``); a part whose process cannot be had (fork refused: a limit, memory) is made by
this one. A child that fails fails the render, with its error, before anything is swapped in; the
staging folder is removed as for any failed render.
"""

from __future__ import annotations

import json
import os
import signal
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import LedgerError
from ..readahead import can_fork, fork_with_pipe
from ..readahead import default_jobs as readahead_jobs
from ..report import ClaimResult
from .staging import Staging
from .views import Site

MIN_CLAIMS = 2000  # below this, the pages are made in one process
MAX_JOBS = 4
# What this process does while the children make their parts (checking the articles, then the
# index, article, explainer and source pages, static files and ledger.json), in claim pages per claim.
# At 10,000 generated claims it took 2.0-2.7 s, a claim page 0.7-0.85 ms (docs/speed.md): about 0.35.
# Set above that, the children are given more than their share at first; this process takes the end
# of what each has left once it is done (``_Child.ask``), so a guess too high costs nothing, where
# one too low would leave the children waiting for this process.
OTHER_PAGES = 0.5


# A failing child's traceback is sent cut to its last characters: its answer then fits the pipe's
# buffer, so it never waits on this process, which may be writing the articles' figures to it
MAX_TRACE = 16_000


def default_jobs() -> int:
    """The processors this process may run on (its affinity where the system says), at most MAX_JOBS."""
    return min(readahead_jobs(), MAX_JOBS)


def parts(site: Site, jobs: int, beside: float = 0.0) -> list[tuple[int, int]]:
    """The claims' index ranges, one per process (this one's first); a single one where the pages are
    made in one. ``beside``: the work this process does besides its part, in claim pages per claim
    (``OTHER_PAGES``): its part is smaller by that much, the others' larger, so that all end together."""
    count = len(site.report.claims)
    # fork copies only the calling thread: with another thread running (a program using render_site
    # as a library), a lock it held would stay held in the child (``readahead.can_fork``)
    if jobs <= 1 or not can_fork() or count < MIN_CLAIMS or len(site.claim_pages) != count:
        return [(0, count)]
    jobs = min(jobs, count)
    first = max(0, min(count, round(count * (1 + beside) / jobs - count * beside)))
    rest = count - first
    bounds = [0] + [first + rest * k // (jobs - 1) for k in range(jobs)]
    return list(zip(bounds, bounds[1:]))


class Beside:
    """What the ``with`` block of ``claim_pages_beside`` tells the processes making claim pages."""

    def __init__(self, site: Site, children: list[_Child]):
        self.site = site
        self._children = children
        self._sent = False

    def articles_known(self) -> None:
        """The site's articles are in (``Site.add_articles``): send each child the article figures
        every claim page lists (``printed_in``, one line of JSON). A child makes its pages without
        waiting for them, and makes again those of the claims they name that it made before they
        came. Sent once; on leaving the block if the block did not."""
        if not self._sent:
            self._sent = True
            line = json.dumps(self.site.printed_in).encode("utf-8") + b"\n"
            for child in self._children:
                child.tell(line)


@contextmanager
def claim_pages_beside(site: Site, page: Callable[[dict], str], staging: Staging, jobs: int,
                       beside: float | None = None) -> Iterator[Beside]:
    """Every claim's page (``page`` of its view) written into ``staging``, in ``jobs`` processes where
    ``parts`` allows: the processes for the later parts start on entering, and make their pages while
    this one does what the ``with`` block holds (checking the articles, then the site's other pages,
    worth about ``beside`` claim pages per claim, ``OTHER_PAGES`` unless given); the block calls
    ``articles_known`` of what it is given once ``site`` has its articles. On leaving, this process
    makes its own part, then takes from each child the end of what it has left (``_Child.ask``: so
    all end together however long the block took), and notes what each child wrote. A failure in
    the block, or in a child, ends every child before anything is swapped in."""
    ranges = parts(site, jobs, OTHER_PAGES if beside is None else beside)
    children: list[_Child] = []
    here = [ranges[0]]  # the parts this process makes
    try:
        for start, stop in ranges[1:]:
            try:
                held = [fd for c in children for fd in (c.told, c.pipe)]
                children.append(_fork(site, page, staging, start, stop, held))
            except OSError:  # no process to be had: this one makes the part
                here.append((start, stop))
        said = Beside(site, children)
        yield said
        said.articles_known()
        for start, stop in here:
            _write(site, page, staging, start, stop)
        for child in children:
            child.ask(len(children))
        for child in children:
            end = child.until()
            if end is not None and end < child.stop:
                _write(site, page, staging, end, child.stop)
        while children:
            child = children[0]
            staging.adopt(child.collect())
            children.pop(0)
    finally:
        for child in children:  # the parent failed (or was interrupted): its children go with it
            child.end()


class _Child:
    """A child making the claim pages ``start`` to ``stop``, as this process sees it: its pid, the pipe
    it answers on (lines of JSON: where it will stop, if asked; then what it wrote, or its failure)
    and the pipe this process tells it on (lines: the articles' figures, then the ask)."""

    def __init__(self, pid: int, pipe: int, told: int, start: int, stop: int):
        self.pid, self.pipe, self.told, self.start, self.stop = pid, pipe, told, start, stop
        self._read = b""
        self._eof = False
        self._last: dict[str, Any] | None = None  # its last line, read while waiting for another

    def tell(self, line: bytes) -> None:
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self.told, view):]
        except BrokenPipeError:  # the child is gone (or done): collecting it says why
            pass

    def ask(self, children: int) -> None:
        """Ask for the end of what it has left: it keeps ``children`` parts in ``children + 1`` of
        the rest (this process takes one part from each child) and says where it stops."""
        self.tell(json.dumps({"ask": children}).encode("utf-8") + b"\n")

    def until(self) -> int | None:
        """Where the child stops, once asked; None where it had finished (or failed) first."""
        said = self._line()
        if said is not None and "until" in said:
            return int(said["until"])
        self._last = said
        return None

    def _line(self) -> dict[str, Any] | None:
        while b"\n" not in self._read and not self._eof:
            chunk = os.read(self.pipe, 1 << 20)
            if chunk:
                self._read += chunk
            else:
                self._eof = True
        line, _, self._read = self._read.partition(b"\n")
        try:
            return json.loads(line) if line else None
        except ValueError:
            return None

    def collect(self) -> dict[str, Any]:
        """What the child wrote (``Staging.state_of``), or its failure raised here."""
        said = self._last if self._last is not None else self._line()
        try:
            while not self._eof:  # nothing after its last line: read to the end
                if not os.read(self.pipe, 1 << 20):
                    self._eof = True
        finally:
            self.close()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        code = os.waitstatus_to_exitcode(status)
        said = said or {}
        if "error" in said:
            if said.get("kind") == "ledger":
                raise LedgerError(said["error"])
            raise RuntimeError(f"a process making claim pages failed: {said.get('kind')}: {said['error']}\n"
                               f"{said.get('trace', '')}")
        if code != 0 or "state" not in said:
            how = f"was ended by signal {-code}" if code < 0 else f"exited {code}"
            raise RuntimeError(f"a process making claim pages {how} without saying what it wrote")
        return said["state"]

    def close(self) -> None:
        for fd in (self.pipe, self.told):
            if fd >= 0:
                os.close(fd)
        self.pipe = self.told = -1

    def end(self) -> None:
        """Kill and reap it (this process failed): nothing it wrote is used."""
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = 0
        self.close()


def _write(site: Site, page: Callable[[dict], str], staging: Staging, start: int, stop: int) -> list[str]:
    names = []
    for claim, view in site.claim_views(start, stop):
        name = site.claim_pages[claim.id]
        staging.write(name, page(view).encode("utf-8"))
        names.append(name)
    return names


def _fork(site: Site, page: Callable[[dict], str], staging: Staging, start: int, stop: int,
          told: list[int]) -> _Child:
    """A child making the claim pages ``start`` to ``stop``. ``told``: the pipes this process holds to
    and from the children before it, which the child closes (a copy held open would keep their ends
    from coming, or hold a full pipe open, were this process gone)."""
    heard, tell = os.pipe()
    try:
        pid, pipe = fork_with_pipe()
    except OSError:
        os.close(heard)
        os.close(tell)
        raise
    if pid:
        os.close(heard)
        return _Child(pid, pipe, tell, start, stop)
    for fd in (tell, *told):
        os.close(fd)
    writer = pipe
    status = 1  # the child: its pages, then what it wrote, through the pipe; it never returns

    def say(said: dict[str, Any]) -> None:
        view = memoryview(json.dumps(said).encode("utf-8") + b"\n")
        while view:
            view = view[os.write(writer, view):]

    try:
        said: dict[str, Any]
        try:
            said = {"state": staging.state_of(_write_told(site, page, staging, start, stop, heard, say))}
        except BaseException as exc:  # noqa: BLE001  # any failure goes to the parent, which raises it
            said = {"error": str(exc)[:MAX_TRACE],
                    "kind": "ledger" if isinstance(exc, LedgerError) else type(exc).__name__,
                    "trace": traceback.format_exc()[-MAX_TRACE:]}
        say(said)
        status = 0
    finally:
        os._exit(status)  # never the parent's exit handlers, nor Staging's clean-up


def _write_told(site: Site, page: Callable[[dict], str], staging: Staging, start: int, stop: int,
                heard: int, say: Callable[[dict[str, Any]], None]) -> list[str]:
    """``_write`` in a child that starts before the site has its articles and may be asked to stop
    early. Each page is made as soon as it can be; once the articles' figures come (``heard``, looked
    at between pages and waited for at the end), the pages made before them of the claims they name
    are made again. Asked (the parent has made its own part), it keeps ``n`` parts in ``n + 1`` of
    what it has left, says where it stops (``say``) and stops there; the parent makes the rest."""
    names: list[str] = []
    early: list[ClaimResult] = []  # pages made before the figures came
    hearing = _Hearing(heard)
    end = stop
    for index, (claim, view) in enumerate(site.claim_views(start, stop), start):
        name = site.claim_pages[claim.id]
        staging.write(name, page(view).encode("utf-8"))
        names.append(name)
        if hearing.printed_in is None:
            early.append(claim)
        if not hearing.done:
            hearing.listen(wait=False)  # before the next claim's view is made
            if hearing.printed_in is not None:
                site.printed_in = hearing.printed_in
            if hearing.asked is not None:
                end = index + 1 + (stop - index - 1) * hearing.asked // (hearing.asked + 1)
                say({"until": end})
                hearing.close()
        if index + 1 >= end:
            break
    while hearing.printed_in is None:
        hearing.listen(wait=True)
    site.printed_in = hearing.printed_in
    hearing.close()
    for claim in early:
        if claim.id in site.printed_in:
            staging.rewrite(site.claim_pages[claim.id], page(site.claim(claim)).encode("utf-8"))
    return names


class _Hearing:
    """What a child reads from its parent's pipe: a line of JSON with the articles' figures, then,
    perhaps, one asking it to stop early (``{"ask": n}``)."""

    def __init__(self, heard: int):
        self.heard = heard
        self.read = b""
        self.printed_in: dict[str, list[dict]] | None = None
        self.asked: int | None = None
        self.done = False  # both heard, or the pipe closed: nothing more to listen for
        os.set_blocking(heard, False)

    def listen(self, wait: bool) -> None:
        """Read what has come; ``wait``: until the articles' figures have."""
        if wait:
            os.set_blocking(self.heard, True)
        while not self.done:
            try:
                chunk = os.read(self.heard, 1 << 20)
            except BlockingIOError:
                return  # nothing more yet
            if not chunk:
                self.done = True
                break
            self.read += chunk
            while b"\n" in self.read:
                line, _, self.read = self.read.partition(b"\n")
                said = json.loads(line)
                if self.printed_in is None:
                    self.printed_in = said
                elif isinstance(said, dict) and "ask" in said:
                    self.asked = int(said["ask"])
                    self.done = True
            if wait and self.printed_in is not None:
                return
        if self.printed_in is None:  # the pipe closed unsent: this process's parent failed or is gone
            raise RuntimeError("the articles' figures never came")

    def close(self) -> None:
        if self.heard >= 0:
            os.close(self.heard)
            self.heard = -1
        self.done = True
