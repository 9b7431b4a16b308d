"""Published texts kept as ``claims/<slug>/article.md``: front matter read and skipped (line numbers
stay the file's), ``format: plain`` read as a publishing tool's export, the loader leaves .md alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from test_draft_check import CLAIMS, CORVID
from workings.cli import main
from workings.draft.article import front_matter
from workings.draft.check import check_file
from workings.errors import LedgerError

REPO = Path(__file__).resolve().parent.parent
SLUGS = ("kv-bytes-per-token", "890-bytes-per-token", "hundred-messages")
HEAD = "---\ntitle: Sizing Corvid\npublished: 2025-03-03\nurl: https://example.org/corvid\n{extra}---\n"
BODY = "Sizing Corvid\nCorvid-22B has 56 layers and 4 KV heads.\nFP8 halves the cache.\n"


def ledger(tmp_ledger):
    tmp_ledger.source("corvid", raw=CORVID)
    for claim_id, text in CLAIMS.items():
        tmp_ledger.claim(claim_id, text)
    return tmp_ledger


def test_plain_article_front_matter_skipped_and_lines_true(tmp_ledger):
    led = ledger(tmp_ledger)
    path = led.root / "claims" / "sizing" / "article.md"
    path.write_text(HEAD.format(extra="format: plain\n") + BODY, encoding="utf-8")
    result = check_file(path, led.verify(), issue="sizing")
    assert [(f.line, f.text) for f in result.figures] == [(8, "56"), (8, "4"), (9, "halves")]
    assert not any("title" in s.sentence for s in result.set_aside)
    # Read as Markdown instead, the three lines are one paragraph: "Sizing Corvid" is no heading.
    path.write_text(HEAD.format(extra="") + BODY, encoding="utf-8")
    assert check_file(path, led.verify(), issue="sizing").figures[0].sentence.startswith("Sizing Corvid Corvid-22B")


def test_the_loader_ignores_articles_beside_the_records(tmp_ledger):
    led = ledger(tmp_ledger)
    before = led.verify()
    (led.root / "claims" / "sizing" / "article.md").write_text(HEAD.format(extra="") + "said: x\n", encoding="utf-8")
    after = led.verify()
    assert [c.id for c in after.claims] == [c.id for c in before.claims] and after.problems == before.problems


@pytest.mark.parametrize("head, message", [
    ("---\ntitle: x\n", "never closed"),
    ("---\nformat: html\n---\n", "2: front matter: format must be one of markdown, plain"),
    ("---\nurl: javascript:alert(1)\n---\n", "2: front matter: url must be an http\\(s\\) address"),
    ("---\ntitle: [x\n---\n", "front matter"),
])
def test_bad_front_matter_is_one_clear_error(head, message, tmp_ledger, tmp_path):
    with pytest.raises(LedgerError, match=message):
        front_matter(head + BODY, file="a.md")
    led = ledger(tmp_ledger)
    draft = tmp_path / "a.md"
    draft.write_text(head + BODY, encoding="utf-8")
    result = CliRunner().invoke(main, ["check-draft", str(draft), "--root", str(led.root)])
    assert result.exit_code == 2 and "a.md" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("slug", SLUGS)
def test_the_published_texts_are_in_the_repository(slug):
    path = REPO / "claims" / slug / "article.md"
    text = path.read_text(encoding="utf-8")
    head = front_matter(text, file=str(path))
    assert set(head.data) >= {"title", "published", "url"} and head.data["title"]
    assert head.format == "plain" and head.lines >= 6
    assert text.split("\n")[head.lines].strip()  # the text as published starts right after the block
