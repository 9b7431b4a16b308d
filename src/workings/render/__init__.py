"""The HTML ledger: the page readers follow from a printed figure to its sources and working.

``render_site(report, root, out)`` formats a Report (the one verify computes) into a static site:

    index.html            the articles; every claim by group, counts by status, drifted or failing first
    articles/<slug>.html  each published text (claims/<slug>/article.md), every figure marked by
                          check-draft's result and linked to its claim (render/articles.py)
    claims/<id>.html      one page per claim: as printed, recomputed, the whole working written out
                          to its leaves (workings/working.py), steps, inputs, sources (laid out in
                          Python, render/claimpage.py: 10,000 and more of them)
    sources/<id>.html     one page per source: grade, link, snapshot (copied, with its sha256)
    snapshots/<sha256>.*  the archived bytes, so links work from file:// and offline
    explainer.html        the explainer: a model, a machine, a chat length, against the ledger's figures
                          (only where the ledger has ledger/explainer.yaml)
    static/               the stylesheet and the small scripts (filter, explainer), from the package
    ledger.json           the Report for machines (the same JSON as ``workings verify``)

Self-contained and deterministic: no request leaves the page (no CDN, no fonts; a Content
Security Policy forbids any), no timestamps, so the same Report renders the same bytes. Templates
use ``autoescape=True`` and no record text is ever marked safe; only http(s) URLs become links.
jinja2 loads here, never on the verify path.
"""

from __future__ import annotations

import enum
from importlib.resources import files
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from .. import outputs
from ..gcpause import frozen, paused
from ..explainer import Explainer, build
from ..report import Report
from .explainer import PAGE as EXPLAINER_PAGE
from .explainer import ExplainerView
from .staging import Staging, copy_snapshots
from . import markup
from .articles import load_articles
from .claimpage import ClaimPages
from .forked import claim_pages_beside, default_jobs
from .views import BASIS_MEANING, GRADE_MEANING, LABEL_MEANING, STATUS_MEANING, STATUS_SYMBOL, Site
from .words import finalize, page_title

__all__ = ["render_site", "environment"]


def environment() -> Environment:
    env = Environment(loader=PackageLoader("workings"), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, finalize=finalize)
    env.globals.update(status_symbol=STATUS_SYMBOL, status_meaning=STATUS_MEANING,
                       label_meaning=LABEL_MEANING, grade_meaning=GRADE_MEANING, basis_meaning=BASIS_MEANING,
                       explainer_page=None)  # the explainer's page, where the site has one: any page may link it
    # Lists of thousands of items, laid out in Python (render/markup.py: the macros' bytes)
    env.globals.update(claim_rows=lambda items, up: Markup(markup.claim_rows(items, markup.e(up))),
                       claim_list=lambda links, up: Markup(markup.claim_list(links, markup.e(up))))
    env.filters["page_title"] = page_title
    # The legend reads only these globals: the same on every page, so rendered once, not per page.
    env.globals["legend"] = Markup(env.get_template("legend.html").render())
    return env


class _Unset(enum.Enum):
    UNSET = "unset"  # explainer not given: read it from root


_UNSET = _Unset.UNSET


def render_site(report: Report, root: str | Path, out: str | Path, *,
                explainer: Explainer | None | _Unset = _UNSET, jobs: int | None = None) -> Path:
    """Render ``report`` (of the ledger at ``root``) into the folder ``out``, replacing it atomically.

    ``explainer`` is the ledger's explainer (``workings.explainer.build``), read from ``root`` when not
    given; None renders no explainer page. ``out`` must be new, empty, or a site rendered before;
    anything else is refused (LedgerError). ``jobs``: how many processes may make the claim pages
    (``render/forked.py``; default: the processors this one may use, at most 4; the site is the
    same bytes for any number)."""
    root, out = Path(root), Path(out)
    if explainer is _UNSET:
        explainer = build(report, root)
    env = environment()
    env.globals["explainer_page"] = EXPLAINER_PAGE if explainer is not None else None
    # no collection rescans the pages' views and workings; at the end all is unfrozen, the collector as it was
    with frozen(), paused(), Staging(out) as staging:
        snapshots = copy_snapshots(staging, root, report.sources)
        site = Site(report, snapshots)  # its articles come once checked, below

        def page(name: str, template: str, depth: int, **context) -> None:
            html = env.get_template(template).render(up="../" * depth, **context)
            staging.write(name, html.encode("utf-8"))

        claim_pages = ClaimPages(env, "../")  # laid out in Python (render/claimpage.py), in base.html's frame
        # the processes making the later parts of the claim pages start first, and this one checks
        # the articles and makes the other pages meanwhile, then its own (smaller) part of the claim
        # pages (render/forked.py); a claim page lists the article figures it backs, which the
        # children are sent once known
        with claim_pages_beside(site, claim_pages.page, staging, default_jobs() if jobs is None else jobs) as beside:
            articles, problems = load_articles(root, report)
            site.add_articles(articles)
            beside.articles_known()
            page("index.html", "index.html", 0, **site.index(), article_problems=problems)
            for article in articles:
                page(site.article_pages[article.slug], "article.html", 1, **site.article(article))
            if explainer is not None:
                page(EXPLAINER_PAGE, "explainer.html", 0, **ExplainerView(explainer, site.claim_pages).context())
            for source in report.sources:
                page(site.source_pages[source.id], "source.html", 1, **site.source(source))
            static = files("workings") / "static"
            for item in sorted(static.iterdir(), key=lambda p: p.name):
                if item.is_file() and not item.name.startswith("."):
                    staging.write(f"static/{item.name}", item.read_bytes())
            # verify's JSON report, written as its UTF-8 parts come (``outputs.json_parts``: the bytes
            # ``to_json`` encodes), never held whole
            staging.write_parts("ledger.json", outputs.json_parts(report))
        staging.commit()
    return out
