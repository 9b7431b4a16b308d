"""A published text in CI: every figure backed, an acknowledged erratum, or listed with a reason.

A published text (``claims/<slug>/article.md``) cannot be edited to suit the ledger, and some of
its figures have no claim of their own: a format named in passing ("a 4-bit format"), a figure
the ledger records as unchecked. Its front matter lists each such figure with the reason, so that a
figure nobody looked at fails CI while one somebody explained does not::

    not_backed:
      - figure: 4-bit                    # as check-draft prints it
        in: A 4-bit format with scales   # a part of its sentence, to tell repeated figures apart
        reason: names the format the 3.6 times is about; ...

Only ``unbacked`` and ``unchecked`` figures can be listed: a ``drift`` or ``ambiguous`` one is
wrong as printed and needs an erratum in its claim. An entry that matches no such figure is an
error too, so that the list cannot go stale.
"""

from __future__ import annotations


from ..frozen import frozen
from ..errors import LedgerError
from .article import FrontMatter
from .check import DraftCheck, FigureResult

LISTABLE = ("unbacked", "unchecked")


@frozen(kw_only=True)
class Listed:
    figure: str
    within: str
    reason: str
    index: int


@frozen(kw_only=True)
class Accounting:
    file: str
    listed: tuple[tuple[FigureResult, str], ...]     # figures explained by the front matter
    unexplained: tuple[FigureResult, ...]            # neither backed, an erratum, nor listed
    unused: tuple[Listed, ...]                       # entries that match no listable figure

    @property
    def exit_code(self) -> int:
        return 1 if self.unexplained or self.unused else 0


def entries(head: FrontMatter, file: str) -> list[Listed]:
    raw = head.data.get("not_backed")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise LedgerError(f"{file}: front matter: not_backed must be a list of {{figure, in, reason}}")
    out = []
    for index, item in enumerate(raw):
        where = f"{file}: front matter: not_backed[{index}]"
        if not isinstance(item, dict) or set(item) - {"figure", "in", "reason"}:
            raise LedgerError(f"{where}: expected the keys figure, in (optional) and reason")
        figure, within, reason = item.get("figure"), item.get("in", ""), item.get("reason")
        if not isinstance(figure, str) or not figure.strip() or not isinstance(within, str):
            raise LedgerError(f"{where}: figure (and in) must be text")
        if not isinstance(reason, str) or not reason.strip():
            raise LedgerError(f"{where}: a listed figure needs its reason")
        out.append(Listed(figure=figure.strip(), within=within.strip(), reason=" ".join(reason.split()), index=index))
    return out


def account(check: DraftCheck, head: FrontMatter) -> Accounting:
    """Hold the check's figures against the front matter's ``not_backed`` list."""
    waiting = entries(head, check.file)
    used: set[int] = set()
    listed, unexplained = [], []
    for figure in check.figures:
        if figure.status in ("backed", "holds", "erratum"):
            continue
        entry = None
        if figure.status in LISTABLE:
            entry = next((e for e in waiting if e.index not in used and e.figure == figure.text
                          and e.within in figure.sentence), None)
        if entry is None:
            unexplained.append(figure)
        else:
            used.add(entry.index)
            listed.append((figure, entry.reason))
    return Accounting(file=check.file, listed=tuple(listed), unexplained=tuple(unexplained),
                      unused=tuple(e for e in waiting if e.index not in used))


def render(accounting: Accounting) -> str:
    lines = []
    for figure, reason in accounting.listed:
        lines.append(f"listed   line {figure.line}: {figure.text} ({figure.status}): {reason}")
    for figure in accounting.unexplained:
        why = "wrong as printed: record an erratum in its claim" if figure.status in ("drift", "ambiguous") \
            else "back it with a claim, or list it under not_backed with the reason"
        lines.append(f"NOT ACCOUNTED FOR  line {figure.line}: {figure.text} ({figure.status}): {why}")
    for entry in accounting.unused:
        lines.append(f"UNUSED   not_backed[{entry.index}]: {entry.figure!r} in {entry.within!r} matches no "
                     "unbacked or unchecked figure: remove it")
    total = len(accounting.unexplained) + len(accounting.unused)
    lines.append(f"{accounting.file}: {len(accounting.listed)} listed with a reason; "
                 + ("every figure accounted for" if not total else f"{total} not accounted for"))
    return "\n".join(lines) + "\n"
