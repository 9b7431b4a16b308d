"""The reader's path in real Chromium, from file:// with the network refused: an article's figure to
its claim, the claim's whole working to a config key and a quoted passage; long text wraps; axe-clean.

Driven like tests/test_browser.py (Debian's chromium through Playwright, never `playwright install`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from render_ledger import write_ledger
from test_browser import Watched, _missing, browser  # noqa: F401  (the browser fixture)

from workings import expr, units
from workings.render import render_site
from workings.render.words import reader

pytestmark = pytest.mark.browser
LONG = "x" * 2000  # one unbroken "word" of 2,000 characters


def terms(page) -> list[str]:
    return page.eval_on_selector_all("[data-working] [data-term]", "els => els.map(e => e.dataset.term)")


def test_a_reader_follows_a_figure_from_the_article_down_to_a_source(browser, tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    report = tmp_ledger.verify()
    site = render_site(report, tmp_ledger.root, tmp_path / "site")
    watched = Watched(browser, viewport={"width": 1100, "height": 900})
    page = watched.page
    page.goto((site / "index.html").as_uri())
    page.locator("a[data-article]").click()
    page.wait_for_load_state()
    assert page.url.endswith("/articles/kv.html")
    assert page.locator('[data-figure="unbacked"]').inner_text().startswith("7")
    assert page.locator('a[data-figure="unbacked"]').count() == 0  # nothing links an unbacked figure

    page.locator('a[data-figure="backed"]').first.click()  # "196,608 bytes per token"
    page.wait_for_load_state()
    assert page.url.endswith("/claims/kv--per-token.html")
    assert page.locator("[data-printed]").inner_text() == "196,608 B/token"
    # the working the page shows, recomputed from its own text, is the engine's value
    claim = report.claim("kv/per-token")
    shown = expr.evaluate(expr.parse(" ".join(terms(page))), {})
    assert units.convert(shown, claim.result.unit) == claim.result.value
    assert page.locator("[data-working-result]").inner_text() == reader(claim.result, exact=True)
    assert page.locator("[data-working]").inner_text().startswith("2 × 48")

    page.locator('[data-working] a[href$="#key-num_hidden_layers"]').click()
    page.wait_for_load_state()
    assert page.url.endswith("/sources/qwen.html#key-num_hidden_layers")
    row = page.locator("tr:target")
    assert row.get_attribute("data-key") == "num_hidden_layers" and "48" in row.inner_text()
    row.locator("a", has_text="in the archived copy").click()
    page.wait_for_load_state()
    assert '"num_hidden_layers": 48' in page.content()

    # and a value declared with its passage: the passage is on the page the leaf links to
    page.goto((site / "claims" / "weights--activations-exceed-cache.html").as_uri())
    page.locator('[data-working] a[href$="#key-activations"]').click()
    page.wait_for_load_state()
    assert page.locator("tr:target [data-passage]").inner_text() == "needs 71 GB of VRAM"
    assert watched.errors == [] and watched.refused == []


def test_long_unbroken_text_wraps_and_the_pages_are_axe_clean(browser, tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    tmp_ledger.claim("kv/long", f'said: "The cache is {LONG} 141 GB."\nfigure: 141 GB\nlabel: vendor\n'
                     f'notes: "{LONG}"\n')
    article = tmp_ledger.root / "claims" / "kv" / "article.md"
    article.write_text(article.read_text() + f"The cache is {LONG} 141 GB.\n", encoding="utf-8")
    site = render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "site")
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        Axe = None
    shots = []
    for width, height in ((1100, 900), (375, 740)):
        watched = Watched(browser, viewport={"width": width, "height": height})
        page = watched.page
        for name in ("index.html", "articles/kv.html", "claims/kv--long.html", "claims/kv--full-window.html",
                     "sources/blog.html"):
            page.goto((site / name).as_uri())
            scroll = page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, f"{name} is {scroll}px wide at {width}px"
            if Axe is not None:
                results = Axe().run(page, options={"resultTypes": ["violations"], "preload": False})
                assert results.violations_count == 0, (name, width, results.generate_report())
        page.goto((site / "claims" / "kv--full-window.html").as_uri())
        shot = tmp_path / f"working-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
        shots.append(shot)
        assert watched.errors == [] and watched.refused == []
    if Axe is None:
        _missing("axe-playwright-python is not installed (pip install axe-playwright-python)")
    if os.environ.get("WORKINGS_SCREENSHOT_DIR"):
        target = Path(os.environ["WORKINGS_SCREENSHOT_DIR"])
        target.mkdir(parents=True, exist_ok=True)
        for shot in shots:
            shutil.copyfile(shot, target / shot.name)
