"""``workings new --from-draft``: a starting claim record for every unbacked figure of a draft.

Each record holds the sentence and the figure as printed, in the ledger's units, and no working:
it stays ``unchecked`` (and check-draft says so) until someone adds inputs and compute steps, or
cites the passage of a source that states it. An existing file is never overwritten: the record is
written to a temporary file and hard-linked into place, which fails if the name is taken.

Every value is written by a YAML emitter (a double-quoted scalar with every line break and control
character escaped), and the draft's file name goes into the comment cleaned (``safetext``): a
sentence comes back exactly as printed, and no file name or sentence can add a key to the record.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ..frozen import frozen
from .. import atomic, safetext
from ..figures import format_exact
from .check import DraftCheck
from .finder import Figure

_SLUG = re.compile(r"[^a-z0-9]+")
LABELS = "derived | quoted | estimate | bound | vendor | measured"


@frozen(kw_only=True)
class Written:
    path: Path
    line: int
    figure: str
    written: bool  # False: a file of that name was already there, left as it was


def starting_records(check: DraftCheck, *, root: Path, issue: str, draft_name: str) -> list[Written]:
    """Write claims/<issue>/<slug>.yaml for each unbacked figure; return what was done."""
    if check.found is None:  # a DraftCheck read back from a report has no finder output
        raise ValueError("starting records need the figures check_draft found in the draft")
    by_place = {(f.line, f.column): f for f in check.found.figures}
    folder = Path(root) / "claims" / issue
    atomic.check_inside(root, folder)  # never through a claims/ or claims/<issue>/ that links elsewhere
    out: list[Written] = []
    names: set[str] = set()
    counted: dict[str, int] = {}
    for result in check.figures:
        if result.status != "unbacked" or result.kind == "equation" or result.claim:
            continue
        figure = by_place[(result.line, result.column)]
        name = _name(figure, names, counted)
        path = folder / f"{name}.yaml"
        printed = figure_text(figure)
        out.append(Written(path=path, line=figure.line, figure=printed,
                           written=_create(path, record(figure, printed, draft_name, result.same_value))))
    return out


def figure_text(figure: Figure) -> str:
    """The figure in the record's form: the number exact ("196,608", "0.003", "1/437"), then the
    unit in the ledger's names."""
    value = figure.value
    if value.denominator == 1:
        number = f"{value.numerator:,}"
    else:
        number = format_exact(value)
        if figure.step is None or "/" in number:  # words ("a quarter") or a repeating decimal
            number = f"{value.numerator}/{value.denominator}"
    return f"{number} {figure.unit}".strip()


def record(figure: Figure, printed: str, draft_name: str, same_value: tuple[str, ...] = ()) -> str:
    said = figure.sentence[:2000]
    lines = [f"# Starting record from {safetext.clean(draft_name)}, line {figure.line}, written by "
             "`workings new --from-draft`.",
             "# Unchecked until it has a working: inputs (source#key, or literals with assumptions) and",
             "# compute steps, or cites of the passage that states it.",
             f"said: {_quote(said)}",
             f"figure: {_quote(printed)}",
             f"label: {_label(figure)}  # {LABELS}"]
    if figure.qualifier in ("more than", "at least") or figure.upper is not None:
        lines.append("bound: at-least")
    elif figure.qualifier in ("less than", "at most"):
        lines.append("bound: at-most")
    note = f"Unchecked: ledgered from the draft as printed ({figure.text}); no working yet."
    if figure.upper is not None:
        note += f" Printed as a range; the figure is its low end, up to {format_exact(figure.upper)}."
    lines.append(f"notes: {_quote(note)}")
    if same_value:
        # Claim ids are [a-z0-9._/-] only (the loader refuses others): safe inside a comment.
        lines += ["# Another claim holds this value in another sentence. If this figure IS that claim, delete",
                  "# this file and tie the figure in the draft: <!-- claim: ID --> right after it. If the",
                  "# figure is worked from it, take it as an input:",
                  "# inputs:"]
        lines += [f"#   same: claim:{safetext.clean(claim_id)}" for claim_id in same_value[:3]]
    return "\n".join(lines) + "\n"


def _label(figure: Figure) -> str:
    if figure.qualifier in ("more than", "at least", "less than", "at most"):
        return "bound"
    return "estimate" if figure.qualifier in ("about", "nearly") else "derived"


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _quote(text: str) -> str:
    """``text`` as one YAML double-quoted scalar on one line: "no" stays text, and every character
    survives a load, line breaks included (NEL, U+2028 and U+2029 are escaped as \\N, \\L, \\P, where a
    JSON string would leave them raw and YAML would fold them into a space)."""
    dumped = yaml.dump(text, Dumper=_DUMPER, default_style='"', allow_unicode=True, width=1 << 30)
    return dumped.removesuffix("\n").removesuffix("\n...")


def _name(figure: Figure, taken: set[str], counted: dict[str, int] | None = None) -> str:
    """A file name for the figure's record not in ``taken``: its slug, else the slug with -2, -3...
    ``counted`` remembers where each slug's count got to (the names below it are taken already),
    so that a draft printing "5" thousands of times does not try every number again each time."""
    base = _SLUG.sub("-", figure.text.lower()).strip("-")[:60].strip("-") or "figure"
    name, n = base, (counted or {}).get(base, 2)
    if name in taken:
        while (name := f"{base}-{n}") in taken:
            n += 1
        if counted is not None:
            counted[base] = n + 1
    taken.add(name)
    return name


def _create(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` atomically unless ``path`` exists; True when written."""
    return atomic.create_text(path, text)
