"""Keys typed: those held behind a key (tui.typeahead) are let go once what it set going has
happened, even when the screen on top when its trail ended closes before it paints again; and
while keys come, the lists being kept in the background wait."""

from __future__ import annotations

import asyncio

import pytest

from hubtui.tui import typeahead
from hubtui.tui.app import HubTuiApp
from hubtui.tui.screens.browsing.go_to_hub import GoToHubScreen
from hubtui.tui.screens.browsing.who_prompt import WhoPromptScreen
from tests.harness.app import hand_key, press, running, send_key, settle


async def _until_let_go(typing: typeahead.TypeAhead) -> None:
    # No event says a hold ended; Pilot's pause would paint the screen, which is the point here.
    while typing.holding:  # noqa: ASYNC110
        await asyncio.sleep(0.005)


async def test_keys_held_behind_a_key_go_on_when_its_dialog_closes_before_it_paints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seen in a real terminal about once in fifteen: ``g``, a hub's URL name, Enter, then
    ``P`` the moment the hub showed, and ``P`` waited the whole LONGEST_HOLD (4.6 s). The
    Enter's trail had ended with the go-to dialog on top, so the dialog was to say when it had
    painted; its lookup answered and closed it first, its next paint never came, and what
    waited for that paint was dropped with it. That state is made here: the dialog on top when
    the trail ends, then closed with what waited for its paint dropped (Textual's list of it)."""
    monkeypatch.setattr(typeahead, "LONGEST_HOLD", 600.0)  # only the hold's own look lets go
    async with running() as pilot:
        app = pilot.app
        assert isinstance(app, HubTuiApp)
        typing = app.type_ahead
        await press(pilot, "g")
        dialog = app.screen
        assert isinstance(dialog, GoToHubScreen)
        hand_key(pilot, "f20")  # a key that holds those behind it (nothing is bound to it)
        hand_key(pilot, "w")  # typed ahead: the hub list's Who, once the dialog is gone
        # The trail ended: the dialog is to say when it has painted. (Pilot's pause would paint.)
        while not dialog._callbacks:  # noqa: ASYNC110
            await asyncio.sleep(0)
        assert typing.holding
        dialog._callbacks.clear()  # closed before its next paint: that never comes
        app.pop_screen()
        await asyncio.wait_for(_until_let_go(typing), timeout=30)
        await settle(pilot)
        assert isinstance(app.screen, WhoPromptScreen)


async def test_each_key_makes_the_lists_being_kept_wait() -> None:
    async with running() as pilot:
        app = pilot.app
        assert isinstance(app, HubTuiApp)
        app.workspace.make_way(0)
        assert not app.workspace.making_way
        await send_key(pilot, "/")  # handed, and handled (settling after could take longer)
        assert app.workspace.making_way


async def test_enter_typed_while_the_palette_searches_runs_what_was_typed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``ctrl+p``, ``Team roster`` and Enter in one read: the Enter runs what the text typed
    finds, not the first line the palette showed before the search of it ended. The palette's
    search of what is loaded is slowed here, as a large catalog slows it."""
    from textual.command import CommandPalette

    from hubtui.tui.commands import LoadedRecords
    from hubtui.tui.screens.people.campaigns import RosterScreen

    searched = LoadedRecords.search

    async def slow_search(self: LoadedRecords, query: str):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.3)
        async for hit in searched(self, query):
            yield hit

    monkeypatch.setattr(LoadedRecords, "search", slow_search)
    async with running() as pilot:
        await press(pilot, "ctrl+p")
        assert isinstance(pilot.app.screen, CommandPalette)
        for key in [*"Team roster", "enter"]:
            hand_key(pilot, key)
        await settle(pilot)
        assert isinstance(pilot.app.screen, RosterScreen)
