"""The app with a team store (a real PostgreSQL): a snapshot recorded there and offered by `D`,
`c` listing the team's changes with each operator, and a team store that cannot be reached said
in words while the app runs on."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from textual.widgets import OptionList

from hubtui.config import Settings
from hubtui.core.store import Store
from hubtui.demo import DEMO_TOKEN, DemoStore
from hubtui.tui.screens.changes.batch import StagedScreen
from hubtui.tui.screens.changes.change_log import ChangeLogScreen
from tests.harness.app import burst, press, running, screen_words, server_workspace
from tests.harness.harness import free_port
from tests.harness.postgres import OWNER, PostgresServer

CHLOE = "chloe.moreau@acme-build.com"
A = "https://a.example"


async def test_a_team_store_that_cannot_be_reached_is_said_and_the_app_runs_on(
    tmp_path: Path, pg_env: PostgresServer
) -> None:
    away = f"postgresql://{OWNER}@127.0.0.1:{free_port()}/hubtui?connect_timeout=2"
    settings = Settings(base_url=A, token=DEMO_TOKEN, store="hubs", store_url=away)
    async with running(workspace=server_workspace(settings, tmp_path)) as pilot:
        pilot.app.front.record_snapshot(None)  # type: ignore[attr-defined]
        await pilot.app.workers.wait_for_complete()
        await press(pilot)
        words = screen_words(pilot)
        assert f"No snapshot was recorded: The team store {away} cannot be reached" in words
        assert "acme-build" in words  # the hub list, still there
        await press(pilot, "D")
        assert "cannot be reached" in screen_words(pilot)  # said again, at once


async def test_a_snapshot_kept_in_the_team_store_is_offered_by_d(
    tmp_path: Path, pg_env: PostgresServer
) -> None:
    url = pg_env.url(schema=pg_env.new_schema())
    settings = Settings(base_url=A, token=DEMO_TOKEN, store="hubs", store_url=url)
    async with running(workspace=server_workspace(settings, tmp_path)) as pilot:
        pilot.app.front.record_snapshot(None)  # type: ignore[attr-defined]
        await pilot.app.workers.wait_for_complete()
        await press(pilot)
        assert "Snapshot #1" in screen_words(pilot)
        await press(pilot, "D", "enter")
        assert "0 changes since #1" in screen_words(pilot)
    with Store.open_url(url, read_only=True) as team:
        assert len(team.snapshots()) == 1
    assert not (tmp_path / "store.sqlite3").exists() or _no_snapshots(tmp_path)


def _no_snapshots(folder: Path) -> bool:
    with Store.open(folder / "store.sqlite3", read_only=True) as local:
        return local.snapshots() == []


async def test_c_lists_the_teams_changes_with_each_operator(
    tmp_path: Path, pg_env: PostgresServer
) -> None:
    url = pg_env.url(schema=pg_env.new_schema())
    settings = Settings(base_url=A, token=DEMO_TOKEN, store="hubs", store_url=url)
    async with running(workspace=server_workspace(settings, tmp_path)) as pilot:
        server = pilot.app.workspace.identity.server  # type: ignore[attr-defined]
        change = {
            "time": "2026-11-25T09:00:00Z", "action": "update", "hub_id": "h1",
            "hub_name": "acme-build", "project_id": "1001",
            "project_name": "Harbour Bridge Retrofit", "user_id": "7",
            "email": "chloe.moreau@acme-build.com", "before": {"Role": "Reader"},
            "after": {"Role": "Admin"}, "outcome": "done", "server": server,
            "id": "bens1", "batch": "b-ben-1", "operator": "Ben (night shift)",
        }  # fmt: skip
        other = {**change, "id": "elsewhere", "server": "https://other.example.com:443"}
        with Store.open_url(url) as team:
            team.add_audit_lines([json.dumps(change), json.dumps(other)])
        await press(pilot, "c")
        await pilot.app.workers.wait_for_complete()  # the team's lines, read in a thread
        await press(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ChangeLogScreen)
        text = " ".join(screen._text().plain.split())  # what the dialog shows
        assert f"The team's changes in {url}" in text
        assert (
            "DONE Ben (night shift): update chloe.moreau@acme-build.com in Harbour Bridge "
            "Retrofit (hub acme-build): Role: Reader → Admin" in text
        )
        assert text.count("chloe.moreau") == 1  # another server's change is not this one's
        batches = [str(option.prompt) for option in screen.query_one(OptionList).options]
        assert batches == [
            "b-ben-1 2026-11-25T09:00:00Z · update chloe.moreau@acme-build.com in Harbour "
            "Bridge Retrofit: Role: Reader → Admin · 1 change: 1 done by Ben (night shift) · "
            "R puts it back"
        ]  # what it changed, who, and whether R can put it back
        await press(pilot, "escape")
        assert "acme-build" in screen_words(pilot)


async def test_c_shows_the_teams_batches_first_above_a_long_list_at_80x24(
    tmp_path: Path, pg_env: PostgresServer
) -> None:
    """The team's changes, read after the dialog is up, fill more than the window: the list of
    batches R acts on is above them, in view, and takes ↑ ↓ and `R`."""
    url = pg_env.url(schema=pg_env.new_schema())
    settings = Settings(base_url=A, token=DEMO_TOKEN, store="hubs", store_url=url)
    async with running(size=(80, 24), workspace=server_workspace(settings, tmp_path)) as pilot:
        server = pilot.app.workspace.identity.server  # type: ignore[attr-defined]
        change = {
            "action": "update", "hub_id": "h1", "hub_name": "acme-build", "project_id": "1001",
            "project_name": "Harbour Bridge Retrofit", "before": {"Role": "Reader"},
            "after": {"Role": "Admin"}, "outcome": "done", "server": server, "batch": "b-ben-1",
            "operator": "Ben",
        }  # fmt: skip
        changes = [
            {
                **change,
                "time": f"2026-11-25T09:{minute:02}:00Z",
                "id": f"bens{minute}",
                "user_id": str(minute),
                "email": f"person{minute}@acme-build.com",
            }
            for minute in range(12)
        ]
        with Store.open_url(url) as team:
            team.add_audit_lines([json.dumps(change) for change in changes])
        await press(pilot, "c")
        await pilot.app.workers.wait_for_complete()  # the team's lines, read in a thread
        await press(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ChangeLogScreen)
        assert "person1@acme-build.com" in " ".join(screen._text().plain.split())
        assert "person1@acme-build.com" not in screen_words(pilot)  # more than the window
        words = screen_words(pilot)
        assert "12 changes: 12 done by Ben" in words
        assert words.index("12 changes: 12 done by Ben") < words.index("person11@acme-build.com")
        assert isinstance(screen.focused, OptionList)


async def test_c_and_r_typed_at_once_revert_a_colleagues_batch_once_it_is_read(
    tmp_path: Path, pg_env: PostgresServer
) -> None:
    """`R` typed before the team's batches are read lands once they are: a fast typist's
    burst reverts the colleague's batch it was typed for."""
    url = pg_env.url(schema=(schema := pg_env.new_schema()))
    store = DemoStore()
    hub = store.hub_by_name("acme-build")
    assert hub is not None
    chloe = next(u for u, x in store.users.items() if x.email == CHLOE)
    hub.projects[1001].members[chloe].role = "Admin"  # Ben made her Admin
    settings = Settings(base_url=A, token=DEMO_TOKEN, store="hubs", store_url=url)
    async with running(workspace=server_workspace(settings, tmp_path, {A: store})) as pilot:
        server = pilot.app.workspace.identity.server  # type: ignore[attr-defined]
        bens = {
            "time": "2026-11-25T09:00:00Z", "action": "update", "hub_id": hub.id,
            "hub_name": "acme-build", "project_id": "1001",
            "project_name": "Harbour Bridge Retrofit", "user_id": str(chloe), "email": CHLOE,
            "before": {"Role": "Reader", "IsReviewer": False},
            "after": {"Role": "Admin", "IsReviewer": False}, "outcome": "done",
            "server": server, "id": "bens1", "batch": "b-ben-1", "operator": "Ben",
        }  # fmt: skip
        with Store.open_url(url) as team:
            team.add_audit_lines([json.dumps(bens)])
        # A team store slow to answer: the batches come a second after the keys.
        slow = f"BEGIN; LOCK TABLE {schema}.audit; SELECT pg_sleep(1); COMMIT"
        holder = threading.Thread(target=pg_env.sql, args=(slow,))
        holder.start()
        await asyncio.sleep(0.3)
        await burst(pilot, ["c", "R"])  # R waits for the batches, then lands
        await pilot.app.workers.wait_for_complete()
        holder.join()
        await press(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        words = screen_words(pilot)
        assert "Revert of batch b-ben-1" in words
        assert "Role: Admin → Reader" in words
