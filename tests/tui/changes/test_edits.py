"""Adding and changing users from the keyboard: explicit, recoverable, never twice."""

from __future__ import annotations

import json
import re
from pathlib import Path

from textual.widgets import Input

from hubtui.demo import DemoStore, Faults, create_app
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.screens.changes.user_form import UserFormScreen
from hubtui.tui.screens.dialogs.confirm import ConfirmScreen
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.app import press, project_users, running, screen_text, screen_words, type_text

BRIDGE = 1001


def member_roles(store: DemoStore) -> dict[str, str]:
    hub = store.hub_by_name("acme-build")
    assert hub is not None
    members = hub.projects[BRIDGE].members
    return {store.users[uid].email: m.role for uid, m in members.items()}


async def test_add_a_user(tmp_path: Path) -> None:
    store = DemoStore()
    log = tmp_path / "changes.jsonl"
    async with running(store=store, change_log=log, start=project_users()) as pilot:
        await press(pilot, "a")
        form = pilot.app.screen
        assert isinstance(form, UserFormScreen)
        assert isinstance(pilot.app.focused, Input)
        await type_text(pilot, "night.shift@acme-build.com")
        await press(pilot, "tab", "down", "enter", "tab", "space", "ctrl+s")
        # An add is confirmed as an edit is: what is sent, to whom, before it goes.
        asked = pilot.app.screen
        assert isinstance(asked, ConfirmScreen)
        assert (
            "Confirm: add night.shift@acme-build.com a direct member of Harbour Bridge Retrofit "
            "as Editor, reviewer yes (they get an invitation)"
        ) in str(asked.question)
        assert store.creates == 0
        await press(pilot, "y")
        screen = pilot.app.screen
        assert isinstance(screen, ProjectUsersScreen)
        words = screen_words(pilot)
        assert "13 users · 8 members · 5 limited readers" in words
        assert "Added Night Shift to Harbour Bridge Retrofit as Editor" in words
        row = screen.query_one(RecordTable).highlighted_row
        assert row is not None
        assert row.cells[1] == "night.shift@acme-build.com"
        assert row.cells[2] == "Editor"
        assert row.cells[3] == "yes"
    assert member_roles(store)["night.shift@acme-build.com"] == "Editor"
    entry = json.loads(log.read_text().splitlines()[-1])
    assert entry["action"] == "add"
    assert entry["outcome"] == "done"
    assert entry["after"] == {"Role": "Editor", "IsReviewer": True}
    assert "demo-token" not in log.read_text()


async def test_the_forms_marks_say_which_role_and_whether_reviewer_without_colour() -> None:
    """The chosen role and the reviewer box say their value by their mark (a screenshot's
    text, NO_COLOR), and the marks move with the choice."""
    async with running(start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "night.shift@acme-build.com")
        before = screen_text(pilot)
        assert "▐●▌ Reader" in before
        assert "▐ ▌ Editor" in before
        assert "▐ ▌ Reviewer" in before
        await press(pilot, "tab", "down", "enter", "tab", "space")
        after = screen_text(pilot)
        assert "▐ ▌ Reader" in after
        assert "▐●▌ Editor" in after
        assert "▐X▌ Reviewer" in after


async def test_an_invalid_email_is_refused_before_sending() -> None:
    store = DemoStore()
    async with running(store=store, start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "not-an-email")
        await press(pilot, "ctrl+s")
        assert isinstance(pilot.app.screen, UserFormScreen)
        assert "This is not an email address" in screen_words(pilot)
        assert pilot.app.screen.query_one("#email", Input).value == "not-an-email"
    assert store.creates == 0


async def test_edit_shows_the_difference_and_going_back_keeps_the_values() -> None:
    store = DemoStore()
    async with running(store=store, start=project_users()) as pilot:
        await press(pilot, "down", "e")  # Aiko Tanaka, Editor
        await press(pilot, "down", "enter", "ctrl+s")
        assert "Confirm: Role: Editor → Admin" in screen_words(pilot)
        await press(pilot, "n")
        form = pilot.app.screen
        assert isinstance(form, UserFormScreen)
        assert form.values()[1] == "Admin"
        assert store.updates == 0
        await press(pilot, "ctrl+s")
        await press(pilot, "y")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        words = screen_words(pilot)
        assert "Changed Aiko Tanaka in Harbour Bridge Retrofit" in words
        assert "Editor → Admin." in words
        row = pilot.app.screen.query_one(RecordTable).highlighted_row
        assert row is not None
        assert row.cells[2] == "Admin"
    assert member_roles(store)["aiko.tanaka@acme-build.com"] == "Admin"
    assert store.updates == 1


async def test_no_change_sends_nothing() -> None:
    store = DemoStore()
    async with running(store=store, start=project_users()) as pilot:
        await press(pilot, "e", "ctrl+s")
        assert "Nothing changed, so nothing was sent." in screen_words(pilot)
    assert store.updates == 0


async def test_escape_asks_before_discarding_what_was_typed() -> None:
    store = DemoStore()
    async with running(store=store, start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "half.typed@")
        await press(pilot, "escape")
        assert "Discard what you typed?" in screen_words(pilot)
        await press(pilot, "n")
        form = pilot.app.screen
        assert isinstance(form, UserFormScreen)
        assert form.values()[0] == "half.typed@"
        # Enter does not answer yes to losing what was typed: only y does.
        await press(pilot, "escape", "enter")
        assert "Discard what you typed?" in screen_words(pilot)
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, UserFormScreen)
        assert pilot.app.screen.values()[0] == "half.typed@"
        await press(pilot, "escape", "y")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        await press(pilot, "a", "escape")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
    assert store.creates == 0


async def test_e_on_a_limited_reader_offers_to_add_them_never_updates() -> None:
    store = DemoStore()
    async with running(store=store, start=project_users()) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        assert table.select_key("8")  # Grace Osei, a limited reader
        await press(pilot, "e")
        words = screen_words(pilot)
        assert "Add Grace Osei as a direct member" in words
        assert "They are not a direct member" in words
        await press(pilot, "ctrl+s")
        assert "Confirm: make the limited reader grace.osei@northwind-eng.com a direct" in (
            screen_words(pilot)
        )
        await press(pilot, "y")
        assert "12 users · 8 members · 4 limited readers" in screen_words(pilot)
        row = table.highlighted_row
        assert row is not None
        assert row.cells[4] == ""
    assert store.creates == 1
    assert store.updates == 0
    assert member_roles(store)["grace.osei@northwind-eng.com"] == "Reader"


async def test_a_conflict_keeps_the_form_and_says_why() -> None:
    store = DemoStore()
    async with running(store=store, start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "aiko.tanaka@acme-build.com")
        await press(pilot, "ctrl+s", "y")
        form = pilot.app.screen
        assert isinstance(form, UserFormScreen)
        words = screen_words(pilot)
        assert "HTTP 409" in words
        assert "already a direct member" in words
        assert "Your entries are kept" in words
        assert form.values()[0] == "aiko.tanaka@acme-build.com"


async def test_server_errors_keep_everything_and_ctrl_s_retries() -> None:
    faults = Faults(change_failure_status=500)
    store = DemoStore()
    async with running(store=store, faults=faults, start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "retry.me@acme-build.com")
        await press(pilot, "ctrl+s", "y")
        # A 500 may have been acted on: unknown, and the add is not sent again until checked.
        assert "the server had an internal error (HTTP 500)" in screen_words(pilot)
        assert "may or may not have been added" in screen_words(pilot)
        await press(pilot, "ctrl+r")
        assert "The list does not have them: nothing was added." in screen_words(pilot)
        faults.change_failure_status = 400
        await press(pilot, "ctrl+s", "y")
        assert "HTTP 400" in screen_words(pilot)
        faults.change_failure_status = None
        await press(pilot, "ctrl+s", "y")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
    assert "retry.me@acme-build.com" in member_roles(store)
    assert store.creates == 1


async def test_read_only_hides_edit_keys_and_says_so() -> None:
    store = DemoStore()
    async with running(store=store, read_only=True, start=project_users()) as pilot:
        footer = screen_text(pilot).splitlines()[-1]
        assert "Add" not in footer
        assert "Edit" not in footer
        await press(pilot, "a")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        assert "Read-only is on (--read-only, HUBTUI_READ_ONLY or" in screen_words(pilot)
        await press(pilot, "e")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
    assert store.creates == 0


async def test_edits_use_the_screens_api_version() -> None:
    server = create_app(DemoStore(), Faults())
    async with running(server=server, start=project_users()) as pilot:
        await press(pilot, "v", "down", "e", "down", "enter", "ctrl+s", "y")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
    routes = server.state.stats.by_route
    assert routes.get("PUT /v2/hubs/{hubId}/projects/{id}/users/{id}") == 1
    assert "PUT /v3/hubs/{hubId}/projects/{id}/users/{id}" not in routes


async def test_the_change_log_lists_each_change() -> None:
    async with running(start=project_users()) as pilot:
        await press(pilot, "down", "e", "down", "enter", "ctrl+s", "y", "c")
        words = screen_words(pilot)
        assert "DONE update aiko.tanaka@acme-build.com in Harbour Bridge Retrofit" in words
        assert "Role: Editor → Admin" in words
        # The line names the request that carried the change, as the request log shows it.
        match = re.search(r"request (r\d+) \(ctrl\+l shows it\)", words)
        assert match is not None, words
        client = await pilot.app.workspace.client()  # type: ignore[attr-defined]
        carried = client.exchanges.find(match.group(1))
        assert carried is not None
        assert (carried.method, carried.status) == ("PUT", 200)


async def test_a_refused_add_puts_the_cursor_back_in_the_email() -> None:
    async with running(start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "aiko.tanaka@acme-build.com")
        await press(pilot, "tab", "ctrl+s", "y")  # focus on Role when sending
        assert "HTTP 409" in screen_words(pilot)
        focused = pilot.app.focused
        assert isinstance(focused, Input)
        assert focused.id == "email"


async def test_a_change_made_with_e_is_put_back_with_r_in_the_change_log(tmp_path: Path) -> None:
    from hubtui.tui.screens.changes.batch import StagedScreen

    store = DemoStore()
    async with running(
        store=store, change_log=tmp_path / "c.jsonl", start=project_users()
    ) as pilot:
        await press(pilot, "down", "e")  # Aiko Tanaka, Editor
        await press(pilot, "down", "enter", "ctrl+s", "y")
        assert member_roles(store)["aiko.tanaka@acme-build.com"] == "Admin"
        await press(pilot, "c")
        assert "1 change: 1 done" in screen_words(pilot)  # a batch of one, like any other
        await press(pilot, "R")
        assert isinstance(pilot.app.screen, StagedScreen)
        assert "Role: Admin → Editor" in screen_words(pilot)
        await press(pilot, "a", "y")
    assert member_roles(store)["aiko.tanaka@acme-build.com"] == "Editor"


async def test_the_form_sends_nothing_when_the_log_cannot_be_written(tmp_path: Path) -> None:
    from hubtui.demo import DemoStore
    from hubtui.tui.screens.changes.user_form import UserFormScreen

    store = DemoStore()
    blocker = tmp_path / "data"
    blocker.write_text("")
    async with running(store=store, change_log=blocker / "changes.jsonl") as pilot:
        await press(pilot, "enter", "enter", "a")
        await type_text(pilot, "night.shift@acme-build.com")
        await press(pilot, "ctrl+s", "y")
        assert isinstance(pilot.app.screen, UserFormScreen)
        words = screen_words(pilot)
        assert "Could not write the change log" in words
        assert "Nothing was sent" in words
        assert pilot.app.screen.query_one("#email").value == "night.shift@acme-build.com"  # type: ignore[attr-defined]
    assert store.creates == 0
