"""Bytes per value of the dtypes a model config names (`"torch_dtype": "bfloat16"`).

A claim reads a config's dtype as bytes with the input form `dtype:SOURCE#KEY` (see docs/format.md):
the value at KEY must be one of the names below, and the input is that many bytes (`B`). A name not
in the table is an error that lists the known ones: the ledger never guesses a width. Names are
PyTorch's, as transformers writes them into config.json (`torch_dtype`, or `dtype` since 4.56),
optionally with the `torch.` prefix; sub-byte formats (int4, FP4) are packed and have no whole width
per value, so they are not here.
"""

from __future__ import annotations

from fractions import Fraction

from .errors import LedgerError

BYTES_PER_VALUE = {
    "float64": 8, "double": 8,
    "float32": 4, "float": 4,
    "bfloat16": 2,
    "float16": 2, "half": 2,
    "float8_e4m3fn": 1, "float8_e4m3fnuz": 1, "float8_e5m2": 1, "float8_e5m2fnuz": 1, "float8_e8m0fnu": 1,
    "int64": 8, "int32": 4, "int16": 2, "int8": 1, "uint8": 1,
}  # fmt: skip


def bytes_per_value(name: str, where: str = "") -> Fraction:
    """The width of dtype ``name`` in bytes; LedgerError naming ``where`` for anything else."""
    key = name.strip().removeprefix("torch.")
    if key not in BYTES_PER_VALUE:
        known = ", ".join(sorted(BYTES_PER_VALUE))
        raise LedgerError(f"{name!r}{f' ({where})' if where else ''} is not a dtype workings knows the width of "
                          f"(known: {known})")
    return Fraction(BYTES_PER_VALUE[key])
