"""A hub's people and the access matrix draw a role the server sent as data: terminal control in
a hub user's or a project user's ``Role`` (a clipboard write, a screen clear) never reaches the
terminal, on `P`'s rows and panel and in every cell of `M`."""

from __future__ import annotations

import pytest

from hubtui.tui.screens.browsing.access_matrix import AccessMatrixScreen
from hubtui.tui.screens.people.hub_people import HubPeopleScreen
from tests.harness.app import press, running, screen_text, settle
from tests.harness.demo_api import changing

#: An OSC 52 clipboard write, then a screen clear.
EVIL = "Admin\x1b]52;c;cGF5bG9hZA==\x07\x1b[2J"


@pytest.mark.parametrize("size", [(80, 24), (160, 40)], ids=["80x24", "wide"])
async def test_a_role_with_terminal_control_is_drawn_inert_on_p_and_m(
    size: tuple[int, int],
) -> None:
    async with running(size=size, server=changing("users", "Role", EVIL)) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        assert isinstance(pilot.app.screen, HubPeopleScreen)
        await press(pilot, "down")
        drawn = pilot.app.export_screenshot()
        assert "\x1b" not in drawn
        assert "\x07" not in drawn
        assert "␛" in screen_text(pilot)
        await press(pilot, "M")
        await settle(pilot)
        assert isinstance(pilot.app.screen, AccessMatrixScreen)
        drawn = pilot.app.export_screenshot()
        assert "\x1b" not in drawn
        assert "\x07" not in drawn
        assert "␛" in screen_text(pilot)
        await press(pilot, "right", "enter")  # a cell's words, in a notification
        notices = " ".join(str(t.render()) for t in pilot.app.screen.query("Toast"))
        assert "\x1b" not in notices
