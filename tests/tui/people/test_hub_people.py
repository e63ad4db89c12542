"""`P` on a hub: its people with their last sign-in and what needs a look, at 80×24 and wide;
`l` keeps those that need a look; `enter` finds the person in the hub's projects; `M` shows the
access matrix, which scrolls both ways with the person frozen; a server without the hub-user
list keeps every other screen working and says what it lacks."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hubtui.demo import Faults
from hubtui.tui.screens.browsing.access_matrix import AccessMatrixScreen
from hubtui.tui.screens.browsing.who import WhoScreen
from hubtui.tui.screens.people.hub_people import HubPeopleScreen
from hubtui.tui.widgets.matrix_view import MOST_COLUMN_WIDTH, MatrixView
from tests.harness.app import press, running, screen_text, screen_words, settle


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "wide"])
async def test_a_hubs_people_say_who_needs_a_look(size: tuple[int, int]) -> None:
    async with running(size=size) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        assert isinstance(pilot.app.screen, HubPeopleScreen)
        words = screen_words(pilot)
        assert "13 people" in words
        assert "1 invitation not accepted" in words
        assert "hamid.karimi@northwind-eng.com" in words
        assert "never" in words
        table = pilot.app.screen.table
        assert table.visible_count == 13
        await press(pilot, "l")  # only those that need a look
        needing = table.visible_count
        assert 0 < needing < 13
        assert "shown: those that need a look (l)" in screen_words(pilot)
        await press(pilot, "l")
        assert table.visible_count == 13


async def test_the_panel_gives_each_date_in_utc_and_the_marks_in_full() -> None:
    async with running(size=(120, 40)) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        await press(pilot, "slash")
        await pilot.press(*"hamid")
        await press(pilot, "enter")
        words = screen_words(pilot)
        assert "Last web sign-in: never · add-in sign-in: never" in words
        assert "invitation NOT accepted" in words
        assert "Needs a look: invitation not accepted, never signed in, limited reader" in words


async def test_enter_finds_the_person_in_the_hubs_projects() -> None:
    async with running(size=(120, 40)) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, WhoScreen)
        assert "grace.osei@northwind-eng.com" in screen_words(pilot)


async def test_the_matrix_scrolls_both_ways_at_80x24_with_the_person_frozen() -> None:
    async with running(size=(80, 24)) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        await press(pilot, "M")
        screen = pilot.app.screen
        assert isinstance(screen, AccessMatrixScreen)
        table = screen.query_one(MatrixView)
        assert table.row_count == 13
        assert len(table.labels) == 3 + 3
        await press(pilot, *["right"] * 6)
        await settle(pilot)
        assert table.scroll_x > 0  # scrolled to the last project
        words = screen_words(pilot)
        assert "aiko.tanaka@acme-build.com" in words  # the person stays in view
        assert "Depot 7 Fit-out" in words
        await press(pilot, "enter")
        assert "aiko.tanaka@acme-build.com in Depot 7 Fit-out: Admin." in screen_words(pilot)
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, HubPeopleScreen)


async def test_without_the_hub_user_list_the_people_come_from_the_projects() -> None:
    async with running(size=(120, 40), faults=Faults(no_hub_users=True)) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        words = screen_words(pilot)
        assert "INCOMPLETE: the hub's users were not read" in words
        assert "this server does not list a hub's users" in words
        assert "not read" in words  # the last sign-in is not known, never "never"
        await press(pilot, "escape", "escape", "enter")
        assert "Harbour Bridge Retrofit" in screen_words(pilot)  # the rest works as before


async def test_i_sends_the_invitation_again_to_the_marked_who_never_accepted() -> None:
    async with running(size=(120, 40)) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        await press(pilot, "asterisk", "i")  # everyone marked: only the one pending is asked
        words = screen_words(pilot)
        assert "again to 1 person (hamid.karimi@northwind-eng.com)" in words
        await press(pilot, "y")
        await settle(pilot)
        assert "1 invitation sent again." in screen_words(pilot)
        log = pilot.app.workspace.change_log  # type: ignore[attr-defined]
        assert [c.outcome for c in log.changes] == ["done"]
        assert log.changes[0].email == "hamid.karimi@northwind-eng.com"


async def test_i_is_off_read_only() -> None:
    async with running(size=(120, 40), read_only=True) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, HubPeopleScreen)
        assert screen.check_action("resend", ()) is False


async def test_the_hubs_people_read_once_are_shown_again_offline(tmp_path: Path) -> None:
    from tests.harness.app import offline_app

    path = tmp_path / "store.sqlite3"
    async with running(store_path=path, keeps="all") as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        await pilot.app.workers.wait_for_complete()
    app, answers = offline_app(path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "P")
        await settle(pilot)
        words = screen_words(pilot)
        assert "13 people" in words
        assert "1 invitation not accepted" in words  # the hub's users, as kept
        assert "INCOMPLETE" not in words  # every list was kept: nothing is missing
        assert "hamid.karimi@northwind-eng.com" in words
    answers.store.close()


@contextlib.asynccontextmanager
async def people_of_a_held_hub(
    monkeypatch: pytest.MonkeyPatch, held: str
) -> AsyncIterator[tuple[Any, threading.Event]]:
    """P pressed on the load-test hub of 5,000 users, the lists whose operation names ``held``
    read only once the event is set (the test sets it)."""
    import hubtui.api.client as client_module
    from hubtui.demo import DemoSize, DemoStore
    from tests.harness.app import type_text

    release = threading.Event()
    parse_list = client_module.parse_list  # type: ignore[attr-defined]

    def slow_parse_list(content: Any, operation: str, *args: Any, **kwargs: Any) -> Any:
        if held in operation:
            release.wait(timeout=30)
        return parse_list(content, operation, *args, **kwargs)

    async with running(size=(140, 40), store=DemoStore(DemoSize(big_project_users=5000))) as pilot:
        await press(pilot, "g")
        await type_text(pilot, "load-test")
        await press(pilot, "enter")
        await settle(pilot)
        monkeypatch.setattr(client_module, "parse_list", slow_parse_list)
        await pilot.press("P")
        try:
            yield pilot, release
        finally:
            release.set()


async def until_shown(pilot: Any, text: str) -> None:
    for _ in range(200):
        await pilot.pause(0.05)
        if text in screen_text(pilot):
            return


async def test_a_large_hub_shows_its_first_users_while_the_rest_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """P on a hub of 5,000 users: its first hub users show as soon as they arrive, said to be
    the first of more; the counts, their projects and what needs a look follow once every list
    is read."""
    async with people_of_a_held_hub(monkeypatch, "users") as (pilot, release):
        await until_shown(pilot, "@loadtest.example")
        words = screen_words(pilot)
        assert isinstance(pilot.app.screen, HubPeopleScreen)
        assert "@loadtest.example" in words
        assert "the first 200 hub users are shown; their projects and the counts follow" in words
        release.set()
        await settle(pilot)
        words = screen_words(pilot)
        assert "the first 200 hub users" not in words
        assert "5,000 people" in words


async def test_every_hub_user_shows_once_their_list_is_read_while_projects_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """P on a hub of 5,000 users whose projects answer slowly: once the hub's list is read,
    every hub user is a row, said to be waiting for their projects; the counts follow once
    every project is read."""
    async with people_of_a_held_hub(monkeypatch, "of project") as (pilot, release):
        await until_shown(pilot, "its 5,000 hub users are shown")
        words = screen_words(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, HubPeopleScreen)
        assert "its 5,000 hub users are shown; their projects and the counts follow" in words
        assert screen.table.visible_count == 5000
        release.set()
        await settle(pilot)
        words = screen_words(pilot)
        assert "hub users are shown" not in words
        assert "5,000 people" in words


async def test_people_shown_while_projects_are_read_are_searched_only_once_a_filter_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hub users shown while the projects are read are replaced by the whole answer: their
    search keys are not made for nothing (a firm's 100,000: a second of the processor, 15 MB).
    A filter typed meanwhile has them made, and finds every match among them."""
    async with people_of_a_held_hub(monkeypatch, "of project") as (pilot, release):
        await until_shown(pilot, "its 5,000 hub users are shown")
        await pilot.pause(0.5)  # the time a search of 5,000 takes (the projects' lists held)
        screen = pilot.app.screen
        assert isinstance(screen, HubPeopleScreen)
        view = screen.table.view
        assert view.total == 5000
        assert not view.indexed
        expected = sum(1 for i in range(view.total) if "kai." in view.record(i).email)
        assert expected > 1
        for key in ("slash", *"kai."):
            await pilot.press(key)
        for _ in range(100):  # its search under way while the projects are still held
            await pilot.pause(0.05)
            if view.indexed:
                break
        assert screen.table.visible_count == expected
        assert "hub users are shown" in screen_words(pilot)  # still the people so far
        release.set()
        await settle(pilot)
        assert "5,000 people" in screen_words(pilot)


async def test_a_large_load_ends_with_what_it_read_frozen_as_the_collector_comes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The collector runs rarely while a large hub is read; when the load ends its thresholds
    come back, and what was read is frozen first: the next collection does not go over every
    object read (a firm's two million: 1.4 s before the counts showed)."""
    import gc

    from hubtui.tui.collection import release_frozen

    at_the_end: list[tuple[int, tuple[int, int, int], bool]] = []
    load_ended = HubPeopleScreen.load_ended

    def load_ended_watched(screen: HubPeopleScreen) -> None:
        load_ended(screen)
        at_the_end.append((gc.get_freeze_count(), gc.get_threshold(), gc.isenabled()))

    monkeypatch.setattr(HubPeopleScreen, "load_ended", load_ended_watched)
    threshold = gc.get_threshold()
    release_frozen()
    try:
        async with people_of_a_held_hub(monkeypatch, "of project") as (pilot, release):
            await until_shown(pilot, "its 5,000 hub users are shown")
            release.set()
            await settle(pilot)
            assert "5,000 people" in screen_words(pilot)
    finally:
        release_frozen()
    [(frozen, thresholds, enabled)] = at_the_end
    assert frozen >= 5000 * 3  # each person, their hub record and their project record
    assert thresholds == threshold
    assert enabled


async def test_people_show_with_the_projects_answered_while_one_project_is_read() -> None:
    """P on a hub one of whose projects answers late: meanwhile the people are shown with the
    projects that have answered, and the summary says how many of how many; once the last one
    answers, the counts replace those words."""
    import asyncio

    from hubtui.demo import DemoStore, create_app
    from tests.harness.app import type_text

    inner = create_app(DemoStore(), Faults())
    held = asyncio.Event()

    async def server(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].endswith("/projects/1001/users"):
            await held.wait()  # this project answers when the test says so
        await inner(scope, receive, send)

    async with running(size=(160, 40), server=server) as pilot:
        await press(pilot, "g")
        await type_text(pilot, "acme-build")
        await press(pilot, "enter")
        await settle(pilot)
        await pilot.press("P")
        await until_shown(pilot, "projects read")
        words = screen_words(pilot)
        assert "so far, with their projects in the 2 of 3 projects read" in words
        assert "the rest and the counts follow" in words
        held.set()
        await settle(pilot)
        words = screen_words(pilot)
        assert "so far" not in words
        assert "inactive or never signed in" in words


def test_the_matrix_shows_every_address_whole_and_cuts_only_a_long_project_name() -> None:
    """A firm's addresses run past 40 characters: two people who differ only at the end must
    not look alike. The frozen column is an identifier, never capped; a project's is."""
    first, second = (f"aiko.adeyemi100@lakeshore-partners.example.{tld}" for tld in ("com", "org"))
    project = "Harbour Bridge Retrofit and the Long Approach Viaduct, phase two"
    view = MatrixView(["Person", project], [[first, "Editor"], [second, "Reader"]])
    assert view.widths[0] == len(first)
    assert view.widths[1] == MOST_COLUMN_WIDTH


async def test_a_burst_of_progress_is_drawn_at_a_tenth_and_the_latest_count_shows() -> None:
    """A firm's 2,000 answers, each drawn, held up the reading they report: the bar and the
    summary follow at most every tenth of a second, the last report always shown."""
    from hubtui.core.people.search import Progress
    from hubtui.tui.screens.base import PROGRESS_EVERY
    from hubtui.tui.widgets.chrome import Summary

    async with running(size=(120, 40)) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, HubPeopleScreen)
        said: list[str] = []
        summary = screen.query_one(Summary)
        say = summary.say

        def saying(text: str) -> None:
            said.append(text)
            say(text)

        summary.say = saying  # type: ignore[method-assign]
        screen.is_loading = True  # a read going on, its progress not shown for a while
        screen._progress_shown = -PROGRESS_EVERY
        for done in range(1, 501):
            screen.progressed(Progress(projects_total=1000, projects_done=done), "Reading")
        assert said == ["Reading: 1 of 1,000 projects…"]  # the first at once, the rest held
        await pilot.pause(PROGRESS_EVERY * 2)
        assert said[-1] == "Reading: 500 of 1,000 projects…"  # the latest, a tenth later
        assert len(said) == 2
        screen.progressed(Progress(projects_total=1000, projects_done=1000), "Reading")
        assert said[-1] == "Reading: 1,000 of 1,000 projects…"  # the last answer at once
        screen.is_loading = False
