"""What every headless test shares: settings and data of its own, the demo API over real HTTP,
and ``run`` (``hubtui ARGV`` in this process: exit status, stdout, stderr)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hubtui.demo import DEMO_TOKEN
from tests.conftest import run_main
from tests.harness.fronts import Served, served
from tests.harness.postgres import PostgresServer

run = run_main

DEMO_HEADERS = {"Authorization": f"Bearer {DEMO_TOKEN}"}


@pytest.fixture(autouse=True)
def headless_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No config file, a data folder of the test's own, the demo's token, no team store, 80
    columns."""
    monkeypatch.setenv("HUBTUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HUBTUI_TOKEN", DEMO_TOKEN)
    monkeypatch.delenv("HUBTUI_PROFILE", raising=False)
    monkeypatch.delenv("HUBTUI_STORE_URL", raising=False)  # no team store but a test's own
    monkeypatch.setenv("COLUMNS", "80")


def demo_stats(url: str) -> dict[str, object]:
    """The demo server's counters: requests, creates, updates, calls by route."""
    stats: dict[str, object] = httpx.get(f"{url}/_demo/stats", headers=DEMO_HEADERS).json()
    return stats


@pytest.fixture
def team(pg_env: PostgresServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """A team store of this test's own (a schema on the server), as every person's setting."""
    url = pg_env.url(schema=pg_env.new_schema())
    monkeypatch.setenv("HUBTUI_STORE_URL", url)
    return url


def be(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> Path:
    """From now on, ``name`` at a machine of their own: their data folder, their name."""
    data = tmp_path / name
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(data))
    monkeypatch.setenv("HUBTUI_OPERATOR", name)
    return data


@pytest.fixture
def demo() -> Iterator[Served]:
    """A fresh demo API of this test's own over HTTP, behind a front (``tests/harness/fronts``)."""
    with served() as it:
        yield it
