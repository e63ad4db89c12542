"""The start from the hub list kept in the store: painted at once, said to be stored, replaced in
place by the server's answer (cursor and filter kept), and kept when the refresh fails."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from hubtui.core.store import ListKey, Store
from hubtui.core.store.server_store import ServerStore
from hubtui.demo import DemoStore, Faults, create_app
from hubtui.tui.screens.browsing.hubs import HubListScreen
from tests.harness.app import (
    ACME_ID,
    EVIL,
    assert_inert,
    press,
    running,
    screen_words,
    send_key,
    settle,
    type_text,
)


def held_hub_list(gate: asyncio.Event, *, status: int | None = None) -> ASGIApp:
    """The demo API, whose hub list answers only once ``gate`` is set (``status``: with that
    failure instead)."""
    inner = create_app(DemoStore(), Faults())

    async def server(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/v3/hubs":
            await gate.wait()
            if status is not None:
                body = b'{"title": "Service Unavailable", "detail": "down for maintenance"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": status,
                        "headers": [(b"content-type", b"application/problem+json")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await inner(scope, receive, send)

    return server


def store_with(tmp_path: Path, hubs: list[dict[str, Any]]) -> Path:
    """A store that kept ``hubs`` as the demo's hub list."""
    path = tmp_path / "store.sqlite3"
    with Store.open(path) as store:
        store.save_latest("demo", None, ListKey("hubs"), hubs, read_at="2026-11-17T14:02:00Z")
    return path


def stored_hub(hub_id: str, name: str, shown: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"Id": hub_id, "Name": name, "NumberOfUsers": 3}
    if shown is not None:
        record["DisplayName"] = shown
    return record


async def test_the_stored_hub_list_is_painted_before_the_server_answers(tmp_path: Path) -> None:
    gate = asyncio.Event()
    kept = store_with(
        tmp_path,
        [
            stored_hub(ACME_ID, "acme-build", "ACME Construction (old)"),
            stored_hub("hub-gone", "gone-hub"),
        ],
    )
    async with running(
        server=held_hub_list(gate), store_path=kept, keeps="hubs", settled=False
    ) as pilot:
        await pilot.pause()
        words = screen_words(pilot)
        assert "gone-hub" in words
        assert "ACME Construction (old)" in words
        assert "2 hubs stored 2026-11-17 14:02, refreshing…" in words
        assert "stored 2026-11-17 14:02, refreshing…" in str(
            pilot.app.screen.query_one("#status").render()
        )
        # The filter typed and the row chosen while the refresh runs are kept by its answer.
        for key in ("slash", "a", "c", "m", "e", "enter"):
            await send_key(pilot, key)  # no wait for the held load
        await pilot.pause()
        gate.set()
        await settle(pilot)
        words = screen_words(pilot)
        assert "gone-hub" not in words
        assert "stored" not in words
        assert "ACME Construction Group" in words  # the server's DisplayName now
        screen = pilot.app.screen
        assert isinstance(screen, HubListScreen)
        assert screen.table.filter_text == "acme"
        highlighted = screen.table.highlighted_record
        assert highlighted is not None
        assert highlighted.name == "acme-build"


async def test_a_failed_refresh_keeps_the_stored_list_and_says_why(tmp_path: Path) -> None:
    gate = asyncio.Event()
    gate.set()
    kept = store_with(tmp_path, [stored_hub(ACME_ID, "acme-build", "ACME")])
    async with running(
        server=held_hub_list(gate, status=400), store_path=kept, keeps="hubs"
    ) as pilot:
        words = screen_words(pilot)
        assert "acme-build" in words
        assert "1 hub stored 2026-11-17 14:02, not refreshed: the message below says why" in words
        assert "down for maintenance" in words
        assert "stored 2026-11-17 14:02, not refreshed" in str(
            pilot.app.screen.query_one("#status").render()
        )
        # A stored row opens: the hub detail reads the server for its projects.
        await press(pilot, "enter")
        assert "Hub acme-build" in screen_words(pilot) or "acme-build" in screen_words(pilot)
        assert pilot.app.screen.__class__.__name__ == "HubDetailScreen"


async def test_stored_text_is_shown_inert_and_a_broken_record_costs_no_other(
    tmp_path: Path,
) -> None:
    gate = asyncio.Event()
    kept = store_with(
        tmp_path,
        [
            stored_hub("hub-evil", EVIL, EVIL),
            {"Id": 7, "Name": ["not", "a", "name"]},
            stored_hub("hub-fine", "fine-hub"),
        ],
    )
    async with running(
        server=held_hub_list(gate), store_path=kept, keeps="hubs", settled=False
    ) as pilot:
        await pilot.pause()
        assert_inert(pilot)
        assert "fine-hub" in screen_words(pilot)
        assert "2 hubs stored" in screen_words(pilot)
        gate.set()
        await settle(pilot)


async def test_the_hub_list_read_is_kept_for_the_next_start(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    async with running(store_path=path, keeps="hubs") as pilot:
        await press(pilot, "enter")  # a hub's projects: not kept under store = "hubs"
        await settle(pilot)
    with Store.open(path, read_only=True) as store:
        kept = store.latest("demo", None, ListKey("hubs"))
        assert kept is not None
        assert "acme-build" in {hub["Name"] for hub in kept[0]}
        assert store.latest("demo", None, ListKey("projects", ACME_ID)) is None
    gate = asyncio.Event()
    async with running(
        server=held_hub_list(gate), store_path=path, keeps="hubs", settled=False
    ) as pilot:
        await pilot.pause()
        assert "refreshing…" in screen_words(pilot)
        assert "acme-build" in screen_words(pilot)
        gate.set()
        await settle(pilot)


async def test_store_all_keeps_every_list_read_and_off_keeps_nothing(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    async with running(store_path=path, keeps="all") as pilot:
        await press(pilot, "enter")
        await settle(pilot)
    with Store.open(path, read_only=True) as store:
        projects = store.latest("demo", None, ListKey("projects", ACME_ID))
        assert projects is not None
        assert projects[0]
    off = tmp_path / "off.sqlite3"
    async with running(store_path=off, keeps="off") as pilot:
        await press(pilot, "enter")
    assert not off.exists()


async def test_a_store_that_cannot_be_written_turns_keeping_off_and_the_app_runs(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "data"
    folder.write_text("a file where the data folder should be")  # unwritable, even for root
    server_store = ServerStore(folder / "store.sqlite3", "demo", None, "hubs")
    store = DemoStore()
    log = folder / "changes.jsonl"
    async with running(
        store=store, store_path=folder / "store.sqlite3", keeps="hubs", change_log=log
    ) as pilot:
        await pilot.app.workspace.all_kept()  # type: ignore[attr-defined]
        await settle(pilot)
        words = screen_words(pilot)
        assert "acme-build" in words
        assert "Store off" in words
        assert "Nothing read is kept this run" in words
        server_store = pilot.app.workspace.server_store  # type: ignore[attr-defined]
        assert server_store.problem is not None
        assert str(folder) in server_store.problem
        # The store being off changes nothing of the rule: no change without its log line.
        await press(pilot, "enter", "enter", "a")
        await type_text(pilot, "night.shift@acme-build.com")
        await press(pilot, "ctrl+s", "y")
        words = screen_words(pilot)
        assert "Could not write the change log" in words
        assert "Nothing was sent" in words
    assert store.creates == 0
