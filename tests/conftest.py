"""Shared fixtures: the demo API in-process and over real HTTP, and clients of both."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app

# Dates are shown in local time: pin it so pictures and texts are the same everywhere.
os.environ["TZ"] = "UTC"
time.tzset()

DEMO_URL = "http://localhost"


class SleepRecorder:
    """Stands in for asyncio.sleep: records each wait, takes no time."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def demo_store() -> DemoStore:
    return DemoStore()


@pytest.fixture
def faults() -> Faults:
    return Faults()


@pytest.fixture
async def client(
    demo_store: DemoStore, faults: Faults, sleeps: SleepRecorder
) -> AsyncIterator[HubClient]:
    transport = httpx.ASGITransport(app=create_app(demo_store, faults))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport, sleep=sleeps) as c:
        yield c


@pytest.fixture
async def raw(demo_store: DemoStore, faults: Faults) -> AsyncIterator[httpx.AsyncClient]:
    """A plain HTTP client of the demo API, sharing no code with hubtui.api."""
    transport = httpx.ASGITransport(app=create_app(demo_store, faults))
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    async with httpx.AsyncClient(transport=transport, base_url=DEMO_URL, headers=headers) as c:
        yield c


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def hubtui_command() -> list[str]:
    """The installed command, beside this interpreter."""
    script = Path(sys.executable).with_name("hubtui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "hubtui"]


def wait_for_port(
    port: int, process: subprocess.Popen[bytes] | None = None, timeout: float = 20.0
) -> None:
    """Wait until a server listens on the loopback port (or its process has exited)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"demo-server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} in time")


@pytest.fixture
def demo_server() -> Iterator[str]:
    """`hubtui demo-server` running over real HTTP on a free loopback port; yields its URL."""
    with running_demo_server() as url:
        yield url


@contextmanager
def running_demo_server(*flags: str) -> Iterator[str]:
    """Run `hubtui demo-server` with these flags on a free loopback port; yield its URL."""
    port = free_port()
    process = subprocess.Popen(
        [*hubtui_command(), "demo-server", "--port", str(port), *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()
