"""`hubtui serve`: the app in a real (headless) Chromium, driven by keys as a person would.

The page draws the terminal on a canvas, so what the test reads is what the keys made the app
do: open a hub, export its projects, and the file the export wrote.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import free_port, wait_for_port

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


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is needed for this test: apt-get install chromium")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "hubtui", "--demo", "serve", "--port", str(port)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
        assert process.stdout is not None
        banner = process.stdout.read().decode()
        process.stdout.close()
        assert f"serving the app at http://127.0.0.1:{port}" in banner


def test_the_app_in_a_browser_opens_a_hub_and_exports_it(served: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 700})
            page.goto(served)
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
