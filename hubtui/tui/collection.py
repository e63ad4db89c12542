"""Garbage collection kept out of the way while a large list is read and indexed.

Reading 50,000 users builds about a million objects. Python's collector, triggered by the
allocations, then scans every object alive again and again: 0.8 s of a 2 s load, and pauses of
0.2 to 0.5 s in the middle of someone's typing. While a list is loaded and indexed the collector
waits; afterwards what was built is frozen (Python's ``gc.freeze``): it lives as long as its
screen, and later collections skip it instead of scanning it each time. What the load freed
(its answers' text, the parse's buffers) is then given back to the system: glibc keeps freed
pages for the process otherwise, 27 MB after `P` on a firm's hub.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

_held = 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection inside; what was built is frozen at the end (nests)."""
    global _held
    if _held == 0 and not gc.isenabled():
        yield  # someone else (a test, an embedding program) turned the collector off
        return
    _held += 1
    gc.disable()
    try:
        yield
    finally:
        _held -= 1
        if _held == 0:
            gc.freeze()
            gc.enable()
            give_back_freed()


def release_frozen() -> None:
    """A large list is gone (replaced, or its screen closed): let collections see it again."""
    if gc.get_freeze_count():
        gc.unfreeze()


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
