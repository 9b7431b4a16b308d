"""The quant probe: the same KV cache in BF16, in FP8, and in packed 4-bit with per-group scales.

The 4-bit codes are integers (``int4``) or FP4 E2M1 floats (``e2m1``, the element of the OCP
MX/NVFP4 formats, here with one scale per group in any of the scale dtypes, FP8 E4M3 included).

FP8 is ``torch.float8_e4m3fn``, one byte per value (values clamped to its range, ±448).
The 4-bit format is symmetric integer quantisation in groups along the head dimension: each group
of ``group`` values shares one scale (``absmax / 7``, stored in ``scale_dtype``), each value
becomes a nibble in [-8, 7] stored with an offset of 8, and two nibbles are packed into one
``uint8``. With groups of 32 and FP16 scales that is 16 + 2 = 18 bytes per 32 values (4.5 bits),
the layout of llama.cpp's Q4_0, so BF16 / 4-bit = 64 / 18 = 32/9 ≈ 3.56.
"""

from __future__ import annotations

from collections.abc import Sequence

from dataclasses import dataclass
from fractions import Fraction

import torch

from .alloc import allocate, kv_cache, storage_bytes
from .shapes import KVShape

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0


# FP4 E2M1 (OCP microscaling formats): 1 sign, 2 exponent, 1 mantissa bit; these are its magnitudes.
E2M1_GRID = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
ELEMENTS = {"int4": 7.0, "e2m1": 6.0}  # element kind -> the largest magnitude a code stands for


@dataclass(frozen=True, kw_only=True)
class Packed4:
    """Values packed two per byte (low nibble first), with one scale per group."""

    data: torch.Tensor  # uint8 [..., head_dim // 2]
    scales: torch.Tensor  # scale_dtype [..., head_dim // group]
    group: int
    element: str  # int4 (integers -8..7, offset by 8) or e2m1 (sign bit, then an index into E2M1_GRID)


def _encode(scaled: torch.Tensor, element: str) -> torch.Tensor:
    if element == "int4":
        return scaled.round().clamp_(-8, 7).add_(8).to(torch.uint8)
    grid = torch.tensor(E2M1_GRID, device=scaled.device)
    index = torch.bucketize(scaled.abs(), (grid[1:] + grid[:-1]) / 2)  # nearest magnitude
    return (index | ((scaled < 0).to(torch.int64) << 3)).to(torch.uint8)


def _decode(codes: torch.Tensor, element: str) -> torch.Tensor:
    if element == "int4":
        return codes.float() - 8
    grid = torch.tensor(E2M1_GRID, device=codes.device)
    magnitude = grid[(codes & 0x7).long()]
    return torch.where((codes & 0x8).bool(), -magnitude, magnitude)


def pack_int4(x: torch.Tensor, group: int = 32, scale_dtype: torch.dtype = torch.float16,
              element: str = "int4") -> Packed4:
    """Quantise ``x`` (last dimension divisible by ``group``, ``group`` even) to packed 4-bit codes.

    Each group's scale is its largest magnitude over the largest the element can hold, so the
    largest value of a group maps to the largest code.
    """
    dim = x.shape[-1]
    if group < 2 or group % 2 or dim % group:
        raise ValueError(f"group must be even and divide the last dimension {dim}, got {group}")
    if element not in ELEMENTS:
        raise ValueError(f"element must be one of {', '.join(ELEMENTS)}, got {element!r}")
    grouped = x.float().reshape(*x.shape[:-1], dim // group, group)
    scales = grouped.abs().amax(dim=-1, keepdim=True) / ELEMENTS[element]
    scales = (to_fp8(scales) if scale_dtype == FP8 else scales.to(scale_dtype))
    safe = scales.float().clamp_min(torch.finfo(torch.float32).tiny)
    codes = _encode(grouped / safe, element).reshape(*x.shape)
    data = codes[..., 0::2] | (codes[..., 1::2] << 4)
    return Packed4(data=data.contiguous(), scales=scales.squeeze(-1).contiguous(), group=group, element=element)


def unpack_int4(packed: Packed4, dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    """The values ``packed`` stands for, in ``dtype``."""
    codes = torch.stack((packed.data & 0x0F, packed.data >> 4), dim=-1)
    codes = codes.reshape(*packed.data.shape[:-1], packed.data.shape[-1] * 2)
    dim = codes.shape[-1]
    values = _decode(codes, packed.element).reshape(*codes.shape[:-1], dim // packed.group, packed.group)
    return (values * packed.scales.float().unsqueeze(-1)).reshape(codes.shape).to(dtype)


def to_fp8(x: torch.Tensor) -> torch.Tensor:
    return x.float().clamp(-FP8_MAX, FP8_MAX).to(FP8)


def _relative_error(original: Sequence, restored: Sequence) -> float:
    """Largest |error| over largest |value|, across the cache: a sanity check that values survive."""
    worst = max(float((o.float() - r.float()).abs().max()) for o, r in zip(original, restored))
    scale = max(float(o.float().abs().max()) for o in original)
    return worst / scale if scale else 0.0


@dataclass(frozen=True, kw_only=True)
class QuantResult:
    shape: KVShape  # the reference cache (its dtype is the baseline, normally bfloat16)
    device_type: str
    tokens: int
    group: int
    scale_dtype: str
    element: str
    baseline_bytes: int  # measured: storage on cpu, allocator delta on cuda
    fp8_bytes: int
    int4_bytes: int  # data and scales together
    int4_data_bytes: int  # storage bytes of the packed values alone (int4 or e2m1 codes)
    int4_scale_bytes: int  # storage bytes of the scales alone
    fp8_error: float
    int4_error: float

    @property
    def fp8_ratio(self) -> Fraction:
        return Fraction(self.baseline_bytes, self.fp8_bytes)

    @property
    def int4_ratio(self) -> Fraction:
        return Fraction(self.baseline_bytes, self.int4_bytes)


def probe_quant(shape: KVShape, dev: torch.device, *, tokens: int = 64, group: int = 32,
                scale_dtype: str = "float16", element: str = "int4") -> QuantResult:
    """Build the cache in ``shape.dtype``, then in FP8 and packed 4-bit, and measure each."""
    baseline = allocate(dev, lambda: kv_cache(shape, tokens, dev))
    fp8 = allocate(dev, lambda: [to_fp8(t) for t in baseline.tensors])
    sdtype = getattr(torch, scale_dtype)
    packed = [pack_int4(t, group, sdtype, element) for t in baseline.tensors]  # temporaries freed before counting
    int4 = allocate(dev, lambda: [p.data.clone() for p in packed] + [p.scales.clone() for p in packed])
    data_bytes = storage_bytes([p.data for p in packed])
    scale_bytes = storage_bytes([p.scales for p in packed])
    fp8_error = _relative_error(baseline.tensors, [t.to(baseline.tensors[0].dtype) for t in fp8.tensors])
    int4_error = _relative_error(baseline.tensors, [unpack_int4(p) for p in packed])
    return QuantResult(shape=shape, device_type=dev.type, tokens=tokens, group=group, scale_dtype=scale_dtype,
                       element=element, baseline_bytes=baseline.measured, fp8_bytes=fp8.measured, int4_bytes=int4.measured,
                       int4_data_bytes=data_bytes, int4_scale_bytes=scale_bytes,
                       fp8_error=fp8_error, int4_error=int4_error)
