"""What a large read freed, given back to the system.

glibc keeps the pages a process frees for its own later use, and gives back by itself only
what lies at the top of a heap. A large list parsed on a thread frees, batch after batch, the
text and the JSON values its records were made from, in pages spread among those its records
keep. Given back after each batch (``malloc_trim``), they are not held all the while both of
`P`'s lists are read: 20,000 people, both lists parsed at once, 130.5 MB resident at the peak
against 124.4 (medians of nine, in process); `hub-users` at a firm's hub (100,000 users) 248 MB
at its peak against 242, for 0.13 s more system time (3%: each trim madvises, the next batch
faults the pages in again).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache

__all__ = ["give_back_freed"]


def give_back_freed() -> None:
    """The pages the C library's heaps hold free given back to the system, where it can (glibc's
    ``malloc_trim``, the interpreter's lock let go of meanwhile: 2 ms after a firm's `P`, 6 ms
    between two batches of a parse); elsewhere nothing."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, looked up once (ctypes is loaded only for it, at a large read)."""
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
