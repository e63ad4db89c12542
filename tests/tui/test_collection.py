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
    release_frozen()  # what the run froze before it (the suite's own modules, at collection)
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


def resident_mb() -> float:
    import os
    from pathlib import Path

    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def test_what_a_large_load_freed_is_given_back_to_the_system_at_its_end() -> None:
    """glibc keeps the pages of what a load freed for the process unless asked: after the
    load, the machine has them back (here on Linux with glibc, as CI runs)."""
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.fail(f"this check is for glibc; this machine has {platform.libc_ver()!r}")
    with collector_paused():
        # 40 MB of answers' text, each larger than Python's own small blocks (the C heap's),
        # freed but the last, which keeps the top of the heap where it was.
        texts = [bytes(2048) + n.to_bytes(4) for n in range(20_000)]
        last = texts[-1]
        before = resident_mb()
        del texts
        held = resident_mb()
    given_back = resident_mb()
    assert last
    assert held - given_back > 30, (before, held, given_back)


def test_a_large_read_in_the_app_is_collected_rarely_then_frozen_as_thresholds_go_back() -> None:
    from hubtui.core.collection import READING_COLLECTION
    from hubtui.tui.collection import collected_rarely_then_frozen

    gc.enable()
    release_frozen()
    before = gc.get_threshold()
    with collected_rarely_then_frozen():
        assert gc.get_threshold() == READING_COLLECTION
        assert gc.isenabled()  # collected rarely, not paused: cycles still go
        built = [[n] for n in range(1000)]
    assert gc.get_threshold() == before
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(built)  # what the read built is skipped from now on
