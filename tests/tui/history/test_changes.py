"""`D`: what changed since a snapshot, as a support person reads it: the demo's week of changes,
filtered, opened on the person, and refused in words when there is no store or no snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hubtui.config import Settings
from hubtui.demo import DEMO_TOKEN
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.screens.history.since_snapshot import ChangesScreen
from hubtui.tui.widgets.chrome import AccessPanel
from tests.harness.app import (
    press,
    project_users,
    running,
    screen_words,
    server_workspace,
    type_text,
)


async def test_changes_since_last_week_read_as_a_support_person_would(tmp_path: Path) -> None:
    async with running(store_path=tmp_path / "store.sqlite3", keeps="hubs") as pilot:
        await press(pilot, "D")
        words = screen_words(pilot)
        assert "Changes in all hubs since…" in words
        assert "#1" in words
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, ChangesScreen)
        words = screen_words(pilot)
        assert "10 changes since #1" in words  # ulla.berg left the hub: two rows say it
        assert "1 list not compared (?)" in words
        assert "Role: Reader → Editor" in words
        assert "DisplayName" in words
        removed = "− user acme-build Harbour Bridge Retrofit ulla.berg@acme-build.com removed"
        assert removed in words  # the hub's column as wide as its names: the project's whole
        # The highlighted change in full words, below the list.
        await press(pilot, "slash")
        await type_text(pilot, "Private")
        await press(pilot, "enter")
        panel = " ".join(pilot.app.screen.query_one(AccessPanel).text.split())
        assert "ProjectAccess: Private → Limited" in panel
        assert "this changes who reads it as a limited reader" in panel
        await press(pilot, "escape")
        await press(pilot, "slash")
        await type_text(pilot, "aiko")
        await press(pilot, "enter")
        assert "1 row shown matching “aiko”" in screen_words(pilot)
        await press(pilot, "enter")  # the project now, with the person selected
        screen = pilot.app.screen
        assert isinstance(screen, ProjectUsersScreen)
        selected = screen.table.highlighted_record
        assert selected is not None
        assert selected.user.email == "aiko.tanaka@acme-build.com"
        assert selected.role == "Editor"
        # Named and said as from the search: the project's name, and its access.
        words = screen_words(pilot)
        assert "› Harbour Bridge Retrofit" in words
        assert "access Limited" in words
        assert "project 1001" not in words
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, ChangesScreen)


async def test_changes_of_one_project_only(tmp_path: Path) -> None:
    async with running(
        store_path=tmp_path / "store.sqlite3",
        keeps="hubs",
        start=project_users(),
    ) as pilot:
        await press(pilot, "D", "enter")
        words = screen_words(pilot)
        assert "Changes in Harbour Bridge Retrofit since #1" in words
        assert "aiko.tanaka@acme-build.com" in words
        assert "ulla.berg@acme-build.com removed" in words
        assert "nordic-rail" not in words  # another hub: not this project


async def test_without_a_store_or_a_snapshot_d_says_why(tmp_path: Path) -> None:
    async with running(store_path=tmp_path / "off.sqlite3", keeps="off") as pilot:
        await press(pilot, "D")
        assert "The store is off" in screen_words(pilot)
    # A configured server (the demo's store starts with its week-old snapshot).
    settings = Settings(base_url="https://a.example", token=DEMO_TOKEN, store="hubs")
    async with running(workspace=server_workspace(settings, tmp_path)) as pilot:
        await press(pilot, "D")
        assert "No snapshot of this server is kept yet" in screen_words(pilot)


async def test_the_palette_records_a_snapshot_then_d_offers_it(tmp_path: Path) -> None:
    async with running(store_path=tmp_path / "store.sqlite3", keeps="hubs") as pilot:
        pilot.app.front.record_snapshot(None)  # type: ignore[attr-defined]
        await press(pilot)
        await pilot.app.workers.wait_for_complete()
        await press(pilot)
        words = screen_words(pilot)
        assert "Snapshot #2" in words  # the demo's store begins with its week-old data, #1
        assert "Incomplete: 1 list could not be read." in words
        await press(pilot, "D", "enter")
        assert "0 changes since #2" in screen_words(pilot)


async def test_hostile_text_kept_in_a_snapshot_is_shown_inert(tmp_path: Path) -> None:
    from hubtui.core.store import ListKey, Snapshot, Store
    from tests.harness.app import ACME_ID, EVIL, assert_inert

    path = tmp_path / "store.sqlite3"
    evil_user = {"User": {"Id": 666, "Email": EVIL, "FirstName": EVIL}, "Role": EVIL}
    lists: dict[ListKey, tuple[bool, str, list[dict[str, Any]]]] = {
        ListKey("hub", ACME_ID): (True, "", [{"Id": ACME_ID, "Name": EVIL, "DisplayName": EVIL}]),
        ListKey("projects", ACME_ID): (True, "", [{"Id": 1001, "Name": EVIL}]),
        ListKey("users", ACME_ID, "1001"): (True, "", [evil_user]),
    }
    with Store.open(path) as store:
        store.write_snapshot(Snapshot("demo", "", EVIL, "2026-11-17T14:02:00Z", lists))
    async with running(store_path=path, keeps="hubs", start=project_users()) as pilot:
        await press(pilot, "D")
        assert_inert(pilot)
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, ChangesScreen)
        text = assert_inert(pilot)
        assert "removed" in text
        for _ in range(4):
            await press(pilot, "down")
            assert_inert(pilot)  # the panel of each highlighted change too
