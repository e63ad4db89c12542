"""What a person reads in small terminals: identifiers whole, and where they are always shown."""

from __future__ import annotations

import pytest

from hubtui.tui.record_view import Column, fit_columns
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.app import press, running, screen_text


def test_a_kept_column_takes_room_from_the_columns_that_may_give_way() -> None:
    columns = [
        Column("name", "Name", min_width=10, keep=True),
        Column("teams", "Teams", min_width=10, priority=4),
        Column("region", "Region", min_width=10, priority=2),
    ]
    # 30 cells for names as long as 25: Teams (highest number) goes first, Region then shrinks.
    layout = dict(fit_columns(columns, [25, 20, 20], 40))
    assert layout == {0: 25, 2: 14}


def test_columns_that_fit_share_what_is_left_and_nothing_is_dropped_for_no_reason() -> None:
    columns = [
        Column("name", "Name", min_width=10, keep=True),
        Column("teams", "Teams", min_width=6, priority=4),
    ]
    layout = dict(fit_columns(columns, [12, 30], 60))
    assert layout[0] == 12
    assert layout[1] == 60 - 12 - 1


def test_one_hostile_value_cannot_push_every_other_column_off() -> None:
    columns = [
        Column("email", "Email", min_width=18, keep=True),
        Column("region", "Region", min_width=7, priority=3),
    ]
    layout = dict(fit_columns(columns, [400, 17], 80))
    # The 400-cell email stops at its cap; Region stays, with all the room that is left.
    assert layout == {0: 48, 1: 80 - 48 - 1}


@pytest.mark.parametrize("size", [(80, 24), (60, 16)])
async def test_url_names_are_never_cut_on_the_hub_list(size: tuple[int, int]) -> None:
    async with running(size=size) as pilot:
        text = screen_text(pilot)
        for name in ("copperleaf-partners-3", "harbor-contractors-2", "silverline-contractors-4"):
            assert name in text, f"{name} cut at {size}"
        assert "…" in text  # what gave way is the DisplayName or the Region


@pytest.mark.parametrize("size", [(80, 24), (60, 16)])
async def test_emails_are_never_cut_on_the_users_list(size: tuple[int, int]) -> None:
    async with running(size=size) as pilot:
        await press(pilot, "enter", "enter")
        text = screen_text(pilot)
        assert "bjorn.lindqvist@acme-build.com" in text
        await press(pilot, "end")
        text = screen_text(pilot)
        assert "kai.nakamura@northwind-eng.com" in text
        assert "LIMITED" in text


@pytest.mark.parametrize("size", [(80, 20), (60, 16)])
async def test_the_hub_detail_keeps_where_you_are_and_both_names_in_a_small_window(
    size: tuple[int, int],
) -> None:
    async with running(size=size) as pilot:
        await press(pilot, "enter")
        lines = screen_text(pilot).splitlines()
        assert lines[0].startswith(" Hubs › acme-build")
        assert "3 projects · 2 with Limited access" in lines[1]
        names = "\n".join(lines[2:6])
        assert "acme-build" in names
        assert "ACME" in names
        assert "≠ Name" in names
        assert any(line.startswith("Harbour Bridge Retro") for line in lines)
        # The list still works: the last project can be reached.
        await press(pilot, "end")
        assert any("Depot 7 Fit-out" in line for line in screen_text(pilot).splitlines())


async def test_the_hub_detail_explains_the_names_in_a_full_size_window() -> None:
    async with running(size=(80, 24)) as pilot:
        await press(pilot, "enter")
        text = screen_text(pilot)
        assert "In links; 'go to URL name' matches" in text
        assert "≠ differs from Name; never used to" in text


async def test_a_list_longer_than_its_window_shows_where_you_are_from_80_columns() -> None:
    async with running(size=(90, 20)) as pilot:
        await press(pilot, "enter", "enter", "end")
        table = pilot.app.screen.query_one(RecordTable)
        assert table.show_vertical_scrollbar
        assert table.scrollable_content_region.width == table.size.width - 1
        assert table.scroll_y > 0  # scrolled to the last row, under the header that stays
        lines = screen_text(pilot).splitlines()
        header = next(n for n, line in enumerate(lines) if "Email" in line and "Role" in line)
        assert "Name" in lines[header]
        assert any("kai.nakamura@northwind-eng.com" in line for line in lines[header:])
        await press(pilot, "home")
        assert table.scroll_y == 0


async def test_below_80_columns_the_scrollbar_gives_its_column_to_the_emails() -> None:
    async with running(size=(60, 16)) as pilot:
        await press(pilot, "enter", "enter", "end")
        table = pilot.app.screen.query_one(RecordTable)
        assert table.scroll_y > 0
        assert table.scrollable_content_region.width == table.size.width
        assert "kai.nakamura@northwind-eng.com" in screen_text(pilot)


def test_columns_that_may_give_way_are_squeezed_before_an_identifier_is_cut() -> None:
    columns = [
        Column("hub", "Hub", min_width=12, keep=True),
        Column("project", "Project", min_width=14),
        Column("email", "Email", min_width=18, keep=True),
        Column("access", "Access", min_width=26),
    ]
    layout = dict(fit_columns(columns, [11, 30, 31, 26], 80))
    assert layout[2] == 31  # the email whole, though Access and Project ask for more
    assert layout[0] == 11  # its values whole, no wider while the project is cut
    assert sum(layout.values()) + 3 <= 80
    assert set(layout) == {0, 1, 2, 3}  # priority 0 is never left out, even at 60
    assert set(dict(fit_columns(columns, [11, 30, 31, 26], 60))) == {0, 1, 2, 3}


@pytest.mark.parametrize("size", [(60, 16), (80, 24), (100, 30), (160, 30)])
async def test_search_results_keep_emails_whole_at_every_width(size: tuple[int, int]) -> None:
    async with running(size=size) as pilot:
        await press(pilot, "w")
        await pilot.press(*"@northwind-eng.com")
        await press(pilot, "enter")
        text = screen_text(pilot)
        header = next(line for line in text.splitlines() if line.startswith("Hub (U"))
        assert "Acce" in header  # the answer's column is always there
        assert "fatima.rahman@northwind-eng.com" in text
        assert "grace.osei@northwind-eng.com" in text
        if size[0] >= 100:
            assert "LIMITED @northwind-eng.com" in text  # whole where there is room


@pytest.mark.parametrize(
    ("size", "keys"),
    [((60, 16), ()), ((80, 24), ("slash", "a", "c", "enter"))],
    ids=["60x16", "80x24-filtered"],
)
async def test_the_footer_ends_with_the_palette_key_and_nothing_after(
    size: tuple[int, int], keys: tuple[str, ...]
) -> None:
    async with running(size=size) as pilot:
        await press(pilot, *keys)
        footer = screen_text(pilot).splitlines()[-1]
        assert footer.endswith("^p palette")  # no letter of the keys beneath it at the end


@pytest.mark.parametrize(
    "keys",
    [(), ("enter",), ("enter", "enter"), ("enter", "P"), ("w", *"@northwind-eng.com", "enter")],
    ids=["hubs", "hub detail", "project users", "hub's people", "person search"],
)
async def test_every_key_the_footer_offers_at_80_columns_is_whole(keys: tuple[str, ...]) -> None:
    from textual.widgets._footer import FooterKey

    async with running(size=(80, 24)) as pilot:
        await press(pilot, *keys)
        footer = screen_text(pilot).splitlines()[-1]
        offered = [
            f"{key.key_display} {key.description}"
            for key in pilot.app.screen.query(FooterKey)
            if "-command-palette" not in key.classes
        ]
        assert len(offered) >= 5  # the keys used most are still offered
        for key in offered:
            assert key in footer, f"{key!r} cut in {footer!r}"
        assert "?" in footer  # the help, which lists every key, is always there


def test_one_long_name_does_not_cost_every_row_its_reason() -> None:
    columns = [
        Column("email", "Email", min_width=18, keep=True),
        Column("name", "Name", min_width=10),
        Column("look", "Needs a look", min_width=12, meaning=True),
    ]
    layout = dict(fit_columns(columns, [31, 38, 45], 102))
    assert layout == {0: 31, 1: 24, 2: 45}  # the reason whole; the one long name gives way


async def test_a_summary_grows_to_a_second_line_and_back_as_its_line_changes() -> None:
    """A line that fits after one that fit is drawn without a layout; a line that needs two
    takes them, and the next short one gives the second back."""
    from textual.app import App, ComposeResult

    from hubtui.tui.widgets.chrome import Summary

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Summary()

    app = One()
    async with app.run_test(size=(40, 10)) as pilot:
        summary = app.query_one(Summary)
        shown = []
        for line in ("Reading: 1 of 9 projects…", "Reading: 8 of 9 projects…", "x " * 25, "done"):
            summary.say(line)
            await pilot.pause()
            shown.append((summary.size.height, str(summary.render())))
    assert shown == [
        (1, "Reading: 1 of 9 projects…"),
        (1, "Reading: 8 of 9 projects…"),
        (2, ("x " * 25)),
        (1, "done"),
    ]
