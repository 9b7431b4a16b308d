"""Screenshots of the ledger page for the README: the index, an article and a claim page, at desktop
and phone width, in Debian's chromium through Playwright (never `playwright install`), from file://
with every other request refused.

    python scripts/screenshots.py [SITE] [OUT]      # defaults: reports/site, docs/screenshots

Render the site first (`workings render`). Desktop shots of the article and the claim are whole
pages; the others are the first screen.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

PAGES = [("index", "index.html", False),
         ("article", "articles/kv-bytes-per-token.html", True),
         ("claim", "claims/kv-bytes-per-token--qwen25-14b-cache-full-window-gb.html", True)]
SIZES = [("", 1200, 1000), ("-phone", 390, 844)]


def main(site: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    executable = os.environ.get("WORKINGS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        for suffix, width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
            for name, path, whole in PAGES:
                page.goto((site / path).as_uri())
                target = out / f"{name}{suffix}.png"
                page.screenshot(path=str(target), full_page=whole and not suffix)
                print(f"wrote {target}")
        browser.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    main(Path(args[0] if args else "reports/site").resolve(), Path(args[1] if len(args) > 1 else "docs/screenshots"))
