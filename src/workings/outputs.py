"""Formatting a Report: terminal table, JSON, JUnit XML and GitHub annotations.

Each function only formats; nothing here computes a result. Output is deterministic: sorted keys,
no timestamps, '\\n' newlines, so the same ledger gives the same bytes. Record text reaches every
output through ``safetext`` (control characters, terminal escapes, bidi controls and workflow
commands shown as visible escapes; XML 1.0 and JSON stay valid).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from . import safetext
from .report import BASES, FAILING, ClaimResult, Message, Report

if TYPE_CHECKING:  # (importing measurements is for a ledger that has some: the loader does it then)
    from .measurements import Beside

SYMBOL = {"verified": "ok", "erratum": "ERRATUM", "drift": "DRIFT", "unchecked": "unchecked", "error": "ERROR"}


def to_json(report: Report) -> str:
    """The Report as JSON: sorted keys, one claim or source per line, so a diff shows which moved.

    (json's indent= switches to the pure-Python encoder, several times slower on 10,000 claims.)"""
    return "".join(json_lines(report))


def json_lines(report: Report) -> Iterator[str]:
    """``to_json``'s text line by line, each with its newline, made as it is written: each claim's dict
    is made, dumped and dropped in turn, so writing the report never holds the whole text (at 10,000
    claims the lines, their join and its UTF-8 bytes were three copies of 28 MB)."""
    data = report.to_dict_streamed()

    def dump(value: object) -> str:
        return safetext.json_text(json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")))

    yield "{\n"
    keys = sorted(data)
    for index, key in enumerate(keys):
        comma = "," if index < len(keys) - 1 else ""
        value = data[key]
        if isinstance(value, Iterator):
            items = iter(value)
            first = next(items, _NONE)
            if first is _NONE:
                value = []
            else:
                yield f"{dump(key)}:[\n"
                held = dump(first)
                for item in items:  # one behind: the last item has no comma
                    yield held + ",\n"
                    held = dump(item)
                yield held + "\n"
                yield "]" + comma + "\n"
                continue
        if isinstance(value, list) and value:
            yield f"{dump(key)}:[\n"
            for i, item in enumerate(value):
                yield dump(item) + ("," if i < len(value) - 1 else "") + "\n"
            yield "]" + comma + "\n"
        else:
            yield f"{dump(key)}:{dump(value)}{comma}\n"
    yield "}\n"


_NONE = object()


def table(report: Report, *, only_failing: bool = False) -> str:
    """A short table: failing claims first, then the rest, then the summary line."""
    order = {"error": 0, "drift": 0, "erratum": 1, "unchecked": 2, "verified": 3}
    rows = sorted(report.claims, key=lambda c: (order[c.status], c.id))
    lines = []
    for claim in rows:
        if only_failing and claim.status not in FAILING and all(m.holds for m in claim.measurements):
            continue
        figure = claim.figure or ("check" if claim.check else "")
        shown = claim.comparison.recomputed.display if claim.comparison else (claim.result.display if claim.result else "")
        basis = "" if claim.status == "error" else claim.basis  # an unusable record has no basis to show
        lines.append(f"{SYMBOL[claim.status]:<9} {figure:>22}  {shown:<26} {basis:<16} {claim.id}".rstrip())
        if claim.status in FAILING or claim.status == "erratum":
            lines.extend(f"{'':<9} {place}" for place in _places(claim))
        elif not only_failing:  # a pass under one reading of its unit is said, never silent
            lines.extend(f"{'':<9} {m.kind}: {m.text}" for m in claim.messages if m.kind == "ambiguous")
        for m in claim.measurements:  # beside the estimate, and never quiet when it disagrees
            if not m.holds or not only_failing:
                verdict = "agrees" if m.holds else "DISAGREES" if m.stale is None else "stale"
                lines.append(f"{'':<9} measured {m.result} on {m.device}: {verdict}, {m.agreement}"
                             + (f" (stale: {m.stale})" if m.stale else ""))
    failed_files = {c.file for c in report.claims if c.status == "error"}  # once: 5,000 bad records stay linear
    for problem in report.problems:
        if problem.file not in failed_files:
            lines.append(f"ERROR     {problem}")
    lines.append(basis_line(report))
    lines.append(summary_line(report))
    return safetext.lines(lines)


def _places(claim: ClaimResult) -> list[str]:
    """Each message that explains a failing claim, as ``file:line: key: text``."""
    shown = [m for m in claim.messages if m.kind in ("error", "drift", "erratum", "ambiguous")]
    if not shown:
        return [f"{claim.file}:{claim.line}: {claim.reason}"]
    return [f"{_where(m.file or claim.file, m.line or claim.line)}: {m.key + ': ' if m.key else ''}{m.text}"
            for m in shown]


def _where(file: str, line: int) -> str:
    """``file:line``, or the file alone for a problem with the whole file (a link, a pipe: no line)."""
    return f"{file}:{line}" if line else file


def summary_line(report: Report) -> str:
    s = report.summary
    parts = [f"{s[k]} {k}" for k in ("verified", "erratum", "drift", "unchecked", "error") if s[k] or k == "verified"]
    disagree = len(report.contradicted)
    return (f"{s['total']} claims: " + ", ".join(parts)
            + (f"; {disagree} measurement{'s' if disagree > 1 else ''} disagree{'s' if disagree == 1 else ''}"
               if disagree else "")
            + (f"; {s['problems']} input problems" if s["problems"] else ""))


def basis_line(report: Report) -> str:
    """How many claims rest on what: recomputed, restated, measured, assumptions only, typed only."""
    counts = report.summary["basis"]
    return "basis: " + ", ".join(f"{counts[b]} {b}" for b in BASES if counts[b])


def junit(report: Report) -> str:
    """JUnit XML: one testcase per claim; drift is a failure, error an error, unchecked a skip.

    Each failure and error carries a ``type`` (``drift``, ``invalid-record``) and each element a
    ``time`` of 0: claims are recomputed together, and a measured time would make the same ledger
    give other bytes. ``file`` and ``line`` on each testcase are what GitLab links to.

    Every text is cleaned first (``safetext.clean``): XML 1.0 forbids most control characters even
    as character references, and one of them in a key would make a CI reporter drop the whole file."""
    s = report.summary

    def attr(value: object) -> str:
        return quoteattr(safetext.clean(value))

    contradicted = {c.id: m for c, m in report.contradicted if c.status not in FAILING}
    failures = s["drift"] + len(contradicted)
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           f'<testsuites name="workings" tests="{s["total"]}" failures="{failures}" errors="{s["error"]}" time="0">',
           f'  <testsuite name="ledger" tests="{s["total"]}" failures="{failures}" errors="{s["error"]}" '
           f'skipped="{s["unchecked"]}" time="0">']
    for claim in report.claims:
        out.append(f'    <testcase classname={attr(claim.group or "claims")} name={attr(claim.id)} '
                   f'file={attr(claim.file)} line="{claim.line}" time="0">')
        body = escape(safetext.clean(claim.reason or ""))
        if claim.status == "drift":
            out.append(f'      <failure type="drift" message={attr(claim.reason or "drift")}>{body}</failure>')
        elif claim.id in contradicted:
            text = _disagreement(contradicted[claim.id])
            out.append(f'      <failure type="measurement" message={attr(text)}>{escape(safetext.clean(text))}</failure>')
        elif claim.status == "error":
            out.append(f'      <error type="invalid-record" message={attr(claim.reason or "error")}>{body}</error>')
        elif claim.status == "unchecked":
            out.append(f'      <skipped message={attr(claim.reason or "unchecked")}/>')
        out.append("    </testcase>")
    out += ["  </testsuite>", "</testsuites>"]
    return "\n".join(out) + "\n"


# xml.sax.saxutils's escape and quoteattr, the same replacements in the same order: importing it
# imports urllib.request, a tenth of what verify of this repository's ledger costs above the floor.
# (tests/test_output_escapes.py holds these to the standard library's on any text.)
def escape(data: str) -> str:
    return data.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(data: str) -> str:
    data = escape(data).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' in data:
        if "'" in data:
            return '"%s"' % data.replace('"', "&quot;")
        return "'%s'" % data
    return '"%s"' % data


def root_first(report: Report) -> list[ClaimResult]:
    """The failing and erratum claims, each claim whose own record or inputs went wrong (no failing
    claim upstream of it) before the claims that fail only because one they use does; then by id.
    GitHub shows the first 10 error annotations of a step: the cause must be among them."""
    by_id = {c.id: c for c in report.claims if c.status in FAILING}
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
    shown = [c for c in report.claims if c.status in FAILING or c.status == "erratum"]
    return sorted(shown, key=lambda c: (c.status not in FAILING, depth.get(c.id, 0), c.id))


def _shown_messages(claim: ClaimResult) -> list[Message]:
    return [m for m in claim.messages if m.kind in ("error", "drift", "ambiguous", "erratum")]


def place(claim: ClaimResult) -> tuple[str, int]:
    """Where a claim's first annotation points: the file and line of its first shown message."""
    first = next(iter(_shown_messages(claim)), None)
    if first is None:
        return claim.file, max(claim.line, 1)
    return first.file or claim.file, max(first.line or claim.line, 1)


def github_annotations(report: Report) -> str:
    """``::error file=…,line=…::`` lines for GitHub Actions, one per failing message, root causes first."""
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
    for claim, measured in report.contradicted:
        lines.append(_annotation("error", claim.file, claim.line, f"{claim.id}: {_disagreement(measured)}"))
    claim_files = {c.file for c in report.claims}
    for problem in report.problems:
        if problem.file not in claim_files:
            lines.append(_annotation("error", problem.file, problem.line, f"{problem.key + ': ' if problem.key else ''}{problem.message}"))
    return "".join(line + "\n" for line in lines)


def _disagreement(m: Beside) -> str:
    return f"measured {m.result} on {m.device} ({m.file}): disagrees with the estimate {m.estimate}, {m.agreement}"


def _annotation(level: str, file: str, line: int, text: str) -> str:
    return f"::{level} file={safetext.github_property(file)},line={max(line, 1)}::{safetext.github_data(text)}"


def markdown_summary(report: Report) -> str:
    """A Markdown summary for $GITHUB_STEP_SUMMARY: counts, then every drifted or failing claim.
    Record text is escaped (``safetext.markdown``/``code``): no link, image or cell break from it."""
    s = report.summary
    out = ["## workings ledger", "", "| status | claims |", "|---|---:|"]
    out += [f"| {k} | {s[k]} |" for k in ("verified", "erratum", "drift", "unchecked", "error")]
    out += ["", "| basis | claims |", "|---|---:|"] + [f"| {b} | {n} |" for b, n in s["basis"].items() if n]
    failing = [c for c in root_first(report) if c.status in FAILING]
    if failing:
        out += ["", "### Drifted or failing (root causes first)", "", "| claim | status | file | why |",
                "|---|---|---|---|"]
        for c in failing:
            file, line = place(c)  # the same place as its first annotation
            out.append(f"| {safetext.code(c.id)} | {c.status} | {safetext.code(f'{file}:{line}')} "
                       f"| {safetext.markdown(c.reason or '')} |")
    problems = [p for p in report.problems if p.file not in {c.file for c in failing}]
    if problems:
        out += ["", "### Input problems", ""] + [f"- {safetext.code(p)}" for p in problems]
    return "\n".join(out) + "\n"
