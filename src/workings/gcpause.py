"""Keeping what a run has already built out of the cyclic garbage collector's sight.

verify, show and check-draft run whole with the collector off (``paused``, a decorator on the three
commands, besides engine.verify's own): they build tens of thousands of small objects and almost no
cycles, and every collection while they import and work rescanned what was built so far (at 10,000
claims about 0.04 s of check-draft's CPU and 0.02 s of show's; their peak memory is the same with it
off). ``paused`` is also a decorator (``contextlib``'s), and may be nested.

render makes pages from a Report of tens of thousands of small objects (results, quantities,
messages) that hold no reference cycles; each full collection rescanned all of them. When every
claim page went through Jinja, switching the collector off instead doubled render's memory on 1,000
claims (template rendering makes cyclic garbage), so only the objects alive when the block started
were frozen (``frozen``). Claim pages are now laid out in Python, so render also pauses the
collector while it makes the site (``frozen()`` around ``paused()``: at the end everything is
unfrozen and the collector is as it was): the cyclic garbage comes from the few hundred other pages
Jinja renders (about 6 MB at 10,000 claims), and the views and workings of the claim pages are no
longer rescanned (about 800 collections, 0.3 s of CPU)."""

from __future__ import annotations

import atexit
import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off while a run builds its results, and what is alive at the end frozen.

    Loading and evaluating a ledger makes millions of small objects and almost no cycles (at 10,000
    claims the collector finds about 60 unreachable objects after loading and none after evaluating),
    so collecting during the run only rescans the growing heap. Switching the collector back on
    afterwards is not enough: its counters kept counting, so the next allocation set off a young
    collection that walked everything the run made, then an older one that walked it again (0.2 s of
    CPU at 10,000 claims; at the end of a command, a SystemExit allocates on its way out). Frozen,
    those objects are out of its sight; they are still freed by reference counting when dropped, and
    ``frozen`` (render) or ``gc.unfreeze`` brings them back."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@contextlib.contextmanager
def frozen() -> Iterator[None]:
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def frozen_at_exit() -> None:
    """Freeze whatever is still alive when the interpreter exits, before its last full collection.

    That collection looks for cycles among the survivors; after verify they are the report's millions
    of objects, which hold none, and rescanning them was about 0.15 s of CPU at 10,000 claims. Frozen,
    they are still freed by reference counting as the modules are torn down. Registered once however
    often it is called."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
