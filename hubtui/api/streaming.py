"""A list answer read while it arrives: its first records shown early, the rest parsed on a thread.

:class:`GrowingBody` is a body still downloading, which :func:`~hubtui.api.parsing.parse_list`
reads on another thread as it grows, letting go of what it has read; :class:`ListReader` feeds
one to it, afresh on each attempt of a call, so that a large list is parsed while it downloads,
keys keep working, and what is held of its body is the part not parsed yet: the download waits
while it is :data:`READ_AHEAD_BYTES` ahead of the parse.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from hubtui.api.errors import InvalidResponseError

if TYPE_CHECKING:
    from hubtui.api.records import Records

__all__ = [
    "FIRST_BYTES",
    "READ_AHEAD_BYTES",
    "THREADED_PARSE_BYTES",
    "Abandoned",
    "GrowingBody",
    "ListReader",
]

M = TypeVar("M")

#: A list body larger than this is parsed on a thread, so the app keeps answering keys.
THREADED_PARSE_BYTES = 256 * 1024
#: How much of a large list's body is read for its first records (a screenful and more).
FIRST_BYTES = 128 * 1024
#: How far the download of a large list may run ahead of its parse: past it, the download waits
#: (the server's bytes wait in the connection), so that a list's body is never held whole
#: beside its records (20,000 people: the hub's users and a project's, 14 MB).
READ_AHEAD_BYTES = 2 * 1024 * 1024
#: The least a parse lets go of at a time (each time the rest of the body is moved down).
LET_GO_BYTES = 1024 * 1024
#: How often a download waiting for its parse looks again, were a wake-up missed.
PACE_POLL = 0.05


class Abandoned(Exception):
    """The answer being read was given up (its request failed or was cancelled)."""


class GrowingBody:
    """A body that is still arriving, read on another thread as it grows.

    The event loop appends to :attr:`data` and calls :meth:`grew`; :func:`parse_list` reads it
    on a thread, waiting where it has caught up, so that a large list is parsed while it
    downloads, and lets go of what it has read (:meth:`let_go_before`): :attr:`data` then holds
    the body from there on, and :attr:`head` its first bytes. :meth:`end` says it is complete;
    :meth:`abandon` stops the reading.
    """

    def __init__(self) -> None:
        self.data = bytearray()
        self._changed = threading.Condition()
        self.ended = False
        self._abandoned = False
        #: How many of the body's first bytes the parse has let go of (not in :attr:`data`).
        self._gone = 0
        #: Where the parse waits for the body to reach (0: it is not waiting).
        self._wanted = 0
        #: The body's first :data:`FIRST_BYTES`, kept when its start is let go of.
        self._head = b""
        #: Called (on the parse's thread) when the download may go on: the parse let go of
        #: what it read, or waits for more.
        self.on_room: Callable[[], object] | None = None

    @property
    def size(self) -> int:
        """How many bytes have arrived in all."""
        return self._gone + len(self.data)

    @property
    def head(self) -> bytes:
        """The body's first bytes (up to :data:`FIRST_BYTES`), let go of or not."""
        return self._head if self._gone else bytes(self.data[:FIRST_BYTES])

    def behind(self) -> bool:
        """Whether the parse is far enough behind that the download should wait: more than
        :data:`READ_AHEAD_BYTES` not read yet, and the parse not waiting for more."""
        return len(self.data) > READ_AHEAD_BYTES and self._wanted <= self.size

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
        self._room()

    def read(self, start: int, size: int) -> bytes:
        """``size`` bytes from ``start``, waiting for them; fewer only at the end. What was
        let go of is never read again (an error: the reading goes forward)."""
        with self._changed:
            if start < self._gone:
                raise ValueError(f"byte {start} was let go of")
            while not self._abandoned and not self.ended and self.size < start + size:
                if not self._wanted:
                    self._wanted = start + size
                    self._room()  # the download must not wait for a parse that waits for it
                self._changed.wait()
            self._wanted = 0
            if self._abandoned:
                raise Abandoned
            at = start - self._gone
            return bytes(self.data[at : at + size])

    def let_go_before(self, position: int) -> None:
        """The reading is past ``position`` and never goes back: the bytes before it are let
        go of (a megabyte or more at a time), and the download may go on."""
        with self._changed:
            if position - self._gone < LET_GO_BYTES:
                return
            if not self._gone:
                self._head = bytes(self.data[:FIRST_BYTES])
            del self.data[: position - self._gone]
            self._gone = position
        self._room()

    def _room(self) -> None:
        on_room = self.on_room
        if on_room is not None:
            on_room()

    def whole(self) -> bytes:
        """All of it, once it has ended (nothing let go of: only a body not read as it grew)."""
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
        #: Set (from the parse's thread) when a download waiting for its parse may go on.
        self._room = asyncio.Event()

    def begin(self) -> bytearray:
        """A successful answer starts: the buffer its body is read into."""
        self.close()
        self._body, self._shown = GrowingBody(), False
        loop, room = asyncio.get_running_loop(), self._room

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                loop.call_soon_threadsafe(room.set)

        self._body.on_room = wake
        return self._body.data

    def kept(self, content: bytes | bytearray) -> tuple[bytes, int]:
        """``content``'s first bytes (up to :data:`FIRST_BYTES`) and its size in all: of the
        body as it arrived, where its parse let go of its start."""
        body = self._body
        if body is not None and content is body.data:
            return body.head, body.size
        return bytes(content[:FIRST_BYTES]), len(content)

    async def grew(self, content: bytearray) -> None:
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
        if self._parsing is None:
            if len(content) <= THREADED_PARSE_BYTES:
                return  # nobody reads it yet: no thread to wake (a project's list, each time)
            self._parsing = asyncio.ensure_future(asyncio.to_thread(self._parse, self._body))
        self._body.grew()
        await self._keep_pace(self._body)

    async def _keep_pace(self, body: GrowingBody) -> None:
        """Wait while the download is :data:`READ_AHEAD_BYTES` ahead of the parse (which wakes
        it as it lets go, and whenever it waits for more), or until the parse has ended."""
        parsing = self._parsing
        while parsing is not None and not parsing.done() and body.behind():
            self._room.clear()
            if not body.behind():
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._room.wait(), PACE_POLL)

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
        if self._parsing is not None:
            # Only a parse on a thread reads the body as it grows: nothing else to stop (and
            # no wake-up sent across threads at the end of each of 2,000 projects' reads).
            if self._body is not None:
                self._body.abandon()
            if self._parsing.done() and not self._parsing.cancelled():
                self._parsing.exception()  # seen: an abandoned parse ends in Abandoned
            else:
                self._parsing.cancel()
        self._body, self._parsing = None, None
