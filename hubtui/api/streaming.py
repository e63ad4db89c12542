"""A list answer read while it arrives: its first records shown early, the rest parsed on a thread.

:class:`GrowingBody` is a body still downloading, which :func:`~hubtui.api.parsing.parse_list`
reads on another thread as it grows; :class:`ListReader` feeds one to it, afresh on each
attempt of a call, so that a large list is parsed while it downloads and keys keep working.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from hubtui.api.errors import InvalidResponseError

if TYPE_CHECKING:
    from hubtui.api.records import Records

__all__ = ["FIRST_BYTES", "THREADED_PARSE_BYTES", "Abandoned", "GrowingBody", "ListReader"]

M = TypeVar("M")

#: A list body larger than this is parsed on a thread, so the app keeps answering keys.
THREADED_PARSE_BYTES = 256 * 1024
#: How much of a large list's body is read for its first records (a screenful and more).
FIRST_BYTES = 128 * 1024


class Abandoned(Exception):
    """The answer being read was given up (its request failed or was cancelled)."""


class GrowingBody:
    """A body that is still arriving, read on another thread as it grows.

    The event loop appends to :attr:`data` and calls :meth:`grew`; :func:`parse_list` reads it
    on a thread, waiting where it has caught up, so that a large list is parsed while it
    downloads. :meth:`end` says it is complete; :meth:`abandon` stops the reading.
    """

    def __init__(self) -> None:
        self.data = bytearray()
        self._changed = threading.Condition()
        self.ended = False
        self._abandoned = False

    def grew(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def end(self) -> None:
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def abandon(self) -> None:
        with self._changed:
            self._abandoned = True
            self._changed.notify_all()

    def read(self, start: int, size: int) -> bytes:
        """``size`` bytes from ``start``, waiting for them; fewer only at the end."""
        with self._changed:
            while not self._abandoned and not self.ended and len(self.data) < start + size:
                self._changed.wait()
            if self._abandoned:
                raise Abandoned
            return bytes(self.data[start : start + size])

    def whole(self) -> bytes:
        """All of it, once it has ended."""
        return self.read(0, sys.maxsize)


class ListReader(Generic[M]):
    """A list answer read as it arrives, afresh on each attempt: its first records are shown
    once :data:`FIRST_BYTES` are in, and from :data:`THREADED_PARSE_BYTES` on it is parsed on a
    thread while the rest downloads (keys and escape keep working meanwhile)."""

    def __init__(
        self,
        parse: Callable[[bytes | bytearray | GrowingBody], Records[M]],
        show_first: Callable[[bytes | bytearray], None] | None,
    ) -> None:
        self._parse = parse
        self._show_first = show_first
        self._body: GrowingBody | None = None
        self._parsing: asyncio.Future[Records[M]] | None = None
        self._shown = False

    def begin(self) -> bytearray:
        """A successful answer starts: the buffer its body is read into."""
        self.close()
        self._body, self._shown = GrowingBody(), False
        return self._body.data

    def grew(self, content: bytearray) -> None:
        if self._body is None or content is not self._body.data:
            return
        parsing = self._parsing
        if parsing is not None and parsing.done() and not parsing.cancelled():
            refused = parsing.exception()
            if isinstance(refused, InvalidResponseError):
                raise refused  # refused already (a flood of records, broken JSON): read no more
        if self._show_first is not None and not self._shown and len(content) > FIRST_BYTES:
            self._shown = True
            self._show_first(content)
        if self._parsing is None and len(content) > THREADED_PARSE_BYTES:
            self._parsing = asyncio.ensure_future(asyncio.to_thread(self._parse, self._body))
        self._body.grew()

    async def records(self, content: bytes | bytearray) -> Records[M]:
        """The records of the whole answer, ``content``."""
        if self._body is not None and content is self._body.data and self._parsing is not None:
            self._body.end()
            return await self._parsing
        if len(content) <= THREADED_PARSE_BYTES:
            return self._parse(content)
        if self._show_first is not None and not self._shown:
            self._show_first(content)  # the body came whole (read at once)
        return await asyncio.to_thread(self._parse, content)

    def close(self) -> None:
        """Stop reading an answer given up (a failed attempt, a cancelled call)."""
        if self._body is not None:
            self._body.abandon()
        if self._parsing is not None:
            if self._parsing.done() and not self._parsing.cancelled():
                self._parsing.exception()  # seen: an abandoned parse ends in Abandoned
            else:
                self._parsing.cancel()
        self._body, self._parsing = None, None
