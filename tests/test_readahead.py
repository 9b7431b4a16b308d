"""Records read by a second process (workings/readahead.py): the same ledger, problems and reports
as one process gives, whichever process read which record; a child that fails, dies or cannot be had
costs only its help.

The fork is real (os.fork, a pipe). Only the size below which one process is used is lowered here,
and this process's own checks are slowed by a sleep where a test needs the child to have read some
records and this process others: the split follows the two processes' speeds."""

from __future__ import annotations

import math
import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from workings import loader, readahead
from workings.cli import main

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import bench  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                                reason="records are read in one process where fork is not used")


@pytest.fixture
def small(monkeypatch) -> None:
    # a child is forked only with no other thread running: one left by an earlier test would make
    # these tests take the one-process path, so say which it is
    assert threading.active_count() == 1, f"threads left running by earlier tests: {threading.enumerate()}"
    monkeypatch.setattr(readahead, "MIN_RECORDS", 0)


@pytest.fixture
def split(second_of) -> list[int]:
    """How many records each call of ``outcomes`` took from the child."""
    return second_of(readahead, "outcomes")


def _slowly(check, seconds=0.002):
    """``check`` that sleeps first: the child reads ahead while this process waits."""
    def slow(index, outcome):
        time.sleep(seconds)
        return check(index, outcome)
    return slow


def _no_child_left() -> bool:
    """No child of this process is running or left unreaped."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _late(read, parent: int):
    """``read`` whose first record keeps the child 50 ms: this process begins from the back."""
    def late(index):
        if index == 0 and os.getpid() != parent:
            time.sleep(0.05)
        return read(index)
    return late


# --- outcomes, on plain values -------------------------------------------------------------------

def _value(index: int):
    """Plain data of every type a parsed record can hold, whose types marshal must keep."""
    return ("doc", {"text": f"record {index}", "pad": "x" * 1500, 1: index, True: None, "big": 10 ** 40 + index,
                    "float": -0.0 if index % 2 else 1.5, "list": [index, "x", [False, 2.25]],
                    "nan": math.nan if index == 3 else 0.0})


def _same(a, b) -> bool:
    """Equal with the same types all the way down (True is not 1, -0.0 is not 0.0, nan is nan)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(x, y) for x, y in zip(a, b)) \
            and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return math.copysign(1, a) == math.copysign(1, b) and (a == b or (math.isnan(a) and math.isnan(b)))
    return a == b


def test_every_outcome_is_checked_once_in_place_and_the_child_reads_ahead(small):
    checked: list[int] = []

    def check(index, outcome):
        checked.append(index)
        return outcome

    results, from_child = readahead.outcomes(400, _late(_value, os.getpid()), _slowly(check), jobs=2)
    assert all(_same(results[i], _value(i)) for i in range(400))
    assert sorted(checked) == list(range(400))  # each record checked once, in whatever order
    assert 0 < from_child < 400  # the child read from the front, this process from the back
    assert checked[0] == 399 and checked[-1] in (from_child - 1, from_child)  # the two met between them
    assert _no_child_left()


def test_what_the_child_s_outcomes_share_comes_once_a_frame_and_apart_from_the_rest(small):
    """The child sends its outcomes a frame (a marshal list, about 64 KB) at a time: text two records
    share (keys, repeated lines) is loaded as one object, and nothing mutable is shared between them."""
    parent = os.getpid()
    line = "inputs: " + "x" * 60  # one object in the child, as its memory of lines shares them

    def read(index):
        return ("doc", {"line": line, "index": index, "list": [index]})

    results, from_child = readahead.outcomes(600, _late(read, parent), _slowly(lambda i, o: o, 0.001), jobs=2)
    assert from_child > 100
    assert all(results[i] == ("doc", {"line": line, "index": i, "list": [i]}) for i in range(600))
    came = [results[i][1] for i in range(from_child)]
    assert len({id(d["line"]) for d in came}) < from_child / 10  # one per frame, not one per outcome
    assert len({id(d["list"]) for d in came}) == len({id(d) for d in came}) == from_child
    assert _no_child_left()


def test_a_frame_with_an_outcome_marshal_cannot_carry_gives_the_rest(small):
    parent = os.getpid()

    here = []

    def read(index):
        if os.getpid() == parent:
            here.append(index)
        elif index % 5 == 1:
            return ("doc", {1, 2}.__iter__())  # nothing marshal carries, among outcomes it carries
        return _value(index)

    results, from_child = readahead.outcomes(300, _late(read, parent), _slowly(lambda i, o: o), jobs=2)
    assert from_child > 20
    assert all(_same(results[i], _value(i)) for i in range(300))
    assert [i for i in here if i < from_child] == [i for i in range(from_child) if i % 5 == 1]  # those alone


def test_a_record_the_child_cannot_read_is_read_here(small):
    parent = os.getpid()

    def read(index):
        if os.getpid() != parent and index % 7 == 0:
            raise RuntimeError("the child meets a bug")
        if os.getpid() != parent and index == 11:
            return {1, 2}.__iter__()  # nothing marshal carries
        return _value(index)

    results, from_child = readahead.outcomes(300, _late(read, parent), _slowly(lambda i, o: o), jobs=2)
    assert from_child > 11
    assert all(_same(results[i], _value(i)) for i in range(300))


def test_a_child_that_dies_leaves_the_rest_to_this_process(small):
    parent = os.getpid()

    def read(index):
        if os.getpid() != parent and index == 120:
            os._exit(3)
        return _value(index)

    results, from_child = readahead.outcomes(300, _late(read, parent), _slowly(lambda i, o: o, 0.0005), jobs=2)
    assert 0 < from_child <= 120  # what it sent before it died was used
    assert all(_same(results[i], _value(i)) for i in range(300))
    assert _no_child_left()


def test_a_failure_here_stops_and_reaps_the_child(small):
    def check(index, outcome):
        if index == 250:
            raise ValueError("a bug in the check")
        time.sleep(0.001)
        return outcome

    with pytest.raises(ValueError, match="a bug in the check"):
        readahead.outcomes(300, _value, check, jobs=2)
    assert _no_child_left()


def test_one_process_when_asked_below_the_size_or_with_another_thread(monkeypatch):
    assert readahead.outcomes(3000, _value, lambda i, o: o, jobs=1)[1] == 0
    assert readahead.outcomes(readahead.MIN_RECORDS - 1, _value, lambda i, o: o, jobs=2)[1] == 0
    monkeypatch.setattr(readahead.sys, "platform", "darwin")
    assert readahead.outcomes(3000, _value, lambda i, o: o, jobs=2)[1] == 0
    monkeypatch.undo()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert readahead.outcomes(3000, _value, lambda i, o: o, jobs=2)[1] == 0
    finally:
        stop.set()
        other.join()


def test_a_refused_fork_leaves_every_record_to_this_process(small, monkeypatch):
    def refused():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(readahead.os, "fork", refused)
    results, from_child = readahead.outcomes(50, _value, lambda i, o: o, jobs=2)
    assert from_child == 0 and all(_same(results[i], _value(i)) for i in range(50))


def test_meanwhile_runs_once_here_after_the_fork_and_before_any_check(small, monkeypatch):
    """Work of this process's own (the ledger's sources) is done while the child reads ahead: after the
    fork, before the first check; once, on every path (one process, a refused fork)."""
    events: list[str] = []
    real = readahead._fork
    monkeypatch.setattr(readahead, "_fork", lambda *a: (events.append("fork"), real(*a))[1])

    def check(index, outcome):
        events.append("check")
        return outcome

    results, from_child = readahead.outcomes(300, _value, _slowly(check, 0.0005), jobs=2,
                                             meanwhile=lambda: events.append("meanwhile"))
    assert events[:3] == ["fork", "meanwhile", "check"] and events.count("meanwhile") == 1
    assert from_child > 0 and all(_same(results[i], _value(i)) for i in range(300))
    assert _no_child_left()
    for jobs in (1, 2):  # one process; then a refused fork
        if jobs == 2:
            monkeypatch.setattr(readahead.os, "fork", lambda: (_ for _ in ()).throw(BlockingIOError(11, "no")))
        events.clear()
        assert readahead.outcomes(5, _value, check, jobs=jobs, meanwhile=lambda: events.append("meanwhile"))[1] == 0
        assert events == ["fork"] * (jobs - 1) + ["meanwhile"] + ["check"] * 5  # the fork asked, refused


def test_a_full_pipe_does_not_stop_the_child_reading_ahead(small, tmp_path):
    """While this process does its own work (``meanwhile``: the sources, pint) it takes no outcome;
    the child goes on reading though its outcomes are more than the pipe holds (4 MB here; the
    child asks for a 1 MiB pipe), keeping the frames the pipe has no room for, and every one comes
    whole and in order. (A child that waited for room read 10 of these 40 records, then waited.)
    How many of the 40 this process then takes from the child is the day's timing: it reads a record
    itself whenever the pipe is empty at the moment it looks, as it should (on CI, loaded, 19 came
    from the child); only the first frame (8 outcomes, in the pipe before this process looked) is
    sure to, so that is what is asserted, with each check slowed to give the child time to refill."""
    parent, reached = os.getpid(), tmp_path / "reached"

    def read(index):
        if os.getpid() != parent:
            reached.write_text(str(index))
        return ("doc", {"index": index, "pad": f"{index:07d}" * 15000})  # about 100 KB an outcome

    def meanwhile():
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (reached.exists() and reached.read_text() == "39"):
            time.sleep(0.005)
        seen.append(reached.read_text() if reached.exists() else "")

    seen: list[str] = []
    results, from_child = readahead.outcomes(40, read, _slowly(lambda i, o: o, 0.005), jobs=2, meanwhile=meanwhile)
    assert seen == ["39"]  # the child read the last record before this process checked any
    assert 8 <= from_child <= 40 and all(results[i] == read(i) for i in range(40))
    assert _no_child_left()


def test_a_failure_meanwhile_stops_and_reaps_the_child(small):
    def failing():
        raise ValueError("a bug in the sources")

    with pytest.raises(ValueError, match="a bug in the sources"):
        readahead.outcomes(300, _value, lambda i, o: o, jobs=2, meanwhile=failing)
    assert _no_child_left()


# --- aside: one piece of work done by a child while this process does its own -------------------

def _work(parent: int, fail_in_child=None):
    """Work whose answer says which process gave it; ``fail_in_child``: what the child does instead."""
    def work():
        if os.getpid() != parent and fail_in_child is not None:
            fail_in_child()
        return {"by": "child" if os.getpid() != parent else "here", "values": [_value(i) for i in range(40)]}
    return work


def test_aside_takes_the_child_s_answer_while_this_process_does_its_own(small, monkeypatch):
    events: list[str] = []
    real = readahead.fork_with_pipe
    monkeypatch.setattr(readahead, "fork_with_pipe", lambda: (events.append("fork"), real())[1])
    got, by_child = readahead.aside(_work(os.getpid()), lambda: events.append("meanwhile"), 2, size=10)
    assert by_child and got["by"] == "child" and events == ["fork", "meanwhile"]
    assert all(_same(got["values"][i], _value(i)) for i in range(40))  # marshal kept every type
    assert _no_child_left()
    got, by_child = readahead.aside(lambda: (1, "two"), lambda: None, 2, size=10, encode=list, decode=tuple)
    assert by_child and got == (1, "two")


@pytest.mark.parametrize("failure", ["raises", "dies", "sends half", "cannot be sent"])
def test_aside_does_the_work_here_when_the_child_gives_no_whole_answer(small, monkeypatch, failure):
    parent = os.getpid()

    def raises():
        raise ValueError("a bug met only in the child")

    work = _work(parent, {"raises": raises, "dies": lambda: os._exit(3)}.get(failure))
    if failure == "sends half":  # killed while writing its frame: the length says more than came
        real_write = os.write

        def half(fd, data):
            if os.getpid() != parent:
                real_write(fd, bytes(data)[:len(data) // 2])
                os._exit(0)
            return real_write(fd, data)

        monkeypatch.setattr(readahead.os, "write", half)
    if failure == "cannot be sent":  # an answer marshal cannot carry
        inner = work
        work = lambda: inner() if os.getpid() == parent else {"by": "child", "odd": object()}  # noqa: E731
    ran: list[str] = []
    got, by_child = readahead.aside(work, lambda: ran.append("meanwhile"), 2, size=10)
    assert not by_child and got["by"] == "here" and ran == ["meanwhile"]
    assert all(_same(got["values"][i], _value(i)) for i in range(40))
    assert _no_child_left()


def test_aside_in_one_process_runs_no_meanwhile(small, monkeypatch):
    ran: list[str] = []
    for jobs, size in ((1, 10), (2, None)):
        if size is None:
            monkeypatch.setattr(readahead, "MIN_RECORDS", 100)
            size = 99
        got, by_child = readahead.aside(_work(os.getpid()), lambda: ran.append("meanwhile"), jobs, size=size)
        assert not by_child and got["by"] == "here"
    monkeypatch.setattr(readahead, "MIN_RECORDS", 0)
    monkeypatch.setattr(readahead.os, "fork", lambda: (_ for _ in ()).throw(BlockingIOError(11, "no")))
    got, by_child = readahead.aside(_work(os.getpid()), lambda: ran.append("meanwhile"), 2, size=10)
    assert not by_child and got["by"] == "here" and ran == []


def test_a_failure_beside_the_aside_child_stops_and_reaps_it(small):
    def failing():
        raise ValueError("a bug in the registry")

    def slow():
        time.sleep(5)
        return 1

    started = time.monotonic()
    with pytest.raises(ValueError, match="a bug in the registry"):
        readahead.aside(slow, failing, 2, size=10)
    assert _no_child_left() and time.monotonic() - started < 4  # ended, not waited for


# --- the ledger ----------------------------------------------------------------------------------

BROKEN = {  # records a stranger could send, each refused with its file, line and key
    "not-yaml": b"said: [unclosed\nfigure: 1 B\n",
    "not-utf8": b"said: \xff\xfe\nlabel: derived\n",
    "int-key": b"said: x\nlabel: derived\nfigure: 1 B\n1: one\n",
    "a-date": b"said: 2025-01-27\nlabel: derived\nfigure: 1 B\n",
    "missing": b"figure: 1 B\n",
    "anchor": b"said: &a x\nlabel: *a\nfigure: 1 B\n",
    "Upper-Case": b"said: 1 B\nlabel: derived\nfigure: 1 B\n",
}


def _broken_ledger(root: Path) -> Path:
    """This repository's ledger plus 600 generated claims, with broken records among the first, the
    middle and the last ones read."""
    shutil.copytree(REPO / "claims", root / "claims")
    shutil.copytree(REPO / "ledger", root / "ledger")
    bench.make_ledger(root, 600, "b", group_prefix="gen-")
    for group in ("aaa-first", "gen-0", "zzz-last"):
        for name, raw in BROKEN.items():
            (root / "claims" / group).mkdir(exist_ok=True)
            (root / "claims" / group / f"{name}.yaml").write_bytes(raw)
    return root


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> Path:
    """``_broken_ledger``, with a record linked elsewhere and an id given twice too."""
    root = _broken_ledger(tmp_path_factory.mktemp("ledger"))
    (root / "claims" / "gen-0" / "linked.yaml").symlink_to(root / "claims" / "zzz-last" / "missing.yaml")
    (root / "claims" / "zzz-last" / "twice.yaml").write_text(
        "id: gen-0/c5\n" + (root / "claims" / "gen-0" / "c5.yaml").read_text())
    return root


def test_the_sources_load_while_the_child_reads_and_the_problems_keep_their_order(tmp_path, small, split,
                                                                                monkeypatch):
    """The claims are walked before the sources load (so the child starts reading first); a problem of
    the walk still comes after the sources' problems, as a walk after the loading gives it."""
    root = _broken_ledger(tmp_path)
    (root / "ledger" / "sources" / "broken.yaml").write_text("title: [\n")
    (root / "claims" / "gen-0" / "notes").symlink_to(root / "nowhere")  # a dangling link: the walk's problem
    events: list[str] = []
    real_source, real_fork = loader._load_source, readahead._fork
    monkeypatch.setattr(loader, "_load_source", lambda *a: (events.append("source"), real_source(*a))[1])
    monkeypatch.setattr(readahead, "_fork", lambda *a: (events.append("fork"), real_fork(*a))[1])
    for jobs in (1, 2):
        events.clear()
        ledger = loader.load_ledger(root, jobs=jobs)
        files = [p.file for p in ledger.problems]
        assert files.index("ledger/sources/broken.yaml") < files.index("claims/gen-0/notes")
        assert "claims/zzz-last/not-yaml.yaml" in files  # and the claims' own after both
        assert "source" in events and events.count("fork") == jobs - 1
        assert events.index("source") > events.index("fork") if jobs == 2 else True  # the child started first
    assert split[-1] > 0


def _loaded(root: Path, jobs: int):
    ledger = loader.load_ledger(root, jobs=jobs)
    claims = [(c, c.doc.file, c.doc.data, c.doc.text, c.line) for c in ledger.claims.values()]
    return claims, list(ledger.claims), ledger.problems, ledger.bad_claims, ledger.bad_sources


def test_the_ledger_is_the_same_read_by_two_processes(ledger, small, split, monkeypatch):
    one = _loaded(ledger, 1)
    assert split == [0]
    real = loader._checked_claim
    monkeypatch.setattr(loader, "_checked_claim", lambda *a: (time.sleep(0.001), real(*a))[1])
    # the child reads while this process loads the sources: slowed too, or on a busy machine it has
    # read every record of this small ledger by then
    parent, real_read = os.getpid(), loader._read
    monkeypatch.setattr(loader, "_read", lambda *a: (os.getpid() != parent and time.sleep(0.002), real_read(*a))[1])
    two = _loaded(ledger, 2)
    count = sum(1 for _ in (ledger / "claims").rglob("*.y*ml"))
    assert 0 < split[1] < count  # both processes read records
    assert two == one
    bad = {b.file for b in one[3]}
    assert {f"claims/{g}/{n}.yaml" for g in ("aaa-first", "zzz-last") for n in ("not-yaml", "not-utf8", "int-key",
                                                                              "missing", "anchor")} <= bad
    assert {"claims/gen-0/linked.yaml", "claims/zzz-last/twice.yaml"} <= {p.file for p in one[2]}


def test_verify_writes_the_same_bytes_with_one_process_or_two(ledger, small, split, tmp_path, monkeypatch):
    def run(jobs: int):
        out = tmp_path / str(jobs)
        result = CliRunner().invoke(main, ["verify", "--root", str(ledger), "--no-cache", "--jobs", str(jobs),
                                           "--json", str(out / "r.json"), "--junit", str(out / "j.xml")])
        return result.exit_code, result.stdout, result.stderr, (out / "r.json").read_bytes(), \
            (out / "j.xml").read_bytes()

    one = run(1)
    real = loader._checked_claim
    monkeypatch.setattr(loader, "_checked_claim", lambda *a: (time.sleep(0.001), real(*a))[1])
    two = run(2)
    assert split[0] == 0 and split[1] > 0
    assert one[0] == 2  # the broken records
    assert two == one


def test_this_repositorys_ledger_is_read_by_two_processes_too(tmp_path, small, split, monkeypatch):
    shutil.copytree(REPO / "claims", tmp_path / "claims")
    shutil.copytree(REPO / "ledger", tmp_path / "ledger")
    one = _loaded(tmp_path, 1)
    real = loader._checked_claim
    monkeypatch.setattr(loader, "_checked_claim", lambda *a: (time.sleep(0.002), real(*a))[1])
    two = _loaded(tmp_path, 2)
    assert two == one and not one[2]
    assert split[0] == 0 and split[1] > 0  # the child read some of this ledger's own records


def test_the_first_run_with_the_cache_is_the_same_with_one_process_or_two(tmp_path, small, split, monkeypatch):
    """With nothing in its cache (a first run, or new code), verify reads every record, by two
    processes on a large ledger: the same outputs, the same cache, and a second run finds it all."""
    from workings.cachestore import Store

    root = _broken_ledger(tmp_path / "ledger")  # no link, no id twice: the cache's own path, not a cold one
    time.sleep(2.1)  # the identity of a record written in the last 2 s is not remembered (the racy rule)

    def run(jobs: int, cache: Path):
        monkeypatch.setenv("WORKINGS_CACHE_DIR", str(cache))
        out = tmp_path / f"out-{jobs}-{len(split)}"
        result = CliRunner().invoke(main, ["verify", "--root", str(root), "--jobs", str(jobs),
                                           "--json", str(out / "r.json"), "--junit", str(out / "j.xml")])
        said = result.stderr.split(" (cache:")[0]
        return (result.exit_code, result.stdout, said, (out / "r.json").read_bytes(), (out / "j.xml").read_bytes()), \
            Store.for_root(root).read()

    one, one_pack = run(1, tmp_path / "cache-1")
    real = loader._checked_claim
    monkeypatch.setattr(loader, "_checked_claim", lambda *a: (time.sleep(0.001), real(*a))[1])
    two, two_pack = run(2, tmp_path / "cache-2")
    assert len(split) == 1 and split[0] > 0  # one process read them the cache's own way; two, ahead
    assert one[0] == 2 and one[2].startswith("cache: recomputed ") and len(two_pack["files"]) > 600
    assert two == one
    assert two_pack == one_pack  # the same keys, entries and file identities: what a later run trusts
    again, _ = run(2, tmp_path / "cache-2")
    invalid = sum(line.startswith("ERROR") for line in one[1].splitlines())
    assert invalid == 18 and again[2] == f"cache: recomputed {invalid} of {one[2].split()[-2]} claims"  # the
    # invalid records only (they are always read): every claim from the cache
    assert again[:2] == one[:2] and again[3:] == one[3:]


def test_a_program_that_ignores_sigchld_still_gets_every_record(small):
    import signal

    before = signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the system
    try:
        results, from_child = readahead.outcomes(300, _late(_value, os.getpid()), _slowly(lambda i, o: o), jobs=2)
    finally:
        signal.signal(signal.SIGCHLD, before)
    assert from_child > 0 and all(_same(results[i], _value(i)) for i in range(300))


SENTENCES = {  # records the sentence check has something to say of, or nothing to ask
    "prints-other": 'said: "It holds 999,999 bytes per token."\nfigure: 196,608 B/token\nlabel: vendor\n',
    "rounded-said": 'said: "It holds about 197 kB per token."\nfigure: 196,608 B/token\nlabel: vendor\n',
    "rounded-also": ('said: "It holds 196,608 bytes per token."\nalso_said:\n- "About 197 kB per token."\n'
                     '- "It holds 5 GB."\nfigure: 196,608 B/token\nlabel: vendor\n'),
    "unread-figure": 'said: "It holds 5 GB."\nfigure: lots of GB\nlabel: vendor\n',
    "unknown-unit": 'said: "It holds 5 florps."\nfigure: 5 florp\nlabel: vendor\n',  # answered, never asked
}


def test_the_sentence_check_is_answered_where_a_record_is_read(tmp_path, small, split, monkeypatch):
    """Whether ``said`` prints the figure (``said.missing``) is worked out by the process that read the
    record and looked up by the one checking it: each sentence once, the child's answers through the
    pipe, and every problem and claim the one the check alone gives."""
    from workings import said

    root = tmp_path
    bench.make_ledger(root, 600, "b", group_prefix="gen-")
    for group in ("aaa-first", "gen-0", "zzz-last"):
        (root / "claims" / group).mkdir(exist_ok=True)
        for name, text in SENTENCES.items():
            (root / "claims" / group / f"{name}.yaml").write_text(text)
    asked: list[str] = []
    real = said.missing
    monkeypatch.setattr(said, "missing", lambda sentence, figure, **kw: (asked.append(sentence),
                                                                         real(sentence, figure, **kw))[1])
    by_itself = monkeypatch.context()
    with by_itself as m:  # the check working out every answer itself, as before
        m.setattr(said, "answers", lambda data: {})
        alone = _loaded(root, 1)
    checks_ask = len(asked)
    asked.clear()
    one = _loaded(root, 1)
    assert one == alone
    # each once, at reading; the records whose unit is refused were answered but never asked
    assert len(asked) == checks_ask + 3
    problems = {(p.file.rsplit("/", 1)[-1], p.key) for p in one[2]}
    assert {("prints-other.yaml", "said"), ("rounded-said.yaml", "said"), ("rounded-also.yaml", "also_said.1"),
            ("unread-figure.yaml", "figure"), ("unknown-unit.yaml", "figure")} == problems
    asked.clear()
    real_check = loader._checked_claim
    monkeypatch.setattr(loader, "_checked_claim", lambda *a: (time.sleep(0.0005), real_check(*a))[1])
    two = _loaded(root, 2)
    assert two == one and split[-1] > 0
    assert len(asked) < checks_ask  # the child's answers came with its records: not worked out here
