"""verify runs with the cyclic collector off and hands back its results frozen (``workings.gcpause``):
the collector is as the caller left it, and the next allocations do not set off a collection that
walks everything the run made. Asserted on the collector's own counts, never on time."""

from __future__ import annotations

import gc

import pytest

from workings import engine
from workings.gcpause import paused


@pytest.fixture
def collector():
    was = gc.isenabled()
    gc.unfreeze()
    yield
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


def test_a_verify_leaves_its_results_frozen_and_the_collector_as_it_was(tmp_ledger, collector):
    tmp_ledger.qwen()
    for enabled in (True, False):
        gc.enable() if enabled else gc.disable()
        gc.unfreeze()
        report = engine.verify(tmp_ledger.root)
        assert gc.isenabled() is enabled
        assert gc.get_count()[0] < 50  # the run's allocations are not counted toward a young collection
        frozen = gc.get_freeze_count()
        assert frozen > 1000  # the report's objects, out of the collector's sight
        assert report.claims[0].status == "verified"


def test_the_collector_is_off_inside_and_back_on_after_an_error(collector):
    gc.enable()
    with pytest.raises(ZeroDivisionError):
        with paused():
            assert not gc.isenabled()
            1 / 0
    assert gc.isenabled()
