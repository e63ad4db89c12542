"""The collector's thresholds while a large read goes on, for both front ends.

A command, or the app's `P` on a firm's hub, reads lists whole and keeps them: two million
objects, nearly none in a cycle. At Python's default thresholds (700, 10, 10) the collector went
over everything held 13 times while `access` read one hub (2.9 s of its 11 s); at these, 0.25 s
in all. Cycles are still collected (a pause would keep them to its end).
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

__all__ = ["READING_COLLECTION", "collected_rarely", "collector_paused", "give_back_freed"]

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


def give_back_freed() -> None:
    """The pages the heap holds free given back to the system, where the C library can (glibc's
    ``malloc_trim``, 2 ms after a firm's `P`); elsewhere nothing."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, looked up once (ctypes is loaded only for it, after a load)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim  # the process's own C library: musl has none
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim
