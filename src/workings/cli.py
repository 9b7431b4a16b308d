"""The command line: thin wrappers over library calls.

Exit codes (every command that checks): 0 all good, 1 a figure drifted, 2 the input could not be
used (2 wins over 1); ``refresh`` and ``source add`` 3 when nothing could be fetched; 70 a bug in
workings. What is caught is printed as one ``error:`` line with exit 2: a ``LedgerError`` (bad
input, with its place), an ``OSError`` writing verify's reports, and the ``ImportError`` of a missing
extra (torch for ``probe``, the web extra for ``refresh``). Any other exception is a bug: its
traceback, then one ``error:`` line saying so and where (the innermost line of workings' own code),
and exit 70 (``EX_SOFTWARE`` of sysexits.h), so that CI never reads a bug as a drifted figure.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import safetext
from .errors import LedgerError
from .gcpause import paused

if TYPE_CHECKING:
    from .written import Verified

EXIT_CODES = ("Exit codes: 0 all good, 1 a figure drifted, 2 the input could not be used (2 wins), "
              "70 a bug in workings.")
EX_BUG = 70  # EX_SOFTWARE (sysexits.h): an internal software error, never a verdict on the ledger
_PACKAGE = Path(__file__).resolve().parent

root_option = click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=".",
                           show_default=True, help="The ledger's folder (holding claims/ and ledger/).")


class _Commands(click.Group):
    """Every command: an exception nothing caught is a bug, reported as one (exit 70)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise  # click's own: usage errors (exit 2), --help, Ctrl-C
        except Exception as exc:  # noqa: BLE001 - reported as a bug, with its traceback, then exit 70
            _bug(exc)
            sys.exit(EX_BUG)


def _bug(exc: BaseException) -> None:
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if Path(f.filename).resolve().is_relative_to(_PACKAGE)]
    where = ours[-1] if ours else (frames[-1] if frames else None)
    place = ""
    if where is not None:
        path = Path(where.filename).resolve()
        shown = f"workings/{path.relative_to(_PACKAGE).as_posix()}" if path.is_relative_to(_PACKAGE) else path.name
        place = f" at {shown}:{where.lineno} in {where.name}"
    _say(*"".join(traceback.format_exception(exc)).splitlines(), err=True)
    _error(f"this is a bug in workings ({type(exc).__name__}{place}: {exc}); please report it with the "
           "command and the traceback above. Exit 70.")


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="workings")
def main() -> None:
    """workings: every published figure with its sources and a units-checked computation.

    Every command exits 70 on a bug in workings (with its traceback), never 1 or 2."""


def run() -> None:
    """The program (the ``workings`` command, ``python -m workings``): ``main``, then the process ends
    without the interpreter's teardown (``ending``)."""
    from . import ending

    ending.start()
    try:
        main()  # click's standalone mode: every way out is a SystemExit, but an exception it lets through
    except SystemExit as exc:
        ending.end(exc)  # returns only where the process must exit as Python always does
        raise


def _say(*lines: object, err: bool = False) -> None:
    """Print lines made safe for a terminal and a CI log (``safetext``): record text and file
    names reach here, and none of them may move the cursor or forge a line."""
    click.echo(safetext.lines(lines), nl=False, err=err)


def _error(message: object) -> None:
    _say(f"error: {message}", err=True)


def _verify(root: Path, jobs: int | None = None):
    from . import verify

    try:
        return verify(root, jobs=jobs)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)


def _verify_cold(root: Path, jobs: int | None = None) -> Verified:
    from .coldshares import verify as verify_cold  # each claim's share made by the process that evaluated it

    try:
        return verify_cold(root, jobs=jobs)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)


def _verify_cached(root: Path, jobs: int | None = None) -> tuple[Verified, list[str]]:
    """What verify writes, through its cache (``workings.cache``), and the lines that say what the
    cache did (for stderr: stdout and the report files stay a cold run's, byte for byte)."""
    from .cache import verify as verify_cached
    from .cachestore import CacheRefused, Store, disabled_by_env

    if disabled_by_env():
        return _verify_cold(root, jobs), []
    try:
        store = Store.for_root(root)
    except CacheRefused as exc:
        return _verify_cold(root, jobs), [f"cache: not used: {exc}"]
    try:
        report, stats = verify_cached(root, store, jobs=jobs)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)
    return report, [*store.notes, stats.line()]


@main.command(epilog=EXIT_CODES)
@root_option
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the JSON report [default: ROOT/reports/ledger.json].")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write JUnit XML [default: next to the JSON report, junit.xml].")
@click.option("--quiet", "-q", is_flag=True, help="Print only failing claims and the summary.")
@click.option("--no-cache", is_flag=True,
              help="Recompute every claim, neither reading nor writing the cache (so does WORKINGS_NO_CACHE=1).")
@click.option("--jobs", "jobs", type=click.IntRange(1, 64), default=None,
              help="Processes that read the claim records of a large ledger (2,000 records and more) and "
                   "evaluate its claims when every claim is recomputed: 2 where this process may use two "
                   "processors [default], 1 for this one alone; the report is the same bytes for any number.")
@paused()  # few cycles are built: no collection rescans what was (gcpause)
def verify(root: Path, json_path: Path | None, junit_path: Path | None, quiet: bool, no_cache: bool,
           jobs: int | None) -> None:
    """Recompute every claim and compare it with the figure as printed.

    Writes the JSON report and JUnit XML; prints GitHub annotations when GITHUB_ACTIONS is set.
    Claims whose records, sources, snapshots and upstream claims are unchanged since the last run
    are taken from the cache outside the ledger (WORKINGS_CACHE_DIR, else ~/.cache/workings); stderr
    says how many were recomputed."""
    from .gcpause import frozen, frozen_at_exit

    frozen_at_exit()  # the interpreter's last collection would rescan the whole report for nothing
    report, said = _verify_cached(root, jobs) if not no_cache else (_verify_cold(root, jobs), [])
    with frozen():  # the report's many small objects are never garbage: no collection rescans them
        _verify_outputs(root, report, said, json_path, junit_path, quiet)


def _verify_outputs(root: Path, report: Verified, said: list[str], json_path: Path | None, junit_path: Path | None,
                    quiet: bool) -> None:
    from . import atomic, outputs

    if not report.claims and not report.problems:  # with problems (a linked claims/), the table names them
        _error(f"no claims under {root / 'claims'}: is --root the ledger's folder?")
        sys.exit(2)
    code = report.exit_code
    try:  # a path the user did not name stays inside the ledger: never through a linked reports/
        if json_path is None:
            json_path = root / "reports" / "ledger.json"
            atomic.check_inside(root, json_path, instead="--json PATH")
        if junit_path is None:
            junit_path = json_path.with_name("junit.xml")
        atomic.write_parts(json_path, outputs.json_parts(report), durable=False)  # made again by every run
        atomic.write_text(junit_path, outputs.junit(report), durable=False)
    except (LedgerError, OSError) as exc:
        _error(exc)
        code = 2
    click.echo(outputs.table(report, only_failing=quiet), nl=False)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        click.echo(outputs.github_annotations(report), nl=False)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(outputs.markdown_summary(report))
    if said:
        _say(*said, err=True)  # after the summary line, on stderr: not part of what CI compares
    sys.exit(code)


@main.command(epilog=EXIT_CODES)
@click.argument("claim_id", metavar="CLAIM")
@root_option
@paused()  # few cycles are built: no collection rescans what was (gcpause)
def show(claim_id: str, root: Path) -> None:
    """Show CLAIM's derivation step by step, with units and sources."""
    from .gcpause import frozen_at_exit
    from .neighbourhood import show_claim
    from .show import derivation

    frozen_at_exit()  # the interpreter's last collection would rescan everything still alive for nothing

    claim_id = claim_id.removesuffix(".yaml").removeprefix("claims/")
    near = show_claim(root, claim_id)  # the claim, what it rests on and what uses it: not the whole ledger
    report, claim = near.report, near.claim
    if claim is None:
        report = _verify(root)  # no record at claims/<id>.yaml: the whole ledger, for its hints
        claim = report.claim(claim_id)
    if claim is None:
        matches = [c.id for c in report.claims if claim_id in c.id]
        hint = f"; did you mean: {', '.join(matches[:5])}" if matches else ""
        _error(f"no claim {claim_id!r}{hint}")
        sys.exit(2)
    click.echo(derivation(report, claim), nl=False)
    sys.exit({"drift": 1, "error": 2}.get(claim.status, 0))


@main.command()
@click.argument("kind", type=click.Choice(["claim", "source", "measurement"]), default="claim")
def schema(kind: str) -> None:
    """Print the JSON Schema of KIND's record format (claim, source or measurement).

    The same schemas are committed in schemas/ for editors and check-jsonschema."""
    from .schema import dumps

    click.echo(dumps(kind), nl=False)


@main.command(epilog="Exit codes: 0 nothing moved that the policy fails on, 1 a claim made a failing move, "
              "2 a report could not be read.")
@click.argument("base", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("new", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--fail-on", "fail_on", metavar="MOVES", default=None,
              help="Comma-separated OLD->NEW moves that fail, '*' for any status, or 'none' "
                   "[default: verified->*].")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True)
def diff(base: Path, new: Path, fail_on: str | None, fmt: str) -> None:
    """List every claim whose status or value differs between two JSON reports (BASE, e.g. main's,
    and NEW, e.g. a pull request's), and fail on the moves --fail-on names.

    With GITHUB_STEP_SUMMARY set, the Markdown table is appended there too."""
    from . import movements

    try:
        policy = movements.parse_policy(fail_on)
        moves = movements.compare(movements.load_report(base), movements.load_report(new))
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)
    text = movements.as_markdown(moves, policy) if fmt == "markdown" else movements.as_text(moves, policy)
    click.echo(text, nl=False)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(movements.as_markdown(moves, policy))
    sys.exit(1 if movements.failing(moves, policy) else 0)


@main.command(epilog="Exit codes: 0 every measurement agrees with its estimate, 1 one does not, "
              "2 the input could not be used (or torch is missing: pip install 'workings[probe]').")
@click.argument("claim_ids", metavar="[CLAIM]...", nargs=-1)
@root_option
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="Where to build the cache. A cpu run is never recorded as a GPU measurement.")
@click.option("--budget", default=None, metavar="SIZE",
              help="fit on cpu: the memory budget searched against, e.g. '80 GiB' [default: the claim's memory].")
@click.option("--replace", is_flag=True, help="Overwrite a different measurement file of the same claim, device and day.")
def probe(claim_ids: tuple[str, ...], root: Path, device: str, budget: str | None, replace: bool) -> None:
    """Measure CLAIMs (default: every claim with a probe: key) on real torch tensors.

    Writes ledger/measurements/<claim>--<device>--<date>.yaml with the result, the raw samples,
    the device and the software versions, and this command."""
    import shlex

    try:
        from .probe.run import budget_bytes, probe_claims
    except ImportError as exc:  # torch is the probe extra; verify and render never need it
        _error(f"workings probe needs torch ({exc.name}): pip install 'workings[probe]'")
        sys.exit(2)
    ids = [c.removesuffix(".yaml").removeprefix("claims/") for c in claim_ids]
    words = ["workings", "probe", *ids] + (["--root", str(root)] if root != Path(".") else [])
    words += ["--device", device] + (["--budget", budget] if budget else []) + (["--replace"] if replace else [])
    try:
        outcomes = probe_claims(root, ids, device=device, budget=budget_bytes(budget) if budget else None,
                                command=shlex.join(words), replace=replace)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)
    codes = {0}
    for outcome in outcomes:
        if isinstance(outcome, LedgerError):
            _error(outcome)
            codes.add(2)
            continue
        m, agreement = outcome.measurement, outcome.measurement.agreement()
        codes.add(0 if agreement.holds else 1)
        _say(f"{m.claim}: {m.probe} on {m.device.label}: measured {m.result}, estimate {m.estimate}: {agreement.text}",
             f"  wrote {outcome.path}")
    sys.exit(max(codes))


@main.command(epilog="Exit codes: 0 nothing moved, 1 a claim moved to drift or error, a quoted passage "
              "vanished, or a change could not be applied, 2 the input could not be used, 3 some sources "
              "could not be reached (and nothing else went wrong).")
@click.argument("source_ids", metavar="[SOURCE]...", nargs=-1)
@root_option
@click.option("--check", is_flag=True, help="Report what changed and which claims would move; write nothing.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=20.0, show_default=True,
              help="Seconds each request may take in all: connecting, waiting, and reading the whole answer.")
@click.option("--deadline", type=click.FloatRange(min=0.1), default=None,
              help="Seconds the whole fetch of one source may take, retries and waits included "
                   "[default: 2 x tries x timeout + the backoff's waits: 167 s with --timeout 20].")
@click.option("--jobs", type=click.IntRange(1, 16), default=4, show_default=True, help="Requests in flight at once.")
def refresh(source_ids: tuple[str, ...], root: Path, check: bool, timeout: float, deadline: float | None,
            jobs: int) -> None:
    """Fetch sources again: Hub files with huggingface_hub (HF_ENDPOINT is honoured), pages with requests.

    For each source: unchanged, changed (the keys and passages, old and new, and the claims that read
    them) or unreachable (why). Changes are archived as new snapshots, atomically; a change that would
    break the ledger is reported and not applied. The only command that touches the network."""
    try:
        import huggingface_hub  # noqa: F401  (the web extra: loaded only here)
        import requests  # noqa: F401
    except ImportError as exc:
        missing = exc.name or str(exc)
        click.echo(f"error: workings refresh needs the web extra, which is not installed (no {missing}): "
                   "pip install 'workings[web]'", err=True)
        sys.exit(2)
    from .refresh.text import run

    try:
        code = run(root, source_ids, check=check, timeout=timeout, jobs=jobs, deadline=deadline)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)
    sys.exit(code)


@main.group()
def source() -> None:
    """Sources: `workings source add` archives a new one and writes its record."""


@source.command("add", epilog="Exit codes: 0 the record and snapshot were written, 2 refused (nothing written: "
                "an existing record, a passage not in the text, bad input), 3 the source could not be fetched.")
@click.argument("where", metavar="REPO FILE | URL", nargs=-1)
@click.option("--id", "source_id", metavar="ID", default=None, help="The record's id [default: from the repo/file or URL].")
@click.option("--revision", default="main", show_default=True, help="Hub: branch, tag or commit; the record pins the commit it resolves to.")
@click.option("--file", "file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A local file you hold (with --url and --how).")
@click.option("--url", "url", default=None, help="With --file: the address the file came from.")
@click.option("--how", default=None, help="With --file: how it was obtained.")
@click.option("--retrieved", default=None, metavar="DATE", help="With --file: when it was obtained [default: unknown].")
@click.option("--commit", default=None, metavar="SHA",
              help="With --file: the commit of the publisher's repository the file was read at (needed for primary).")
@click.option("--grade", type=click.Choice(["primary", "copy", "transcription", "paraphrase"]), default=None,
              help="What was seen [default: Hub file primary, web page transcription, local file copy].")
@click.option("--passage", "passages", multiple=True, metavar="TEXT", help="A passage relied on; it must occur in the archived text (repeatable).")
@click.option("--value", "values", multiple=True, nargs=3, metavar="NAME FIGURE PASSAGE",
              help="A number read from prose: name, figure with unit ('890 B/token'), and the passage that states it (repeatable).")
@click.option("--title", default=None, help="What the source is [default: the file and repo, or the page's title].")
@click.option("--publisher", default=None, help="Who published it.")
@click.option("--notes", default=None, help="Why the grade is what it is, or anything a reader should know.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=20.0, show_default=True, help="Seconds to wait for each request.")
@root_option
def source_add(where: tuple[str, ...], source_id, revision, file, url, how, retrieved, commit, grade, passages, values,
               title, publisher, notes, timeout, root: Path) -> None:
    """Add a source: a Hub file (REPO FILE), a web page (URL), or a local file (--file PATH --url URL --how TEXT).

    Archives the bytes as ledger/snapshots/<sha256>.<ext>, writes ledger/sources/ID.yaml with its grade
    and when and how it was retrieved, and prints the inputs a claim can write (`ID#key`). Never
    overwrites a record or a snapshot."""
    from .refresh.add import AddError, Request, Unreachable, add_source, summary  # requests loads only here
    from .refresh.fetch import Limits

    if file is not None and where:
        problem = "--file takes no REPO FILE or URL arguments (give the address with --url)"
    elif file is None and len(where) == 2:
        problem, request = None, Request(repo=where[0], filename=where[1], revision=revision)
    elif file is None and len(where) == 1:
        problem, request = None, Request(url=where[0])
    elif file is not None:
        problem, request = None, Request(file=file, url=url, how=how, retrieved=retrieved, commit=commit)
    else:
        problem = "give REPO FILE (a Hub file), URL (a web page), or --file PATH --url URL --how TEXT"
    if problem is None and file is None and (how or retrieved or url or commit):
        problem = "--url, --how, --retrieved and --commit go with --file (a fetched source records them itself)"
    if problem:
        _error(problem)
        sys.exit(2)
    from dataclasses import replace

    request = replace(request, id=source_id, grade=grade, passages=passages, values=tuple(values), title=title,
                      publisher=publisher, notes=notes)
    try:
        added = add_source(root, request, limits=Limits(timeout=timeout))
    except AddError as exc:
        _error(exc)
        sys.exit(3 if isinstance(exc, Unreachable) else 2)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)
    click.echo(safetext.block(summary(added)), nl=False)  # fetched text reaches here: no escapes


@main.command(epilog="Exit codes: 0 the site was written (drifted claims, and records with errors, are shown "
              "on it as such, not as a failure of render: verify is the check that fails on them), 2 the "
              "ledger could not be read, ledger/explainer.yaml has problems (the site is still written, with "
              "them listed) or the folder cannot be replaced.")
@root_option
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The site's folder, replaced as a whole [default: ROOT/reports/site].")
@click.option("--jobs", "jobs", type=click.IntRange(1, 64), default=None,
              help="Processes that read the claim records, evaluate the claims and make the claim pages of "
                   "a large ledger (2,000 claims and more) [default: the processors this one may use, at most "
                   "4 for the pages and 2 for the records and claims]; the site is the same bytes for any number.")
def render(root: Path, out: Path | None, jobs: int | None) -> None:
    """Write the HTML ledger: every claim, its working and its sources, as a self-contained site.

    Open OUT/index.html in a browser; it works from file:// and offline."""
    from .explainer import build
    from .gcpause import frozen_at_exit
    from .render import render_site  # jinja2 loads only here

    from .atomic import check_inside

    frozen_at_exit()  # the interpreter's last collection would rescan the report and the site for nothing
    report = _verify(root, jobs)
    try:
        if out is None:  # the default stays inside the ledger: never through a linked reports/
            out = root / "reports" / "site"
            check_inside(root, out, instead="--out DIR")
        explainer = build(report, root)  # ledger/explainer.yaml: its problems are listed, the rest is rendered
        for problem in explainer.problems if explainer else ():
            _error(problem)
        render_site(report, root, out, explainer=explainer, jobs=jobs)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)
    from .outputs import summary_line

    _say(summary_line(report), f"wrote {out / 'index.html'}")
    if explainer and explainer.problems:
        sys.exit(2)


def _neighbourhood(root: Path, no_cache: bool = False):
    """The ledger as one draft needs it: only the claims that could be about its figures are
    loaded and evaluated, with what they rest on (``draft.near``); the verdicts are the ones the
    whole ledger gives. The records are found by a scan that reads only those changed since the
    last (``draft.scanmemo``), unless ``no_cache``."""
    from .draft.near import Neighbourhood

    try:
        near = Neighbourhood(root)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)
    if not no_cache:
        from .draft.scanmemo import memo_for

        near.memo, notes = memo_for(root)
        near.notes.extend(notes)
    return near


def _check_file(draft: Path, report, issue: str | None):
    """The draft checked against the report; a draft that cannot be read (not UTF-8, too large, a
    number of too many digits: see ``draft.reading``; front matter that cannot be read) is exit 2,
    never a traceback."""
    from .draft.check import check_file

    try:
        return check_file(draft, report, issue=issue)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)


@main.command("check-draft", epilog="Exit codes: 0 every figure in the draft is backed, 1 one is not "
              "(drift, ambiguous, erratum, unchecked or unbacked), 2 the input could not be used.")
@click.argument("draft", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@root_option
@click.option("--issue", metavar="SLUG", default=None,
              help="The claims/ group of this draft: its claims are preferred, and those no figure uses are listed as stale.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the JSON result here.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True,
              help="What to print: a table, JSON, or GitHub annotations on the draft's lines.")
@click.option("--set-aside", "set_aside", is_flag=True, help="Also list what was set aside (dates, names...) and why.")
@click.option("--quiet", "-q", is_flag=True, help="In the table, show only the figures that are not backed.")
@click.option("--published", is_flag=True,
              help="FILE is a published text (claims/SLUG/article.md): pass when every figure is backed, an "
                   "acknowledged erratum, or listed with a reason under not_backed in its front matter.")
@click.option("--no-cache", is_flag=True,
              help="Read every claim record, neither reading nor writing what earlier runs read of them "
                   "(so does WORKINGS_NO_CACHE=1).")
@paused()  # few cycles are built: no collection rescans what was (gcpause)
def check_draft(draft: Path, root: Path, issue: str | None, json_path: Path | None, fmt: str, set_aside: bool,
                quiet: bool, published: bool, no_cache: bool) -> None:
    """Find every figure in the draft FILE (Markdown or text) and hold it against the ledger:
    backed, drift, ambiguous, erratum, unchecked or unbacked, with the line and the sentence."""
    from .draft.output import render, to_json
    from .gcpause import frozen_at_exit

    frozen_at_exit()  # the interpreter's last collection would rescan everything still alive for nothing

    near = _neighbourhood(root, no_cache)
    try:
        result = _check_file(draft, near, issue)  # a draft that cannot be read: exit 2 there
        accounting = None
        if published:
            from .draft import published as published_text
            from .draft.article import front_matter
            from .draft.reading import read_draft

            accounting = published_text.account(result, front_matter(read_draft(draft), file=str(draft)))
    except LedgerError as exc:  # a draft's front matter that cannot be read
        _error(exc)
        sys.exit(2)
    _say(*near.notes, err=True)  # what became of the scan's memory, when it was not simply used
    if json_path:
        from . import atomic  # only with --json

        atomic.write_text(json_path, to_json(result), durable=False)  # a report: made again by the next run
    click.echo(render(result, fmt, set_aside=set_aside, only_failing=quiet), nl=False)
    if accounting is not None:
        click.echo(safetext.block(published_text.render(accounting)), nl=False)
        sys.exit(accounting.exit_code)
    sys.exit(result.exit_code)


@main.command(epilog="Exit codes: 0 records were written (or every figure is already ledgered), 2 the input could not be used.")
@click.option("--from-draft", "draft", metavar="FILE", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path), help="The draft to ledger.")
@click.option("--issue", metavar="SLUG", required=True, help="The claims/ group to write into: claims/SLUG/.")
@root_option
def new(draft: Path, issue: str, root: Path) -> None:
    """Write a starting claim record for every unbacked figure of a draft (sentence and figure
    filled in; unchecked until someone adds the working). Existing files are never overwritten."""
    from .draft.new import starting_records

    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", issue):
        _error(f"--issue {issue!r}: a group name is lower-case letters, digits, '-', '_' and '.' "
               "(it names the folder claims/SLUG/)")
        sys.exit(2)
    try:
        written = starting_records(_check_file(draft, _verify(root), issue), root=root, issue=issue,
                                   draft_name=draft.name)
    except LedgerError as exc:
        _error(exc)
        sys.exit(2)
    for item in written:
        _say(f"{'wrote' if item.written else 'exists, left as it is:'} {item.path}  (line {item.line}: {item.figure})")
    _say(f"{sum(i.written for i in written)} starting records written"
         + ("" if written else ": every figure is already in the ledger"))
