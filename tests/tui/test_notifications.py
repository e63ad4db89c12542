"""Notifications never cover the help, the change log or a form: they wait, and show on the
list the person comes back to."""

from __future__ import annotations

import pytest

from tests.harness.app import press, running, screen_text


@pytest.mark.parametrize(
    ("keys", "screen"),
    [
        (("?",), "HelpScreen"),
        (("enter", "enter", "c"), "ChangeLogScreen"),
        (("enter", "enter", "a"), "UserFormScreen"),
    ],
    ids=["help", "change-log", "add-form"],
)
async def test_a_notification_waits_while_a_full_dialog_is_up(
    keys: tuple[str, ...], screen: str
) -> None:
    async with running(size=(80, 24)) as pilot:
        await press(pilot, *keys)
        assert type(pilot.app.screen).__name__ == screen
        under = screen_text(pilot)
        pilot.app.notify("Loaded again: 12 users", markup=False)
        await pilot.pause(0.3)  # a toast is placed a moment after it is asked for
        assert screen_text(pilot) == under  # not one character of the dialog covered
        await press(pilot, "escape")
        await pilot.pause(0.3)
        assert "Loaded again: 12 users" in screen_text(pilot)


async def test_at_80_columns_a_notification_leaves_where_you_are_and_the_emails_readable() -> None:
    async with running(size=(80, 24)) as pilot:
        await press(pilot, "enter", "enter")
        before = screen_text(pilot).splitlines()
        pilot.app.notify(
            "Sent the email grace.osei@northwind-eng.com to the terminal's clipboard (OSC 52).",
            markup=False,
        )
        await pilot.pause(0.3)
        after = screen_text(pilot).splitlines()
        assert "Sent the email" in "\n".join(after)
        assert after[:4] == before[:4]  # the breadcrumb and the counts, not covered
        for line in after[5:9]:  # the rows beside the notice: names and emails whole
            assert "@acme-build.com" in line


@pytest.mark.parametrize("size", [(80, 24), (160, 40)])
async def test_a_notification_never_covers_a_row_and_the_highlighted_row_stays_in_view(
    size: tuple[int, int],
) -> None:
    """Over a list, a notification takes lines of its own below it: every row's identity and
    finding stay readable whole, and the row the person is on stays in view."""
    async with running(size=size) as pilot:
        await press(pilot, "enter", "enter", "end")  # the last user highlighted
        table = pilot.app.screen.query_one("#records")
        last = screen_text(pilot)
        assert "kai.nakamura@northwind-eng.com" in last
        pilot.app.notify(
            "Search stopped; the results so far are kept (3 of 12 projects not read).",
            markup=False,
        )
        await pilot.pause(0.3)
        toasts = list(pilot.app.screen.query("Toast"))
        assert toasts
        for toast in toasts:
            assert not toast.region.overlaps(table.region)
        text = screen_text(pilot)
        assert "Search stopped" in text
        row = next(line for line in text.splitlines() if "kai.nakamura" in line)
        assert "LIMITED" in row  # the highlighted row, its finding whole, still in view
