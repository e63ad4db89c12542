"""ctrl+l: the request log, live; one exchange shown whole, inert; any one copied as curl."""

from __future__ import annotations

from hubtui.demo import DEMO_TOKEN, DemoStore
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.screens.dialogs.exchange import ExchangeScreen
from hubtui.tui.screens.dialogs.requests import RequestsScreen
from hubtui.tui.widgets.record_table import Row
from tests.harness.app import press, project_users, running, screen_words, settle


def hub_id(row: Row) -> str:
    return row.cells[3].removeprefix("/v3/hubs/")


async def test_ctrl_l_lists_every_request_newest_first_and_escape_comes_back() -> None:
    async with running(start=project_users()) as pilot:
        await press(pilot, "ctrl+l")
        screen = pilot.app.screen
        assert isinstance(screen, RequestsScreen)
        rows = screen.table.shown_rows
        # The users, after the hub they belong to was read (its route): newest first.
        assert [row.cells[3].split("/")[-1] for row in rows] == ["users", hub_id(rows[1])]
        assert [(row.cells[1], row.cells[2]) for row in rows] == [("GET", "200")] * 2
        assert "2 requests · 0 without a 2xx answer" in screen_words(pilot)
        # Requests made meanwhile appear while the log is shown.
        client = await pilot.app.workspace.client()  # type: ignore[attr-defined]
        await client.list_hubs()
        await settle(pilot)
        assert screen.table.shown_rows[0].cells[3] == "/v3/hubs"
        assert "3 requests" in screen_words(pilot)
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        assert screen._arrived not in client.exchanges.listeners  # nothing kept once closed


async def test_one_exchange_is_shown_whole_without_the_token_and_inert() -> None:
    store = DemoStore()
    hub = store.hub_by_name("acme-build")
    assert hub is not None
    hub.display_name = "ACME\x1b]0;owned\x07 [b]Group[/b]"
    async with running(store=store) as pilot:
        await press(pilot, "ctrl+l", "enter")
        assert isinstance(pilot.app.screen, ExchangeScreen)
        words = screen_words(pilot)
        assert "GET http://localhost/v3/hubs" in words
        assert "Authorization: Bearer ***" in words or "authorization: Bearer ***" in words
        assert DEMO_TOKEN not in words
        assert "[b]Group[/b]" in words  # markup shown as typed, never applied
        assert "\x1b" not in words
        assert "Answer 200 OK" in words


async def test_y_copies_the_request_as_curl_with_the_token_left_to_the_shell() -> None:
    async with running() as pilot:
        await press(pilot, "ctrl+l", "y")
        copied = pilot.app.clipboard
        assert copied.startswith("curl ")
        assert "http://localhost/v3/hubs" in copied
        assert '"Authorization: Bearer $HUBTUI_TOKEN"' in copied
        assert DEMO_TOKEN not in copied
