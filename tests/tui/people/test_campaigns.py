"""A campaign's packets and a packet's people in the app (the palette's "Campaigns"): the
progress of each packet, decisions made with k, r and x on marked rows, recorded by the
campaign's use case (one bulk act for many rows), and what ``hubtui campaign`` then says."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from hubtui.core.store.campaigns import campaign_events
from hubtui.core.store.server_store import ServerStore
from hubtui.core.workflows import campaign as use
from hubtui.demo import DemoStore
from hubtui.tui.screens.people.campaigns import PacketScreen, PacketsScreen
from tests.harness.app import burst, press, running, screen_words, settle, type_text

BJORN = "bjorn.lindqvist@acme-build.com"


async def start_campaign(pilot: Pilot[None]) -> None:
    workspace = pilot.app.workspace  # type: ignore[attr-defined]
    client = await workspace.client()
    hub = next(h for h in await client.list_hubs() if h.name == "acme-build")
    await use.start(
        client, hub, workspace.review_store(), "olive.owner", use.StartAsked(), concurrency=4
    )


async def to_packet(pilot: Pilot[None]) -> None:
    await press(pilot, "ctrl+p")
    await type_text(pilot, "Campaigns")
    await press(pilot, "enter")
    await settle(pilot)
    await press(pilot, "enter")  # the campaign
    await settle(pilot)
    assert isinstance(pilot.app.screen, PacketsScreen)


async def test_a_packet_is_decided_with_k_r_and_x_and_its_progress_follows(
    tmp_path: Path,
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with running(
        size=(120, 40), store=DemoStore(), store_path=store_path, keeps="all"
    ) as pilot:
        await start_campaign(pilot)
        await to_packet(pilot)
        words = screen_words(pilot)
        assert "Campaign 1 · open · 23 memberships · 0 decided · 23 left · 0 conflicts" in words
        assert "Harbour Bridge Retrofit 12 0 12 dana.whitfield@acme-build.com" in words
        await press(pilot, "enter")  # Harbour Bridge Retrofit
        await settle(pilot)
        assert isinstance(pilot.app.screen, PacketScreen)
        # Three rows marked (Dana, Aiko, Björn), then k: one bulk act.
        await burst(pilot, ["space", "space", "space", "k"])
        await settle(pilot)
        assert "3 decisions recorded (keep); nothing was sent." in screen_words(pilot)
        await press(pilot, "slash")
        await type_text(pilot, "bjorn")
        await press(pilot, "enter")
        await burst(pilot, ["x", *"left the company", "enter"])
        await settle(pilot)
        words = screen_words(pilot)
        assert f"{BJORN} Editor remove from hub (left the company)" in words
        await press(pilot, "escape", "escape")  # the filter, then back to the packets
        await settle(pilot)
        # Björn's keep changed to a removal: still three decided, and both words kept.
        assert "Harbour Bridge Retrofit 12 3 9" in screen_words(pilot)
    server_store = ServerStore(store_path, "demo", None, "all")
    with server_store.open() as kept:
        events = campaign_events(kept, 1)
    bulk = [e for e in events if e.kind == "bulk"]
    assert len(bulk) == 1
    assert bulk[0].detail == "3 rows · 3 rows marked"
    decided = [e for e in events if e.kind == "decide"]
    assert [e.act for e in decided] == [bulk[0].id] * 3 + [0]  # Björn's alone: no bulk act
    assert decided[-1].reason == "left the company"
    assert [e.decision for e in decided] == ["keep"] * 3 + ["remove from hub"]
