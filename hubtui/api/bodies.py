"""Reading a response body within bounds, and what of a request or response may be logged.

A hostile or broken server decides how many bytes it sends and how they are encoded; this module
decides how many bytes hubtui holds. Bodies are decoded here, not by httpx, so that the inflated
size is counted while it grows: a few kilobytes of nested gzip never become gigabytes.
"""

from __future__ import annotations

import zlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx

from hubtui.api.exchanges import HIDDEN

_T = TypeVar("_T")

__all__ = [
    "ACCEPT_ENCODING",
    "BodyTooLarge",
    "UnreadableEncoding",
    "preview",
    "read_body",
    "kept_headers",
    "redacted",
]

#: The encodings hubtui asks for and decodes itself, one at a time.
ACCEPT_ENCODING = "gzip, deflate"
_GZIP = zlib.MAX_WBITS | 32  # a gzip or zlib header, detected
_IDENTITY = {"", "identity"}


class BodyTooLarge(Exception):
    """The body (once decoded) is larger than the limit."""


class UnreadableEncoding(Exception):
    """The body's ``Content-Encoding`` is one hubtui does not decode, stacked, or broken."""


class _Inflater:
    """One gzip or deflate stream, decompressed no further than the room left."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._raw_fallback = encoding == "deflate"
        self._decompressor = zlib.decompressobj(_GZIP if encoding != "deflate" else zlib.MAX_WBITS)
        #: How many bytes it has given so far.
        self.size = 0

    def feed(self, data: bytes, into: bytearray, limit: int) -> None:
        try:
            self._inflate(data, into, limit)
        except zlib.error:
            if not (self._raw_fallback and not self.size):
                raise UnreadableEncoding(f"its {self.encoding} encoding is broken") from None
            # Some servers send raw deflate without the zlib header; httpx accepts both.
            self._raw_fallback = False
            self._decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
            self.feed(data, into, limit)

    def _inflate(self, data: bytes, into: bytearray, limit: int) -> None:
        pending = data
        while pending:
            self._add(self._decompressor.decompress(pending, limit - self.size + 1), into, limit)
            pending = self._decompressor.unconsumed_tail

    def finish(self, into: bytearray, limit: int) -> None:
        try:
            rest = self._decompressor.flush(limit - self.size + 1)
        except zlib.error:
            raise UnreadableEncoding(f"its {self.encoding} encoding is broken") from None
        self._add(rest, into, limit)

    def _add(self, part: bytes, into: bytearray, limit: int) -> None:
        into += part
        self.size += len(part)
        if self.size > limit:
            raise BodyTooLarge


def _decoder(content_encoding: str) -> _Inflater | None:
    codings = [c.strip().lower() for c in content_encoding.split(",")]
    codings = [c for c in codings if c not in _IDENTITY]
    if not codings:
        return None
    if len(codings) > 1:
        raise UnreadableEncoding(
            f"it is encoded more than once ({', '.join(codings)}), which hubtui refuses"
        )
    coding = codings[0]
    if coding in ("gzip", "x-gzip", "deflate"):
        return _Inflater("deflate" if coding == "deflate" else "gzip")
    raise UnreadableEncoding(f"its encoding {coding!r} is not one hubtui asked for")


async def read_body(
    response: httpx.Response,
    *,
    limit: int,
    into: bytearray | None = None,
    grew: Callable[[bytearray], Awaitable[object]] | None = None,
) -> bytearray:
    """The decoded body, refused (:class:`BodyTooLarge`) as soon as it grows past ``limit``.

    One growing buffer, parsed as it is: a large list is held in memory once, not twice.
    ``into``, when given, is the buffer it is read into, and ``grew`` is called with it after
    each part and awaited: a large list is shown and parsed while the rest of it arrives, and
    its parse may let go of what it has read (the limit counts every byte received).
    """
    if response.is_stream_consumed:
        # Built in memory (a mock transport): httpx has read and decoded it already.
        if len(response.content) > limit:
            raise BodyTooLarge
        return bytearray(response.content)
    inflater = _decoder(response.headers.get("Content-Encoding", ""))
    content = bytearray() if into is None else into
    append: Callable[[bytes], None]
    if inflater is None:
        received = 0

        def append(chunk: bytes) -> None:
            nonlocal received
            content.extend(chunk)
            received += len(chunk)
            if received > limit:
                raise BodyTooLarge

    else:

        def append(chunk: bytes) -> None:
            inflater.feed(chunk, content, limit)

    async for chunk in response.aiter_raw():
        append(chunk)
        if grew is not None:
            await grew(content)
    if inflater is not None:
        inflater.finish(content, limit)
    return content


#: Headers whose values never reach a log.
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_PREVIEW_BYTES = 300


def redacted(headers: httpx.Headers) -> dict[str, str]:
    """Headers with every secret value replaced, for the debug log."""
    return {
        name: "[redacted]" if name.lower() in _SECRET_HEADERS else value
        for name, value in headers.items()
    }


def kept_headers(headers: httpx.Headers) -> tuple[tuple[str, str], ...]:
    """Headers as written on the wire, for the request log: every secret value replaced by
    ``***`` (the token's as ``Bearer ***``, so a reader sees how it was sent)."""
    kept = []
    for raw_name, raw_value in headers.raw:
        name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
        if name.lower() == "authorization":
            value = HIDDEN
        elif name.lower() in _SECRET_HEADERS:
            value = "***"
        kept.append(_one_copy((name, value)))
    return _one_copy(tuple(kept))


#: Header lines and header sets seen before, each held once: the same request sent all day (a
#: reload) keeps one copy of its headers in the request log. Bounded: emptied when full.
_SEEN: dict[Any, Any] = {}
_SEEN_MAX = 4096


def _one_copy(value: _T) -> _T:
    if len(_SEEN) >= _SEEN_MAX:
        _SEEN.clear()
    kept: _T = _SEEN.setdefault(value, value)
    return kept


def preview(body: bytes, size: int | None = None) -> str:
    """The start of a body, for the debug log (``size``: the whole body's, where ``body`` is
    its start only)."""
    text = body[:_PREVIEW_BYTES].decode("utf-8", "replace")
    return text + ("…" if (len(body) if size is None else size) > _PREVIEW_BYTES else "")
