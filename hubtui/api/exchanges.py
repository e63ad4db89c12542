"""Every HTTP exchange of a client, kept for a person to read and hand over as ``curl``.

Each attempt of a call is one :class:`Exchange`: what was sent (the token never: its header is
kept as ``Bearer ***``), what came back and how long it took. :class:`ExchangeLog` keeps the
newest :data:`KEPT` of them; each body is cut at :data:`BODY_KEPT` bytes and held compressed
when long (:class:`KeptBody`), and once the bodies kept pass :data:`BODIES_BUDGET` bytes in all,
the oldest lose theirs (the line stays, saying so): whatever a session does, the log stays
within a few tens of megabytes.
"""

from __future__ import annotations

import itertools
import json
import shlex
import zlib
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

__all__ = [
    "BODIES_BUDGET",
    "BODY_KEPT",
    "KEPT",
    "NO_BODY",
    "PACKED_FROM",
    "Exchange",
    "ExchangeLog",
    "KeptBody",
    "as_curl",
]

#: How many exchanges a log keeps (the newest).
KEPT = 1000
#: How much of each body is kept.
BODY_KEPT = 64 * 1024
#: How many bytes of bodies a log keeps in all; past it the oldest bodies are let go.
BODIES_BUDGET = 16 * 1024 * 1024
#: What stands for the token wherever a request's headers are kept or shown.
HIDDEN = "Bearer ***"
#: Headers a ``curl`` command leaves to curl: it sets them itself (or ``--compressed`` does).
_CURL_SETS = frozenset({"host", "content-length", "accept-encoding", "connection"})

#: A body this long or longer is held compressed (zlib at its fastest level): a project's 50
#: users, 17 KB as a firm's server sends them, in 2.5 KB, 33 µs to pack and 16 to unpack.
PACKED_FROM = 1024

_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class KeptBody:
    """A body as the log holds it: as it came when short, compressed when long, unpacked only
    when read (the request log of `P` on a firm's hub, 2,000 bodies: 17 MB held as 3)."""

    data: bytes = b""
    packed: bool = False

    @classmethod
    def of(cls, body: bytes | bytearray | memoryview) -> KeptBody:
        """The body held as the log holds it: compressed when :data:`PACKED_FROM` bytes or
        longer."""
        if len(body) < PACKED_FROM:
            return cls(bytes(body))
        return cls(zlib.compress(body, 1), packed=True)

    @property
    def body(self) -> bytes:
        """The body as it came (cut at :data:`BODY_KEPT` bytes, as it was kept)."""
        return zlib.decompress(self.data) if self.packed else self.data

    @property
    def held(self) -> int:
        """The bytes it holds."""
        return len(self.data)


#: No body (none sent, none come, or one let go).
NO_BODY = KeptBody()


@dataclass(frozen=True)
class Exchange:
    """One request and its answer (or why there was none)."""

    id: str
    """``r17``: unique in the process; a change log line names the exchange that carried it."""
    started: datetime
    operation: str
    """What the call was for: ``list users of project '1001'``, ``add 'a@b.c' to project …``."""
    method: str
    url: str
    request_headers: tuple[tuple[str, str], ...]
    request_kept: KeptBody = field(default=NO_BODY, repr=False)
    """The request's body as kept (:attr:`request_body` reads it): as it came until the log
    holds it (:meth:`ExchangeLog.add` packs it)."""
    attempt: int = 0
    """0 for the first try, 1 for the first retry …"""
    status: int | None = None
    """None: no answer (a connection error or a timeout, said in ``error``)."""
    reason: str = ""
    response_headers: tuple[tuple[str, str], ...] = ()
    response_kept: KeptBody = field(default=NO_BODY, repr=False)
    """The answer's body as kept (:attr:`response_body` reads it)."""
    response_size: int = 0
    """The whole body's size, decoded."""
    seconds: float = 0.0
    error: str = ""
    body_dropped: bool = False
    """The body was let go to keep the log within :data:`BODIES_BUDGET`."""

    @property
    def request_body(self) -> bytes:
        """The start of the request's body (:data:`BODY_KEPT` bytes at most)."""
        return self.request_kept.body

    @property
    def response_body(self) -> bytes:
        """The start of the answer's body (:data:`BODY_KEPT` bytes at most), as decoded."""
        return self.response_kept.body

    @property
    def kept_bytes(self) -> int:
        """The bytes its bodies hold."""
        return self.request_kept.held + self.response_kept.held


def new_id() -> str:
    return f"r{next(_ids)}"


@dataclass
class ExchangeLog:
    """The newest exchanges of a client; ``listeners`` are told of each one as it ends.

    A body kept by several exchanges (the same list read again, as a reload or a poll does) is
    held once: the log of a session left open all day grows by a line an exchange, not by a
    copy of the same answer each time."""

    kept: int = KEPT
    budget: int = BODIES_BUDGET
    keeps_bodies: bool = True
    """False: each exchange is kept without its bodies (a headless command, which never shows
    one: 2,000 of a firm's hub packed cost its ``who`` 5% of its time)."""
    listeners: list[Callable[[Exchange], None]] = field(default_factory=list)
    _entries: deque[Exchange] = field(default_factory=deque)
    _bytes: int = 0
    #: Each distinct body kept, and how many exchanges keep it.
    _bodies: dict[KeptBody, KeptBody] = field(default_factory=dict)
    _uses: Counter[KeptBody] = field(default_factory=Counter)

    def add(self, exchange: Exchange) -> None:
        exchange = replace(
            exchange,
            request_kept=self._share(exchange.request_kept),
            response_kept=self._share(exchange.response_kept),
        )
        self._entries.append(exchange)
        while len(self._entries) > self.kept:
            self._release(self._entries.popleft())
        if self._bytes > self.budget:
            self._drop_oldest_bodies()
        for listener in list(self.listeners):
            listener(exchange)

    def _share(self, body: KeptBody) -> KeptBody:
        if not body.data or not self.keeps_bodies:
            return NO_BODY
        if not body.packed:
            body = KeptBody.of(body.data)  # held compressed where long
        kept = self._bodies.setdefault(body, body)
        if not self._uses[kept]:
            self._bytes += kept.held
        self._uses[kept] += 1
        return kept

    def _let_go(self, body: KeptBody) -> None:
        if not body.data:
            return
        self._uses[body] -= 1
        if self._uses[body] <= 0:
            del self._uses[body]
            self._bodies.pop(body, None)
            self._bytes -= body.held

    def _release(self, exchange: Exchange) -> None:
        self._let_go(exchange.request_kept)
        self._let_go(exchange.response_kept)

    def _drop_oldest_bodies(self) -> None:
        for index, old in enumerate(self._entries):
            if self._bytes <= self.budget:
                return
            if old.kept_bytes:
                self._release(old)
                self._entries[index] = replace(
                    old, request_kept=NO_BODY, response_kept=NO_BODY, body_dropped=True
                )

    def __iter__(self) -> Iterator[Exchange]:
        """Oldest first."""
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def body_bytes(self) -> int:
        """The bytes the bodies kept now hold (compressed, where they are)."""
        return self._bytes

    def find(self, exchange_id: str) -> Exchange | None:
        return next((e for e in reversed(self._entries) if e.id == exchange_id), None)

    def last_for(self, operation: str) -> Exchange | None:
        """The newest exchange of this operation (the last attempt of its call)."""
        return next((e for e in reversed(self._entries) if e.operation == operation), None)


def stamp() -> datetime:
    return datetime.now(UTC)


def as_curl(exchange: Exchange) -> str:
    """The exchange's request as a ``curl`` command for a POSIX shell: the same method, URL,
    headers and body, the token read from ``$HUBTUI_TOKEN`` (never its value). Every value is
    single-quoted; the body is JSON with non-ASCII written as ``\\u`` escapes, so the command
    holds no control or bidi character however hostile the values it carries."""
    parts = ["curl", "--silent", "--show-error", "--compressed"]
    if exchange.method != "GET":
        parts += ["--request", exchange.method]
    words = [shlex.quote(_ascii(p)) for p in parts]
    words.append(shlex.quote(_ascii(exchange.url)))
    for name, value in exchange.request_headers:
        if name.lower() in _CURL_SETS:
            continue
        if name.lower() == "authorization":
            words += ["--header", '"Authorization: Bearer $HUBTUI_TOKEN"']
            continue
        if value == "***":
            continue  # another secret the log never kept: not sent again
        words += ["--header", shlex.quote(_ascii(f"{name}: {value}"))]
    if exchange.request_body:
        words += ["--data-binary", shlex.quote(_ascii_json(exchange.request_body))]
    return " ".join(words)


def _ascii(text: str) -> str:
    """Text with every character outside printable ASCII as a ``\\u`` escape (a URL and the
    headers hubtui sends are ASCII already: this only guards the rule)."""
    return "".join(c if " " <= c <= "~" else f"\\u{ord(c):04x}" for c in text)


def _ascii_json(body: bytes) -> str:
    try:
        text = json.dumps(json.loads(body), ensure_ascii=True, separators=(",", ":"))
        return text.replace("\x7f", "\\u007f")  # DEL, the one control character JSON keeps
    except (ValueError, RecursionError):
        return _ascii(body.decode("utf-8", "replace"))
