"""Screens ask the app by message (tui/messages.py): what each key posts, and what it leads to."""

from __future__ import annotations

from textual.message import Message

from hubtui.tui.messages import FindPerson, HubsLoaded, OpenHub, OpenProject, UsersLoaded
from hubtui.tui.screens.hub_detail import HubDetailScreen
from hubtui.tui.screens.project_users import ProjectUsersScreen
from hubtui.tui.screens.who import WhoPromptScreen
from hubtui.tui.widgets.record_table import RecordTable
from tests.tui.conftest import press, running


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
        names = {entry.hub.name for entry in pilot.app.catalog.hubs.values()}  # type: ignore[attr-defined]
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
