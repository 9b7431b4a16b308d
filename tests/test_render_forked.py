"""Claim pages made by several processes (render/forked.py): the same site, byte for byte, as one
process makes; the old site's unchanged pages still linked, by whichever process made them; a
process that fails fails the render, before anything is swapped in, and leaves no staging folder.

The fork is real (os.fork, a pipe); only the size below which one process is used is lowered here,
so that small ledgers take the path a 10,000-claim one takes.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from workings import verify
from workings.errors import LedgerError
from workings.render import forked, render_site
from workings.render.claimpage import ClaimPages

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                                reason="claim pages are made in one process where fork is not used")


@pytest.fixture
def small(monkeypatch) -> None:
    # render forks only with no other thread running: one left by an earlier test would make these
    # tests take the one-process path, so say which it is
    assert threading.active_count() == 1, f"threads left running by earlier tests: {threading.enumerate()}"
    monkeypatch.setattr(forked, "MIN_CLAIMS", 0)


@pytest.fixture
def forks(monkeypatch) -> list[tuple[int, int]]:
    """Each part made by a child process (start, stop), as render asked for it."""
    made: list[tuple[int, int]] = []
    real = forked._fork

    def counted(site, page, staging, start, stop, *rest):
        made.append((start, stop))
        return real(site, page, staging, start, stop, *rest)

    monkeypatch.setattr(forked, "_fork", counted)
    return made


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> Path:
    """This repository's ledger plus 200 generated claims in chains (sources read from configs)."""
    root = tmp_path_factory.mktemp("ledger")
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    bench.make_ledger(root, 200, "b", group_prefix="gen-")
    return root


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.endswith((".new", ".old")))


@pytest.mark.parametrize("jobs", [2, 3, 4])
def test_the_site_is_the_same_bytes_made_by_several_processes(ledger, tmp_path, small, forks, jobs):
    report = verify(ledger)
    render_site(report, ledger, tmp_path / "one", jobs=1)
    assert forks == []
    render_site(report, ledger, tmp_path / "many", jobs=jobs)
    assert len(forks) == jobs - 1  # every part but the first made by a child
    count = len(report.claims)
    assert forks[-1][1] == count and all(a[1] == b[0] for a, b in zip(forks, forks[1:]))
    assert forks[0][0] > 0 or jobs > 2  # with three processes and more this one may start with no part
    one, many = _files(tmp_path / "one"), _files(tmp_path / "many")
    assert len([name for name in one if name.startswith("claims/")]) == count
    assert one.keys() == many.keys()
    assert [name for name in one if one[name] != many[name]] == []
    assert _leftovers(tmp_path) == []


def test_rendering_again_links_the_unchanged_pages_each_process_made(ledger, tmp_path, small, forks):
    report = verify(ledger)
    out = tmp_path / "site"
    render_site(report, ledger, out, jobs=3)
    first, last = out / "claims" / "gen-0--c0.html", out / "claims" / "gen-0--c199.html"
    before = {page: page.stat().st_ino for page in (first, last)}
    time.sleep(2.1)  # a page is linked only once it has been still past the racy window (staging.RACY_NS)
    render_site(report, ledger, out, jobs=3)
    assert len(forks) == 4
    # the first page was made by the parent, the last by a child: both kept their file (linked)
    assert {page: page.stat().st_ino for page in (first, last)} == before
    render_site(report, ledger, tmp_path / "fresh", jobs=1)
    assert _files(out) == _files(tmp_path / "fresh")
    assert _leftovers(tmp_path) == []


TEST_PROCESS = os.getpid()


def _kill_child() -> None:
    """A child process killed by a signal (never this test's own process)."""
    if os.getpid() == TEST_PROCESS:
        raise AssertionError("the page was made in the test's own process, not a child")
    os.kill(os.getpid(), signal.SIGKILL)


def _failing_page(monkeypatch, claim_id: str, failure) -> None:
    real = ClaimPages.page

    def page(self, view):
        if view["claim"].id == claim_id:
            failure()
        return real(self, view)

    monkeypatch.setattr(ClaimPages, "page", page)


@pytest.mark.parametrize("failure, raised, words", [
    (lambda: (_ for _ in ()).throw(ValueError("a bug in a page")), RuntimeError, "ValueError: a bug in a page"),
    (lambda: (_ for _ in ()).throw(LedgerError("cannot write this page")), LedgerError, "cannot write this page"),
    (lambda: _kill_child(), RuntimeError, "was ended by signal 9"),
])
def test_a_child_that_fails_fails_the_render_and_the_old_site_stays(ledger, tmp_path, small, forks, monkeypatch,
                                                                     failure, raised, words):
    report = verify(ledger)
    out = tmp_path / "site"
    render_site(report, ledger, out, jobs=1)
    old = _files(out)
    # the first claim of the child's part: the end of a part may be made here (``_Child.ask``), its start never
    start = forked.parts(_Claims([c.id for c in report.claims]), 2, forked.OTHER_PAGES)[1][0]
    _failing_page(monkeypatch, report.claims[start].id, failure)
    with pytest.raises(raised) as caught:
        render_site(report, ledger, out, jobs=2)
    assert words in str(caught.value)
    assert forks and forks[-1][1] == len(report.claims)
    assert _files(out) == old
    assert _leftovers(tmp_path) == []


def test_a_part_whose_process_cannot_be_had_is_made_here(ledger, tmp_path, small, monkeypatch):
    report = verify(ledger)
    render_site(report, ledger, tmp_path / "one", jobs=1)
    real, calls = os.fork, []

    def refused_once():  # the second fork is refused, as a process limit refuses it
        calls.append(1)
        if len(calls) == 2:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real()

    monkeypatch.setattr(forked.os, "fork", refused_once)
    render_site(report, ledger, tmp_path / "many", jobs=3)
    assert len(calls) == 2
    assert _files(tmp_path / "one") == _files(tmp_path / "many")
    assert _leftovers(tmp_path) == []


def test_the_parent_failing_takes_its_children_with_it(ledger, tmp_path, small, forks, monkeypatch):
    monkeypatch.setattr(forked, "OTHER_PAGES", 0.2)  # this process has a part of its own from the start
    report = verify(ledger)
    _failing_page(monkeypatch, report.claims[0].id, lambda: (_ for _ in ()).throw(ValueError("parent's page")))
    with pytest.raises(ValueError, match="parent's page"):
        render_site(report, ledger, tmp_path / "site", jobs=3)
    assert len(forks) == 2
    assert not (tmp_path / "site").exists() and _leftovers(tmp_path) == []
    with pytest.raises(ChildProcessError):  # every child was waited for
        os.waitpid(-1, os.WNOHANG)


class _Claims:
    def __init__(self, ids):
        self.report = type("R", (), {"claims": [type("C", (), {"id": i})() for i in ids]})()
        self.claim_pages = {i: f"claims/{i}.html" for i in ids}


def test_what_is_made_in_one_process(monkeypatch):
    many = [f"c{i}" for i in range(forked.MIN_CLAIMS)]
    assert forked.parts(_Claims(many), 2) == [(0, len(many) // 2), (len(many) // 2, len(many))]
    assert forked.parts(_Claims(many), 1) == [(0, len(many))]
    assert forked.parts(_Claims(many[:-1]), 4) == [(0, len(many) - 1)]  # below MIN_CLAIMS
    assert forked.parts(_Claims(many[:-1] + ["c0"]), 2) == [(0, len(many))]  # an id twice: its page written twice
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:  # another thread running: fork would copy only this one
        assert forked.parts(_Claims(many), 2) == [(0, len(many))]
    finally:
        stop.set()
        other.join()
    assert len(forked.parts(_Claims(many), 2)) == 2
    monkeypatch.setattr(sys, "platform", "darwin")  # readahead.can_fork reads it
    assert forked.parts(_Claims(many), 2) == [(0, len(many))]
    assert 1 <= forked.default_jobs() <= forked.MAX_JOBS


def test_this_process_s_part_is_smaller_by_the_other_pages_it_makes():
    many = _Claims([f"c{i}" for i in range(10_000)])
    assert forked.parts(many, 2, 0.2) == [(0, 4000), (4000, 10_000)]  # (10,000 + 2,000) / 2 each
    assert forked.parts(many, 4, 0.2) == [(0, 1000), (1000, 4000), (4000, 7000), (7000, 10_000)]
    assert forked.parts(many, 2, 2.0) == [(0, 0), (0, 10_000)]  # more besides than half: none here
    assert forked.parts(many, 1, 0.2) == [(0, 10_000)]
    assert forked.parts(many, 2) == [(0, 5000), (5000, 10_000)]


def test_the_children_make_their_parts_while_this_process_makes_the_other_pages(ledger, tmp_path, small, forks,
                                                                              monkeypatch):
    """The children are forked before the index, article, source pages and ledger.json are written,
    and this process makes its own part of the claim pages after those."""
    from workings.render.staging import Staging

    written: list[str] = []
    real_write, real_parts, real_fork = Staging.write, Staging.write_parts, forked._fork
    parent = os.getpid()

    def write(self, name, data):
        if os.getpid() == parent:
            written.append(name)
        return real_write(self, name, data)

    def write_parts(self, name, parts):
        written.append(name)
        return real_parts(self, name, parts)

    monkeypatch.setattr(Staging, "write", write)
    monkeypatch.setattr(Staging, "write_parts", write_parts)
    monkeypatch.setattr(forked, "_fork", lambda *a: (written.append("fork"), real_fork(*a))[1])
    report = verify(ledger)
    render_site(report, ledger, tmp_path / "site", jobs=2)
    pages = [name for name in written if name != "fork" and not name.startswith("snapshots/")]
    first_claim = next(i for i, name in enumerate(pages) if name.startswith("claims/"))
    assert written.index("fork") < written.index("index.html")
    assert {"index.html", "ledger.json"} <= set(pages[:first_claim])
    assert any(name.startswith("sources/") for name in pages[:first_claim])
    assert all(name.startswith("claims/") for name in pages[first_claim:])
    assert 0 < len(pages[first_claim:]) < len(report.claims) // 2  # this process's part, the smaller


def test_a_failure_in_the_other_pages_leaves_no_child_and_swaps_nothing(ledger, tmp_path, small, forks,
                                                                        monkeypatch):
    from workings.render import views

    report = verify(ledger)
    out = tmp_path / "site"
    render_site(report, ledger, out, jobs=1)
    before = _files(out)

    def broken(self, source):
        raise RuntimeError("a bug in a source page")

    monkeypatch.setattr(views.Site, "source", broken)
    with pytest.raises(RuntimeError, match="a bug in a source page"):
        render_site(report, ledger, out, jobs=2)
    assert len(forks) == 1 and _files(out) == before and _leftovers(tmp_path) == []
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # no child left running or unreaped


def test_render_takes_jobs_on_the_command_line(tmp_path):
    root = tmp_path / "ledger"
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    env = {**os.environ, "WORKINGS_NO_CACHE": "1"}
    done = subprocess.run([sys.executable, "-m", "workings", "render", "--root", str(root), "--out",
                           str(tmp_path / "site"), "--jobs", "2"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    refused = subprocess.run([sys.executable, "-m", "workings", "render", "--root", str(root), "--jobs", "0"],
                             capture_output=True, text=True, env=env)
    assert refused.returncode == 2 and "--jobs" in refused.stderr


def _writes_by_process(monkeypatch, folder: Path) -> None:
    """Each process's claim pages, in the order it wrote them, one line each in ``folder/<pid>``."""
    from workings.render.staging import Staging

    real = Staging.write

    def write(self, name, data):
        if name.startswith("claims/"):
            with open(folder / str(os.getpid()), "a", encoding="utf-8") as noted:
                noted.write(name + "\n")
        return real(self, name, data)

    monkeypatch.setattr(Staging, "write", write)


def _written(folder: Path) -> dict[int, list[str]]:
    return {int(p.name): p.read_text(encoding="utf-8").split() for p in folder.iterdir()}


def _articles_held_back(monkeypatch, tmp_path: Path) -> Path:
    """This process checks the articles only once a child has made every page of its part and waits
    for their figures (the file returned then exists)."""
    import workings.render as render_module

    waiting = tmp_path / "waiting"
    real_listen, real_load = forked._Hearing.listen, render_module.load_articles

    def listen(self, wait):
        if wait:
            waiting.touch()  # the child has made every page of its part
        return real_listen(self, wait)

    def load_articles(root, report):
        deadline = time.monotonic() + 120
        while not waiting.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        waiting_now = waiting.exists()
        result = real_load(root, report)
        if not waiting_now:
            raise AssertionError("no child waited for the articles' figures")
        return result

    monkeypatch.setattr(forked._Hearing, "listen", listen)
    monkeypatch.setattr(render_module, "load_articles", load_articles)
    return waiting


def test_a_child_that_made_its_pages_before_the_articles_were_checked_makes_theirs_again(ledger, tmp_path, small,
                                                                                          forks, monkeypatch):
    """The articles are checked after the children start: here the child makes every page of its
    part first (this process holds the articles back until it waits for them), then makes again the
    pages of the claims the articles print, with the figures each lists; the site is one process's."""
    report = verify(ledger)
    render_site(report, ledger, tmp_path / "one", jobs=1)
    notes = tmp_path / "notes"
    notes.mkdir()
    _writes_by_process(monkeypatch, notes)
    waiting = _articles_held_back(monkeypatch, tmp_path)
    render_site(report, ledger, tmp_path / "many", jobs=2)
    assert waiting.exists() and len(forks) == 1
    one, many = _files(tmp_path / "one"), _files(tmp_path / "many")
    assert one.keys() == many.keys() and [name for name in one if one[name] != many[name]] == []
    child = next(names for pid, names in _written(notes).items() if pid != os.getpid())
    printed = {name for name in set(child) if b'class="printed-in"' in many[name]}
    assert printed, "the child's part holds claims the articles print"
    # each made twice: first with every other page of the part, then again once the figures came
    assert {name for name in child if child.count(name) == 2} == printed
    assert sorted(child[len(child) - len(printed):]) == sorted(printed)
    assert len(child) - len(printed) == forks[0][1] - forks[0][0]


def test_a_child_that_hears_of_the_articles_first_makes_each_page_once(ledger, tmp_path, small, forks, monkeypatch):
    from workings.render.claimpage import ClaimPages

    report = verify(ledger)
    render_site(report, ledger, tmp_path / "one", jobs=1)
    notes = tmp_path / "notes"
    notes.mkdir()
    _writes_by_process(monkeypatch, notes)
    sent = tmp_path / "sent"
    real_known, real_page = forked.Beside.articles_known, ClaimPages.page
    parent = os.getpid()

    def articles_known(self):
        real_known(self)
        sent.touch()

    def page(self, view):
        deadline = time.monotonic() + 120
        while os.getpid() != parent and not sent.exists() and time.monotonic() < deadline:
            time.sleep(0.01)  # a child waits for the figures to be sent before its first page
        return real_page(self, view)

    monkeypatch.setattr(forked.Beside, "articles_known", articles_known)
    monkeypatch.setattr(ClaimPages, "page", page)
    render_site(report, ledger, tmp_path / "many", jobs=2)
    one, many = _files(tmp_path / "one"), _files(tmp_path / "many")
    assert one.keys() == many.keys() and [name for name in one if one[name] != many[name]] == []
    child = next(names for pid, names in _written(notes).items() if pid != os.getpid())
    assert any(b'class="printed-in"' in many[name] for name in child)  # the child's part holds printed claims
    for names in _written(notes).values():
        assert len(names) == len(set(names))


@pytest.mark.parametrize("jobs", [2, 3])
def test_this_process_takes_the_end_of_what_each_slower_child_has_left(ledger, tmp_path, small, forks, monkeypatch,
                                                                     jobs):
    """Done with its own part first (the children slowed here), this process asks each child for the
    end of what it has left, and makes those pages: each page once, the site one process's."""
    from workings.render.claimpage import ClaimPages

    report = verify(ledger)
    render_site(report, ledger, tmp_path / "one", jobs=1)
    notes = tmp_path / "notes"
    notes.mkdir()
    _writes_by_process(monkeypatch, notes)
    real_page, real_write = ClaimPages.page, forked._write
    parent = os.getpid()
    here: list[tuple[int, int]] = []

    def page(self, view):
        if os.getpid() != parent:
            time.sleep(0.01)
        return real_page(self, view)

    def write(site, page, staging, start, stop):
        if os.getpid() == parent:
            here.append((start, stop))
        return real_write(site, page, staging, start, stop)

    monkeypatch.setattr(ClaimPages, "page", page)
    monkeypatch.setattr(forked, "_write", write)
    render_site(report, ledger, tmp_path / "many", jobs=jobs)
    one, many = _files(tmp_path / "one"), _files(tmp_path / "many")
    assert one.keys() == many.keys() and [name for name in one if one[name] != many[name]] == []
    assert len(forks) == jobs - 1 and len(here) == jobs  # its own part, then one end from each child
    assert here[0] == (0, forks[0][0])
    for (start, stop), (end, their_stop) in zip(forks, here[1:]):
        assert start < end < stop and their_stop == stop
    written = _written(notes)
    for names in written.values():  # a page made twice only where a child made it before the figures came
        assert all(b'class="printed-in"' in many[name] for name in names if names.count(name) > 1)
    from workings.render.views import page_names

    named = page_names([c.id for c in report.claims], "claims")
    order = [named[c.id] for c in report.claims]
    assert set(written[parent]) == {name for start, stop in here for name in order[start:stop]}
    assert sum(len(set(names)) for names in written.values()) == len(report.claims)  # each by one process


def test_a_page_made_again_once_the_figures_came_keeps_the_old_site_s_file(ledger, tmp_path, small, forks,
                                                                            monkeypatch):
    """Rendering again over a site, a claim page a child made before the articles' figures came and
    then again is linked from the old site where unchanged, as every other unchanged page is."""
    report = verify(ledger)
    out = tmp_path / "site"
    waiting = _articles_held_back(monkeypatch, tmp_path)
    render_site(report, ledger, out, jobs=2)
    child = forks[0]
    printed = [p for p in (out / "claims").iterdir() if b'class="printed-in"' in p.read_bytes()]
    names = {f"{c.id}" for c in report.claims[child[0]:child[1]]}
    theirs = [p for p in printed if p.read_text(encoding="utf-8").split('data-claim="')[1].split('"')[0] in names]
    assert theirs, "the child's part holds claims the articles print"
    before = {page: page.stat().st_ino for page in theirs}
    time.sleep(2.1)  # a page is linked only once it has been still past the racy window (staging.RACY_NS)
    waiting.unlink()
    render_site(report, ledger, out, jobs=2)
    assert waiting.exists() and forks[1] == child
    assert {page: page.stat().st_ino for page in theirs} == before
    render_site(report, ledger, tmp_path / "fresh", jobs=1)
    assert _files(out) == _files(tmp_path / "fresh")


def test_a_child_failing_at_length_while_the_figures_are_long_ends_the_render(ledger, tmp_path, small, forks,
                                                                               monkeypatch):
    """A child that fails before reading the articles' figures sends its failure cut to fit its pipe:
    it never waits on this process, which may be writing it figures too long for theirs."""
    from workings.render import views

    report = verify(ledger)
    start = forked.parts(_Claims([c.id for c in report.claims]), 2, forked.OTHER_PAGES)[1][0]
    _failing_page(monkeypatch, report.claims[start].id,
                  lambda: (_ for _ in ()).throw(ValueError("a long failure " + "x" * 300_000)))
    real_add = views.Site.add_articles

    def add_articles(self, articles):
        real_add(self, articles)
        self.printed_in["padding"] = [{"title": "t" * 400_000, "href": "", "text": "", "status": ""}]

    monkeypatch.setattr(views.Site, "add_articles", add_articles)

    def hung(signum, frame):
        raise TimeoutError("the render waited on its child, and the child on it")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        with pytest.raises(RuntimeError, match="ValueError: a long failure x") as caught:
            render_site(report, ledger, tmp_path / "site", jobs=2)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert len(str(caught.value)) < 2 * forked.MAX_TRACE + 1000 and len(forks) == 1
    assert not (tmp_path / "site").exists() and _leftovers(tmp_path) == []
