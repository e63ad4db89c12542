"""What every headless test shares: settings and data of its own, the demo API over real HTTP,
and ``run`` (``hubtui ARGV`` in this process: exit status, stdout, stderr)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.commands import headless_settings
from tests.harness.fronts import Served, served
from tests.harness.postgres import PostgresServer


@pytest.fixture(autouse=True)
def headless_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    headless_settings(monkeypatch, tmp_path)


@pytest.fixture
def team(pg_env: PostgresServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """A team store of this test's own (a schema on the server), as every person's setting."""
    url = pg_env.url(schema=pg_env.new_schema())
    monkeypatch.setenv("HUBTUI_STORE_URL", url)
    return url


@pytest.fixture
def demo() -> Iterator[Served]:
    """A fresh demo API of this test's own over HTTP, behind a front (``tests/harness/fronts``)."""
    with served() as it:
        yield it
