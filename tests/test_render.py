"""The HTML ledger: gold files, determinism, links that resolve, nothing that leaves the page."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from render_ledger import write_ledger

from workings.cli import main
from workings.report import STATUSES

GOLD = Path(__file__).parent / "gold" / "render"


@pytest.fixture
def site(tmp_ledger, tmp_path) -> Path:
    from workings.render import render_site

    write_ledger(tmp_ledger)
    return render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "site")


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_fixture_has_every_status_the_page_must_show(tmp_ledger):
    statuses = {c.id: c.status for c in write_ledger(tmp_ledger).verify().claims}
    assert set(statuses.values()) == {"verified", "erratum", "drift", "unchecked", "error"}
    assert statuses["kv/two-chats"] == "drift"  # through its input, not its own figure


def test_pages_match_the_gold_files(site):
    """Every page byte for byte, and the list of files; WORKINGS_UPDATE_GOLD=1 rewrites them."""
    files = tree(site)  # ledger.json is held to verify's JSON below; snapshots are named by their sha256
    manifest = "".join(f"{name}\n" for name in files if not name.startswith("static/"))
    pages = {name: data for name, data in files.items() if name.endswith(".html")}
    if os.environ.get("WORKINGS_UPDATE_GOLD") == "1":
        for old in GOLD.rglob("*.html") if GOLD.exists() else ():
            old.unlink()
        for name, data in pages.items():
            (GOLD / name).parent.mkdir(parents=True, exist_ok=True)
            (GOLD / name).write_bytes(data)
        (GOLD / "MANIFEST.txt").write_text(manifest, encoding="utf-8")
    assert manifest == (GOLD / "MANIFEST.txt").read_text(encoding="utf-8")
    gold = {p.relative_to(GOLD).as_posix(): p.read_bytes() for p in sorted(GOLD.rglob("*.html"))}
    assert sorted(pages) == sorted(gold)
    for name in pages:
        assert pages[name].decode() == gold[name].decode(), f"{name} differs from tests/gold/render/{name}"


def test_the_same_report_renders_the_same_bytes(tmp_ledger, tmp_path):
    from workings.render import render_site

    write_ledger(tmp_ledger)
    first = tree(render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "a"))
    second = tree(render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "b"))
    assert first == second


class Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(path: Path) -> Elements:
    parser = Elements()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_claim_element_says_its_claim_and_status(site):
    for page in site.rglob("*.html"):
        for tag, attrs in parse(page).elements:
            if "data-claim" in attrs:
                assert attrs.get("data-status") in STATUSES, (page.name, tag, attrs)


def test_every_local_link_resolves_and_nothing_loads_from_elsewhere(site):
    for page in site.rglob("*.html"):
        elements = parse(page).elements
        ids = {attrs["id"] for _, attrs in elements if "id" in attrs}
        for tag, attrs in elements:
            for attr in ("href", "src"):
                target = attrs.get(attr)
                if target is None:
                    continue
                parts = urlsplit(target)
                if parts.scheme:
                    assert tag == "a" and parts.scheme in ("http", "https"), (page.name, tag, target)
                elif parts.path:
                    assert (page.parent / parts.path).resolve().is_file(), (page.name, target)
                else:
                    assert parts.fragment in ids, (page.name, target)
    for static in (site / "static").iterdir():
        text = static.read_text(encoding="utf-8")
        assert not re.search(r"url\(|@import|fetch\(|XMLHttpRequest|https?://", text), static.name


def test_a_claim_page_shows_printed_recomputed_steps_inputs_and_sources(site):
    page = (site / "claims" / "kv--full-window.html").read_text(encoding="utf-8")
    assert '<span class="printed" data-printed>190.0 GB</span>' in page
    assert '<span class="value" data-recomputed>198.57408 GB</span>' in page
    assert "<var>cache</var> = per_token * window" in page
    assert 'href="../sources/qwen.html"' in page and 'href="../claims/kv--per-token.html"' in page
    two = (site / "claims" / "kv--two-chats.html").read_text(encoding="utf-8")
    assert "Inputs that moved" in two and "kv--full-window.html" in two


def test_the_index_lists_failing_claims_first_and_counts_by_status(site):
    page = (site / "index.html").read_text(encoding="utf-8")
    attention = page.index('id="attention"')
    first_group = page.index('<section class="group"')
    assert attention < first_group
    assert page.index('data-claim="kv/broken-units"') < first_group
    assert re.search(r'data-count="drift">.*?<b>3</b>', page)


def test_snapshots_are_copied_and_linked_with_their_sha256(site):
    page = (site / "sources" / "blog.html").read_text(encoding="utf-8")
    link = re.search(r'href="\.\./(snapshots/([0-9a-f]{64})\.txt)" data-snapshot', page)
    assert link and link.group(2) in page.split("sha256", 1)[1]
    assert hashlib.sha256((site / link.group(1)).read_bytes()).hexdigest() == link.group(2)


def test_ledger_json_is_the_verify_report(site, tmp_ledger):
    from workings import outputs

    assert (site / "ledger.json").read_bytes() == outputs.to_json(tmp_ledger.verify()).encode("utf-8")


def test_cli_render_writes_the_site_under_reports_by_default(tmp_ledger):
    write_ledger(tmp_ledger)
    result = CliRunner().invoke(main, ["render", "--root", str(tmp_ledger.root)])
    assert result.exit_code == 0, result.output
    assert result.output == (f"7 claims: 1 verified, 1 erratum, 3 drift, 1 unchecked, 1 error\n"
                             f"wrote {tmp_ledger.root / 'reports' / 'site' / 'index.html'}\n")
    assert (tmp_ledger.root / "reports" / "site" / "claims" / "kv--per-token.html").is_file()


def test_render_exits_with_what_it_built_frozen_out_of_the_last_collection(tmp_ledger, tmp_path):
    """As verify does: a handler registered before render runs after render's, and sees the report
    and the site's views frozen (the interpreter's last collection would only rescan them)."""
    write_ledger(tmp_ledger)
    probe = ("import atexit, gc, sys\n"
             "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 1_000, file=sys.stderr))\n"
             "from workings.cli import main\n"
             "main()\n")
    done = subprocess.run([sys.executable, "-c", probe, "render", "--root", str(tmp_ledger.root),
                           "--out", str(tmp_path / "site")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "frozen at exit: True" in done.stderr
    assert (tmp_path / "site" / "index.html").is_file()


def test_a_page_is_written_as_its_bytes_and_never_through_a_link(tmp_path):
    """Staging writes each file through its descriptor: the bytes as given (no newline translation),
    a name written twice holds the last bytes, and a link planted in the new site is not followed."""
    from workings.render.staging import Staging

    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep")
    with Staging(tmp_path / "site") as staging:
        staging.write("a/b/page.html", b"one\r\ntwo\n" * 10_000)
        staging.write("index.html", b"first, longer")
        staging.write("index.html", b"second")
        assert (staging.path / "a" / "b" / "page.html").read_bytes() == b"one\r\ntwo\n" * 10_000
        assert (staging.path / "index.html").read_bytes() == b"second"
        (staging.path / "linked.html").symlink_to(outside)
        with pytest.raises(OSError):
            staging.write("linked.html", b"overwritten")
        assert outside.read_bytes() == b"keep"
        assert staging.written["a/b/page.html"] == hashlib.sha256(b"one\r\ntwo\n" * 10_000).hexdigest()


def test_cli_render_refuses_a_folder_it_did_not_make(tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    result = CliRunner().invoke(main, ["render", "--root", str(tmp_ledger.root), "--out", str(tmp_path / "mine")])
    assert result.exit_code == 2
    assert "refusing to replace" in result.output and (tmp_path / "mine" / "notes.txt").read_text() == "keep"


def test_importing_the_cli_does_not_load_jinja2():
    code = "import sys, workings.cli, workings.engine; print('jinja2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "False\n"


def test_render_site_leaves_the_collector_as_it_found_it(tmp_ledger, tmp_path):
    """render pauses the cyclic collector while it makes the site (gcpause.paused) and gives it back
    running, with nothing frozen, whether the render succeeds or fails; a collector switched off by
    the caller stays off."""
    import gc

    from workings.errors import LedgerError
    from workings.render import render_site

    write_ledger(tmp_ledger)
    report = tmp_ledger.verify()
    assert gc.isenabled()
    render_site(report, tmp_ledger.root, tmp_path / "site")
    assert gc.isenabled() and gc.get_freeze_count() == 0
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("keep")
    with pytest.raises(LedgerError):
        render_site(report, tmp_ledger.root, tmp_path / "taken")
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        render_site(report, tmp_ledger.root, tmp_path / "site")
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()
