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
(``tests/test_render_forked.py``). The children start before the site's other pages are made
(``claim_pages_beside``): this process makes those meanwhile, then its own part, the smaller by about
what they cost (``OTHER_PAGES``), so that the processes end together.

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
from .staging import Staging
from .views import Site

MIN_CLAIMS = 2000  # below this, the pages are made in one process
MAX_JOBS = 4
# The site's other pages (index, articles, explainer, sources, static files, ledger.json), made by
# this process while the children make their parts, in claim pages per claim: at 10,000 generated
# claims they took about 1.8 s, the claim pages about 1 ms each (scripts/bench.py, docs/speed.md)
OTHER_PAGES = 0.18


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


@contextmanager
def claim_pages_beside(site: Site, page: Callable[[dict], str], staging: Staging, jobs: int,
                       beside: float = OTHER_PAGES) -> Iterator[None]:
    """Every claim's page (``page`` of its view) written into ``staging``, in ``jobs`` processes where
    ``parts`` allows: the processes for the later parts start on entering, and make their pages while
    this one does what the ``with`` block holds (the site's other pages, worth ``beside`` claim pages
    per claim); on leaving, this process makes its own part and notes what each child wrote. A
    failure in the block, or in a child, ends every child before anything is swapped in."""
    ranges = parts(site, jobs, beside)
    children: list[tuple[int, int]] = []
    here = [ranges[0]]  # the parts this process makes
    try:
        for start, stop in ranges[1:]:
            try:
                children.append(_fork(site, page, staging, start, stop))
            except OSError:  # no process to be had: this one makes the part
                here.append((start, stop))
        yield
        for start, stop in here:
            _write(site, page, staging, start, stop)
        while children:
            pid, pipe = children.pop(0)
            staging.adopt(_collect(pid, pipe))
    finally:
        for pid, pipe in children:  # the parent failed (or was interrupted): its children go with it
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(pid, 0)
            os.close(pipe)


def _write(site: Site, page: Callable[[dict], str], staging: Staging, start: int, stop: int) -> list[str]:
    names = []
    for claim, view in site.claim_views(start, stop):
        name = site.claim_pages[claim.id]
        staging.write(name, page(view).encode("utf-8"))
        names.append(name)
    return names


def _fork(site: Site, page: Callable[[dict], str], staging: Staging, start: int, stop: int) -> tuple[int, int]:
    pid, pipe = fork_with_pipe()
    if pid:
        return pid, pipe
    writer = pipe
    status = 1  # the child: its pages, then what it wrote, through the pipe; it never returns
    try:
        said: dict[str, Any]
        try:
            said = {"state": staging.state_of(_write(site, page, staging, start, stop))}
        except BaseException as exc:  # noqa: BLE001  # any failure goes to the parent, which raises it
            said = {"error": str(exc), "kind": "ledger" if isinstance(exc, LedgerError) else type(exc).__name__,
                    "trace": traceback.format_exc()}
        data = json.dumps(said).encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(writer, view):]
        status = 0
    finally:
        os._exit(status)  # never the parent's exit handlers, nor Staging's clean-up


def _collect(pid: int, pipe: int) -> dict[str, Any]:
    """What the child ``pid`` wrote (``Staging.state_of``), or its failure raised here."""
    chunks = []
    try:
        while chunk := os.read(pipe, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(pipe)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    try:
        said = json.loads(b"".join(chunks)) if chunks else {}
    except ValueError:
        said = {}
    if "error" in said:
        if said.get("kind") == "ledger":
            raise LedgerError(said["error"])
        raise RuntimeError(f"a process making claim pages failed: {said.get('kind')}: {said['error']}\n"
                           f"{said.get('trace', '')}")
    if code != 0 or "state" not in said:
        how = f"was ended by signal {-code}" if code < 0 else f"exited {code}"
        raise RuntimeError(f"a process making claim pages {how} without saying what it wrote")
    return said["state"]
