"""Screens ask the app by message (tui/messages.py): what each key posts, and what it leads to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.message import Message
from textual.widgets import Input

from hubtui.tui.messages import (
    FindPerson,
    HubsLoaded,
    OpenHub,
    OpenProject,
    UsersLoaded,
    WorkerFailed,
)
from hubtui.tui.screens.browsing.hub_detail import HubDetailScreen
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.screens.browsing.who import WhoScreen
from hubtui.tui.screens.browsing.who_prompt import WhoPromptScreen
from hubtui.tui.screens.changes.user_form import State, UserFormScreen
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.app import press, running, screen_words, type_text


def posted(messages: list[Message], kind: type[Message]) -> list[Message]:
    """Each message of this kind once (the hook sees it at every node it bubbles through)."""
    return list({id(m): m for m in messages if isinstance(m, kind)}.values())


async def test_the_hub_list_reports_what_it_loaded_and_the_palette_can_offer_it() -> None:
    messages: list[Message] = []
    async with running(messages=messages) as pilot:
        loaded = posted(messages, HubsLoaded)
        assert len(loaded) == 1
        assert isinstance(loaded[0], HubsLoaded)
        assert len(loaded[0].hubs) == 8
        names = {entry.hub.name for entry in pilot.app.session.catalog.hubs.values()}  # type: ignore[attr-defined]
        assert names == {hub.name for hub in loaded[0].hubs}


async def test_enter_asks_for_the_highlighted_hub_then_its_project() -> None:
    messages: list[Message] = []
    async with running(messages=messages) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        await press(pilot, "down")
        hub = table.highlighted_record
        assert hub is not None
        await press(pilot, "enter")
        [open_hub] = posted(messages, OpenHub)
        assert isinstance(open_hub, OpenHub)
        assert open_hub.hub.id == hub.id
        screen = pilot.app.screen
        assert isinstance(screen, HubDetailScreen)
        assert screen.hub.id == hub.id
        project = screen.table.highlighted_record
        assert project is not None
        await press(pilot, "enter")
        [open_project] = posted(messages, OpenProject)
        assert isinstance(open_project, OpenProject)
        assert open_project.project is not None
        assert open_project.project.id == project.id
        users = pilot.app.screen
        assert isinstance(users, ProjectUsersScreen)
        [loaded] = posted(messages, UsersLoaded)
        assert isinstance(loaded, UsersLoaded)
        assert loaded.project_id == str(project.id)
        assert len(loaded.users) == users.table.total_count


async def test_w_asks_whom_to_find_in_every_hub_shown() -> None:
    messages: list[Message] = []
    async with running(messages=messages) as pilot:
        await press(pilot, "w")
        [find] = posted(messages, FindPerson)
        assert isinstance(find, FindPerson)
        assert find.query is None  # asked first, in the prompt
        assert find.scope == "all hubs"
        assert len(find.hubs) == 8
        assert isinstance(pilot.app.screen, WhoPromptScreen)


async def test_the_search_opens_a_project_by_message_above_itself() -> None:
    messages: list[Message] = []
    async with running(messages=messages) as pilot:
        await press(pilot, "w")
        await type_text(pilot, "priya.patel@northwind-eng.com")
        await press(pilot, "enter")
        who = pilot.app.screen
        assert isinstance(who, WhoScreen)
        who.table.cursor = next(
            n for n, row in enumerate(who.table.shown_rows) if row.cells[1] == "Uppsala Depot"
        )
        await press(pilot, "enter")
        [open_project] = posted(messages, OpenProject)
        assert isinstance(open_project, OpenProject)
        assert open_project.above  # escape goes back to the search, not to a hub's detail
        assert open_project.project is not None
        assert open_project.project.name == "Uppsala Depot"
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        assert pilot.app.screen_stack[-2] is who


@pytest.mark.bug_on_purpose
async def test_a_bug_in_a_load_is_told_once_by_the_app_and_the_screen_is_usable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hubtui.api import HubClient

    async def broken(self: HubClient, hub_id: object) -> None:
        raise RuntimeError("injected [bold]markup[/bold]")

    messages: list[Message] = []
    async with running(messages=messages) as pilot:
        monkeypatch.setattr(HubClient, "list_projects", broken)
        await press(pilot, "enter")
        [failed] = posted(messages, WorkerFailed)
        assert isinstance(failed, WorkerFailed)
        assert isinstance(failed.screen, HubDetailScreen)
        screen = pilot.app.screen
        assert isinstance(screen, HubDetailScreen)
        assert not screen.table.loading  # not "Loading…" for ever
        words = screen_words(pilot)
        assert "Something unexpected went wrong (RuntimeError: injected [bold]markup[/bold])" in (
            words
        )
        assert "This is a bug in hubtui" in words
        monkeypatch.undo()
        await press(pilot, "r")
        assert screen.table.total_count > 0
        assert "Something unexpected" not in screen_words(pilot)


@pytest.mark.bug_on_purpose
async def test_a_bug_while_sending_leaves_the_change_unknown_and_the_form_usable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from hubtui.api import HubClient

    async def broken(self: HubClient, *args: object, **kwargs: object) -> None:
        raise RuntimeError("injected")

    log = tmp_path / "changes.jsonl"
    async with running(change_log=log) as pilot:
        await press(pilot, "enter", "enter", "a")
        await type_text(pilot, "bug@acme-build.com")
        monkeypatch.setattr(HubClient, "create_project_user", broken)
        await press(pilot, "ctrl+s", "y")
        form = pilot.app.screen
        assert isinstance(form, UserFormScreen)
        words = screen_words(pilot)
        assert "Something unexpected went wrong (RuntimeError: injected)" in words
        assert "may or may not have been added" in words
        assert form.state is State.MAY_HAVE_ADDED
        assert form.query_one("#email", Input).value == "bug@acme-build.com"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["outcome"] for line in lines] == ["pending", "unknown"]
    assert "RuntimeError" in lines[-1]["detail"]
