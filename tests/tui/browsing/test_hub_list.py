"""The hub list: both names, which first, sorting, copying, and the palette's jump."""

from __future__ import annotations

from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.app import (
    press,
    running,
    screen_text,
    screen_words,
    shown_keys,
    table_lines,
    type_text,
)


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
