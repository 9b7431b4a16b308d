"""Measurement probes: build the cache a claim describes out of real torch tensors and measure it.

Imported only by ``workings probe`` (and its tests): everything here needs torch, the ``probe``
extra. ``workings.measurements`` reads the files these write, without torch (``linfit``, exact fractions
only, is the one module it imports: a kv-bytes file's result must be its samples' fit).

- ``kv``: bytes of the per-layer key and value caches at several token counts, fitted to a line.
- ``fit``: the most tokens of cache that fit beside the weights, by bisection.
- ``quant``: the cache in FP8 and in packed 4-bit with per-group scales, against BF16.
- ``run``: which probe a claim asks for, running it, and writing the measurement file.
"""
