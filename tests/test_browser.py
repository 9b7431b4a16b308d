"""The ledger page in a real headless Chromium, opened from file:// with the network refused.

Needs Debian's ``chromium`` (``apt-get install chromium``) and the ``playwright`` package; never
``playwright install``, which downloads a browser. Skips with the reason where either is missing,
unless ``WORKINGS_REQUIRE_BROWSER=1`` (as ``.ci/run`` sets), where a missing browser fails.
The screenshot is saved under the test's tmp dir and, when ``WORKINGS_SCREENSHOT_DIR`` is set, there.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from render_ledger import write_ledger

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]


def _missing(reason: str):
    if os.environ.get("WORKINGS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"WORKINGS_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install playwright; never `playwright install`)")
    # WORKINGS_CHROMIUM points at another build (and lets the skip itself be tried).
    executable = os.environ.get("WORKINGS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(executable).is_file():
        _missing(f"Chromium is missing at {executable} (Debian: apt-get install chromium)")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


class Watched:
    """A page whose console errors and non-file requests are recorded; every such request is aborted."""

    def __init__(self, browser, **options):
        self.errors: list[str] = []
        self.refused: list[str] = []
        self.page = browser.new_page(**options)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", self._route)

    def _route(self, route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort()


def test_a_reader_follows_a_drifted_claim_offline(browser, tmp_ledger, tmp_path):
    from workings.render import render_site

    write_ledger(tmp_ledger)
    site = render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "site")
    watched = Watched(browser, viewport={"width": 1100, "height": 900})
    page = watched.page
    page.goto((site / "index.html").as_uri())

    assert page.locator("#filter").is_visible()  # the script ran and showed the filter
    assert page.locator('[data-count="drift"] b').inner_text() == "3"
    page.select_option("#filter select[name=status]", "unchecked")
    visible = page.locator("tr[data-claim]:visible")
    assert visible.count() == 1 and visible.get_attribute("data-claim") == "kv/vendor-hbm"
    page.select_option("#filter select[name=status]", "")

    page.locator('#attention a[data-claim="kv/full-window"]').click()
    page.wait_for_load_state()
    assert page.url.endswith("/claims/kv--full-window.html")
    assert page.locator("article[data-claim]").get_attribute("data-status") == "drift"
    assert page.locator("[data-printed]").inner_text() == "190.0 GB"
    assert page.locator("[data-recomputed]").inner_text() == "198.57408 GB"
    assert "does not hold" in page.locator("section.recomputed").inner_text()

    page.locator('a[href="../sources/qwen.html"]').first.click()
    page.wait_for_load_state()
    assert page.locator("a[data-snapshot]").count() == 1

    shot = tmp_path / "claim.png"
    page.go_back()
    page.wait_for_load_state()
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("WORKINGS_SCREENSHOT_DIR"):
        target = Path(os.environ["WORKINGS_SCREENSHOT_DIR"])
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, target / "browser-claim.png")
    assert watched.errors == []
    assert watched.refused == []
    with pytest.raises(Exception):  # and the guard itself works: a request that does leave is refused
        page.goto("https://example.org/beacon")
    assert watched.refused == ["https://example.org/beacon"]


def test_the_page_reads_on_a_phone_and_without_script(browser, tmp_ledger, tmp_path):
    from workings.render import render_site

    write_ledger(tmp_ledger)
    site = render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "site")
    context = browser.new_context(java_script_enabled=False, viewport={"width": 375, "height": 740})
    page = context.new_page()
    page.goto((site / "index.html").as_uri())
    assert page.locator("#filter").is_hidden()  # no script: no dead controls, every claim still listed
    assert page.locator("section.group tr[data-claim]:visible").count() == 7
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the index scrolls sideways on a phone ({width}px)"
    page.emulate_media(media="print")
    assert page.locator("#filter").is_hidden()
    context.close()
