"""Formatting a Report: terminal table, JSON, JUnit XML and GitHub annotations.

Each function only formats; nothing here computes a result. Output is deterministic: sorted keys,
no timestamps, '\\n' newlines, so the same ledger gives the same bytes. Record text reaches every
output through ``safetext`` (control characters, terminal escapes, bidi controls and workflow
commands shown as visible escapes; XML 1.0 and JSON stay valid).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from . import safetext
from .report import BASES, FAILING, ClaimResult, Message, Report
from .written import SYMBOL, Verified, disagreeing, disagreement, dump, escape, quoteattr, verified

__all__ = ["SYMBOL", "to_json", "json_lines", "json_parts", "table", "summary_line", "basis_line", "junit", "escape", "quoteattr",
           "root_first", "place", "github_annotations", "markdown_summary"]


def to_json(report: Report | Verified) -> str:
    """The Report as JSON: sorted keys, one claim or source per line, so a diff shows which moved.

    (json's indent= switches to the pure-Python encoder, several times slower on 10,000 claims.)"""
    return "".join(json_lines(report))


def json_lines(report: Report | Verified) -> Iterator[str]:
    """``to_json``'s text line by line, each with its newline (``json_parts``, decoded)."""
    held: list[bytes | memoryview] = []
    for part in json_parts(report):
        held.append(part)
        if part[-1:] == b"\n":
            yield b"".join(held).decode("utf-8")
            held = []


def json_parts(report: Report | Verified) -> Iterator[bytes | memoryview]:
    """The JSON report's UTF-8 bytes in parts (a line, or a line and then its comma and newline), made as
    they are written: each claim's line is made (or taken from the cache) and dropped in turn, so
    writing the report never holds the whole text (at 10,000 claims the lines, their join and its
    UTF-8 bytes were three copies of 28 MB). The keys are ``Report.to_dict``'s, sorted: claims,
    format, problems, sources, summary."""
    v = verified(report)
    yield b"{\n"
    yield from _array("claims", (c.json for c in v.claims))
    yield f"{dump('format')}:{dump(v.format)},\n".encode()
    yield from _array("problems", (dump(p.to_dict()).encode("utf-8") for p in v.problems))
    yield from _array("sources", (dump(s.to_dict()).encode("utf-8") for s in v.sources))
    yield f"{dump('summary')}:{dump(v.summary)}\n".encode("utf-8")
    yield b"}\n"


def _array(key: str, items: Iterable[bytes | memoryview]) -> Iterator[bytes | memoryview]:
    """A list of one JSON value a line, followed by a comma; an empty one on the key's line."""
    items = iter(items)
    held = next(items, None)
    if held is None:
        yield f"{dump(key)}:[],\n".encode()
        return
    yield f"{dump(key)}:[\n".encode()
    for item in items:  # one behind: the last item has no comma
        yield held
        yield b",\n"
        held = item
    yield held
    yield b"\n"
    yield b"],\n"


def table(report: Report | Verified, *, only_failing: bool = False) -> str:
    """A short table: failing claims first, then the rest, then the summary line."""
    v = verified(report)
    order = {"error": 0, "drift": 0, "erratum": 1, "unchecked": 2, "verified": 3}
    parts = [c.rows(only_failing) for c in sorted(v.claims, key=lambda c: (order[c.status], c.id))]
    failed_files = {c.file for c in v.claims if c.status == "error"}  # once: 5,000 bad records stay linear
    tail = [f"ERROR     {problem}" for problem in v.problems if problem.file not in failed_files]
    tail += [basis_line(v), summary_line(v)]
    return "".join(parts) + safetext.lines(tail)


def summary_line(report: Report | Verified) -> str:
    v = verified(report)
    s = v.summary
    parts = [f"{s[k]} {k}" for k in ("verified", "erratum", "drift", "unchecked", "error") if s[k] or k == "verified"]
    disagree = v.disagreements
    return (f"{s['total']} claims: " + ", ".join(parts)
            + (f"; {disagree} measurement{'s' if disagree > 1 else ''} disagree{'s' if disagree == 1 else ''}"
               if disagree else "")
            + (f"; {s['problems']} input problems" if s["problems"] else ""))


def basis_line(report: Report | Verified) -> str:
    """How many claims rest on what: recomputed, restated, measured, assumptions only, typed only."""
    counts = verified(report).summary["basis"]
    return "basis: " + ", ".join(f"{counts[b]} {b}" for b in BASES if counts[b])


def junit(report: Report | Verified) -> str:
    """JUnit XML: one testcase per claim; drift is a failure, error an error, unchecked a skip.

    Each failure and error carries a ``type`` (``drift``, ``invalid-record``) and each element a
    ``time`` of 0: claims are recomputed together, and a measured time would make the same ledger
    give other bytes. ``file`` and ``line`` on each testcase are what GitLab links to.

    Every text is cleaned first (``safetext.clean``): XML 1.0 forbids most control characters even
    as character references, and one of them in a key would make a CI reporter drop the whole file.
    Each testcase is ``written.junit_case``."""
    v = verified(report)
    s = v.summary
    failures = s["drift"] + sum(1 for c in v.claims if c.contradicted and c.status not in FAILING)
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           f'<testsuites name="workings" tests="{s["total"]}" failures="{failures}" errors="{s["error"]}" time="0">',
           f'  <testsuite name="ledger" tests="{s["total"]}" failures="{failures}" errors="{s["error"]}" '
           f'skipped="{s["unchecked"]}" time="0">']
    out += [c.junit for c in v.claims]
    out += ["  </testsuite>", "</testsuites>"]
    return "\n".join(out) + "\n"


def root_first(report: Report | Verified) -> list[ClaimResult]:
    """The failing and erratum claims, each claim whose own record or inputs went wrong (no failing
    claim upstream of it) before the claims that fail only because one they use does; then by id.
    GitHub shows the first 10 error annotations of a step: the cause must be among them."""
    claims = _notable(report)
    by_id = {c.id: c for c in claims if c.status in FAILING}
    depth: dict[str, int] = {}  # failing claims upstream, along the longest path; linear, no recursion
    for start in by_id:
        stack, on_stack = [start], {start}
        while stack:
            claim_id = stack[-1]
            ups = [u for u in by_id[claim_id].uses if u in by_id]
            pending = [u for u in ups if u not in depth and u not in on_stack]  # a cycle is cut, not followed
            if pending:
                stack.extend(pending)
                on_stack.update(pending)
                continue
            stack.pop()
            on_stack.discard(claim_id)
            depth[claim_id] = 1 + max((depth.get(u, 0) for u in ups), default=-1)
    shown = [c for c in claims if c.status in FAILING or c.status == "erratum"]
    return sorted(shown, key=lambda c: (c.status not in FAILING, depth.get(c.id, 0), c.id))


def _notable(report: Report | Verified) -> Sequence[ClaimResult]:
    """The whole results of the claims that fail, are errata or disagree with a measurement (a
    Report's every claim will do: each use filters them)."""
    return report.claims if isinstance(report, Report) else report.notable_claims


def _shown_messages(claim: ClaimResult) -> list[Message]:
    return [m for m in claim.messages if m.kind in ("error", "drift", "ambiguous", "erratum")]


def place(claim: ClaimResult) -> tuple[str, int]:
    """Where a claim's first annotation points: the file and line of its first shown message."""
    first = next(iter(_shown_messages(claim)), None)
    if first is None:
        return claim.file, max(claim.line, 1)
    return first.file or claim.file, max(first.line or claim.line, 1)


def github_annotations(report: Report | Verified) -> str:
    """``::error file=…,line=…::`` lines for GitHub Actions, one per failing message, root causes first."""
    v = verified(report)
    lines = []
    for claim in root_first(report):
        level = "error" if claim.status in FAILING else "notice"
        messages = _shown_messages(claim)
        if not messages:
            file, line = place(claim)
            lines.append(_annotation(level, file, line, f"{claim.id}: {claim.reason}"))
        for m in messages:
            lines.append(_annotation(level, m.file or claim.file, m.line or claim.line,
                                     f"{claim.id}: {m.key + ': ' if m.key else ''}{m.text}"))
    for claim in _notable(v):
        for measured in disagreeing(claim):
            lines.append(_annotation("error", claim.file, claim.line, f"{claim.id}: {disagreement(measured)}"))
    claim_files = {c.file for c in v.claims}
    for problem in v.problems:
        if problem.file not in claim_files:
            lines.append(_annotation("error", problem.file, problem.line, f"{problem.key + ': ' if problem.key else ''}{problem.message}"))
    return "".join(line + "\n" for line in lines)


def _annotation(level: str, file: str, line: int, text: str) -> str:
    return f"::{level} file={safetext.github_property(file)},line={max(line, 1)}::{safetext.github_data(text)}"


def markdown_summary(report: Report | Verified) -> str:
    """A Markdown summary for $GITHUB_STEP_SUMMARY: counts, then every drifted or failing claim.
    Record text is escaped (``safetext.markdown``/``code``): no link, image or cell break from it."""
    v = verified(report)
    s = v.summary
    out = ["## workings ledger", "", "| status | claims |", "|---|---:|"]
    out += [f"| {k} | {s[k]} |" for k in ("verified", "erratum", "drift", "unchecked", "error")]
    out += ["", "| basis | claims |", "|---|---:|"] + [f"| {b} | {n} |" for b, n in s["basis"].items() if n]
    failing = [c for c in root_first(v) if c.status in FAILING]
    if failing:
        out += ["", "### Drifted or failing (root causes first)", "", "| claim | status | file | why |",
                "|---|---|---|---|"]
        for c in failing:
            file, line = place(c)  # the same place as its first annotation
            out.append(f"| {safetext.code(c.id)} | {c.status} | {safetext.code(f'{file}:{line}')} "
                       f"| {safetext.markdown(c.reason or '')} |")
    problems = [p for p in v.problems if p.file not in {c.file for c in failing}]
    if problems:
        out += ["", "### Input problems", ""] + [f"- {safetext.code(p)}" for p in problems]
    return "\n".join(out) + "\n"
