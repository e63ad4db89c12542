"""Staged, not yet sent, and seen so: a row with a change staged shows ``±`` in its list until the
change is sent or dropped, and the staged preview drops every change at once, asked first."""

from __future__ import annotations

from hubtui.tui.screens.batch import StagedScreen
from hubtui.tui.screens.project_users import ProjectUsersScreen
from tests.tui.conftest import press, project_users, running, screen_text

DANA, AIKO = "dana.whitfield@acme-build.com", "aiko.tanaka@acme-build.com"


def row_of(text: str, email: str) -> str:
    return next(line for line in text.splitlines() if email in line)


async def test_a_staged_row_is_marked_until_its_change_is_dropped() -> None:
    async with running(size=(120, 40), start=project_users()) as pilot:
        # Dana marked (space moves down to Aiko), set to Reader: staged, not sent.
        await press(pilot, "space", "m", "enter")
        text = screen_text(pilot)
        assert row_of(text, DANA).startswith("± ")
        assert not row_of(text, AIKO).startswith("±")
        assert "1 staged (b)" in text
        # The preview drops every change, once asked; the mark goes with it.
        await press(pilot, "b")
        assert isinstance(pilot.app.screen, StagedScreen)
        await press(pilot, "D")
        assert "Drop 1 staged change? Nothing of them is sent." in screen_text(pilot)
        await press(pilot, "y", "escape")
        screen = pilot.app.screen
        assert isinstance(screen, ProjectUsersScreen)
        text = screen_text(pilot)
        assert "staged (b)" not in text
        assert not row_of(text, DANA).startswith("±")
        assert len(pilot.app.staged) == 0
