"""What a list says of itself: errors with a retry, server strings as sent, counts that agree
with the rows, marks as words, and the newcomer's words."""

from __future__ import annotations

import pytest

from hubtui.demo import Faults
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.app import (
    press,
    running,
    screen_text,
    screen_words,
    settle,
    type_text,
)


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
