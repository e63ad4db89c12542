"""The collector waits while a large list is read and indexed, and skips it afterwards."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from hubtui.tui.collection import collector_paused, release_frozen


@pytest.fixture(autouse=True)
def _collector_as_found() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    release_frozen()
    if enabled:
        gc.enable()


def test_no_collection_inside_and_what_was_built_is_frozen_after() -> None:
    gc.enable()
    release_frozen()
    with collector_paused():
        assert not gc.isenabled()
        built = [[n] for n in range(1000)]
        with collector_paused():  # the indexing of the same load nests inside it
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(built)
    release_frozen()
    assert gc.get_freeze_count() == 0


def test_a_collector_someone_else_turned_off_stays_off_and_nothing_is_frozen() -> None:
    release_frozen()
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_large_read_is_collected_rarely_its_cycles_still_and_the_thresholds_put_back() -> None:
    from hubtui.core.collection import READING_COLLECTION, collected_rarely

    gc.enable()
    before = gc.get_threshold()
    with collected_rarely():
        assert gc.get_threshold() == READING_COLLECTION
        assert gc.isenabled()
        cycle: list[object] = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1  # a cycle made meanwhile is still collected
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0  # nothing kept from the collector
