"""No value a server sends, and nothing read back from the store, ends the app or costs the other
rows: each field the screens draw, given a value at or past its limits, online and then from the
store at the next start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hubtui.core.store.server_store import ServerStore
from hubtui.tui.screens.browsing.hub_detail import HubDetailScreen
from hubtui.tui.screens.browsing.hubs import HubListScreen
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from tests.harness.app import press, running, screen_words, settle
from tests.harness.demo_api import EARLIEST, LATEST, changing

CASES = [
    ("hubs", "CreationDate", EARLIEST, "unknown"),
    ("hubs", "CreationDate", LATEST, "unknown"),
    ("hubs", "NumberOfUsers", 10**40, "10,000,000,000"),
    ("hubs", "DisplayName", "x" * 100_000, "(100,000 characters)"),
    ("projects", "StartDate", EARLIEST, "unknown"),
    ("projects", "Name", "\x1b[2J" * 1000, "␛[2J"),
    ("users", "Role", "R" * 50_000, "(50,000 characters)"),
    ("users", "User.FirstName", "\u202e" * 500, "<U+202E>"),
]


@pytest.mark.parametrize(
    ("kind", "field", "value", "shown"),
    CASES,
    ids=[f"{kind} {field} {str(value)[:12]!r}" for kind, field, value, _ in CASES],
)
async def test_a_value_at_its_limits_costs_no_screen_and_no_later_start(
    tmp_path: Path, kind: str, field: str, value: Any, shown: str
) -> None:
    path = tmp_path / "store.sqlite3"
    server = changing(kind, field, value)
    async with running(server=server, store_path=path, keeps="all") as pilot:
        assert isinstance(pilot.app.screen, HubListScreen)
        words = screen_words(pilot)
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, HubDetailScreen)
        words += screen_words(pilot)
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        words += screen_words(pilot)
        assert shown in words
        assert pilot.app.is_running
    # Kept as sent; the next start paints it from the store, and a refresh replaces it.
    async with running(server=server, store_path=path, keeps="all", settled=False) as pilot:
        await settle(pilot)
        assert isinstance(pilot.app.screen, HubListScreen)
        assert "acme-build" in screen_words(pilot)
        assert pilot.app.is_running


async def test_the_hub_detail_says_why_a_date_is_unknown(tmp_path: Path) -> None:
    server = changing("hubs", "CreationDate", EARLIEST)
    async with running(server=server) as pilot:
        table = pilot.app.screen.query_one("#records")
        first = table.row(0)  # type: ignore[attr-defined]
        assert first.cells[-1] == "unknown"
        await press(pilot, "enter")
        words = screen_words(pilot)
        assert "unknown: the server sent 0001-01-01T00:00:00+14:00" in words
        assert "outside the dates that can be shown" in words


async def test_a_list_read_as_the_app_quits_is_kept_before_it_ends(tmp_path: Path) -> None:
    """Keeping runs in the background; quitting in the same moment still keeps the list (before,
    the keep could be dropped unstarted: the coroutine was never awaited, the list not kept)."""
    from hubtui.core.store import ListKey
    from hubtui.demo import DemoStore
    from tests.harness.app import demo_connector

    store = DemoStore()
    async with demo_connector(store)() as client:
        hub = await client.get_hub_by_name("acme-build")
        projects = list(await client.list_projects(hub.id))
    async with running(store=store, store_path=tmp_path / "store.sqlite3", keeps="all") as pilot:
        pilot.app.keep("projects", hub.id, "", projects)  # type: ignore[attr-defined]
        pilot.app.exit()
    again = ServerStore(tmp_path / "store.sqlite3", "demo", None, "all")
    with again.open() as kept:
        found = kept.latest(again.origin, again.profile, ListKey("projects", hub.id, ""))
    assert found is not None
    assert [p["Id"] for p in found[0]] == [p.id for p in projects]
