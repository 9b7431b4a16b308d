"""Formatting a DraftCheck: a terminal table, JSON, and GitHub annotations on the draft's lines.

Each function only formats; ``check`` computed everything. Output is deterministic (sorted keys,
no timestamps, '\\n' newlines). Draft and record text is printed through ``safetext``: control
characters, terminal escapes and bidi controls as visible escapes, no workflow command from a draft.
"""

from __future__ import annotations

import functools
import json
import textwrap

from .. import safetext
from .check import PASSING, DraftCheck, shown as shown_sentence

LABEL = {"backed": "ok", "holds": "holds", "drift": "DRIFT", "ambiguous": "AMBIGUOUS", "erratum": "ERRATUM",
         "unchecked": "UNCHECKED", "unbacked": "UNBACKED"}
# Failing figures are errors on the draft's line; ambiguous and unchecked ones ask for a look.
LEVEL = {"drift": "error", "erratum": "error", "unbacked": "error", "ambiguous": "warning", "unchecked": "warning"}


def to_json(check: DraftCheck) -> str:
    return safetext.json_text(json.dumps(check.to_dict(), indent=2, sort_keys=True, ensure_ascii=False)) + "\n"


def summary_line(check: DraftCheck) -> str:
    s = check.summary
    parts = [f"{s[k]} {k}" for k in LABEL if s[k] or k == "backed"]
    return (f"{check.file}: {s['figures']} figures: " + ", ".join(parts)
            + f"; {s['set_aside']} set aside" + (f"; {s['stale']} stale claims" if s["stale"] else ""))


def table(check: DraftCheck, *, set_aside: bool = False, only_failing: bool = False) -> str:
    """One row a figure in draft order; a failing one is followed by its reason and sentence (cut to
    ``SENTENCE_SHOWN`` characters: see ``check.shown``)."""
    width = max([len(f.text) for f in check.figures] + [6])
    width = min(width, 34)
    lines = [f"{'line':>5}  {'status':<9}  {'figure':<{width}}  claim"]
    for figure in check.figures:
        if only_failing and figure.status in PASSING:
            continue
        shown = figure.text if len(figure.text) <= width else figure.text[: width - 1] + "…"
        claim = figure.claim or ("(arithmetic)" if figure.kind == "equation" else "-")
        lines.append(f"{figure.line:>5}  {LABEL[figure.status]:<9}  {shown:<{width}}  {claim}".rstrip())
        if figure.status not in PASSING:
            lines.extend(_indented(figure.reason))
            lines.extend(_indented(f'"{shown_sentence(figure.sentence)}"'))
    if check.stale:
        lines.append(f"stale: claims of {check.issue} whose figure is no longer in the draft:")
        for stale in check.stale:
            lines.append(f"       {stale.id}  ({stale.figure})  {stale.file}:{stale.line}")
    if set_aside:
        lines.append("set aside (not figures):")
        for item in check.set_aside:
            lines.append(f"{item.line:>5}  {item.reason:<13}  {item.text}")
    lines.append(summary_line(check))
    return safetext.lines(lines)


@functools.lru_cache(maxsize=4096)  # the figures of one sentence share their sentence and often their reason
def _indented(text: str) -> tuple[str, ...]:
    return tuple(textwrap.wrap(safetext.prose(text), width=100, initial_indent=" " * 18,
                               subsequent_indent=" " * 18)) or ("",)


def github_annotations(check: DraftCheck) -> str:
    """``::error file=...,line=...::`` for every figure that is not backed; stale claims as
    notices on the claim's own file."""
    out = []
    for figure in check.figures:
        if figure.status in PASSING:
            continue
        title = f"check-draft: {figure.status}"
        message = f"{figure.text}: {figure.reason}" + (f" (claim {figure.claim})" if figure.claim else "")
        out.append(f"::{LEVEL[figure.status]} file={_property(check.file)},line={figure.line},"
                   f"col={figure.column},title={_property(title)}::{_data(message)}")
    for stale in check.stale:
        out.append(f"::notice file={_property(stale.file)},line={stale.line},title=check-draft: stale::"
                   + _data(f"{stale.id}: its figure ({stale.figure}) is no longer in {check.file}"))
    return "".join(line + "\n" for line in out)


_data = safetext.github_data          # GitHub's escaping (% first, then line breaks), after cleaning
_property = safetext.github_property  # also ':' and ','


def render(check: DraftCheck, fmt: str, *, set_aside: bool = False, only_failing: bool = False) -> str:
    if fmt == "json":
        return to_json(check)
    if fmt == "github":
        return github_annotations(check) + safetext.lines([summary_line(check)])
    return table(check, set_aside=set_aside, only_failing=only_failing)
