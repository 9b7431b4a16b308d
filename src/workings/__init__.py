"""workings: a claims ledger for published figures.

The library behind the CLI, for a newsletter's own scripts::

    import workings

    report = workings.verify("path/to/ledger")   # a Report: computed once, every output formats it
    for claim in report.claims:                  # ClaimResult: id, status, figure, result, grade, ...
        if claim.status != "verified":
            print(claim.id, claim.status, claim.reason)
    report.exit_code                             # 0 all good, 1 a figure drifted, 2 input unusable

``verify`` reads the ledger and never touches the network; records that cannot be used become
``error`` claims and ``report.problems`` (each with file, line and key), not exceptions. It raises
``LedgerError`` only when the folder itself cannot be read.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

from .errors import LedgerError, Problem
from .report import (FAILING, STATUSES, Citation, ClaimResult, Comparison, InputResult, Message, Quantity,
                     Report, SourceResult, StepResult)

__version__ = "0.1.0"

__all__ = ["verify", "Report", "ClaimResult", "SourceResult", "Comparison", "Quantity", "InputResult",
           "StepResult", "Citation", "Message", "Problem", "LedgerError", "STATUSES", "FAILING", "__version__"]


def verify(root: str | PathLike[str] = ".", *, jobs: int | None = None) -> Report:
    """Recompute every claim of the ledger at ``root`` (the folder holding claims/ and ledger/).
    ``jobs``: how many processes may read the claim records of a large ledger (default: the
    processors this one may use; 1: this one alone); the report is the same for any number."""
    from .engine import verify as _verify  # pint and the registry load here, not on import

    return _verify(Path(root), jobs=jobs)
