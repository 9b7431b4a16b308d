"""html-validate (npm) on every page of the rendered site: this repository's own ledger, and the
small fixture ledger that has a claim of every status.

html-validate is installed by ``scripts/install-validators.sh`` (pinned by .ci/npm/package-lock.json)
into a cache folder outside the repository; ``WORKINGS_HTML_VALIDATE`` may point at another build.
Skips with the reason where it is missing, unless ``WORKINGS_REQUIRE_VALIDATORS=1`` (as ``.ci/run``
and the workflow set), where a missing validator fails. The rules are html-validate's recommended set,
less what ``.htmlvalidate.cjs`` turns off, each with its reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from render_ledger import write_ledger
from validator_tools import INSTALL, REPO, missing, tools

CONFIG = REPO / ".htmlvalidate.cjs"


@pytest.fixture(scope="module")
def html_validate() -> str:
    if not shutil.which("node"):
        missing("node is not installed (html-validate runs on node; Debian: apt-get install nodejs npm)")
    installed = tools() / "npm" / "node_modules" / ".bin" / "html-validate"
    found = os.environ.get("WORKINGS_HTML_VALIDATE") or (str(installed) if installed.exists() else None) \
        or shutil.which("html-validate")
    if not found:
        missing(f"html-validate is not installed at {installed} ({INSTALL})")
    return found


def validate(html_validate: str, site: Path) -> list[str]:
    pages = sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))
    assert pages
    done = subprocess.run([html_validate, "--config", str(CONFIG), "--formatter", "json", *pages],
                          cwd=site, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr  # 1: findings; anything else: it did not run
    results = json.loads(done.stdout or "[]")
    problems = [f"{r['filePath']}:{m['line']}:{m['column']}: [{m['ruleId']}] {m['message']}"
                for r in results for m in r["messages"]]
    assert (done.returncode == 0) == (not problems), done.stdout[-2000:]
    return problems


def test_every_page_of_this_repository_ledger_is_valid(html_validate, tmp_path):
    from workings.engine import verify
    from workings.render import render_site

    site = render_site(verify(REPO), REPO, tmp_path / "site")
    assert len(list(site.rglob("*.html"))) > 100
    assert validate(html_validate, site) == []


def test_every_status_page_of_the_fixture_ledger_is_valid(html_validate, tmp_ledger, tmp_path):
    from workings.render import render_site

    write_ledger(tmp_ledger)
    site = render_site(tmp_ledger.verify(), tmp_ledger.root, tmp_path / "site")
    assert validate(html_validate, site) == []


def test_the_validator_finds_what_it_should(html_validate, tmp_path):
    """It really runs with this configuration: a page with faults is reported, rule by rule."""
    site = tmp_path / "bad"
    site.mkdir()
    (site / "bad.html").write_text('<!DOCTYPE html><html lang="en"><head><title>t</title></head>'
                                   '<body><p id="a">x</p><p id="a"><div>y</div></p></body></html>',
                                   encoding="utf-8")
    rules = {line.split("[", 1)[1].split("]", 1)[0] for line in validate(html_validate, site)}
    assert {"no-dup-id", "close-order"} <= rules  # two ids "a"; a <div> closes the <p> it was put in
