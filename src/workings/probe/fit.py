"""The fit probe: hold a weights-sized allocation, then find by bisection the most tokens of cache
that still fit beside it.

On CUDA "fits" means the caching allocator could hand out every key and value tensor
(``torch.OutOfMemoryError`` otherwise). On CPU there is no allocator failure to trust (Linux
overcommits), so the run is against a stated budget: the weights and the cache are allocated
as real tensors and their storage bytes must not exceed the budget. Budgets larger than
``REAL_CPU_LIMIT`` are counted on torch's ``meta`` device, which computes the same storage sizes
without backing memory, so the search for an 80 GiB budget runs on a small CI machine.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Callable

import torch

from .alloc import kv_cache, storage_bytes
from .shapes import KVShape
from ..probespec import ProbeError

REAL_CPU_LIMIT = 1 << 30  # budgets up to 1 GiB are allocated for real on CPU


@dataclass(frozen=True, kw_only=True)
class Trial:
    tokens: int
    fits: bool

    def to_dict(self) -> dict[str, object]:
        return {"tokens": self.tokens, "fits": self.fits}


def bisect_max(fits: Callable[[int], bool], start: int, limit: int = 1 << 40) -> tuple[int, tuple[Trial, ...]]:
    """The largest n >= 0 with ``fits(n)``, assuming fits is monotone (true, then false).

    Gallops up from ``start`` (a good guess saves trials) until a count does not fit, then bisects
    between the last count that fit and the first that did not. Returns the count and every trial.
    """
    trials: list[Trial] = []

    def attempt(n: int) -> bool:
        ok = fits(n)
        trials.append(Trial(tokens=n, fits=ok))
        return ok

    if not attempt(0):
        return -1, tuple(trials)  # not even the weights fit
    good, bad = 0, max(1, start)
    while attempt(bad):
        good = bad
        if bad >= limit:
            raise ProbeError(f"still fits at {bad:,} tokens; the search stops at {limit:,}")
        bad = min(limit, bad * 2)
    while bad - good > 1:  # invariant: fits(good) and not fits(bad)
        mid = (good + bad) // 2
        if attempt(mid):
            good = mid
        else:
            bad = mid
    return good, tuple(trials)


@dataclass(frozen=True, kw_only=True)
class FitResult:
    shape: KVShape
    device_type: str
    memory_bytes: int  # the device's total memory, or the stated budget on CPU
    weights_bytes: int
    max_tokens: int
    trials: tuple[Trial, ...]
    tensor_device: str  # where the tensors lived: cuda, cpu, or meta (counted, not backed)


def _cuda_fits(shape: KVShape, dev: torch.device) -> Callable[[int], bool]:
    def fits(tokens: int) -> bool:
        cache = None
        try:
            cache = kv_cache(shape, tokens, dev, fill=False)
            torch.cuda.synchronize(dev)
            return True
        except torch.OutOfMemoryError:
            return False
        finally:
            del cache
            gc.collect()
            torch.cuda.empty_cache()
    return fits


def _budget_fits(shape: KVShape, budget: int, weights_bytes: int, where: torch.device) -> Callable[[int], bool]:
    def fits(tokens: int) -> bool:
        cache = kv_cache(shape, tokens, where, fill=False)
        try:
            return weights_bytes + storage_bytes(cache) <= budget
        finally:
            del cache
    return fits


def probe_fit(shape: KVShape, dev: torch.device, *, weights_bytes: int, budget: int | None = None,
              start: int | None = None) -> FitResult:
    """The most tokens of ``shape``'s cache that fit beside ``weights_bytes`` of weights.

    On CUDA the device's own memory is the limit (``budget`` must be None); on CPU ``budget``
    is required. ``start`` is the first count tried (the formula's estimate is a good one).
    """
    per_token = shape.formula_bytes_per_token()
    if dev.type == "cuda":
        if budget is not None:
            raise ValueError("on cuda the limit is the device's memory; a budget applies to cpu runs")
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        memory = int(torch.cuda.get_device_properties(index).total_memory)
        torch.cuda.empty_cache()
        try:
            weights = torch.empty(weights_bytes, dtype=torch.uint8, device=dev)  # held for the whole search
        except torch.OutOfMemoryError:
            raise ProbeError(f"the weights alone ({weights_bytes:,} B) do not fit in {memory:,} B") from None
        fits, where = _cuda_fits(shape, dev), "cuda"
    else:
        if budget is None or budget < 1:
            raise ValueError("a cpu fit runs against a stated memory budget (bytes)")
        memory = budget
        where = "cpu" if budget <= REAL_CPU_LIMIT else "meta"
        weights = torch.empty(weights_bytes, dtype=torch.uint8, device=where)
        fits = _budget_fits(shape, budget, storage_bytes([weights]), torch.device(where))
    guess = start if start is not None else max(1, (memory - weights_bytes) // per_token)
    try:
        max_tokens, trials = bisect_max(fits, guess)
    finally:
        del weights
        if dev.type == "cuda":
            torch.cuda.empty_cache()
    if max_tokens < 0:
        raise ProbeError(f"the weights alone ({weights_bytes:,} B) do not fit in {memory:,} B")
    return FitResult(shape=shape, device_type=dev.type, memory_bytes=memory, weights_bytes=weights_bytes,
                     max_tokens=max_tokens, trials=trials, tensor_device=where)
