"""What a change moves: two JSON reports (``workings verify --json``) held side by side.

A pull request that edits a claim or a source can slide a figure from ``verified`` to ``unchecked``
or ``erratum`` while verify still exits 0. ``compare`` lists every claim whose status or value
differs between a base report (main's) and a new one (the pull request's); ``failing`` picks the
moves that a policy (``verified->*`` by default) says must fail the check.

A move is written ``OLD->NEW`` with statuses, ``added`` or ``removed``; ``*`` stands for any status
(never for ``added``/``removed``, which must be named: deleting or renaming a record is often meant).
"""

from __future__ import annotations

from typing import Any

import json
import re
from pathlib import Path

from .frozen import frozen
from . import safetext
from .errors import LedgerError
from .report import STATUSES

DEFAULT_FAIL_ON = ("verified->*",)
_PSEUDO = ("added", "removed")


@frozen(kw_only=True)
class Move:
    """One claim that differs between the two reports."""

    claim: str
    old_status: str  # a status, or "added" when the claim is new
    new_status: str  # a status, or "removed" when the claim is gone
    old_value: str | None = None  # the recomputed value as displayed ("198.57408 GB")
    new_value: str | None = None
    figure: str | None = None  # the figure as printed in the new report (else the old)
    file: str = ""
    line: int = 0

    @property
    def arrow(self) -> str:
        return f"{self.old_status}->{self.new_status}"

    @property
    def what(self) -> str:
        """"status" when the status changed, else "value" (same status, another recomputed value)."""
        return "status" if self.old_status != self.new_status else "value"

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "old_status": self.old_status, "new_status": self.new_status,
                "old_value": self.old_value, "new_value": self.new_value, "figure": self.figure,
                "file": self.file, "line": self.line, "move": self.arrow}


def load_report(path: Path) -> dict[str, Any]:
    """A report written by ``workings verify --json``; any other file is a LedgerError naming it."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"), parse_constant=_no_constant,
                          object_pairs_hook=_unique_keys)
    except FileNotFoundError:
        raise LedgerError(f"{path}: no such report (write one with: workings verify --json {path})") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise LedgerError(f"{path}: not a JSON report: {exc}") from None
    except RecursionError:
        raise LedgerError(f"{path}: not a JSON report: nested too deep") from None
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list) or "format" not in data:
        raise LedgerError(f"{path}: not a workings report (no 'format' and 'claims')")
    seen: set[str] = set()
    for index, claim in enumerate(data["claims"]):
        if not isinstance(claim, dict) or not isinstance(claim.get("id"), str) or claim.get("status") not in STATUSES:
            raise LedgerError(f"{path}: claims[{index}]: not a claim result (an 'id' and a known 'status')")
        if claim["id"] in seen:  # the second would hide the first's move
            raise LedgerError(f"{path}: claims[{index}]: {claim['id']!r} is listed twice")
        seen.add(claim["id"])
        if (wrong := _wrong_field(claim)) is not None:
            raise LedgerError(f"{path}: claims[{index}].{wrong}: not what verify writes there")
    return data


# What diff reads of a claim result besides its id and status, and what verify writes there: a report
# a pull request built may hold anything.
_TEXT_FIELDS = ("exact", "unit", "display", "figure", "check", "file")


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is no number verify writes")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:  # Python keeps the last: a report could hide a claim's first status behind a second
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


_EXACT = re.compile(r"-?[\d,]++(?:\.\d++)?+(?:/[1-9][\d,]*+)?+")  # "196,608", "0.25", "445/1757"; never "1/0"


def _wrong_field(claim: dict[str, Any]) -> str | None:
    for key in _TEXT_FIELDS:
        if claim.get(key) is not None and not isinstance(claim[key], str):
            return key
    if claim.get("exact") is not None and not _EXACT.fullmatch(claim["exact"]):
        return "exact"
    if claim.get("line") is not None and (type(claim["line"]) is not int):
        return "line"
    comparison = claim.get("comparison")
    if comparison is None:
        return None
    if not isinstance(comparison, dict):
        return "comparison"
    recomputed = comparison.get("recomputed")
    if recomputed is not None and not isinstance(recomputed, dict):
        return "comparison.recomputed"
    if isinstance(recomputed, dict) and recomputed.get("display") is not None \
            and not isinstance(recomputed["display"], str):
        return "comparison.recomputed.display"
    return None


def _value(claim: dict[str, Any]) -> str | None:
    """The value that decides whether a claim moved: the exact recomputed value with its unit."""
    if claim.get("exact") is None:
        return None
    return f"{claim['exact']} {claim.get('unit') or ''}".strip()


def _display(claim: dict[str, Any]) -> str | None:
    comparison: dict[str, Any] = claim.get("comparison") or {}
    recomputed: dict[str, Any] = comparison.get("recomputed") or {}
    return recomputed.get("display") or claim.get("display")


def compare(base: dict[str, Any], new: dict[str, Any]) -> list[Move]:
    """Every claim whose status or recomputed value differs, in claim-id order."""
    old_claims = {c["id"]: c for c in base["claims"]}
    new_claims = {c["id"]: c for c in new["claims"]}
    moves = []
    for claim_id in sorted(old_claims.keys() | new_claims.keys()):
        old, now = old_claims.get(claim_id), new_claims.get(claim_id)
        if old and now and old["status"] == now["status"] and _value(old) == _value(now):
            continue
        shown: dict[str, Any] = now or old or {}
        moves.append(Move(claim=claim_id,
                          old_status=old["status"] if old else "added",
                          new_status=now["status"] if now else "removed",
                          old_value=_display(old) if old else None, new_value=_display(now) if now else None,
                          figure=shown.get("figure") or shown.get("check"),
                          file=shown.get("file") or "", line=shown.get("line") or 0))
    return moves


def parse_policy(text: str | None) -> tuple[str, ...]:
    """``"verified->*,drift->error"`` into its moves, each checked; None or "" gives the default."""
    if not text:
        return DEFAULT_FAIL_ON
    if text.strip() == "none":
        return ()
    known = set(STATUSES) | {"*"}
    moves = []
    for part in (p.strip() for p in text.split(",")):
        old, sep, new = part.partition("->")
        if not sep or old not in known | {"added"} or new not in known | {"removed"}:
            raise LedgerError(f"--fail-on {part!r}: a move is OLD->NEW, each a status ({', '.join(STATUSES)}) "
                              "or '*', with 'added' as OLD or 'removed' as NEW; or the word 'none'")
        moves.append(f"{old}->{new}")
    return tuple(moves)


def matches(move: Move, policy: tuple[str, ...]) -> bool:
    for rule in policy:
        old, new = rule.split("->")
        old_ok = move.old_status == old or (old == "*" and move.old_status not in _PSEUDO)
        new_ok = move.new_status == new or (new == "*" and move.new_status not in _PSEUDO)
        if old_ok and new_ok and move.old_status != move.new_status:
            return True
    return False


def failing(moves: list[Move], policy: tuple[str, ...]) -> list[Move]:
    return [m for m in moves if matches(m, policy)]


def as_text(moves: list[Move], policy: tuple[str, ...]) -> str:
    if not moves:
        return "No claim changed status or value.\n"
    bad = set(id(m) for m in failing(moves, policy))
    lines = []
    for m in moves:
        flag = "FAIL" if id(m) in bad else "    "
        values = f"{m.old_value or '-'} -> {m.new_value or '-'}" if m.old_value != m.new_value else (m.new_value or "")
        lines.append(f"{flag} {m.arrow:<22} {m.claim}  {values}".rstrip())
        if id(m) in bad:
            lines.append(f"     {m.file}:{m.line}: moved {m.arrow} (fails: --fail-on {','.join(policy)})")
    lines.append(f"{len(moves)} claims moved; {len(bad)} of them fail the check.")
    return safetext.lines(lines)  # ids and values come from a report a pull request may have built


def as_markdown(moves: list[Move], policy: tuple[str, ...]) -> str:
    out = ["## What this change moves", ""]
    if not moves:
        return "\n".join(out + ["No claim changed status or value.", ""])
    bad = set(id(m) for m in failing(moves, policy))

    cell, code = safetext.markdown, safetext.code  # no link, image, cell break or escape from a report
    out += ["| | claim | move | was | now | file |", "|---|---|---|---|---|---|"]
    for m in moves:
        out.append(f"| {'❌' if id(m) in bad else ''} | {code(m.claim)} | {m.arrow} | {cell(m.old_value or '')} | "
                   f"{cell(m.new_value or '')} | {code(f'{m.file}:{m.line}')} |")
    out += ["", f"{len(moves)} claims moved; {len(bad)} fail the check (`--fail-on {','.join(policy)}`).", ""]
    return "\n".join(out)
