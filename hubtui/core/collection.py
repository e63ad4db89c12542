"""The collector's thresholds while a large read goes on, for both front ends.

A command, or the app's `P` on a firm's hub, reads lists whole and keeps them: two million
objects, nearly none in a cycle. At Python's default thresholds (700, 10, 10) the collector went
over everything held 13 times while `access` read one hub (2.9 s of its 11 s); at these, 0.25 s
in all. Cycles are still collected (a pause would keep them to its end).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["READING_COLLECTION", "collected_rarely"]

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
