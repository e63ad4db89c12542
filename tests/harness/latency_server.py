"""The least HTTP server: every request answered with an empty list after a timer's latency.

What is left of a call when nothing of the server's costs anything: the floor a client is
measured against (``python -m tests.harness.latency_server PORT LATENCY``).
"""

from __future__ import annotations

import asyncio
import socket
import sys

#: An empty list: the call, and nothing of what an answer holds.
BODY = b"[]"
HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n"


async def serve(port: int, latency: float) -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while await reader.readuntil(b"\r\n\r\n"):
                await asyncio.sleep(latency)
                writer.write(HEAD + BODY)
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1]), float(sys.argv[2])))
