"""Moving between screens by keys: hub list, detail, users and back, help, quitting, the status
line, and the project Id prompt of a server that cannot list projects."""

from __future__ import annotations

from textual.widgets import Input

from hubtui.demo import DemoStore, Faults
from hubtui.tui.screens.browsing.hub_detail import HubDetailScreen
from hubtui.tui.screens.browsing.hubs import HubListScreen
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.screens.dialogs.help import HelpScreen
from tests.harness.app import (
    press,
    project_users,
    running,
    screen_text,
    screen_words,
    settle,
    type_text,
)


async def test_hub_list_to_detail_to_users_and_back() -> None:
    async with running() as pilot:
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, HubDetailScreen)
        text = screen_text(pilot)
        assert "Hubs › acme-build (display name: ACME Construction Group)" in text
        assert "Name (URL name)" in text
        assert "≠ differs from Name" in text
        assert "trusted: its host is the configured server's" in text
        assert "Harbour Bridge Retrofit" in text
        assert "3 projects · 2 with Limited access" in text
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        text = screen_text(pilot)
        assert "12 users · 7 members · 5 limited readers" in text
        grace = next(line for line in text.splitlines() if "Grace Osei" in line)
        assert "LIMITED" in grace
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, HubDetailScreen)
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, HubListScreen)
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, HubListScreen)
        assert pilot.app.is_running


async def test_a_server_that_cannot_list_projects_asks_for_a_project_id() -> None:
    async with running(faults=Faults(projects_listing_status=404)) as pilot:
        await press(pilot, "enter")
        text = screen_words(pilot)
        assert "cannot list a hub's projects" in text
        await type_text(pilot, "1001")
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        assert "project 1001" in screen_text(pilot)
        assert "12 users" in screen_text(pilot)


async def test_help_lists_keys_and_badges() -> None:
    async with running(size=(80, 24), start=project_users()) as pilot:
        await press(pilot, "question_mark")
        help_screen = pilot.app.screen
        assert isinstance(help_screen, HelpScreen)
        keys = dict(help_screen.keys())
        for key in ("a", "e", "l", "v", "y", "c", "r", "x", "t"):
            assert len(keys[key].split()) >= 3, f"{key}: {keys[key]!r} is not a sentence"
        assert "copy the highlighted email" in keys["y"]
        # A long sentence wraps beside its key, not back under it.
        lines = screen_text(pilot).splitlines()
        first = next(n for n, line in enumerate(lines) if "filter the list (case" in line)
        column = lines[first].index("filter the list (case")
        assert lines[first + 1][column - 2 : column] == "  "
        assert lines[first + 1][column:].startswith("ignored)")
        await pilot.press("end")
        await press(pilot)
        bottom = screen_words(pilot)
        assert "read again, before it is sent" in bottom  # the last legend line
        await pilot.press("pageup")
        await press(pilot)
        # The LIMITED legend, at the bottom or a page above it.
        assert "email domain is whitelisted at" in bottom + screen_words(pilot)
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)


async def test_q_quits_cleanly() -> None:
    async with running() as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert pilot.app.return_code == 0
        assert not pilot.app.is_running


async def test_read_only_is_always_visible() -> None:
    async with running(read_only=True) as pilot:
        assert "READ-ONLY" in screen_text(pilot)
        await press(pilot, "enter", "enter")
        assert "READ-ONLY" in screen_text(pilot)


async def test_read_only_leads_the_status_line_at_80_columns_and_help_says_edits_are_off() -> None:
    async with running(size=(80, 24), read_only=True, start=project_users()) as pilot:
        status = next(line for line in screen_text(pilot).splitlines() if "API v3" in line)
        assert status.strip().startswith("READ-ONLY (no changes)")
        await press(pilot, "question_mark")
        help_screen = pilot.app.screen
        assert isinstance(help_screen, HelpScreen)
        keys = dict(help_screen.keys())
        assert "limited readers" in keys["l"]  # this screen's own key
        assert keys["a"].endswith("(not now)")  # listed, and said to be off
        assert keys["e"].endswith("(not now)")
    async with running(size=(80, 24), start=project_users()) as pilot:
        await press(pilot, "question_mark")
        help_screen = pilot.app.screen
        assert isinstance(help_screen, HelpScreen)
        assert dict(help_screen.keys())["a"] == "add a person to this project, with a role"


async def test_the_status_line_keeps_the_screens_api_version_after_help() -> None:
    async with running(start=project_users()) as pilot:
        await press(pilot, "v")
        assert "API v2" in screen_text(pilot)
        await press(pilot, "question_mark", "escape")
        status = screen_text(pilot).splitlines()[-2]
        assert "API v2" in status


async def test_the_project_id_prompt_is_done_with_once_a_project_opens() -> None:
    store = DemoStore()
    async with running(store=store, faults=Faults(projects_listing_status=404)) as pilot:
        await press(pilot, "enter")
        await type_text(pilot, "1002")
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        await press(pilot, "escape", "p")
        await type_text(pilot, "1002")
        await press(pilot, "enter")
        screen = pilot.app.screen
        assert isinstance(screen, ProjectUsersScreen)
        assert screen.project_id == "1002"


async def test_back_has_keys_that_do_not_start_with_escape() -> None:
    async with running() as pilot:
        await press(pilot, "enter", "enter")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        await press(pilot, "left")
        assert isinstance(pilot.app.screen, HubDetailScreen)
        await press(pilot, "enter", "h")
        assert isinstance(pilot.app.screen, HubDetailScreen)
        await press(pilot, "backspace")
        assert isinstance(pilot.app.screen, HubListScreen)
        await press(pilot, "backspace", "left", "h")
        assert isinstance(pilot.app.screen, HubListScreen)  # the first screen stays
        assert pilot.app.is_running
        await press(pilot, "enter")
        assert "esc/⌫ Back" in screen_words(pilot)  # the footer says it


async def test_the_project_id_prompt_takes_digits_and_leaves_the_screen_s_keys_to_it() -> None:
    """Against a server with no project list (the published document has none), the prompt
    has the focus: a project id goes in, and P still opens the hub's people (before: it typed
    a "P" into the prompt)."""
    from hubtui.tui.screens.people.hub_people import HubPeopleScreen

    async with running(size=(80, 24), faults=Faults(projects_listing_status=404)) as pilot:
        await press(pilot, "enter")
        assert "cannot list a hub's projects" in screen_words(pilot)
        await press(pilot, "P")
        await settle(pilot)
        assert isinstance(pilot.app.screen, HubPeopleScreen)
        await press(pilot, "escape")
        prompt = pilot.app.screen.query_one("#project-id", Input)
        assert prompt.value == ""  # nothing of the P was typed
