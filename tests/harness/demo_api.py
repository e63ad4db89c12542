"""The demo API as the tests reach it: its address and token, its counters, a server whose
answers carry a value at or past its limits, the demo over TLS, and settings of a test's own."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import trustme
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.fronts import answer_rewritten
from tests.harness.harness import loopback_socket, start_in_thread

DEMO_URL = "http://localhost"


class SleepRecorder:
    """Stands in for asyncio.sleep: records each wait, takes no time."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


EARLIEST = "0001-01-01T00:00:00+14:00"


LATEST = "9999-12-31T23:59:59-14:00"


def _is(kind: str, path: str) -> bool:
    if kind == "hubs":  # the list, a hub by id and a hub by name
        return path.startswith("/v3/hubs") and path.count("/") <= 4 and "/projects" not in path
    if kind == "projects":
        return path.endswith("/projects")
    return path.endswith("/users")


def changing(kind: str, field: str, value: Any) -> ASGIApp:
    """The demo API, with ``field`` of every record of each ``kind`` answer set to ``value``
    (``Outer.Inner`` for a field of a nested object)."""
    inner = create_app(DemoStore(), Faults())

    async def server(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is(kind, scope["path"]):
            await inner(scope, receive, send)
            return

        def set_field(status: int, body: Any) -> tuple[int, Any]:
            records = body if isinstance(body, list) else body.get("results", [body])
            outer, _, name = field.rpartition(".")
            for record in records:
                target = record.get(outer) if outer else record
                if isinstance(target, dict):
                    target[name or field] = value
            return status, body

        await answer_rewritten(inner, scope, receive, send, set_field)

    return server


def serve_tls(
    cert_dir: Path, ca: trustme.CA, app: Any = None, host: str = "localhost"
) -> tuple[str, uvicorn.Server, threading.Thread]:
    """``app`` (the demo API by default) over TLS on a free loopback port, its certificate for
    ``host`` issued by ``ca``; its URL, server and thread."""
    certificate = ca.issue_cert(host)
    key_file, cert_file = cert_dir / "key.pem", cert_dir / "cert.pem"
    certificate.private_key_pem.write_to_path(str(key_file))
    certificate.cert_chain_pems[0].write_to_path(str(cert_file))
    sock = loopback_socket()
    config = uvicorn.Config(
        app if app is not None else create_app(),
        ssl_keyfile=str(key_file),
        ssl_certfile=str(cert_file),
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = start_in_thread(server, sock)
    port = sock.getsockname()[1]
    return f"https://{host}:{port}", server, thread


async def no_wait(seconds: float) -> None:
    """Retries without their pauses."""


def own_settings(tmp_path: Path) -> list[str]:
    """``env`` assignments for a hubtui a test launches: the demo's token, no config file and a
    data folder of the test's own."""
    return [
        f"HUBTUI_TOKEN={DEMO_TOKEN}",
        f"HUBTUI_DATA_DIR={tmp_path / 'data'}",
        f"HUBTUI_CONFIG={tmp_path / 'none.toml'}",
    ]


DEMO_HEADERS = {"Authorization": f"Bearer {DEMO_TOKEN}"}


def demo_stats(url: str) -> dict[str, object]:
    """The demo server's counters: requests, creates, updates, calls by route."""
    stats: dict[str, object] = httpx.get(f"{url}/_demo/stats", headers=DEMO_HEADERS).json()
    return stats


def requests_made(url: str) -> tuple[int, int, int]:
    stats = httpx.get(f"{url}/_demo/stats", headers=DEMO_HEADERS).json()
    return stats["requests"], stats["creates"], stats["updates"]


def calls_made(url: str) -> dict[str, int]:
    """The demo server's count of calls per kind (``GET v3/hubs/{hubId}/projects``…)."""
    by_route: dict[str, int] = httpx.get(f"{url}/_demo/stats", headers=DEMO_HEADERS).json()[
        "by_route"
    ]
    return by_route
