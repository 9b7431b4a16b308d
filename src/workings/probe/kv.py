"""The kv-bytes probe: bytes of a real KV cache at several token counts, fitted to a line."""

from __future__ import annotations

from functools import partial

from dataclasses import dataclass
from typing import Sequence

import torch
import torch.nn.functional as F

from .alloc import allocate, kv_cache
from .linfit import LinearFit, fit_line
from .shapes import KVShape

CPU_TOKENS = (16, 32, 48, 64)
CUDA_TOKENS = (1024, 2048, 4096, 8192)


@dataclass(frozen=True, kw_only=True)
class KVSample:
    tokens: int
    requested: int  # bytes of the key and value storages
    measured: int  # cpu: storage bytes; cuda: memory_allocated delta
    reserved: int | None = None  # cuda: memory_reserved delta (segments, rounded up to 2 MiB and more)

    @property
    def rounding(self) -> int:
        return self.measured - self.requested

    def to_dict(self) -> dict:
        out = {"tokens": self.tokens, "requested_bytes": self.requested, "measured_bytes": self.measured,
               "rounding_bytes": self.rounding}
        if self.reserved is not None:
            out["reserved_bytes"] = self.reserved
        return out


@dataclass(frozen=True, kw_only=True)
class KVBytesResult:
    shape: KVShape
    device_type: str
    samples: tuple[KVSample, ...]
    fit: LinearFit  # of the measured bytes
    requested_fit: LinearFit  # of the requested bytes: the difference is the allocator's rounding
    decode_heads: int  # query heads of the decode step run over the cache

    @property
    def per_token(self):
        return self.fit.per_token


def decode_step(cache: Sequence[torch.Tensor], shape: KVShape) -> None:
    """One attention decode step per layer: a single new query attends over the whole cache.

    Run so that the tensors measured are ones ``scaled_dot_product_attention`` accepts as they
    are (no copy, no transpose); with more query heads than KV heads this is grouped-query attention.
    """
    dev = cache[0].device
    dtype = cache[0].dtype
    if dtype.itemsize < 2:
        raise ValueError(f"the decode step needs a compute dtype; the cache is {dtype}")
    gqa = shape.query_heads != shape.kv_heads
    query = torch.randn((shape.batch, shape.query_heads, 1, shape.head_dim), dtype=dtype, device=dev)
    for layer in range(shape.layers):
        key, value = cache[2 * layer], cache[2 * layer + 1]
        out = F.scaled_dot_product_attention(query, key, value, enable_gqa=gqa)
        if out.shape != query.shape or not bool(torch.isfinite(out).all()):
            raise RuntimeError(f"decode step over layer {layer} gave {tuple(out.shape)} or non-finite values")


def probe_kv_bytes(shape: KVShape, dev: torch.device, tokens: Sequence[int] | None = None) -> KVBytesResult:
    """Allocate the cache at each token count, run a decode step over it, and fit bytes to tokens."""
    if tokens is None:
        tokens = CUDA_TOKENS if dev.type == "cuda" else CPU_TOKENS
    tokens = tuple(tokens)
    if len(set(tokens)) < 2 or min(tokens) < 1:
        raise ValueError(f"need at least two distinct positive token counts, got {tokens}")
    samples = []
    for n in tokens:
        if dev.type == "cuda":
            torch.cuda.empty_cache()  # each sample starts from no cached segments, so reserved is its own
        allocation = allocate(dev, partial(kv_cache, shape, n, dev))
        decode_step(allocation.tensors, shape)
        samples.append(KVSample(tokens=n, requested=allocation.requested, measured=allocation.measured,
                                reserved=allocation.reserved))
        del allocation
    return KVBytesResult(
        shape=shape, device_type=dev.type, samples=tuple(samples),
        fit=fit_line([s.tokens for s in samples], [s.measured for s in samples]),
        requested_fit=fit_line([s.tokens for s in samples], [s.requested for s in samples]),
        decode_heads=shape.query_heads)
