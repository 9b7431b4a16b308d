"""The HTML ledger is safe to publish: record text is never markup, only http(s) is linked, and
rendering replaces only a folder that is its own."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from render_ledger import write_ledger

from workings.errors import LedgerError
from workings.render import render_site
from workings.render.staging import MARKER
from workings.render.views import safe_url

SCRIPT = '<script>alert("x")</script>'


def hostile(report):
    """The fixture report with markup and a javascript: URL in every kind of record text."""
    claims = [replace(c, said=f"{SCRIPT} said", notes=f"{SCRIPT} notes", figure=c.figure and f"{c.figure}<b>",
                      about=f"{SCRIPT} 1",
                      cites=tuple(replace(x, text=f"{SCRIPT} quote") for x in c.cites))
              for c in report.claims]
    claims.append(replace(claims[0], id='kv/"><img src=x onerror=alert(1)>', used_by=(), uses=()))
    sources = [replace(s, title=f"{SCRIPT} title", url="javascript:alert(1)", publisher="<i>pub</i>",
                       passages={k: f"{SCRIPT} {v}" for k, v in s.passages.items()},
                       retrieved={"url": "JavaScript:alert(2)", "how": SCRIPT},
                       hub={"repo": "javascript:alert(3)", "file": "x", "revision": "main"})
               for s in report.sources]
    return replace(report, claims=tuple(claims), sources=tuple(sources))


def test_markup_in_records_shows_as_text_and_javascript_urls_are_not_linked(tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    site = render_site(hostile(tmp_ledger.verify()), tmp_ledger.root, tmp_path / "site")
    pages = {p: p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    assert len(pages) == 2 + 1 + 8 + 1  # and the article page
    for path, html in pages.items():
        assert "<script>alert" not in html and "<img src=x" not in html and "<i>pub" not in html, path
        assert 'href="javascript' not in html.lower() and "href='javascript" not in html.lower(), path
        scripts = html.count("<script")
        assert scripts == (1 if path.name == "index.html" else 0), path  # only the filter, by src
    claim = (site / "claims" / "kv--per-token.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; said" in claim
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; quote" in claim
    assert '<dt>About</dt><dd class="about">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; 1</dd>' in claim
    source = (site / "sources" / "blog.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; title" in source
    assert '<span class="unlinked">javascript:alert(1)</span> (not linked' in source
    assert "JavaScript:alert(2)" in source and 'href="JavaScript' not in source


@pytest.mark.parametrize("url, linked", [
    ("https://huggingface.co/Qwen/x", True), ("http://example.org", True), ("HTTPS://EXAMPLE.ORG/", True),
    ("javascript:alert(1)", False), (" javascript:alert(1)", False), ("java\nscript:alert(1)", False),
    ("data:text/html,<b>", False), ("//example.org/x", False), ("file:///etc/passwd", False),
    ("/relative", False), ("https:no-host", False), ("https://example.org/a b", False), (None, False), (3, False),
])
def test_only_absolute_http_urls_are_links(url, linked):
    assert safe_url(url) == (url if linked else None)


def test_render_replaces_an_earlier_site_and_leaves_nothing_behind(tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    out = tmp_path / "reports" / "site"
    render_site(tmp_ledger.verify(), tmp_ledger.root, out)
    stale = out / "claims" / "kv--broken-units.html"  # a page of a claim since removed: render wrote it
    assert stale.is_file()
    (tmp_ledger.root / "claims" / "kv" / "broken-units.yaml").unlink()
    neighbour = tmp_path / "reports" / "ledger.json"
    neighbour.write_text("{}")
    render_site(tmp_ledger.verify(), tmp_ledger.root, out)
    assert not stale.exists() and (out / MARKER).is_file()
    assert sorted(p.name for p in out.parent.iterdir()) == ["ledger.json", "site"]  # no temp folders left
    assert neighbour.read_text() == "{}"


@pytest.mark.parametrize("setup", ["folder with files", "file", "symlink"])
def test_render_refuses_to_replace_what_it_did_not_make(tmp_ledger, tmp_path, setup):
    write_ledger(tmp_ledger)
    out = tmp_path / "out"
    if setup == "folder with files":
        out.mkdir()
        (out / "notes.txt").write_text("mine")
    elif setup == "file":
        out.write_text("mine")
    else:
        (tmp_path / "elsewhere").mkdir()
        out.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(LedgerError, match="refusing to"):
        render_site(tmp_ledger.verify(), tmp_ledger.root, out)
    if setup == "folder with files":
        assert (out / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_failed_render_keeps_the_previous_site(tmp_ledger, tmp_path, monkeypatch):
    from workings.render import views

    write_ledger(tmp_ledger)
    out = tmp_path / "site"
    render_site(tmp_ledger.verify(), tmp_ledger.root, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(self, source):
        raise RuntimeError("template failed")

    monkeypatch.setattr(views.Site, "source", broken)
    with pytest.raises(RuntimeError):
        render_site(tmp_ledger.verify(), tmp_ledger.root, out)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_snapshot_whose_bytes_changed_is_not_linked(tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    report = tmp_ledger.verify()
    snapshot = next(tmp_ledger.root.glob("ledger/snapshots/*.txt"))
    snapshot.write_bytes(b"tampered\n")
    site = render_site(report, tmp_ledger.root, tmp_path / "site")
    page = (site / "sources" / "blog.html").read_text(encoding="utf-8")
    assert "data-snapshot" not in page and "do not match the sha256" in page
    assert not (site / "snapshots" / snapshot.name).exists()


def test_an_archived_html_page_is_copied_as_text(tmp_ledger, tmp_path):
    import hashlib

    write_ledger(tmp_ledger)
    raw = b"<html><img src='https://example.org/beacon.png'></html>"
    name = f"{hashlib.sha256(raw).hexdigest()}.html"
    (tmp_ledger.root / "ledger" / "snapshots" / name).write_bytes(raw)
    report = tmp_ledger.verify()
    blog = next(s for s in report.sources if s.id == "blog")
    report = replace(report, sources=tuple(replace(s, snapshot=name, sha256=name[:64]) if s is blog else s
                                           for s in report.sources))
    site = render_site(report, tmp_ledger.root, tmp_path / "site")
    assert (site / "snapshots" / f"{name}.txt").read_bytes() == raw
    assert not Path(site / "snapshots" / name).exists()


def test_invalid_records_still_get_pages_that_say_why(tmp_ledger, tmp_path):
    tmp_ledger.qwen()
    tmp_ledger.claim("kv/typo", 'said: "x"\nfigur: 1 B\nlabel: derived\n')
    tmp_ledger.source("bad", "title: a source\ngrade: excellent\n")
    report = tmp_ledger.verify()
    site = render_site(report, tmp_ledger.root, tmp_path / "site")
    claim = (site / "claims" / "kv--typo.html").read_text(encoding="utf-8")
    assert 'data-claim="kv/typo" data-status="error"' in claim and "figur" in claim
    source = (site / "sources" / "bad.html").read_text(encoding="utf-8")
    assert "this record cannot be used" in source and "excellent" in source
    index = (site / "index.html").read_text(encoding="utf-8")
    assert index.index('data-claim="kv/typo"') < index.index('<section class="group"')
