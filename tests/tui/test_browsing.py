"""The browsing flows, driven by keys as a person drives them."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input

from hubtui.demo import DemoSize, DemoStore, Faults
from hubtui.tui.screens.help import HelpScreen
from hubtui.tui.screens.hub_detail import HubDetailScreen
from hubtui.tui.screens.hubs import HubListScreen
from hubtui.tui.screens.project_users import ProjectUsersScreen
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


def shown_keys(table: RecordTable[Any]) -> list[str]:
    """The keys of the records shown, in the order shown."""
    return [table.view.key(i) for i in table.view.shown]


def table_lines(text: str, header: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip("≠ ").startswith(header))
    return lines[start:]


async def test_hub_list_shows_both_names_and_marks_the_difference() -> None:
    async with running() as pilot:
        text = screen_text(pilot)
        assert "8 hubs · Name (URL name) leads" in text
        acme = next(line for line in text.splitlines() if "acme-build" in line)
        assert acme.startswith("≠  acme-build")
        assert "ACME Construction Group" in acme
        river = next(line for line in text.splitlines() if "riverside-infra" in line)
        assert "(none set = Name)" in river
        assert not river.startswith("≠")


async def test_n_puts_display_name_first() -> None:
    async with running() as pilot:
        await press(pilot, "n")
        text = screen_text(pilot)
        assert "DisplayName leads (n: Name first)" in text
        rows = table_lines(text, "DisplayName")
        assert rows[0].split()[1] == "DisplayName"
        acme = next(line for line in rows if "acme-build" in line)
        assert acme.index("ACME Construction Group") < acme.index("acme-build")


async def test_sorting_from_the_keyboard() -> None:
    async with running() as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        first = table.highlighted_row
        assert first is not None
        assert first.cells[1] == "acme-build"
        await press(pilot, "S")
        assert "descending" in screen_text(pilot)
        await press(pilot, "home")
        top = table.highlighted_row
        assert top is not None
        assert top.cells[1] == "skyline-dev"


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


async def test_go_to_url_name() -> None:
    async with running() as pilot:
        await press(pilot, "g")
        await type_text(pilot, "nordic-rail")
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, HubDetailScreen)
        assert pilot.app.screen.hub.name == "nordic-rail"


async def test_go_to_a_display_name_offers_the_hub_and_explains() -> None:
    async with running() as pilot:
        await press(pilot, "g")
        await type_text(pilot, "ACME Construction Group")
        await press(pilot, "enter")
        text = screen_words(pilot)
        assert "No hub has the URL name or id “ACME Construction Group”" in text
        assert "named by their URL name (Name), not their display name" in text
        assert "has the URL name “acme-build”" in text
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, HubDetailScreen)
        assert pilot.app.screen.hub.name == "acme-build"


async def test_an_error_is_shown_on_the_screen_and_r_retries() -> None:
    faults = Faults(failure_rate=1.0, failure_statuses=(500,))
    async with running(faults=faults) as pilot:
        text = screen_words(pilot)
        assert "List hubs failed: the server had an internal error (HTTP 500)" in text
        assert "Press r to try again" in text
        faults.failure_rate = 0.0
        await press(pilot, "r")
        text = screen_text(pilot)
        assert "HTTP 500" not in text
        assert "acme-build" in text


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


async def test_an_older_server_shows_limited_as_unknown() -> None:
    async with running(faults=Faults(omit_new_fields=True)) as pilot:
        assert "(not sent by server)" in screen_text(pilot)
        await press(pilot, "enter", "enter")
        text = screen_text(pilot)
        assert "0 members · 0 limited readers · 12 unknown" in text
        assert "UNKNOWN" in text


async def test_server_strings_are_shown_literally() -> None:
    async with running() as pilot:
        assert "[i]Skyline[/i] Developments" in screen_text(pilot)
        await press(pilot, "enter", "enter")
        table = pilot.app.screen.query_one(RecordTable)
        assert table.select_key("6")
        await settle(pilot)
        text = screen_text(pilot)
        assert "[bold]Eve[/bold]" in text
        assert "\x1b" not in text
        assert "␛" in text


async def test_palette_jumps_to_a_loaded_user() -> None:
    async with running() as pilot:
        await press(pilot, "enter", "enter", "escape", "escape")
        await press(pilot, "ctrl+p")
        await type_text(pilot, "grace osei")
        await press(pilot, "enter")
        screen = pilot.app.screen
        assert isinstance(screen, ProjectUsersScreen)
        row = screen.query_one(RecordTable).highlighted_row
        assert row is not None
        assert row.cells[0] == "Grace Osei"


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


async def test_marks_are_words_that_survive_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    async with running(size=(80, 24)) as pilot:
        assert pilot.app.no_color
        hub_list = screen_text(pilot)
        assert "≠  acme-build" in hub_list
        assert "(none set = Name)" in hub_list
        await press(pilot, "enter")
        assert "Limited" in screen_text(pilot)
        await press(pilot, "enter", "end")
        text = screen_text(pilot)
        assert "LIMITED READER" in text
        assert sum(1 for line in text.splitlines() if "LIMITED" in line) >= 5


async def test_the_status_line_keeps_the_screens_api_version_after_help() -> None:
    async with running(start=project_users()) as pilot:
        await press(pilot, "v")
        assert "API v2" in screen_text(pilot)
        await press(pilot, "question_mark", "escape")
        status = screen_text(pilot).splitlines()[-2]
        assert "API v2" in status


@pytest.mark.bug_on_purpose
async def test_an_unexpected_error_in_the_go_to_dialog_is_said_and_the_dialog_still_works(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hubtui.api import HubClient

    async def broken(self: HubClient, name: str) -> None:
        raise RuntimeError("injected")

    async with running() as pilot:
        monkeypatch.setattr(HubClient, "get_hub_by_name", broken)
        await press(pilot, "g")
        await type_text(pilot, "acme-build")
        await press(pilot, "enter")
        words = screen_words(pilot)
        assert "Something unexpected went wrong (RuntimeError: injected)" in words
        monkeypatch.undo()
        await press(pilot, "enter")
        assert pilot.app.screen.__class__.__name__ == "HubDetailScreen"


async def test_newcomers_words_one_project_and_utc_said_once() -> None:
    async with running() as pilot:
        await press(pilot, "g")
        await type_text(pilot, "skyline-dev")
        await press(pilot, "enter")
        words = screen_words(pilot)
        assert "1 project · 0 with Limited access" in words
        assert "2 users · 1 project" in words
        assert "(UTC " not in words  # local time is UTC here: said once
        await press(pilot, "slash")
        await type_text(pilot, "loft")
        assert "1 match “loft”" in screen_words(pilot)


async def test_go_to_offers_a_url_name_that_differs_only_in_case_never_takes_it() -> None:
    async with running() as pilot:
        await press(pilot, "g")
        await type_text(pilot, "ACME-BUILD")
        await press(pilot, "enter")
        assert not isinstance(pilot.app.screen, HubDetailScreen)
        assert "differs from it only in case or form: “acme-build”" in screen_words(pilot)
        await press(pilot, "enter")  # the offer, taken by the person
        screen = pilot.app.screen
        assert isinstance(screen, HubDetailScreen)
        assert screen.hub.name == "acme-build"


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


async def test_a_limited_reader_has_no_role_of_their_own_in_the_table() -> None:
    async with running(start=project_users()) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        limited = [row for row in table.rows if row.cells[4] == "LIMITED"]
        assert len(limited) == 5
        assert {row.cells[2] for row in limited} == {"—"}


async def test_y_on_the_hub_list_offers_name_id_or_display_name() -> None:
    async with running() as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        acme = table.view.key(
            next(i for i, row in enumerate(table.rows) if row.cells[1] == "acme-build")
        )
        assert table.select_key(acme)
        await press(pilot, "y")
        words = screen_words(pilot)
        assert "Name (URL name): acme-build" in words
        assert "DisplayName: ACME Construction Group" in words
        await press(pilot, "enter")
        assert pilot.app.clipboard == "acme-build"
        words = screen_words(pilot)
        assert "Sent the Name (URL name) acme-build to the terminal's clipboard" in words
        assert words.count("acme-build (") <= 1  # the Name said once, not twice
        await press(pilot, "y", "down", "down", "enter")
        assert pilot.app.clipboard == "ACME Construction Group"
        await press(pilot, "y", "down", "enter")
        assert pilot.app.clipboard == acme


async def test_empty_and_failed_lists_never_contradict_the_counts() -> None:
    faults = Faults(failure_rate=1.0, failure_statuses=(500,))
    async with running(faults=faults) as pilot:
        text = screen_words(pilot)
        assert "Not loaded: the message above says why." in text
        assert "No hubs yet" not in text
        faults.failure_rate = 0.0
        await press(pilot, "r", "slash")
        await type_text(pilot, "zzz")
        text = screen_words(pilot)
        assert "8 hubs" in text
        assert "None of the 8 match; escape clears the filter." in text
        assert "No hubs yet" not in text
        await press(pilot, "escape", "escape")
        faults.failure_rate = 1.0
        await press(pilot, "enter")
        text = screen_words(pilot)
        assert "Projects not loaded." in text
        assert "Not loaded: the message above says why." in text
        assert "This hub has no projects" not in text
        assert "checking…" not in text
        assert "not checked: the hub could not be read" in text


async def test_n_twice_gives_back_the_same_sort_and_s_skips_hidden_columns() -> None:
    async with running(size=(60, 20)) as pilot:
        await press(pilot, "S")
        before = shown_keys(pilot.app.screen.query_one(RecordTable))
        assert "sorted by Name (URL name) descending" in screen_words(pilot)
        await press(pilot, "n")
        assert "sorted by Name (URL name) descending" in screen_words(pilot)
        await press(pilot, "n")
        table = pilot.app.screen.query_one(RecordTable)
        assert shown_keys(table) == before
        shown_labels = screen_text(pilot)
        for _ in range(len(table.columns) + 1):
            await press(pilot, "s")
            label = table.sort_label or ""
            assert "hidden" not in label
            assert label.split(" ascending")[0] in shown_labels or "≠" in label


async def test_the_sort_arrow_stays_in_a_narrow_header_and_a_click_sorts() -> None:
    async with running(size=(60, 20)) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        widths = dict(table.column_widths(table.size.width))
        region = next(i for i, c in enumerate(table.columns) if c.key == "region")
        left = sum(w + 1 for i, w in sorted(widths.items()) if i < region)
        await pilot.click(RecordTable, offset=(left + 1, 0))
        await pilot.pause()
        assert table.sort_label == "Region ascending"
        header = screen_text(pilot).splitlines()[3]
        assert "▲" in header
        await pilot.click(RecordTable, offset=(left + 1, 0))
        await pilot.pause()
        assert table.sort_label == "Region descending"
        assert "▼" in screen_text(pilot).splitlines()[3]


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


async def test_the_project_id_prompt_takes_digits_and_leaves_the_screen_s_keys_to_it() -> None:
    """Against a server with no project list (the published document has none), the prompt
    has the focus: a project id goes in, and P still opens the hub's people (before: it typed
    a "P" into the prompt)."""
    from hubtui.tui.screens.hub_people import HubPeopleScreen

    async with running(size=(80, 24), faults=Faults(projects_listing_status=404)) as pilot:
        await press(pilot, "enter")
        assert "cannot list a hub's projects" in screen_words(pilot)
        await press(pilot, "P")
        await settle(pilot)
        assert isinstance(pilot.app.screen, HubPeopleScreen)
        await press(pilot, "escape")
        prompt = pilot.app.screen.query_one("#project-id", Input)
        assert prompt.value == ""  # nothing of the P was typed
