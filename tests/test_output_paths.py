"""Where workings writes: a path the user did not name stays inside the ledger, and render deletes
only what it wrote.

* verify and render write their defaults under ROOT/reports/: a reports/ (or reports/site) that a
  pull request made a symbolic link to a folder outside the ledger is refused (exit 2) and nothing
  is written there; an explicit --json/--out is the user's choice and still works. The same for
  new --from-draft (claims/<issue>/) and probe (ledger/measurements/).
* render --out DIR replaces DIR only while everything in it is a file render wrote, unchanged (the
  .workings-site marker lists each with its sha256): a planted marker cannot license deleting a
  user's file, which survives every case below.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workings.errors import LedgerError
from workings.render.staging import MARKER

# literal inputs only: an estimate, the label that may rest on a stated assumption alone
OK = 'said: "x is 1."\nfigure: "1 B"\nlabel: estimate\ninputs:\n  b: 1 B\nassumptions: {b: y}\ncompute:\n  a: b\n'


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ledger" / "claims" / "t").mkdir(parents=True)
    (tmp_path / "ledger" / "claims" / "t" / "ok.yaml").write_text(OK)
    return tmp_path / "ledger"


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder outside the ledger holding a file of the user's, named like a report."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "ledger.json").write_text("the user's own file")
    (folder / "junit.xml").write_text("the user's own file")
    return folder


def _run(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "workings", *args], capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _untouched(folder: Path) -> None:
    assert sorted(p.name for p in folder.iterdir()) == ["junit.xml", "ledger.json"]
    assert all(p.read_text() == "the user's own file" for p in folder.iterdir())


def test_verify_refuses_a_reports_folder_that_links_outside(root, elsewhere):
    (root / "reports").symlink_to(elsewhere)
    done = _run("verify", "--root", str(root))
    assert done.returncode == 2
    error, cache = done.stderr.splitlines()  # the error, then (after the table) what the cache did
    assert error == (f"error: refusing to write {root}/reports/ledger.json: {root}/reports is a symbolic link "
                     f"(to {elsewhere}), and workings writes only inside the ledger's folder; to write "
                     "elsewhere, say so with --json PATH")
    assert cache.startswith("cache: recomputed 1 of 1 claims (cache: ")
    assert done.stdout.endswith("1 claims: 1 verified\n")  # the check itself still runs and prints
    _untouched(elsewhere)


def test_verify_refuses_a_linked_report_file(root, elsewhere):
    (root / "reports").mkdir()
    (root / "reports" / "ledger.json").symlink_to(elsewhere / "ledger.json")
    done = _run("verify", "--root", str(root))
    assert done.returncode == 2 and "reports/ledger.json is a symbolic link" in done.stderr
    _untouched(elsewhere)


def test_an_explicit_json_path_may_be_anywhere(root, tmp_path):
    out = tmp_path / "ci-output"
    out.mkdir()
    linked = tmp_path / "linked"
    linked.symlink_to(out)
    done = _run("verify", "--root", str(root), "--json", str(linked / "ledger.json"))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["junit.xml", "ledger.json"]
    assert not (root / "reports").exists()


@pytest.mark.parametrize("link", ["reports", "reports/site"])
def test_render_refuses_a_default_folder_that_links_outside(root, tmp_path, link):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("mine")
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    (root / link).symlink_to(outside)
    done = _run("render", "--root", str(root))
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: refusing to write {root}/reports/site: {root}/{link} is a symbolic link")
    assert done.stderr.endswith("to write elsewhere, say so with --out DIR\n")
    assert [p.name for p in outside.iterdir()] == ["notes.txt"]


def test_new_refuses_a_claims_group_that_links_outside(root, tmp_path, elsewhere):
    (root / "claims" / "fresh").symlink_to(elsewhere)
    draft = tmp_path / "draft.md"
    draft.write_text("The cache holds 196,608 bytes per token.\n")
    done = _run("new", "--from-draft", str(draft), "--issue", "fresh", "--root", str(root))
    assert done.returncode == 2
    assert f"{root}/claims/fresh is a symbolic link (to {elsewhere})" in done.stderr
    _untouched(elsewhere)


def test_probe_measurements_are_not_written_through_a_link(root, elsewhere):
    from workings import atomic
    from workings.errors import LedgerError

    (root / "ledger").mkdir()
    (root / "ledger" / "measurements").symlink_to(elsewhere)
    with pytest.raises(LedgerError, match="ledger/measurements is a symbolic link"):
        atomic.check_inside(root, root / "ledger" / "measurements" / "x--cpu--2026-01-01.yaml")
    with pytest.raises(LedgerError, match="resolves outside"):
        atomic.check_inside(root, root / "claims" / ".." / ".." / "x")
    _untouched(elsewhere)


# --- render --out and its marker ---------------------------------------------------------------


def _render(root: Path, out: Path) -> subprocess.CompletedProcess:
    return _run("render", "--root", str(root), "--out", str(out))


def _users_folder(tmp_path: Path, marker: str) -> Path:
    out = tmp_path / "docs"
    out.mkdir()
    (out / "notes.txt").write_text("the user's notes, kept nowhere else")
    (out / "index.html").write_text("<p>the user's own page</p>")
    (out / MARKER).write_text(marker)
    return out


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("marker, why", [
    ("A site rendered by `workings render`; the whole folder is replaced on the next render.\n",
     f"its {MARKER} lists no files"),                                                     # the old marker
    (f"{_sha('something else')}  notes.txt\n{_sha('<p>the user' + chr(39) + 's own page</p>')}  index.html\n",
     "notes.txt was changed since render wrote it"),                                     # a guessed hash
    (f"{_sha('<p>the user' + chr(39) + 's own page</p>')}  index.html\n",
     f"notes.txt is not listed in {MARKER} as a file render wrote"),                       # one file unlisted
    (f"{_sha('<p>the user' + chr(39) + 's own page</p>')}  index.html\n{_sha('x')}  ../outside.txt\n",
     f"{MARKER} line 2 is not '<sha256>  <path>' (a relative path inside the folder)"),    # a path climbing out
])
def test_a_planted_marker_does_not_license_deleting_a_users_files(root, tmp_path, marker, why):
    out = _users_folder(tmp_path, marker)
    done = _render(root, out)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: refusing to replace {out}: ") and why in done.stderr, done.stderr
    assert (out / "notes.txt").read_text() == "the user's notes, kept nowhere else"
    assert (out / "index.html").read_text() == "<p>the user's own page</p>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "ledger"]  # no staging folder left


def test_a_file_added_or_edited_in_a_rendered_site_stops_the_next_render(root, tmp_path):
    out = tmp_path / "site"
    assert _render(root, out).returncode == 0
    listed = [line.split("  ", 1)[1] for line in (out / MARKER).read_text().splitlines() if not line.startswith("#")]
    assert "index.html" in listed and "ledger.json" in listed and MARKER not in listed
    (out / "notes.txt").write_text("mine")
    done = _render(root, out)
    assert done.returncode == 2 and "notes.txt is not listed" in done.stderr
    (out / "notes.txt").unlink()
    (out / "index.html").write_text("edited by hand")
    done = _render(root, out)
    assert done.returncode == 2 and "index.html was changed since render wrote it" in done.stderr
    assert (out / "index.html").read_text() == "edited by hand"


def test_an_unchanged_rendered_site_is_replaced(root, tmp_path):
    out = tmp_path / "site"
    assert _render(root, out).returncode == 0
    first = (out / MARKER).read_text()
    (root / "claims" / "t" / "two.yaml").write_text(OK)
    done = _render(root, out)
    assert done.returncode == 0, done.stderr
    assert (out / "claims" / "t--two.html").is_file() and (out / MARKER).read_text() != first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger", "site"]


@pytest.mark.parametrize("when", ["before the swap", "as the old site is removed"])
def test_a_file_edited_while_the_site_renders_is_kept_even_with_its_size_and_time_put_back(root, tmp_path, when,
                                                                                          monkeypatch):
    """The later looks at the old site trust an unchanged ``lstat`` and hash nothing else: an edit that
    keeps the size and sets the modification time back still moves the change time, so it is caught.
    ``RACY_NS`` is set to 0 so that files written a moment ago count as still (else all are hashed)."""
    from workings.render import staging

    out = tmp_path / "site"
    assert _render(root, out).returncode == 0
    page = out / "index.html"
    original = page.read_bytes()
    time.sleep(0.05)  # the site's change times fall before the first look
    monkeypatch.setattr(staging, "RACY_NS", 0)

    def edit(path: Path) -> None:
        info = path.stat()
        path.write_bytes(b"X" * len(original))  # the same size
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # the same modification time
        assert path.stat().st_size == info.st_size and path.stat().st_mtime_ns == info.st_mtime_ns

    site = staging.Staging(out)
    with site:
        assert site.looked.seen.get("index.html")  # what the first look saw, still
        site.write("index.html", b"the new site")
        time.sleep(0.05)
        if when == "before the swap":
            edit(page)
            with pytest.raises(LedgerError, match="index.html was changed since render wrote it"):
                site.commit()
            assert page.read_bytes() == b"X" * len(original)  # the old site is in place, edit and all
        else:
            listed = staging.check_target(out, site.looked)  # the look just before the swap, then the edit
            old = out.with_suffix(".old")
            os.rename(out, old)
            edit(old / "index.html")
            with pytest.raises(LedgerError, match="were kept in"):
                staging._remove_site(old, listed)
            assert (old / "index.html").read_bytes() == b"X" * len(original)
            assert not (old / "ledger.json").exists()  # the rest of the old site went


def _render_here(root: Path, out: Path) -> None:
    from workings import verify
    from workings.render import render_site

    render_site(verify(root), root, out)


def _files(site: Path) -> dict[str, os.stat_result]:
    return {path.relative_to(site).as_posix(): path.lstat() for path in sorted(site.rglob("*")) if path.is_file()}


def test_a_rerender_links_each_unchanged_page_and_writes_each_changed_one(root, tmp_path, monkeypatch):
    """Over a site it wrote, render links in each old file whose bytes it would write again (the
    same file, and modification time, in the new site) and writes the others; the site is the bytes a
    render into a new folder writes, and the old one is gone."""
    from workings.render import staging

    monkeypatch.setattr(staging, "RACY_NS", 0)  # files written a moment ago count as settled
    out = tmp_path / "site"
    _render_here(root, out)
    before = _files(out)
    time.sleep(0.05)
    (root / "claims" / "t" / "two.yaml").write_text(OK)  # a new claim: the index and ledger.json change
    hashed = []
    sha256 = staging._sha256
    monkeypatch.setattr(staging, "_sha256", lambda path: hashed.append(os.fspath(path)) or sha256(path))
    _render_here(root, out)
    after = _files(out)
    assert sorted(hashed) == sorted(f"{out}/{name}" for name in before  # each file not linked, once
                                    if name != MARKER and after[name].st_ino != before[name].st_ino)
    _render_here(root, tmp_path / "fresh")
    fresh = _files(tmp_path / "fresh")
    assert sorted(after) == sorted(fresh) and "claims/t--two.html" in after
    assert all((out / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes() for name in after)
    kept = {name for name in before if name != MARKER and after[name].st_ino == before[name].st_ino}
    assert "claims/t--ok.html" in kept and "static/style.css" in kept
    assert "index.html" not in kept and "ledger.json" not in kept
    assert all(after[name].st_nlink == 1 and after[name].st_mtime_ns == before[name].st_mtime_ns for name in kept)
    assert all(after[name].st_ino != fresh[name].st_ino for name in after)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh", "ledger", "site"]


def test_a_page_edited_before_the_render_is_not_linked_and_stops_the_swap(root, tmp_path, monkeypatch):
    """The first look reads no file: a page edited by hand well before the render (settled, so the
    first look's ``lstat`` is the file's) is not the bytes the marker lists, nor the new page's, so
    it is not linked (its bytes are compared, not its hash taken on trust); the look before the swap
    hashes it, finds it changed and stops, and the edit stays where it was, the old site whole."""
    from workings.render import staging

    monkeypatch.setattr(staging, "RACY_NS", 0)
    out = tmp_path / "site"
    _render_here(root, out)
    page = out / "claims" / "t--ok.html"
    page.write_bytes(page.read_bytes().replace(b"</article>", b"<p>my note</p></article>"))
    edited = page.read_bytes()
    before = _files(out)
    time.sleep(0.05)
    with pytest.raises(LedgerError, match="claims/t--ok.html was changed since render wrote it"):
        _render_here(root, out)
    assert page.read_bytes() == edited and page.lstat().st_ino == before["claims/t--ok.html"].st_ino
    assert sorted(_files(out)) == sorted(before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger", "site"]


def test_a_page_held_by_another_name_or_with_another_mode_is_written_not_linked(root, tmp_path, monkeypatch):
    """A file of the old site that a user linked elsewhere (their copy must not become the new site's
    page) or gave another mode is not linked: the new site gets a new file, with the mode a written
    page has, and the user's copy keeps the old file."""
    from workings.render import staging

    monkeypatch.setattr(staging, "RACY_NS", 0)
    out = tmp_path / "site"
    _render_here(root, out)
    mine = tmp_path / "mine.html"
    os.link(out / "claims" / "t--ok.html", mine)
    (out / "static" / "style.css").chmod(0o600)
    before = _files(out)
    time.sleep(0.05)
    _render_here(root, out)
    after = _files(out)
    assert after["claims/t--ok.html"].st_ino != before["claims/t--ok.html"].st_ino
    assert mine.lstat().st_ino == before["claims/t--ok.html"].st_ino and mine.lstat().st_nlink == 1
    assert mine.read_bytes() == (out / "claims" / "t--ok.html").read_bytes()
    assert after["static/style.css"].st_ino != before["static/style.css"].st_ino
    assert after["static/style.css"].st_mode & 0o777 == after["index.html"].st_mode & 0o777 != 0o600
    assert after["static/filter.js"].st_ino == before["static/filter.js"].st_ino  # the rest linked


def test_a_linked_page_written_again_or_edited_never_changes_the_old_site_unseen(root, tmp_path, monkeypatch):
    """A linked page written again gets a file of its own (the old site's file is never written
    through); an edit to a linked file before the swap (size and modification time put back) stops
    the swap, and the edit is kept in the old site, which stays in place."""
    from workings.render import staging

    monkeypatch.setattr(staging, "RACY_NS", 0)
    out = tmp_path / "site"
    _render_here(root, out)
    index, page = (out / "index.html").read_bytes(), (out / "claims" / "t--ok.html").read_bytes()
    time.sleep(0.05)
    with staging.Staging(out) as site:
        site.write("index.html", index)
        assert site.linked == {"index.html"}
        site.write("index.html", b"written again")
        assert not site.linked and (out / "index.html").read_bytes() == index
        assert (site.path / "index.html").read_bytes() == b"written again"
        site.write("claims/t--ok.html", page)
        assert site.linked == {"claims/t--ok.html"}
        linked = out / "claims" / "t--ok.html"
        info = linked.stat()
        linked.write_bytes(b"X" * len(page))
        os.utime(linked, ns=(info.st_atime_ns, info.st_mtime_ns))
        with pytest.raises(LedgerError, match="claims/t--ok.html was changed since render wrote it"):
            site.commit()
    assert linked.read_bytes() == b"X" * len(page) and (out / "index.html").read_bytes() == index
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger", "site"]


@pytest.mark.parametrize("link", ["ledger/sources", "ledger/snapshots"])
def test_source_add_writes_nothing_through_a_linked_ledger_folder(root, tmp_path, elsewhere, link):
    (root / "ledger" / "sources").mkdir(parents=True)
    (root / "ledger" / "snapshots").mkdir(parents=True)
    (root / link).rmdir()
    (root / link).symlink_to(elsewhere)
    page = tmp_path / "page.txt"
    page.write_text("The cache holds 196,608 bytes per token.\n")
    done = _run("source", "add", "--file", str(page), "--url", "https://example.org/page", "--how", "saved by hand",
                "--id", "page", "--root", str(root))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{root}/{link} is a symbolic link (to {elsewhere})" in done.stderr
    _untouched(elsewhere)


def test_a_report_written_line_by_line_is_the_whole_text_or_the_old_file(tmp_path):
    """verify writes its JSON report as the lines are made (``atomic.write_lines``): the same bytes as
    writing the joined text, across the 1 MiB blocks it writes in, and a failure while the lines are
    made leaves the old file whole and no temporary file behind."""
    from workings import atomic

    lines = [f"line {i} \u00e9\u2014 {'x' * (i % 5000)}\n" for i in range(2000)]  # several MiB, non-ASCII
    target = tmp_path / "report.json"
    atomic.write_lines(target, iter(lines))
    assert target.read_bytes() == "".join(lines).encode("utf-8")

    def failing():
        yield from lines[:1500]
        raise OSError("the disk is full")

    target.write_text("the old report")
    with pytest.raises(OSError):
        atomic.write_lines(target, failing())
    assert target.read_text() == "the old report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_the_streamed_json_report_is_the_joined_one(tmp_path):
    """``outputs.json_lines`` gives the report's dict (``Report.to_dict``), one record a line, on a
    ledger with claims and problems and an empty list of sources."""
    from workings import outputs, verify

    root = tmp_path / "ledger"
    (root / "claims" / "t").mkdir(parents=True)
    (root / "claims" / "t" / "ok.yaml").write_text(OK)
    (root / "claims" / "t" / "bad.yaml").write_text("said: [\n")
    report = verify(root)
    assert report.problems and report.claims and not report.sources
    import json

    lines = list(outputs.json_lines(report))
    assert "".join(lines) == outputs.to_json(report)
    assert all(line.endswith("\n") and line.count("\n") == 1 for line in lines)  # one record a line
    assert json.loads("".join(lines)) == json.loads(json.dumps(report.to_dict()))
    assert json.loads("".join(lines))["sources"] == []


def test_a_file_is_hashed_whole_through_its_descriptor_and_never_through_a_link(tmp_path):
    """``staging._sha256`` reads into one reused buffer: a file longer than it, and a short one after
    it, hash as their bytes do; a symbolic link (to a file the listed hash would match) hashes as nothing."""
    from workings.render import staging

    long, short = tmp_path / "long.bin", tmp_path / "short.txt"
    long.write_bytes(bytes(range(256)) * 3000)  # 768,000 bytes: three reads and part of a fourth
    short.write_bytes(b"short")
    assert staging._sha256(long) == hashlib.sha256(long.read_bytes()).hexdigest()
    assert staging._sha256(str(short)) == hashlib.sha256(b"short").hexdigest()
    (tmp_path / "link.txt").symlink_to(short)
    assert staging._sha256(tmp_path / "link.txt") == ""
    assert staging._sha256(tmp_path / "missing.txt") == ""


def test_a_file_holds_a_pages_bytes_only_when_it_is_exactly_them(tmp_path):
    """``staging._holds``: the same bytes, not a prefix of them nor more, never read through a link."""
    from workings.render import staging

    page = tmp_path / "page.html"
    data = b"<p>a page</p>\n" * 5000
    page.write_bytes(data)
    assert staging._holds(str(page), data)
    assert not staging._holds(str(page), data[:-1]) and not staging._holds(str(page), data + b"\n")
    assert not staging._holds(str(page), data[:-2] + b"X\n")
    (tmp_path / "link.html").symlink_to(page)
    assert not staging._holds(str(tmp_path / "link.html"), data)
    assert not staging._holds(str(tmp_path / "missing.html"), data)
    assert staging._holds(str(tmp_path / "empty"), b"") is False and (tmp_path / "empty").write_bytes(b"") == 0
    assert staging._holds(str(tmp_path / "empty"), b"")


def test_reports_are_replaced_atomically_and_what_a_person_made_is_also_forced_to_disk(root, tmp_path, monkeypatch):
    """A record, snapshot or measurement (``atomic.write_bytes`` as called by default) is forced to disk,
    the file and then its folder; verify's and check-draft's reports, which the next run makes again,
    are replaced as atomically but left to the system to write back (``durable=False``)."""
    from click.testing import CliRunner

    from workings import atomic
    from workings.cli import main

    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else str(fd))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    atomic.write_bytes(tmp_path / "record.yaml", b"said: x\n")
    assert len(synced) == 2  # the file (its temporary name), then the folder
    assert (tmp_path / "record.yaml").read_bytes() == b"said: x\n"
    synced.clear()
    (root / "reports").mkdir()
    (root / "reports" / "ledger.json").write_text("the last run's report")
    done = CliRunner().invoke(main, ["verify", "--no-cache", "--root", str(root)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert synced == []  # nothing forced to disk for a report
    assert json.loads((root / "reports" / "ledger.json").read_text())["claims"][0]["id"] == "t/ok"
    assert "<testsuite" in (root / "reports" / "junit.xml").read_text()
    assert sorted(p.name for p in (root / "reports").iterdir()) == ["junit.xml", "ledger.json"]  # no temporary left
    draft = tmp_path / "draft.md"
    draft.write_text("x is 1.\n")
    done = CliRunner().invoke(main, ["check-draft", "--no-cache", str(draft), "--json", str(tmp_path / "d.json"), "--root",
                                     str(root)],
                              catch_exceptions=False)
    assert synced == [] and json.loads((tmp_path / "d.json").read_text())
