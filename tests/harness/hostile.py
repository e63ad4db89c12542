"""A hostile HTTP server on loopback: it answers every request with whatever bytes it is told to.

Real sockets, so that what reaches the client is what a server can really send: stacked
encodings, drips, bodies that never end. Used by the client's and the app's hostile-server tests
and by ``bench.bench_hostile``.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

#: What the server answers one request with: status, headers, body chunks (and a pause before
#: each chunk, to drip).
Answer = tuple[int, dict[str, str], list[bytes], float]
Handler = Callable[[str, str, bytes], Answer | Awaitable[Answer]]


@dataclass
class HostileServer:
    url: str
    requests: list[tuple[str, str]] = field(default_factory=list)
    #: Bytes of answer bodies written so far.
    sent: int = 0

    def count(self, method: str, path_start: str = "") -> int:
        return sum(1 for m, p in self.requests if m == method and p.startswith(path_start))


@asynccontextmanager
async def hostile_server(handler: Handler) -> AsyncIterator[HostileServer]:
    """Serve ``handler``'s answers on a free loopback port for the duration of the block."""
    state = HostileServer(url="")
    open_writers: set[asyncio.StreamWriter] = set()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        open_writers.add(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip()
                    for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)
                }
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                state.requests.append((method, path))
                answer = handler(method, path, body)
                if not isinstance(answer, tuple):
                    answer = await answer
                status, extra, chunks, pause = answer
                out = [f"HTTP/1.1 {status} X", *(f"{k}: {v}" for k, v in extra.items())]
                if not any(k.lower() == "content-length" for k in extra):
                    out.append(f"Content-Length: {sum(map(len, chunks))}")
                writer.write(("\r\n".join(out) + "\r\n\r\n").encode())
                for chunk in chunks:
                    if pause:
                        await asyncio.sleep(pause)
                    writer.write(chunk)
                    await writer.drain()
                    state.sent += len(chunk)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            open_writers.discard(writer)
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    state.url = f"http://127.0.0.1:{port}"
    try:
        yield state
    finally:
        server.close()
        for writer in list(open_writers):  # connections still dripping are dropped
            writer.transport.abort()
        await server.wait_closed()


def json_answer(value: object, status: int = 200) -> Answer:
    return (status, {"Content-Type": "application/json"}, [json.dumps(value).encode()], 0.0)


def gzip_bomb(inflated_mb: int, layers: int) -> bytes:
    """Zeros that inflate to ``inflated_mb`` MB, gzipped ``layers`` times."""
    body = gzip.compress(b"0" * (inflated_mb * 1024 * 1024), compresslevel=9)
    for _ in range(layers - 1):
        body = gzip.compress(body, compresslevel=9)
    return body


HUB = {"Id": "h1", "Name": "acme-build", "DisplayName": "ACME"}
USER = {"User": {"Id": 5, "Email": "a@b.example"}, "Role": "Editor", "IsLimited": False}
