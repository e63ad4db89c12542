"""The Workspace's workflows, without a front end: what the app and the commands both render.

Each runs on the demo API in-process through the Workspace a front end holds: a snapshot
recorded and found again, a batch reverted from the change log, a list kept and read offline, a
profile switch that moves the change log and the store together, and the close."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hubtui.cli import demo_connector
from hubtui.config import Settings
from hubtui.core.batches import Intent, Wanted, prepare
from hubtui.core.store import Store
from hubtui.core.workflows.keeping import record_snapshot, snapshots_kept
from hubtui.core.workspace import DataPlaces, StoreOff, Workspace, open_workspace
from tests.harness.harness import free_port
from tests.harness.postgres import OWNER, PostgresServer
from tests.harness.stores import change_line

CHLOE = "chloe.moreau@acme-build.com"


def demo_workspace(**settings: object) -> Workspace:
    return open_workspace(Settings(**settings), demo=demo_connector)  # type: ignore[arg-type]


async def test_a_snapshot_recorded_is_among_the_snapshots_kept() -> None:
    workspace = demo_workspace()
    client = await workspace.client()
    hub = await client.get_hub_by_name("acme-build")
    info = await record_snapshot(workspace, hub)
    server_store, kept = await snapshots_kept(workspace)
    assert server_store.origin == "demo"
    assert kept[-1].id == info.id  # the newest, after the demo's week-old one
    assert len(kept) == 2
    assert info.counts["users"] > 0
    await workspace.close()


async def test_no_snapshot_offline_or_with_the_store_off_and_the_reason_says_which() -> None:
    off = demo_workspace(store="off")
    with pytest.raises(StoreOff, match="The store is off"):
        await record_snapshot(off, None)
    await off.close()


async def test_a_batch_sent_is_reverted_from_the_change_log_to_what_it_was() -> None:
    workspace = demo_workspace()
    client = await workspace.client()
    hub = await client.get_hub_by_name("acme-build")
    row = Wanted(hub.id, hub.name, "1001", None, CHLOE, Intent.SET, role="Admin")
    preview = await prepare(client, [row], workspace.change_log)
    from hubtui.core.batches import Batch

    batch = Batch(preview.steps)
    await batch.send(client, workspace.change_log, concurrency=2)
    from hubtui.core.workflows.revert import find_revert

    plan = find_revert(workspace, batch.id).plan
    assert plan is not None
    assert plan.cannot == []
    assert [(r.email, r.role) for r in plan.wanted] == [(CHLOE, "Reader")]
    await workspace.close()


async def test_a_list_kept_is_what_the_store_answers_offline(tmp_path: Path) -> None:
    workspace = demo_workspace()
    client = await workspace.client()
    hubs = await client.list_hubs()
    workspace.keep_soon("hubs", "", "", hubs, on_error=lambda error: pytest.fail(str(error)))
    await workspace.close()
    offline = open_workspace(Settings(), demo=demo_connector, offline=True)
    assert offline.read_only  # offline sends nothing
    assert offline.server_store is None  # nothing read offline is kept again
    stored = await (await offline.client()).list_hubs()
    assert [h.name for h in stored] == [h.name for h in hubs]
    await offline.close()


PEOPLE = [{"User": {"Id": n, "Email": f"p{n}@x.example"}, "Role": "Reader"} for n in range(1000)]


def kept_users(workspace: Workspace) -> list[dict[str, object]] | None:
    from hubtui.core.store import ListKey

    server_store = workspace.server_store
    assert server_store is not None
    with Store.open(server_store.path) as store:
        found = store.latest(server_store.origin, server_store.profile, ListKey("users", "h", "1"))
    return None if found is None else found[0]


async def test_a_list_being_kept_waits_while_the_person_types_and_goes_on_when_they_stop() -> None:
    workspace = demo_workspace()
    workspace.make_way(600)  # a key, just now
    workspace.keep_sent_soon("users", "h", "1", PEOPLE, on_error=lambda e: pytest.fail(str(e)))
    with pytest.raises(TimeoutError):  # 1,000 records are otherwise kept in milliseconds
        await asyncio.wait_for(asyncio.shield(workspace.all_kept()), 0.5)
    workspace.make_way(0)  # no key since
    await asyncio.wait_for(workspace.all_kept(), 30)
    await workspace.close()  # read back after: one connection to the store at a time
    assert kept_users(workspace) == PEOPLE


async def test_the_close_keeps_every_list_at_once_however_recent_the_last_key() -> None:
    workspace = demo_workspace()
    workspace.make_way(600)
    workspace.keep_sent_soon("users", "h", "1", PEOPLE, on_error=lambda e: pytest.fail(str(e)))
    await asyncio.wait_for(workspace.close(), 30)
    assert kept_users(workspace) == PEOPLE


async def test_a_profile_switch_moves_the_change_log_and_the_store_together() -> None:
    def settings_for(profile: str | None) -> Settings:
        return Settings(base_url="https://b.example", profile=profile, token="t")

    first = Settings(base_url="https://a.example", profile="a", token="t")
    workspace = open_workspace(first, settings_for=settings_for)
    label = await workspace.reconnect("b")
    assert label == "b.example"
    server_store = workspace.server_store
    assert server_store is not None
    assert (workspace.change_log.server, workspace.change_log.profile) == (
        "https://b.example:443",
        "b",
    )
    assert (server_store.origin, server_store.profile) == ("https://b.example:443", "b")
    await workspace.close()


async def test_the_demo_stays_the_demo_when_its_token_is_read_again() -> None:
    def settings_for(profile: str | None) -> Settings:
        return Settings(profile=profile)

    workspace = open_workspace(Settings(), demo=demo_connector, settings_for=settings_for)
    await workspace.reconnect("ops")
    server_store = workspace.server_store
    assert server_store is not None
    assert (workspace.change_log.server, workspace.change_log.profile) == ("demo", None)
    assert (server_store.origin, server_store.profile) == ("demo", None)
    assert server_store.path.parts[-2:] == ("demo", "store.sqlite3")  # never a real server's store
    await workspace.close()


async def test_change_lines_go_to_the_team_store_soon_after_and_wait_when_it_is_away(
    tmp_path: Path, pg_env: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app copies each outcome's lines to the team store in the background: said when they
    cannot be copied (they wait in the change log), copied once it is back."""
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(tmp_path))
    log = tmp_path / "changes.jsonl"
    line = change_line("c1", action="update")
    log.write_text(line + "\n")
    away = f"postgresql://{OWNER}@127.0.0.1:{free_port()}/hubtui?connect_timeout=2"
    url = pg_env.url(schema=pg_env.new_schema())
    said: list[str] = []
    for team in (away, url):
        settings = Settings(base_url="https://a", store_url=team)
        places = DataPlaces(log, tmp_path / "store.sqlite3")
        workspace = open_workspace(settings, data=places)
        workspace.listen(not_logged=said.append, team_note=said.append, changed=print)
        for _ in range(3):  # three outcomes while it is away: said once
            workspace.share_soon()
            assert workspace._sharing is not None
            await workspace._sharing
            await asyncio.sleep(0)  # the note is handed to the loop
        await workspace.close()
    assert len(said) == 1
    assert f"The team store {away} cannot be reached" in said[0]
    assert f"wait in the change log {log}" in said[0]
    with Store.open_url(url, read_only=True) as store:
        (kept,) = store.audit_lines(["https://a:443"])  # with the role the database names
        assert json.loads(kept) == {**json.loads(line), "db_role": store.engine.role()}
