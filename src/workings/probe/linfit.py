"""Exact least-squares fit of ``bytes = per_token * tokens + fixed``.

Byte counts and token counts are integers, so the normal equations are solved in
:class:`fractions.Fraction`: a layout that is exactly linear gives exactly its bytes per
token (196,608, not 196607.99999), and any allocator rounding shows up as a non-zero
residual instead of being absorbed by floating point.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence


@dataclass(frozen=True, kw_only=True)
class LinearFit:
    """The fitted line and how well it fits the samples it came from."""

    per_token: Fraction
    fixed: Fraction
    residuals: tuple[Fraction, ...]

    @property
    def exact(self) -> bool:
        """True when every sample lies on the line."""
        return all(r == 0 for r in self.residuals)

    @property
    def max_abs_residual(self) -> Fraction:
        return max((abs(r) for r in self.residuals), default=Fraction(0))


def fit_line(tokens: Sequence[int], sizes: Sequence[int]) -> LinearFit:
    """Least-squares line through ``(tokens[i], sizes[i])``, in exact arithmetic.

    Needs at least two distinct token counts; raises ValueError otherwise.
    """
    if len(tokens) != len(sizes):
        raise ValueError(f"{len(tokens)} token counts but {len(sizes)} sizes")
    if len(set(tokens)) < 2:
        raise ValueError("a line needs at least two distinct token counts")
    n = len(tokens)
    sum_x = sum(tokens)
    sum_y = sum(sizes)
    sum_xx = sum(x * x for x in tokens)
    sum_xy = sum(x * y for x, y in zip(tokens, sizes))
    # Normal equations: slope = (n Σxy - Σx Σy) / (n Σx² - (Σx)²), intercept = (Σy - slope Σx) / n.
    per_token = Fraction(n * sum_xy - sum_x * sum_y, n * sum_xx - sum_x * sum_x)
    fixed = (sum_y - per_token * sum_x) / n
    residuals = tuple(Fraction(y) - (per_token * x + fixed) for x, y in zip(tokens, sizes))
    return LinearFit(per_token=per_token, fixed=fixed, residuals=residuals)
