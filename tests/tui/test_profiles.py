"""Several servers without restarting: switching profile in the app, and a token read again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hubtui.config import Settings
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults
from hubtui.tui.app import HubTuiApp
from hubtui.tui.screens.browsing.hubs import HubListScreen
from hubtui.tui.widgets.chrome import StatusLine, Summary
from tests.harness.app import press, screen_words, send_key, server_workspace, settle, type_text

A = "https://a.example"
B = "https://b.example"


def other_store() -> DemoStore:
    store = DemoStore()
    hub = store.hub_by_name("skyline-dev")
    assert hub is not None
    hub.name = "tenant-b-only"
    store._hub_by_name["tenant-b-only"] = hub  # noqa: SLF001  (a second server's own data)
    return store


def on_profile_a(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, b_faults: Faults | None = None
) -> tuple[HubTuiApp, list[str | None]]:
    """The app on profile a of a config with profiles a and b, and the profiles whose settings
    it asked for since; b's server holds :func:`other_store`, misbehaving as ``b_faults`` says."""
    config = tmp_path / "config.toml"
    config.write_text(f'[profiles.a]\nbase_url = "{A}"\n[profiles.b]\nbase_url = "{B}"\n',
                      encoding="utf-8")  # fmt: skip
    monkeypatch.setenv("HUBTUI_CONFIG", str(config))
    asked: list[str | None] = []

    def settings_for(profile: str | None) -> Settings:
        asked.append(profile)
        return Settings(profile=profile, base_url=B, token=DEMO_TOKEN)

    a = Settings(profile="a", base_url=A, token=DEMO_TOKEN, store="off")
    faults = None if b_faults is None else {B: b_faults}
    workspace = server_workspace(a, tmp_path, {B: other_store()}, faults, settings_for=settings_for)
    return HubTuiApp(workspace), asked


async def test_switching_profile_resets_to_that_servers_hub_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, asked = on_profile_a(tmp_path, monkeypatch)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        assert "profile a · server a.example" in screen_words(pilot)
        await press(pilot, "enter")  # into a hub: the switch must come back to a hub list
        await press(pilot, "ctrl+p")
        await type_text(pilot, "switch to profile b")
        await press(pilot, "enter")
        await settle(pilot)
        words = screen_words(pilot)
        assert "profile b · server b.example" in words
        assert "tenant-b-only" in words
        assert len(app.screen_stack) == 1
        assert asked == ["b"]
        assert app.workspace.change_log.server == "https://b.example:443"  # its whole base URL
        assert app.workspace.change_log.profile == "b"


async def test_no_hub_or_count_of_the_last_server_shows_under_the_next_ones_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = on_profile_a(tmp_path, monkeypatch, b_faults=Faults(latency=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        hub_list = app.screen
        assert isinstance(hub_list, HubListScreen)
        assert "8 hubs" in screen_words(pilot)
        await press(pilot, "ctrl+p")
        await type_text(pilot, "switch to profile b")
        await send_key(pilot, "enter")
        # What any frame from now until b answers could paint: every turn of the event loop.
        shown: list[tuple[str, str, int]] = []
        for _ in range(100_000):
            if any(hub.name == "tenant-b-only" for hub in hub_list.hubs.values()):
                break
            status = str(hub_list.query_one(StatusLine).content)
            if "profile b" in status:
                summary = str(hub_list.query_one(Summary).content)
                shown.append((status, summary, hub_list.table.total_count))
            await asyncio.sleep(0)
        assert shown, "the status line never named profile b before b answered"
        for status, summary, rows in shown:
            assert (summary, rows) == ("Loading hubs…", 0), status
        await settle(pilot)
        words = screen_words(pilot)
        assert "8 hubs" in words
        assert "tenant-b-only" in words


async def test_a_401_offers_to_read_the_token_again_and_retries(tmp_path: Path) -> None:
    def settings_for(profile: str | None) -> Settings:
        return Settings(profile=profile, base_url=A, token=DEMO_TOKEN, store="off")

    expired = Settings(base_url=A, token="expired-token", store="off")
    app = HubTuiApp(server_workspace(expired, tmp_path, settings_for=settings_for))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        words = screen_words(pilot)
        assert "HTTP 401" in words
        assert "Press t to read the token again" in words
        await press(pilot, "t")
        await settle(pilot)
        words = screen_words(pilot)
        assert "acme-build" in words
        assert "HTTP 401" not in words


@pytest.mark.parametrize("rereads_token", [True, False], ids=["a-server", "the-demo"])
async def test_the_palette_offers_to_read_the_token_again_only_where_there_is_one(
    rereads_token: bool, tmp_path: Path
) -> None:
    def settings_for(profile: str | None) -> Settings:
        return Settings(profile=profile, base_url=A, token=DEMO_TOKEN, store="off")

    app = HubTuiApp(
        server_workspace(
            settings_for(None), tmp_path, settings_for=settings_for, rereads_token=rereads_token
        )
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+p")
        await type_text(pilot, "read the token")
        await pilot.pause(0.3)
        assert ("Read the token again" in screen_words(pilot)) is rereads_token
