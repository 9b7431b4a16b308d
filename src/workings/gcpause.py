"""Keeping what a run has already built out of the cyclic garbage collector's sight.

render makes pages from a Report of tens of thousands of small objects (results, quantities,
messages) that hold no reference cycles; each full collection rescanned all of them. When every
claim page went through Jinja, switching the collector off instead doubled render's memory on 1,000
claims (template rendering makes cyclic garbage), so only the objects alive when the block started
were frozen (``frozen``). Claim pages are now laid out in Python, and render pauses the collector
while it makes the site (``paused``): Jinja renders only the few hundred other pages."""

from __future__ import annotations

import atexit
import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def frozen() -> Iterator[None]:
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """``frozen``, and no collection at all while the block runs (the collector is left as it was
    found). For render's pages: what they build while the block runs (workings, their markup, the
    views) holds no cycles either, yet each full collection rescanned all of it. The cyclic garbage
    a render does make comes from the pages Jinja renders (the index, sources, articles: a few
    hundred, whatever the number of claims); it is collected after the block, as any garbage is."""
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.unfreeze()


def frozen_at_exit() -> None:
    """Freeze whatever is still alive when the interpreter exits, before its last full collection.

    That collection looks for cycles among the survivors; after verify they are the report's millions
    of objects, which hold none, and rescanning them was about 0.15 s of CPU at 10,000 claims. Frozen,
    they are still freed by reference counting as the modules are torn down. Registered once however
    often it is called."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
