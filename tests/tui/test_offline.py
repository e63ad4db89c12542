"""Reading offline: every screen shows what the store kept, says so and when it was read, offers
no edit, and the search runs over stored data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hubtui.demo import DemoStore
from tests.harness.app import make_app, offline_app, press, running, screen_words, settle, type_text


async def test_offline_shows_what_was_read_and_sends_nothing(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    store = DemoStore()
    async with running(store=store, store_path=path, keeps="all") as pilot:
        await press(pilot, "enter", "enter")  # acme-build, then Harbour Bridge Retrofit
    app, answers = offline_app(path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        words = screen_words(pilot)
        assert "acme-build" in words
        assert "READ-ONLY (no changes) · stored " in words
        assert " · offline · server demo API, offline" in words
        await press(pilot, "enter", "enter")
        words = screen_words(pilot)
        assert "Harbour Bridge Retrofit" in words
        assert "aiko.tanaka@acme-build.com" in words
        assert "offline" in words
        footer = str(pilot.app.screen.query_one("KeyFooter").render())
        assert "Add" not in footer
        await press(pilot, "a")
        assert "Offline: the rows are stored data, and nothing is sent" in screen_words(pilot)
        # A project never opened online was never stored: said, not shown empty.
        await press(pilot, "escape", "down", "enter")
        problem = str(pilot.app.screen.query_one("#problem").render())
        said = " ".join(problem.split())
        assert "Not kept: this project's users, never read from this server" in said
        assert "Open it once online, or record a snapshot" in said
        assert "HTTP" not in said  # hubtui's own words, never as a server's answer
        # The search runs over what was stored, and says so.
        await press(pilot, "escape", "escape", "w")
        await type_text(pilot, "aiko")
        await press(pilot, "enter")
        words = screen_words(pilot)
        assert "stored data, offline" in words
        assert "aiko.tanaka@acme-build.com" in words
        # What was never read offline is not read, not absent.
        assert "not kept (offline) NOT READ" in words
    assert store.creates == store.updates == 0
    answers.store.close()


async def test_the_palette_goes_offline_when_the_server_cannot_be_reached(tmp_path: Path) -> None:
    from hubtui.demo import Faults

    path = tmp_path / "store.sqlite3"
    async with running(store_path=path, keeps="all") as pilot:
        await press(pilot, "enter")
    down = Faults(failure_rate=1.0, failure_statuses=(503,))
    async with running(faults=down, store_path=path, keeps="all") as pilot:
        assert "not refreshed: the message below says why" in screen_words(pilot)
        await press(pilot, "ctrl+p")
        await type_text(pilot, "Read offline")
        await press(pilot, "enter")
        await settle(pilot)
        words = screen_words(pilot)
        assert "acme-build" in words
        assert "READ-ONLY (no changes) · stored " in words
        assert "offline" in words
        await press(pilot, "enter")
        assert "Harbour Bridge Retrofit" in screen_words(pilot)


async def test_offline_neither_rereads_the_token_nor_switches_profile(tmp_path: Path) -> None:
    """Offline sends nothing, from anywhere: the palette offers neither way to reach a server,
    and a reconnect asked for all the same reaches none."""
    from hubtui.tui.commands import Profiles
    from hubtui.tui.messages import Reconnect

    path = tmp_path / "store.sqlite3"
    async with running(store_path=path, keeps="all"):
        pass
    asked: list[str | None] = []

    def settings_for(profile: str | None) -> Any:
        asked.append(profile)
        raise AssertionError("offline, no server is reached")

    app = make_app(store_path=path, offline=True, settings_for=settings_for)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        assert not app.workspace.can_reconnect
        provider = Profiles(app.screen)
        assert provider._commands() == []
        app.post_message(Reconnect("staging", fresh_start=True))
        app.post_message(Reconnect(None))
        await settle(pilot)
        assert asked == []
        assert "Offline: nothing is sent to any server" in screen_words(pilot)


async def test_offline_at_80x24_the_status_and_the_breadcrumb_are_whole(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    async with running(store_path=path, keeps="all") as pilot:
        await press(pilot, "enter", "enter")
    app, _ = offline_app(path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        words = screen_words(pilot)
        assert "offline · server demo API, offline · API v3" in words  # wrapped, not cut
        await press(pilot, "w", *"priya.patel@northwind-eng.com", "enter")
        words = screen_words(pilot)
        assert "Who: priya.patel@northwind-eng.com in all hubs (stored data, offline)" in words
