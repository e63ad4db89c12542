"""Go to a hub (g): by its URL name, never by a DisplayName or a name that differs in case."""

from __future__ import annotations

import pytest

from hubtui.tui.screens.browsing.hub_detail import HubDetailScreen
from tests.harness.app import (
    press,
    running,
    screen_words,
    type_text,
)


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
