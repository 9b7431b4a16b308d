"""Errors and problems.

A *problem* is something wrong with one record, reported with its place and collected so that a run
reports every problem at once. A ``LedgerError`` is raised inside a computation and turned into a
problem by the caller that knows the place. The CLI catches ``LedgerError`` (and only the few other
exceptions its docstring names), so a real bug still shows its traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


class LedgerError(Exception):
    """Input that workings cannot use; the message says what was expected."""


class ExpressionError(LedgerError):
    """A step or check that the evaluator refuses or cannot compute."""


class UnitError(LedgerError):
    """A unit that is unknown, ambiguous, or of the wrong dimension."""


@dataclass(frozen=True, kw_only=True, order=True)
class Problem:
    """One thing wrong with a record: ``file:line: key: message``."""

    file: str
    line: int
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"

    def to_dict(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "key": self.key, "message": self.message}
