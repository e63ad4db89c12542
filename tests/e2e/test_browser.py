"""`hubtui serve`: the app in a real (headless) Chromium, driven by keys as a person would.

The page draws the terminal on a canvas, so what the test reads is what the keys made the app
do: open a hub, export its projects, and the file the export wrote.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hubtui.web import new_secret, page_url
from tests.harness.harness import free_port, wait_for_port

pytestmark = pytest.mark.e2e

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Served:
    origin: str
    """``http://127.0.0.1:PORT``."""
    page: str
    """The address ``serve`` printed, with this run's secret."""
    process: subprocess.Popen[bytes]


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (the app runs in one per page)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "hubtui", "--demo", "serve", "--port", str(port)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline().decode()
        address = re.search(r"http://127\.0\.0\.1:\d+/\?key=[\w-]{40,}", banner)
        assert address, banner
        wait_for_port(port, process)
        yield Served(f"http://127.0.0.1:{port}", address.group(), process)
    finally:
        process.terminate()
        process.wait(timeout=10)
        assert process.stdout is not None
        process.stdout.close()


def test_the_printed_address_holds_a_secret_of_this_run(tmp_path: Path) -> None:
    first, second = (new_secret() for _ in range(2))
    assert first != second
    assert len(first) >= 40
    assert page_url(8000, first) == f"http://127.0.0.1:8000/?key={first}"


async def _handshake(
    url: str, *, origin: str | None, cookie: str | None = None
) -> tuple[int | None, bytes]:
    """Open a real WebSocket; its handshake status when refused, else what arrived in 5 s."""
    import aiohttp

    headers = {"Origin": origin} if origin else {}
    if cookie:
        headers["Cookie"] = cookie
    async with aiohttp.ClientSession() as session:
        try:
            socket = await session.ws_connect(url, headers=headers)
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status, b""
        received = b""
        try:
            async with asyncio.timeout(5):
                async for message in socket:
                    received += message.data if isinstance(message.data, bytes) else b""
                    if len(received) > 1000:
                        break
        except TimeoutError:
            pass
        await socket.close()
        return None, received


def _secret_cookie(served: Served) -> str:
    port = served.origin.rsplit(":", 1)[1]
    return f"hubtui_serve_{port}={served.page.split('key=')[1]}"


async def test_a_websocket_without_the_secret_gets_no_screen(served: Served) -> None:
    ws = served.origin.replace("http", "ws") + "/ws?width=80&height=24"
    status, received = await _handshake(ws, origin=served.origin)
    assert status == 403
    assert received == b""
    assert children(served.process.pid) == [], "an app was started for a refused page"


async def test_a_websocket_from_a_foreign_origin_gets_no_screen(served: Served) -> None:
    """A page on another site, in the person's browser, sends the cookie but its own Origin."""
    ws = served.origin.replace("http", "ws") + "/ws?width=80&height=24"
    for origin in ("http://evil.example", "null", None, "http://localhost:1"):
        status, received = await _handshake(ws, origin=origin, cookie=_secret_cookie(served))
        assert (status, received) == (403, b""), origin
    assert children(served.process.pid) == []


async def test_the_page_with_the_secret_and_its_own_origin_gets_the_app(served: Served) -> None:
    ws = served.origin.replace("http", "ws") + "/ws?width=80&height=24"
    status, received = await _handshake(ws, origin=served.origin, cookie=_secret_cookie(served))
    assert status is None
    assert b"acme-build" in received or len(received) > 1000


async def test_the_page_needs_the_secret_and_its_own_host(served: Served) -> None:
    import aiohttp

    # A browser keeps cookies of an IP address; aiohttp's jar does only when told to.
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        async with session.get(served.origin + "/") as bare:
            assert bare.status == 403
            assert "address that `hubtui serve` printed" in await bare.text()
        async with session.get(served.origin + "/?key=wrong") as wrong:
            assert wrong.status == 403
        rebound = {"Host": "attacker.example:80"}
        async with session.get(served.page, headers=rebound, allow_redirects=False) as rebind:
            assert rebind.status == 403
        async with session.get(served.page, allow_redirects=False) as first:
            assert first.status == 302  # the secret moves into a cookie
            cookie = first.cookies[f"hubtui_serve_{served.origin.rsplit(':', 1)[1]}"]
            assert cookie["httponly"]
            assert cookie["samesite"] == "Strict"
        async with session.get(served.origin + "/") as page:
            assert page.status == 200
            assert "/ws" in await page.text()  # the app page, with its WebSocket address


def test_the_app_in_a_browser_opens_a_hub_and_exports_it(served: Served, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is needed for this test: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 700})
            page.goto(served.page)
            page.wait_for_selector("canvas", timeout=20_000)
            before = page.screenshot()
            # The app starts in its own process once the page connects; give it time to paint.
            deadline = time.monotonic() + 30
            exports: list[Path] = []
            keys_sent = False
            while time.monotonic() < deadline and not exports:
                page.wait_for_timeout(1000)
                if not keys_sent and page.screenshot() != before:
                    page.wait_for_timeout(1500)
                    # A person clicks into the page first (below the list's rows: no row moves).
                    page.mouse.click(500, 400)
                    page.wait_for_timeout(300)
                    for key in ("Enter", "x"):
                        page.keyboard.press(key)
                        page.wait_for_timeout(1500)
                    page.keyboard.press("Enter")
                    keys_sent = True
                exports = list(tmp_path.glob("hubtui-projects-acme-build-*.csv"))
        finally:
            browser.close()
    assert exports, "the export typed in the browser wrote no file"
    text = exports[0].read_text()
    assert "Harbour Bridge Retrofit" in text
    assert "# hub Name: acme-build" in text
