"""Allocating the cache as real tensors, and counting what it takes.

On CPU the count is the bytes of the tensors' storages (what torch holds for them). On CUDA it is
the change in ``torch.cuda.memory_allocated``, the caching allocator's own count, which includes
its rounding of each block (to 512 bytes); the requested bytes are kept beside it so the rounding
is reported separately instead of hidden in the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import torch

from .shapes import KVShape


def storage_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the distinct storages behind ``tensors`` (a view is not counted twice)."""
    seen: dict[tuple[str, int], int] = {}
    for t in tensors:
        storage = t.untyped_storage()
        key = (str(t.device), storage.data_ptr() if t.device.type != "meta" else id(storage))
        seen[key] = storage.nbytes()
    return sum(seen.values())


@dataclass(frozen=True, kw_only=True)
class Allocation:
    tensors: tuple[torch.Tensor, ...]
    requested: int  # bytes of the storages asked for
    measured: int  # cpu/meta: the same storage bytes; cuda: the memory_allocated delta
    reserved: int | None = None  # cuda: the memory_reserved delta (whole segments the allocator took)


def allocate(dev: torch.device, build: Callable[[], list[torch.Tensor]]) -> Allocation:
    """Run ``build`` on ``dev`` and count the bytes it allocated and still holds."""
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
        before, reserved = torch.cuda.memory_allocated(dev), torch.cuda.memory_reserved(dev)
        tensors = tuple(build())
        torch.cuda.synchronize(dev)
        measured = torch.cuda.memory_allocated(dev) - before
        return Allocation(tensors=tensors, requested=storage_bytes(tensors), measured=measured,
                          reserved=torch.cuda.memory_reserved(dev) - reserved)
    tensors = tuple(build())
    requested = storage_bytes(tensors)
    return Allocation(tensors=tensors, requested=requested, measured=requested)


def kv_cache(shape: KVShape, tokens: int, dev: torch.device, *, fill: bool = True) -> list[torch.Tensor]:
    """Per layer, one key and one value tensor ``[batch, kv_heads, tokens, head_dim]``.

    ``fill`` draws normal values in place (no temporary); without it the memory is left
    uninitialised, which is enough for a capacity search and touches no pages on CPU.
    """
    dtype = getattr(torch, shape.dtype)
    size = (shape.batch, shape.kv_heads, tokens, shape.head_dim)
    out = []
    for _ in range(shape.layers):
        for _kv in range(2):
            t = torch.empty(size, dtype=dtype, device=dev)
            if fill and t.numel() and dev.type != "meta":
                if dtype.is_floating_point and dtype.itemsize >= 2:
                    t.normal_()
                else:  # float8 has no in-place normal_: draw in float32, then cast
                    t.copy_(torch.randn(size, device=dev).clamp_(-448, 448))
            out.append(t)
    return out
