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
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from hubtui.core.collection import collected_rarely, collector_paused

__all__ = ["collected_rarely_then_frozen", "collector_paused", "release_frozen"]


@contextmanager
def collected_rarely_then_frozen() -> Iterator[None]:
    """A large read the app keeps: the collector runs rarely inside (see core/collection.py),
    and its thresholds are put back with what was read frozen (no collection in between): the
    next collection would otherwise go over a firm's two million objects just as their rows are
    shown (1.4 s before `P`'s counts showed)."""
    with ExitStack() as at_end:
        with collected_rarely():
            try:
                yield
            finally:
                at_end.enter_context(collector_paused())


def release_frozen() -> None:
    """A large list is gone (replaced, or its screen closed): let collections see it again."""
    if gc.get_freeze_count():
        gc.unfreeze()
