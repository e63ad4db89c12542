"""A project's users: limited readers explained, filtered, cycled, by API version, and large
projects shown while they are read."""

from __future__ import annotations

from typing import Any

import pytest

from hubtui.demo import DemoSize, DemoStore, Faults
from hubtui.tui.screens.browsing.hub_detail import HubDetailScreen
from hubtui.tui.screens.browsing.hubs import HubListScreen
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.app import (
    press,
    project_users,
    running,
    screen_text,
    screen_words,
    settle,
    type_text,
)


async def test_selecting_a_limited_reader_explains_their_access() -> None:
    async with running(start=project_users()) as pilot:
        await press(pilot, "end")
        text = screen_text(pilot)
        assert "LIMITED READER" in text
        assert "northwind-eng.com" in text
        assert "not a direct member" in screen_words(pilot)
        await press(pilot, "home")
        text = screen_words(pilot)
        assert "DIRECT MEMBER" in text
        assert "role Admin" in text


async def test_filter_ignores_case_and_accents_and_escape_clears_it_first() -> None:
    async with running() as pilot:
        await press(pilot, "enter", "slash")
        await type_text(pilot, "quebec")
        await press(pilot, "enter")
        table = pilot.app.screen.query_one(RecordTable)
        assert table.visible_count == 1
        assert "Québec Office Tower" in screen_text(pilot)
        assert table.has_focus
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, HubDetailScreen)
        assert table.visible_count == 3
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, HubListScreen)


async def test_l_cycles_all_members_and_limited_readers() -> None:
    async with running(start=project_users()) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        assert table.visible_count == 12
        await press(pilot, "l")
        assert table.visible_count == 7
        assert "showing direct members: 7" in screen_text(pilot)
        await press(pilot, "l")
        assert table.visible_count == 5
        assert all(row.cells[4] == "LIMITED" for row in table.rows if row.group == "limited")
        await press(pilot, "l")
        assert table.visible_count == 12


async def test_v_switches_the_users_screen_between_api_versions() -> None:
    async with running(start=project_users()) as pilot:
        assert "API v3" in screen_text(pilot)
        await press(pilot, "v")
        text = screen_text(pilot)
        assert "API v2" in text
        assert "12 users" in text


async def test_an_older_server_shows_limited_as_unknown() -> None:
    async with running(faults=Faults(omit_new_fields=True)) as pilot:
        assert "(not sent by server)" in screen_text(pilot)
        await press(pilot, "enter", "enter")
        text = screen_text(pilot)
        assert "0 members · 0 limited readers · 12 unknown" in text
        assert "UNKNOWN" in text


async def test_a_big_project_fills_and_filters() -> None:
    store = DemoStore(DemoSize(big_project_users=3000))
    async with running(store=store) as pilot:
        await press(pilot, "g")
        await type_text(pilot, "load-test")
        await press(pilot, "enter", "enter")
        table = pilot.app.screen.query_one(RecordTable)
        assert table.visible_count == 3000
        assert "3,000 users · 2,700 members · 300 limited readers" in screen_text(pilot)
        await press(pilot, "slash")
        await type_text(pilot, "partner")
        # Indexing starts after a paint: under load it may not have begun when the keys settle.
        for _ in range(500):
            if table.view.indexed:
                break
            await pilot.pause(0.01)
        assert table.visible_count == 300


async def test_a_limited_reader_has_no_role_of_their_own_in_the_table() -> None:
    async with running(start=project_users()) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        limited = [row for row in table.rows if row.cells[4] == "LIMITED"]
        assert len(limited) == 5
        assert {row.cells[2] for row in limited} == {"—"}


async def test_a_filter_typed_before_a_large_list_is_indexed_finds_every_match() -> None:
    store = DemoStore(DemoSize(big_project_users=20_000))
    faults = Faults()
    async with running(store=store, faults=faults) as pilot:
        await press(pilot, "g")
        await type_text(pilot, "load-test")
        await press(pilot, "enter")
        faults.latency = 1.5  # the whole filter is typed while the list is on its way
        await pilot.press("enter", "slash", *"partner")
        await settle(pilot)
        table = pilot.app.screen.query_one(RecordTable)
        assert table.filter_complete
        assert table.visible_count == 2000
        words = screen_words(pilot)
        assert "showing all users matching “partner”: 2,000" in words
        assert "so far" not in words


async def test_a_large_project_shows_its_first_rows_while_the_rest_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    import hubtui.api.client as client_module

    release = threading.Event()
    parse_list = client_module.parse_list  # type: ignore[attr-defined]

    def slow_parse_list(*args: Any, **kwargs: Any) -> Any:
        release.wait(timeout=30)  # the whole list is read only when the test says so
        return parse_list(*args, **kwargs)

    store = DemoStore(DemoSize(big_project_users=5000))
    async with running(store=store) as pilot:
        await press(pilot, "g")
        await type_text(pilot, "load-test")
        await press(pilot, "enter")
        monkeypatch.setattr(client_module, "parse_list", slow_parse_list)
        await pilot.press("enter")
        for _ in range(100):
            await pilot.pause(0.05)
            if "@loadtest.example" in screen_text(pilot):
                break
        words = screen_words(pilot)
        assert "@loadtest.example" in words
        assert "the first 200 are shown; counts follow" in words
        assert "5,000 users" not in words
        release.set()
        await settle(pilot)
        assert "5,000 users · 4,500 members · 500 limited readers" in screen_words(pilot)
