"""workings refresh against a stand-in website on 127.0.0.1: passages, redirects, limits."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from refresh_standins import StandInWeb, closed_port_url, other_web, web  # noqa: F401  (fixtures)

from workings.engine import verify
from workings.refresh.fetch import FetchError, Limits, http_get, make_session
from workings.refresh.pagetext import html_to_text, page_text
from workings.refresh.refresh import refresh

FAST = Limits(timeout=2.0, retries=2, backoff=0.0, max_bytes=100_000)  # roomy: the machine may be loaded

PAGE = """<!doctype html><html><head><title>Qwen2.5-1M</title><style>p {{ color: red }}</style>
<script>var tracking = "At least 999GB";</script></head>
<body><nav>Home</nav><article><h1>Qwen2.5-1M</h1>
<p>Qwen2.5-14B-Instruct-1M: At least <strong>320GB</strong> VRAM (total across GPUs).</p>
<p>{second}</p></article></body></html>"""
SECOND = "Directly processing sequences of 1M tokens results in substantial memory overhead."
TRANSCRIPTION = b"Quoted from the blog:\nQwen2.5-14B-Instruct-1M: At least 320GB VRAM (total across GPUs).\n" + (
    SECOND.encode() + b"\n")
VRAM_CLAIM = """\
said: "The 14B model needs at least 320 GB of VRAM."
figure: 320 GB
label: quoted
inputs:
  vram: blog#vram
compute:
  needed: vram
cites: [blog#overhead]
"""


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def blog(tmp_ledger, web: StandInWeb):
    """A transcription of two passages of a blog post that the stand-in website serves."""
    url = web.page("/blog/qwen2.5-1m/", PAGE.format(second=SECOND))
    tmp_ledger.source("blog", (
        f"title: Qwen2.5-1M blog\nurl: {url}\ngrade: transcription\n"
        f"snapshot: {tmp_ledger.snapshot(TRANSCRIPTION, 'txt')}\nformat: text\n"
        "values:\n  vram: {value: 320 GB, passage: \"At least 320GB VRAM (total across GPUs).\"}\n"
        f"passages:\n  overhead: \"{SECOND}\"\n"))
    tmp_ledger.claim("qwen/vram", VRAM_CLAIM)
    assert [c.status for c in verify(tmp_ledger.root).claims] == ["verified"]
    return tmp_ledger


def test_the_page_text_is_archived_when_every_passage_still_occurs(blog, web: StandInWeb) -> None:
    result = refresh(blog.root, limits=FAST, now=lambda: "2026-11-29T12:00:00Z")
    (change,) = result.sources
    assert (change.status, change.applied, change.diff.vanished, change.grade_after) == (
        "changed", True, (), "transcription")
    data = yaml.safe_load((blog.root / "ledger/sources/blog.yaml").read_text())
    text = (blog.root / "ledger/snapshots" / data["snapshot"]).read_text()
    assert text == ("Home\nQwen2.5-1M\nQwen2.5-14B-Instruct-1M: At least 320GB VRAM (total across GPUs).\n"
                    f"{SECOND}\n")
    assert data["retrieved"] == {"on": "2026-11-29T12:00:00Z", "how": "requests: the text of the page",
                                 "url": f"{web.url}/blog/qwen2.5-1m/"}
    assert [c.status for c in verify(blog.root).claims] == ["verified"]
    again = refresh(blog.root, limits=FAST)
    assert [s.status for s in again.sources] == ["unchanged"]


def test_a_quoted_passage_removed_is_reported_with_its_claims(blog, web: StandInWeb) -> None:
    web.page("/blog/qwen2.5-1m/", PAGE.format(second="We rewrote this paragraph."))
    before = tree(blog.root)
    result = refresh(blog.root, limits=FAST)
    (change,) = result.sources
    assert [(v.where, v.text, v.claims) for v in change.diff.vanished] == [
        ("passages.overhead", SECOND, ("qwen/vram",))]
    assert change.blocked and not change.applied and result.exit_code == 1
    assert "passages.overhead: passage does not occur in the snapshot" in change.reason
    assert tree(blog.root) == before


def test_typography_and_spacing_do_not_count_as_a_change_of_passage(blog, web: StandInWeb) -> None:
    web.page("/blog/qwen2.5-1m/", PAGE.format(second=SECOND.replace(" of ", " \n  of ").replace(
        "overhead.", "overhead\u2009.")[:-2] + "."))
    result = refresh(blog.root, limits=FAST)
    assert result.sources[0].diff.vanished == ()


def test_a_redirect_to_another_host_is_reported_not_followed(blog, web: StandInWeb, other_web: StandInWeb) -> None:
    moved_to = other_web.page("/new-home/", PAGE.format(second=SECOND))
    web.redirect("/blog/qwen2.5-1m/", moved_to, status=301)
    before = tree(blog.root)
    result = refresh(blog.root, limits=FAST)
    (change,) = result.sources
    assert (change.status, change.error_kind) == ("unreachable", "moved")
    assert change.reason == f"{web.url}/blog/qwen2.5-1m/ redirects to another host: {moved_to}"
    assert other_web.behaviour.log == [] and tree(blog.root) == before


def test_a_redirect_on_the_same_host_is_followed(blog, web: StandInWeb) -> None:
    web.page("/blog/new/", PAGE.format(second=SECOND))
    web.redirect("/blog/qwen2.5-1m/", "/blog/new/")
    result = refresh(blog.root, limits=FAST)
    assert [(s.status, s.applied) for s in result.sources] == [("changed", True)]
    data = yaml.safe_load((blog.root / "ledger/sources/blog.yaml").read_text())
    assert data["retrieved"]["url"] == f"{web.url}/blog/new/"
    assert data["url"] == f"{web.url}/blog/qwen2.5-1m/"  # the person's URL is theirs to change


@pytest.mark.parametrize(
    ("faults", "kind"),
    [((404,), "http"), (("timeout",), "timeout"), (("oversize",), "too-large"), (("truncate",) * 3, "truncated"),
     ((429, 500, 502), "http")],
)
def test_a_page_that_cannot_be_read_leaves_the_ledger_as_it_was(blog, web: StandInWeb, faults, kind) -> None:
    web.page("/blog/qwen2.5-1m/", PAGE.format(second="changed upstream"))
    web.behaviour.fail("/blog/qwen2.5-1m/", *faults)
    before = tree(blog.root)
    result = refresh(blog.root, limits=FAST)
    assert [(s.status, s.error_kind) for s in result.sources] == [("unreachable", kind)]
    assert result.exit_code == 3 and tree(blog.root) == before


def test_500_then_success(blog, web: StandInWeb) -> None:
    web.behaviour.fail("/blog/qwen2.5-1m/", 500)
    result = refresh(blog.root, limits=FAST)
    assert [(s.status, s.applied) for s in result.sources] == [("changed", True)]
    assert web.behaviour.log == [("GET", "/blog/qwen2.5-1m/")] * 2


def test_retry_after_is_honoured_within_the_cap(web: StandInWeb) -> None:
    url = web.page("/slow", "ok", "text/plain")
    web.behaviour.fail("/slow", 429)
    waits: list[float] = []
    limits = Limits(timeout=2.0, retries=1, backoff=0.25, max_backoff=2.0)
    assert http_get(make_session(), url, limits, sleep=waits.append).data == b"ok"
    assert waits == [0.25]  # the stand-in says Retry-After: 0, so our own backoff applies


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/x", "http:///nohost"])
def test_only_http_urls_are_fetched(url: str) -> None:
    with pytest.raises(FetchError) as caught:
        http_get(make_session(), url, FAST)
    assert caught.value.kind == "scheme"


def test_a_redirect_to_another_scheme_is_refused(web: StandInWeb) -> None:
    url = web.redirect("/r", "file:///etc/passwd")
    with pytest.raises(FetchError, match="redirects to a non-http"):
        http_get(make_session(), url, FAST)


def test_redirects_are_bounded(web: StandInWeb) -> None:
    for hop in range(10):
        web.redirect(f"/hop{hop}", f"/hop{hop + 1}")
    with pytest.raises(FetchError, match="more than 5 redirects"):
        http_get(make_session(), f"{web.url}/hop0", FAST)


def test_a_closed_port_is_named_as_refused() -> None:
    with pytest.raises(FetchError) as caught:
        http_get(make_session(), closed_port_url() + "/x", FAST)
    assert caught.value.kind == "refused" and caught.value.connection


def test_html_to_text_keeps_what_a_reader_sees() -> None:
    html = "<p>a <em>b</em>\n c</p><script>x()</script><ul><li>one<li>two</ul><br/>d&amp;e"
    assert html_to_text(html) == "a b c\none\ntwo\nd&e\n"


def test_non_html_is_kept_as_sent_but_in_utf8() -> None:
    assert page_text(b"plain \xe9", "text/plain; charset=latin-1") == "plain \u00e9".encode()
    assert page_text(b'{"a": 1}', "application/json") == b'{"a": 1}'
