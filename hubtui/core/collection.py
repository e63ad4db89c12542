"""The collector's thresholds while a large read goes on, for both front ends.

A command, or the app's `P` on a firm's hub, reads lists whole and keeps them: two million
objects, nearly none in a cycle. At Python's default thresholds (700, 10, 10) the collector went
over everything held 13 times while `access` read one hub (2.9 s of its 11 s); at these, 0.25 s
in all. Cycles are still collected (a pause would keep them to its end).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from hubtui.api.memory import give_back_freed

__all__ = ["READING_COLLECTION", "collected_rarely", "collector_paused"]

#: The collector's thresholds while a large read goes on.
READING_COLLECTION = (50_000, 50, 10)


@contextmanager
def collected_rarely() -> Iterator[None]:
    """The collector at :data:`READING_COLLECTION` inside, its thresholds put back after."""
    before = gc.get_threshold()
    gc.set_threshold(*READING_COLLECTION)
    try:
        yield
    finally:
        gc.set_threshold(*before)


_held = 0
_holding = threading.Lock()


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection inside; what was built is frozen at the end (Python's
    ``gc.freeze``: later collections skip it instead of going over it again) and what was freed
    given back. For a block that builds a large list and keeps it: a screen's list loaded and
    indexed, a campaign's 100,000 rows frozen and written (0.08 s of collections that would
    find nothing). Nests, from any thread: the outermost block ends the pause."""
    global _held
    with _holding:
        if _held == 0 and not gc.isenabled():
            outside = True  # someone else (a test, an embedding program) turned it off
        else:
            outside = False
            _held += 1
            gc.disable()
    if outside:
        yield
        return
    try:
        yield
    finally:
        with _holding:
            _held -= 1
            last = _held == 0
            if last:
                gc.freeze()
                gc.enable()
        if last:
            give_back_freed()
