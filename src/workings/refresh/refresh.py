"""`workings refresh`: fetch each source again, say what changed, recompute, and archive.

The run, for the sources asked for (all that have a Hub file or a URL when none are named):

1. fetch every distinct Hub file and URL once, a few at a time (`Limits.concurrency`);
2. for each source, compare the fetched bytes with its snapshot (`diff`): unchanged, changed (which
   keys and passages, with the claims that use them), or unreachable (why);
3. try every change on a scratch copy of the ledger and recompute all claims there and on the real
   ledger, so the result says which figures moved. A change that would leave the ledger unusable
   (a passage it quotes is gone, a key a claim reads is gone, the record no longer loads) is not
   applied: it is reported, and the source keeps its snapshot until a person decides;
4. unless `check`, archive: new snapshots first, then the source records, each atomically, then remove
   the old snapshots that no source refers to any more.

The whole run holds the ledger's lock (`cleanup.ledger_lock`); it begins by removing what a killed
refresh left behind (temporary files in the ledger, scratch folders in the temporary folder), only
what is unmistakably ours and stale (see `cleanup`).

Nothing is written for a source that is unchanged, unreachable or blocked, nor at all under `check`.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import stat
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workings.errors import LedgerError
from workings.loader import CLAIMS_DIR, MEASUREMENTS_DIR, SNAPSHOTS_DIR, SOURCES_DIR, Ledger, load_ledger
from workings import atomic
from workings.refresh import archive, cleanup
from workings.refresh.diff import Diff, diff_source
from workings.refresh.fetch import (
    Fetched,
    FetchError,
    Limits,
    hub_endpoint,
    http_get,
    make_session,
    within_deadline,
)
from workings.refresh.pagetext import page_text

if TYPE_CHECKING:  # annotations only: importing refresh stays as light as it was
    from workings.models import Claim
    from workings.report import ClaimResult, Report
    from workings.sources import Source

# What one source is fetched from: ("hub", repo, file, revision) or ("web", url).
Target = tuple[str, ...]
CONNECTION_KINDS = ("offline", "refused", "timeout")  # FetchError kinds where no host answered
MAX_TRIALS = 5  # rounds of "try, drop what breaks the ledger, try again"; each drops at least one


@dataclass(frozen=True, kw_only=True)
class Moved:
    """A claim whose recomputed value or status differs once the changes are applied."""

    claim: str
    printed: str  # the figure as printed (or the check)
    before: str  # status, then the recomputed value in the printed unit
    after: str
    status_before: str
    status_after: str
    sources: tuple[str, ...] = ()  # the refreshed sources it rests on
    through: tuple[str, ...] = ()  # its value did not move: the claims it uses that did


@dataclass(frozen=True, kw_only=True)
class SourceChange:
    """What refresh found for one source."""

    source: str
    status: str  # unchanged | changed | unreachable | skipped
    fetched_from: str = ""  # the URL, or hub repo/file@revision
    reason: str = ""  # unreachable or skipped: why; changed: why it was not applied, if it was not
    error_kind: str = ""  # FetchError.kind for unreachable sources
    commit: str | None = None
    old_snapshot: str | None = None
    new_snapshot: str | None = None
    grade_before: str | None = None
    grade_after: str | None = None
    diff: Diff = field(default_factory=Diff)
    applied: bool = False  # written to disk (never under --check)
    blocked: bool = False  # changed, but applying it would break the ledger
    parameters: dict[str, int] | None = None


@dataclass(frozen=True, kw_only=True)
class RefreshResult:
    sources: tuple[SourceChange, ...]
    moved: tuple[Moved, ...] = ()
    check: bool = False
    removed_snapshots: tuple[str, ...] = ()
    stale_files: tuple[str, ...] = ()  # temporary files a killed run left in the ledger (removed unless check)
    stale_scratch: tuple[str, ...] = ()  # scratch folders a killed run left in the temporary folder (removed)

    @property
    def nothing_reached(self) -> bool:
        """No host answered at all: the machine is offline (a 404 is an answer)."""
        tried = [s for s in self.sources if s.status != "skipped"]
        return bool(tried) and all(s.error_kind in CONNECTION_KINDS for s in tried)

    @property
    def exit_code(self) -> int:
        """1 a claim moved to drift or error, a passage vanished, or a change was blocked; 3 only
        unreachable sources; else 0."""
        worse = any(m.status_after in ("drift", "error") and m.status_after != m.status_before for m in self.moved)
        if worse or any(s.blocked or s.diff.vanished for s in self.sources):
            return 1
        if any(s.status == "unreachable" for s in self.sources):
            return 3
        return 0


@dataclass(frozen=True, kw_only=True)
class _Plan:
    """A change to one source record: its new snapshot bytes and the values refresh sets."""

    data: bytes
    ext: str
    changes: dict[str, Any]


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _target(source: Source) -> Target | None:
    if source.hub is not None:
        return ("hub", source.hub.repo, source.hub.file, source.hub.revision)
    if source.url and source.grade != "unarchived":
        return ("web", source.url)
    return None


def _describe(target: Target) -> str:
    return f"hub {target[1]}/{target[2]}@{target[3]}" if target[0] == "hub" else target[1]


def refresh(
    root: Path,
    ids: Iterable[str] = (),
    *,
    check: bool = False,
    limits: Limits = Limits(),
    progress: Callable[[int], Callable[[int], None]] | None = None,
    now: Callable[[], str] = _now,
    fetcher: Callable[[Target], Fetched] | None = None,
) -> RefreshResult:
    """Refresh the sources `ids` (all when empty) of the ledger at `root`; see the module docstring.

    `progress(total)`, when given, is called once with the number of fetches and returns a function
    called with 1 as each one ends (the CLI's progress bar). `fetcher` replaces the network (tests).
    """
    root = Path(root)
    stale_scratch = tuple(cleanup.remove_stale_scratch())
    with cleanup.ledger_lock(root) as locked:
        stale: tuple[str, ...] = ()
        if locked:
            stale = tuple(f.relative_to(root).as_posix() for f in cleanup.stale_temporary_files(root))
            if not check:
                stale = tuple(cleanup.remove_stale_temporary_files(root))
        result = _refresh(root, ids, check=check, limits=limits, progress=progress, now=now, fetcher=fetcher)
    return replace(result, stale_files=stale, stale_scratch=stale_scratch)


def _refresh(root: Path, ids: Iterable[str], *, check: bool, limits: Limits,
             progress: Callable[[int], Callable[[int], None]] | None, now: Callable[[], str],
             fetcher: Callable[[Target], Fetched] | None) -> RefreshResult:
    ledger = load_ledger(root)
    wanted = list(dict.fromkeys(ids))
    unknown = [i for i in wanted if i not in ledger.sources]
    if unknown:
        bad = [i for i in unknown if i in ledger.bad_sources]
        detail = f" (invalid records: {', '.join(bad)}; run workings verify)" if bad else ""
        raise LedgerError(f"no such source in {SOURCES_DIR}/: {', '.join(unknown)}{detail}")
    sources = [ledger.sources[i] for i in (wanted or sorted(ledger.sources))]
    targets = {s.id: _target(s) for s in sources}
    fetched = _fetch_all({t for t in targets.values() if t}, limits, progress, fetcher)

    results: dict[str, SourceChange] = {}
    plans: dict[str, _Plan] = {}
    claims = list(ledger.claims.values())
    stamp = now()
    for source in sources:
        target = targets[source.id]
        if target is None:
            why = "no hub: and no url:"
            if source.grade == "unarchived" and source.url:
                why = "unarchived, nothing to compare"
            results[source.id] = SourceChange(source=source.id, status="skipped", reason=why, grade_before=source.grade)
            continue
        outcome = fetched[target]
        if isinstance(outcome, FetchError):
            results[source.id] = SourceChange(
                source=source.id, status="unreachable", fetched_from=_describe(target), reason=str(outcome),
                error_kind=outcome.kind, old_snapshot=source.snapshot, grade_before=source.grade)
            continue
        try:
            change, plan = _compare(root, source, target, outcome, claims, stamp)
        except (ValueError, RecursionError, LookupError, UnicodeError, TypeError) as error:
            results[source.id] = SourceChange(  # what the server sent could not be read as the source's kind
                source=source.id, status="unreachable", fetched_from=_describe(target), error_kind="bad-answer",
                reason=f"{_describe(target)}: the answer could not be read ({type(error).__name__}: "
                       f"{str(error)[:300]})", old_snapshot=source.snapshot, grade_before=source.grade)
            continue
        results[source.id] = change
        if plan is not None:
            plans[source.id] = plan

    moved, blocked = _trial(root, plans)
    for source_id, reason in blocked.items():
        results[source_id] = replace(results[source_id], blocked=True, reason=reason)
        del plans[source_id]
    removed: list[str] = []
    if not check and plans:
        old = [ledger.sources[i].snapshot for i in plans if ledger.sources[i].snapshot]
        for source_id, plan in plans.items():
            _apply(root, ledger.sources[source_id], plan)
            results[source_id] = replace(results[source_id], applied=True)
        removed = archive.prune(root, old)
    return RefreshResult(
        sources=tuple(results[s.id] for s in sources), moved=tuple(moved), check=check,
        removed_snapshots=tuple(removed))


def _fetch_all(targets: set[Target], limits: Limits, progress: Callable[[int], Callable[[int], None]] | None,
               fetcher: Callable[[Target], Fetched] | None) -> dict[Target, Fetched | FetchError]:
    if fetcher is None:
        endpoint = hub_endpoint() if any(t[0] == "hub" for t in targets) else ""

        def fetcher(target: Target) -> Fetched:
            # A session of its own: a fetch stopped at its deadline may still be reading in its thread.
            with make_session() as session:
                if target[0] == "hub":
                    from workings.refresh.hub import fetch_hub

                    return fetch_hub(session, target[1], target[2], target[3], limits, endpoint=endpoint)
                return http_get(session, target[1], limits)

    def one(target: Target) -> Fetched | FetchError:
        try:
            return within_deadline(lambda: fetcher(target), limits.whole, _describe(target))
        except FetchError as error:
            return error
        except Exception as error:  # noqa: BLE001 - whatever a server's answer raised in a library: that
            # source's failure, never the run's (a charset, a redirect to "http://[::1", a loop httpx stops)
            return FetchError("bad-answer", f"{_describe(target)}: the answer could not be read "
                                            f"({type(error).__name__}: {str(error)[:300]})")

    tick = progress(len(targets)) if progress is not None else None
    out: dict[Target, Fetched | FetchError] = {}
    with ThreadPoolExecutor(max_workers=max(1, limits.concurrency)) as pool:
        futures = {pool.submit(one, target): target for target in sorted(targets)}
        for future in as_completed(futures):
            out[futures[future]] = future.result()
            if tick is not None:
                tick(1)
    return out


def _compare(root: Path, source: Source, target: Target, fetched: Fetched, claims: list[Claim],
             stamp: str) -> tuple[SourceChange, _Plan | None]:
    """The SourceChange for one fetched source, and the plan to apply it (None when unchanged)."""
    base = SourceChange(source=source.id, status="unchanged", fetched_from=_describe(target),
                        commit=fetched.commit, old_snapshot=source.snapshot, grade_before=source.grade,
                        grade_after=source.grade, parameters=dict(fetched.parameters or {}) or None)
    if target[0] == "hub":
        filename = target[2]
        ext = filename.rsplit(".", 1)[-1].lower() if "." in filename else "txt"
        ext = ext if ext.isalnum() and len(ext) <= 8 else "txt"
        data, fmt, grade = fetched.data, ("json" if ext == "json" else "text"), "primary"
        how = f"huggingface_hub from {hub_endpoint()}: {target[1]}/{filename} at {target[3]}"
        retrieved = {"on": stamp, "how": how, "commit": fetched.commit, "url": fetched.url}
    else:
        fmt, grade = source.format, source.grade
        data, ext = (fetched.data, "json") if fmt == "json" else (page_text(fetched.data, fetched.content_type), "txt")
        how = "requests: the file at the URL" if fmt == "json" else "requests: the text of the page"
        retrieved = {"on": stamp, "how": how, "url": fetched.url}
    name = archive.snapshot_name(data, ext)
    old = _read_snapshot(root, source.snapshot)
    counted = dict(fetched.parameters) if fetched.parameters else None
    parameters_same = (source.safetensors or {}).get("parameters") == counted
    if name == source.snapshot and grade == source.grade and fmt == source.format and (
            fetched.parameters is None or parameters_same):
        return base, None
    diff = diff_source(source, old, data, fmt, claims)
    changes: dict[str, Any] = {"snapshot": name, "format": fmt, "grade": grade, "retrieved": retrieved}
    if fetched.parameters:
        changes["safetensors"] = {"parameters": dict(fetched.parameters)}
    change = replace(base, status="changed", new_snapshot=name, grade_after=grade, diff=diff)
    unread = _not_json(data) if fmt == "json" else None
    if unread:
        return replace(change, blocked=True, reason=f"{fetched.url} {unread}"), None
    return change, _Plan(data=data, ext=ext, changes=changes)


def _not_json(data: bytes) -> str | None:
    """Why ``data`` cannot be archived as a JSON source, or None when it can."""
    why = archive.unreadable_json(data)
    if why is None:
        return None
    return "did not serve JSON (the source's format)" if why == "not JSON" else f"served {why}"


def _read_snapshot(root: Path, name: str | None) -> bytes | None:
    if not name:
        return None
    try:
        return (root / SNAPSHOTS_DIR / name).read_bytes()
    except OSError:
        return None


def _apply(root: Path, source: Source, plan: _Plan) -> None:
    """Archive the snapshot, then point the record at it: a crash between leaves only a spare file."""
    archive.store_snapshot(root, plan.data, plan.ext)
    record = root / source.file
    atomic.check_inside(root, record)  # never through a ledger/sources/ that links elsewhere
    text = record.read_text(encoding="utf-8")
    archive.write_atomic(record, archive.edit_record(text, plan.changes).encode("utf-8"))


def _trial(root: Path, plans: dict[str, _Plan]) -> tuple[list[Moved], dict[str, str]]:
    """Recompute with the planned changes on a scratch copy; drop the ones that break the ledger."""
    from workings.engine import evaluate_ledger

    before = evaluate_ledger(load_ledger(root))
    if not plans:
        return [], {}
    blocked: dict[str, str] = {}
    with cleanup.scratch_folder() as scratch:
        for _ in range(MAX_TRIALS):
            trial_root = _scratch_copy(root, Path(scratch) / f"trial{len(blocked)}")
            live = {k: v for k, v in plans.items() if k not in blocked}
            ledger = load_ledger(root)
            for source_id, plan in live.items():
                _apply(trial_root, ledger.sources[source_id], plan)
            trial = load_ledger(trial_root)
            after = evaluate_ledger(trial)
            newly = _breaks(live, trial, before, after)
            if not newly:
                return _moved(before, after, set(live)), blocked
            blocked.update(newly)
    return [], {**blocked, **{k: "could not be tried" for k in plans if k not in blocked}}


def _breaks(live: dict[str, _Plan], trial: Ledger, before: Report, after: Report) -> dict[str, str]:
    """Sources whose change leaves their record invalid, or turns a claim that reads them to error."""
    out: dict[str, str] = {}
    for source_id in live:
        if source_id in trial.bad_sources:
            problems = trial.bad_sources[source_id].problems
            out[source_id] = "; ".join(f"{p.key}: {p.message}" for p in problems[:3])
    was = {c.id: c.status for c in before.claims}
    for claim in after.claims:
        if claim.status == "error" and was.get(claim.id) != "error":
            # the sources its record reads: a claim in error lists none in its result ("num_hidden_layers"
            # gone from the config is that very error)
            record = trial.claims.get(claim.id)
            read = {item.source for item in (record.inputs if record else ()) if item.kind == "source"}
            for source_id in (set(claim.sources) | read) & set(live):
                first = next((m.text for m in claim.messages if m.kind == "error"), claim.reason)
                out.setdefault(source_id, f"claim {claim.id} would fail: {first}")
    return out


def _shown(claim: ClaimResult) -> str:
    """A claim's recomputed value in the unit its figure was printed in, else as computed."""
    if claim.comparison is not None:
        return claim.comparison.recomputed.display
    return claim.result.display if claim.result else "-"


def _moved(before: Report, after: Report, refreshed: set[str]) -> list[Moved]:
    was = {c.id: c for c in before.claims}
    changed: dict[str, tuple[ClaimResult, ClaimResult, bool]] = {}
    for claim in after.claims:
        old = was.get(claim.id)
        if old is None:
            continue
        value_moved = bool(old.result and claim.result and old.result.value != claim.result.value)
        if old.status != claim.status or value_moved:
            changed[claim.id] = (old, claim, value_moved)
    out = []
    for old, claim, value_moved in changed.values():
        through = () if value_moved else tuple(u for u in claim.uses if u in changed)
        out.append(Moved(claim=claim.id, printed=claim.figure or claim.check or "",
                         before=f"{old.status} {_shown(old)}", after=f"{claim.status} {_shown(claim)}",
                         status_before=old.status, status_after=claim.status,
                         sources=tuple(sorted(set(claim.sources) & refreshed)), through=through))
    return out


def _special_files(folder: str, names: list[str]) -> set[str]:
    """Pipes, sockets and devices: not copied (copying a pipe would wait for a writer). The loader
    reports them in the real ledger; no claim or source can be read from one."""
    skip = set()
    for name in names:
        try:
            mode = os.lstat(os.path.join(folder, name)).st_mode
        except OSError:
            skip.add(name)
            continue
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            skip.add(name)
    return skip


def _scratch_copy(root: Path, to: Path) -> Path:
    """A copy of the ledger to try changes on, which the loader reads exactly as it reads `root`.

    Records are copied, symbolic links kept as links (so that a record the loader refuses in the real
    ledger is refused here too). Snapshots are hard links where the file system allows (the scratch
    folder is on the same disk), else copies: never symbolic links, which the loader refuses. A link
    is safe because nothing writes into a snapshot: the trial's writes replace files by rename.
    """
    for folder in (CLAIMS_DIR, SOURCES_DIR, MEASUREMENTS_DIR):
        if (root / folder).is_dir():
            shutil.copytree(root / folder, to / folder, symlinks=True, ignore=_special_files)
    (to / SNAPSHOTS_DIR).mkdir(parents=True, exist_ok=True)
    if (root / SNAPSHOTS_DIR).is_dir():
        for path in (root / SNAPSHOTS_DIR).iterdir():
            target = to / SNAPSHOTS_DIR / path.name
            if path.is_symlink():
                target.symlink_to(os.readlink(path))  # refused by the loader there as here
            elif path.is_file():
                try:
                    os.link(path, target)
                except OSError:  # another file system, or links not allowed: copy
                    shutil.copy2(path, target)
    return to
