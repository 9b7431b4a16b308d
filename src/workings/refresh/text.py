"""The `workings refresh` command's side: limits from options, the progress bar, the terminal report
(one block per source, then the claims that moved) and the exit code."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import click

from workings import safetext
from workings.safetext import short
from workings.refresh.fetch import Limits
from workings.refresh.refresh import RefreshResult, SourceChange, refresh

PROGRESS_FROM = 5  # fetches: below this a progress bar only flickers

MAX_UNUSED_KEYS = 8  # changed keys no claim reads, listed before "... and N more"


def _short(snapshot: str | None) -> str:
    return f"{snapshot[:12]}…{snapshot[snapshot.rfind('.'):]}" if snapshot else "(none)"


def _value(value: str | None) -> str:
    return "(absent)" if value is None else short(value)


def _source_lines(change: SourceChange, check: bool) -> list[str]:
    head = f"{change.source}: {change.status}"
    if change.status == "unreachable":
        return [f"{head}: {short(change.reason)}"]
    if change.status == "skipped":
        return [f"{head} ({short(change.reason)})"]
    where = change.fetched_from + (f" (commit {change.commit[:12]})" if change.commit else "")
    if change.status == "unchanged":
        return [f"{head}: {where}"]
    lines = [f"{head}: {where}"]
    if change.grade_after != change.grade_before:
        lines.append(f"  grade: {change.grade_before} -> {change.grade_after}")
    if change.new_snapshot != change.old_snapshot:
        lines.append(f"  snapshot: {_short(change.old_snapshot)} -> {_short(change.new_snapshot)}")
    used = [k for k in change.diff.keys if k.claims]
    # Values that changed come before keys that appeared or went (a copy had keys the file lacks).
    unused = sorted((k for k in change.diff.keys if not k.claims),
                    key=lambda k: (k.old is None or k.new is None, k.key))
    for key in used:
        lines.append(f"  {short(key.key)}: {_value(key.old)} -> {_value(key.new)} (read by {', '.join(key.claims)})")
    for key in unused[:MAX_UNUSED_KEYS]:
        lines.append(f"  {short(key.key)}: {_value(key.old)} -> {_value(key.new)} (no claim reads it)")
    if len(unused) > MAX_UNUSED_KEYS:
        lines.append(f"  ... and {len(unused) - MAX_UNUSED_KEYS} more keys that no claim reads")
    for gone in change.diff.vanished:
        quoted = f" (relied on by {', '.join(gone.claims)})" if gone.claims else ""
        lines.append(f"  passage no longer found, {gone.where}: \"{gone.text}\"{quoted}")
        if gone.found_at:
            lines.append(f"    the file has the same number at {short(gone.found_at)}: "
                         f"read it as {change.source}#{short(gone.found_at)} instead")
    if change.parameters:
        counts = ", ".join(f"{dtype} {count:,}" for dtype, count in change.parameters.items())
        lines.append(f"  safetensors parameters: {counts}")
    if change.blocked:
        lines.append(f"  not applied: {short(change.reason)}; the source keeps its snapshot")
    elif change.applied:
        lines.append("  archived")
    elif check:
        lines.append("  would be archived (--check: nothing written)")
    return lines


def render(result: RefreshResult) -> str:
    lines: list[str] = []
    for change in result.sources:
        lines.extend(_source_lines(change, result.check))
    if result.moved:
        lines.append("")
        lines.append("Claims that move" + (" if the changes are archived:" if result.check else ":"))
        for moved in result.moved:
            through = f" (its value holds; built on {', '.join(moved.through)})" if moved.through else ""
            lines.append(f"  {moved.claim} (printed {moved.printed}): {moved.before} -> {moved.after}{through}")
    counts: dict[str, int] = {}
    for change in result.sources:
        counts[change.status] = counts.get(change.status, 0) + 1
    lines.append("")
    order = ("changed", "unchanged", "unreachable", "skipped")
    lines.append("Sources: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in order) + ".")
    for name in result.stale_files:
        verb = "Found" if result.check else "Removed"
        tail = " (a run without --check removes it)" if result.check else ""
        lines.append(f"{verb} {name}, a temporary file an interrupted run left in the ledger{tail}.")
    for folder in result.stale_scratch:
        lines.append(f"Removed {folder}, a scratch folder an interrupted refresh left behind.")
    for name in result.removed_snapshots:
        lines.append(f"Removed the old snapshot {name}: no source refers to it any more.")
    if any(change.status == "unreachable" for change in result.sources):
        lines.append("Unreachable sources keep their archived snapshots, untouched.")
    offline = sum(change.error_kind == "hf-offline" for change in result.sources)
    if offline:
        lines.append(f"HF_HUB_OFFLINE is set (huggingface_hub's offline mode): {offline} Hub "
                     f"source{'s were' if offline != 1 else ' was'} not fetched; unset it to refresh them.")
    if result.nothing_reached:
        lines.append("Nothing could be reached (is this machine offline?): no source was changed.")
    elif result.check:
        lines.append("--check: nothing was written.")
    return "\n".join(lines) + "\n"


def run(root: Path, ids: Iterable[str], *, check: bool, timeout: float, jobs: int,
        deadline: float | None = None) -> int:
    """Refresh, print the report on stdout (a progress bar on stderr), and return the exit code."""
    limits = Limits(timeout=timeout, concurrency=jobs, deadline=deadline)
    with contextlib.ExitStack() as stack:

        def progress(total: int) -> Callable[[int], None]:
            if total < PROGRESS_FROM or not sys.stderr.isatty():  # no bar in logs and pipes
                return lambda done: None
            bar = stack.enter_context(click.progressbar(length=total, label="Fetching sources", file=sys.stderr))
            return bar.update

        result = refresh(root, ids, check=check, limits=limits, progress=progress)
    click.echo(safetext.block(render(result)), nl=False)  # fetched text reaches here: no escapes
    return result.exit_code
