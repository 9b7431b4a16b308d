"""``workings show``: one claim's derivation, step by step, with units and sources.

Record text is cleaned before it is wrapped (``safetext``): whatever a record holds, each line
printed is one line of visible text."""

from __future__ import annotations

import textwrap

from . import safetext
from .report import BASIS_MEANING, ClaimResult, Report


def derivation(report: Report, claim: ClaimResult) -> str:
    out = [f"{claim.id}  [{claim.status}]  ({claim.file}:{claim.line})"]
    if claim.said:
        out.extend(_wrap(f'said: "{claim.said}"'))
    if claim.figure:
        out.append(f"figure: {claim.figure}   label: {claim.label}")
    elif claim.check:
        out.append(f"check: {claim.check}   label: {claim.label}")
    out.extend(_basis(claim))
    if claim.inputs:
        out.append("inputs:")
        for item in claim.inputs:
            shown = item.result.display if item.result else "?"
            where = {"literal": "assumed", "source": f"{item.source}#{item.key} [{item.grade}]",
                     "claim": f"claim {item.claim} [{item.claim_status}]"}[item.kind]
            out.append(f"  {item.name:<14} = {shown:<24} {where}")
            if item.assumption:
                out.extend(_wrap(f"because: {item.assumption}", indent=19))
            if item.passage:
                out.extend(_wrap(f'"{item.passage}"', indent=19))
    if claim.steps:
        out.append("steps:")
        for step in claim.steps:
            shown = step.result.display if step.result else "?"
            out.append(f"  {step.name:<14} = {step.expression}")
            out.append(f"  {'':<14} = {shown}")
    if claim.comparison:
        c = claim.comparison
        out.append(f"compare: printed {c.printed}; recomputed {c.recomputed.display} ({c.rule}): "
                   f"{'holds' if c.holds else 'does not hold'}")
    for cite in claim.cites:
        out.extend(_wrap(f'cites {cite.source} [{cite.grade}]: "{cite.text}"'))
    if claim.uses:
        out.append("uses: " + ", ".join(claim.uses))
    if claim.used_by:
        out.append("used by: " + ", ".join(claim.used_by))
    if claim.sources:
        grades = {s.id: s.grade for s in report.sources}
        out.append("rests on: " + ", ".join(f"{s} [{grades.get(s)}]" for s in claim.sources)
                   + (f"; least certain: {claim.grade}" if claim.grade else ""))
    for m in claim.measurements:
        out.extend(_wrap(f"measured: {m.probe} on {m.device}, {m.date}: {m.result} against the estimate "
                         f"{m.estimate}: {m.agreement}" + (f"; STALE: {m.stale}" if m.stale else "") + f" ({m.file})"))
    for message in claim.messages:
        where = f" ({message.file}:{message.line} {message.key})" if message.key else ""
        out.extend(_wrap(f"{message.kind}: {message.text}{where}"))
    if claim.notes:
        out.extend(_wrap(f"notes: {claim.notes}"))
    out.append(f"status: {claim.status}: {claim.reason}")
    return safetext.lines(out)


def _basis(claim: ClaimResult) -> list[str]:
    """The basis line: what the value is computed from, and which inputs it depends on."""
    text = f"basis: {claim.basis}: {BASIS_MEANING[claim.basis]}"
    d = claim.dependence
    if d is not None:
        parts = [f"{what} {', '.join(names)}" for what, names in (
            ("sourced:", d.sourced), ("assumed:", d.assumed), ("does not depend on:", d.unused),
            ("stated by:", d.stating)) if names]
        if parts:
            text += "; " + "; ".join(parts)
    return _wrap(text)


def _wrap(text: str, indent: int = 0) -> list[str]:
    """``text`` cleaned, then wrapped: the lines break where the wrapping says, never where a
    newline in a record would."""
    return textwrap.wrap(safetext.prose(text), width=100, initial_indent=" " * indent,
                         subsequent_indent=" " * (indent + 2)) or [""]
