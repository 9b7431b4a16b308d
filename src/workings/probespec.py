"""The optional ``probe:`` key of a claim record: which probe measures the claim, and from what.

No torch here: verify may validate a record's ``probe:`` without the probe extra. A shape field
names where its number comes from, so the probe builds exactly what the claim computes with:

- a name of one of this claim's inputs or steps (``layers``),
- ``claim:<id>#<name>``, an input or step of another claim (a fit claim that takes its bytes per
  token from the kv-bytes claim takes its shape from there too),
- or a whole number written in the record (``head_dim: 128``), for a probe-only detail.
"""

from __future__ import annotations

from typing import Any

import re

from .frozen import frozen
from .errors import LedgerError

# Bytes per value of the dtypes a probe may build the cache in, by the name a record uses.
# The names are torch's, so ``getattr(torch, name)`` finds the dtype.
DTYPE_BYTES = {
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float8_e4m3fn": 1,
}

KINDS = ("kv-bytes", "fit", "quant")
QUANT_FORMATS = ("fp8", "int4", "fp4")  # fp4: E2M1 values
SCALE_DTYPES = ("float16", "bfloat16", "float32", "float8_e4m3fn")
_COMMON = {"kind", "layers", "kv_heads", "head_dim", "heads", "dtype", "measures"}
_ALLOWED = {
    "kv-bytes": _COMMON | {"tokens"},
    "fit": _COMMON | {"weights", "memory"},
    "quant": _COMMON | {"format", "group", "scale_dtype", "tokens"},
}
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_CLAIM_REF = re.compile(r"^claim:(?P<claim>[a-z0-9][a-z0-9._/-]*)#(?P<name>[A-Za-z][A-Za-z0-9_]{0,63})$")


class ProbeError(LedgerError):
    """A claim that cannot be probed as asked, or a probe that cannot run here."""


class ProbeSpecError(LedgerError):
    """A ``probe:`` mapping that cannot be used; ``key`` is its place under ``probe``."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


@frozen(kw_only=True)
class Ref:
    """Where a number comes from: a literal, a name in this claim, or a name in another claim."""

    literal: int | None = None
    name: str | None = None
    claim: str | None = None  # None: this claim

    @classmethod
    def parse(cls, value: object, key: str) -> "Ref":
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 1:
                raise ProbeSpecError(key, f"expected a positive whole number, got {value}")
            return cls(literal=value)
        if isinstance(value, str):
            match = _CLAIM_REF.fullmatch(value)
            if match:
                return cls(name=match.group("name"), claim=match.group("claim"))
            if _NAME.fullmatch(value):
                return cls(name=value)
        raise ProbeSpecError(key, "expected an input or step name of this claim, claim:<id>#<name>, "
                             f"or a whole number; got {value!r}")

    def __str__(self) -> str:
        if self.literal is not None:
            return str(self.literal)
        return f"claim:{self.claim}#{self.name}" if self.claim else str(self.name)


@frozen(kw_only=True)
class ProbeSpec:
    kind: str
    layers: Ref
    kv_heads: Ref
    head_dim: Ref
    heads: Ref | None = None
    dtype: str = "bfloat16"
    measures: str | None = None  # the step the measurement is compared with; None: the claim's result
    weights: Ref | None = None  # fit: bytes of weights to hold
    memory: str | None = None  # fit: the input that is the device's memory, replaced by the real one
    format: str | None = None  # quant: fp8 | int4 | fp4 (E2M1)
    group: int = 32  # quant int4/fp4: values per scale
    scale_dtype: str = "float16"  # quant int4/fp4: dtype of each scale
    tokens: tuple[int, ...] = ()  # kv-bytes: token counts; quant: one count (default 64)

    @classmethod
    def from_dict(cls, data: object) -> "ProbeSpec":
        if not isinstance(data, dict):
            raise ProbeSpecError("", "expected a mapping")
        kind = data.get("kind")
        if not isinstance(kind, str) or kind not in KINDS:
            raise ProbeSpecError("kind", f"expected one of {', '.join(KINDS)}, got {kind!r}")
        for key in data:
            if key not in _ALLOWED[kind]:
                raise ProbeSpecError(str(key), f"unknown key for a {kind} probe "
                                     f"(expected one of: {', '.join(sorted(_ALLOWED[kind]))})")
        for key in ("layers", "kv_heads", "head_dim"):
            if key not in data:
                raise ProbeSpecError(key, "missing: every probe builds a cache of the claim's shape")
        dtype = data.get("dtype", "bfloat16")
        if not isinstance(dtype, str) or dtype not in DTYPE_BYTES or (kind != "quant" and dtype == "float8_e4m3fn"):
            raise ProbeSpecError("dtype", f"expected one of {', '.join(d for d in DTYPE_BYTES if d != 'float8_e4m3fn')}, "
                                 f"got {dtype!r}")
        measures = data.get("measures")
        if measures is not None and (not isinstance(measures, str) or not _NAME.fullmatch(measures)):
            raise ProbeSpecError("measures", f"expected a step name of this claim, got {measures!r}")
        spec: dict[str, Any] = dict(kind=kind, dtype=dtype, measures=measures,
                    **{k: Ref.parse(data[k], k) for k in ("layers", "kv_heads", "head_dim")})
        if "heads" in data:
            spec["heads"] = Ref.parse(data["heads"], "heads")
        if kind == "fit":
            for key in ("weights", "memory"):
                if key not in data:
                    raise ProbeSpecError(key, "missing: a fit probe holds the weights and replaces the memory")
            spec["weights"] = Ref.parse(data["weights"], "weights")
            if not isinstance(data["memory"], str) or not _NAME.fullmatch(data["memory"]):
                raise ProbeSpecError("memory", f"expected the name of this claim's memory input, got {data['memory']!r}")
            spec["memory"] = data["memory"]
        if kind == "quant":
            spec.update(_quant(data))
        if kind == "kv-bytes" and "tokens" in data:
            tokens = data["tokens"]
            if (not isinstance(tokens, list) or len(set(map(repr, tokens))) < 2
                    or not all(isinstance(t, int) and not isinstance(t, bool) and t > 0 for t in tokens)):
                raise ProbeSpecError("tokens", "expected a list of at least two different positive token counts")
            spec["tokens"] = tuple(tokens)
        return cls(**spec)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "layers": _plain(self.layers), "kv_heads": _plain(self.kv_heads),
                     "head_dim": _plain(self.head_dim), "dtype": self.dtype}
        if self.heads is not None:
            out["heads"] = _plain(self.heads)
        if self.measures is not None:
            out["measures"] = self.measures
        if self.kind == "fit":
            out.update(weights=_plain(self.weights), memory=self.memory)
        if self.kind == "quant":
            out.update(format=self.format, group=self.group, scale_dtype=self.scale_dtype, tokens=self.tokens[0])
        elif self.tokens:
            out["tokens"] = list(self.tokens)
        return out


# A per-token claim over these names is the standard-attention formula: without a probe: key, kv-bytes
# measures it (``workings probe``'s default), its value_bytes naming the dtype.
KV_NAMES = ("layers", "kv_heads", "head_dim")
DTYPE_BY_BYTES = {2: "bfloat16", 4: "float32"}


def implied_spec(claim: Any, values: dict[str, Any]) -> ProbeSpec | None:
    """The kv-bytes probe of a claim with no ``probe:`` key whose result is bytes per token computed
    over ``layers``, ``kv_heads``, ``head_dim`` and ``value_bytes`` (2 or 4 bytes); None for any other.
    ``values``: the claim's inputs and steps by name, as evaluated (quantities or plain numbers)."""
    from . import units

    def quantity(value: Any) -> Any:
        return value if units.is_quantity(value) else units.dimensionless(value)

    result = values.get(claim.compute[-1].name) if claim.compute else None
    value_bytes = values.get("value_bytes")
    if result is None or value_bytes is None or not all(n in values for n in KV_NAMES):
        return None
    if not units.same_dimension(quantity(result), units.quantity(1, "B/token")) \
            or not units.same_dimension(quantity(value_bytes), units.quantity(1, "B")) \
            or units.convert(value_bytes, "B") not in DTYPE_BY_BYTES:
        return None
    spec: dict[str, Any] = {"kind": "kv-bytes", "dtype": DTYPE_BY_BYTES[int(units.convert(value_bytes, "B"))],
                            **{n: n for n in KV_NAMES}}
    if "heads" in values:  # query heads, where the claim has them: the decode step is then GQA
        spec["heads"] = "heads"
    return ProbeSpec.from_dict(spec)


def _plain(ref: Ref | None) -> int | str:
    return ref.literal if ref is not None and ref.literal is not None else str(ref)


def _quant(data: dict[str, Any]) -> dict[str, Any]:
    fmt = data.get("format")
    if not isinstance(fmt, str) or fmt not in QUANT_FORMATS:
        raise ProbeSpecError("format", f"expected one of {', '.join(QUANT_FORMATS)}, got {fmt!r}")
    group = data.get("group", 32)
    if isinstance(group, bool) or not isinstance(group, int) or group < 2 or group % 2:
        raise ProbeSpecError("group", f"expected an even whole number of values per scale, got {group!r}")
    scale_dtype = data.get("scale_dtype", "float16")
    if not isinstance(scale_dtype, str) or scale_dtype not in SCALE_DTYPES:
        raise ProbeSpecError("scale_dtype", f"expected one of {', '.join(SCALE_DTYPES)}, got {scale_dtype!r}")
    tokens = data.get("tokens", 64)
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
        raise ProbeSpecError("tokens", f"expected one positive token count, got {tokens!r}")
    return {"format": fmt, "group": group, "scale_dtype": scale_dtype, "tokens": (tokens,)}
