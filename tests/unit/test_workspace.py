"""The Workspace's workflows, without a front end: what the app and the commands both render.

Each runs on the demo API in-process through the Workspace a front end holds: a snapshot
recorded and found again, a batch reverted from the change log, a list kept and read offline, a
profile switch that moves the change log and the store together, and the close."""

from __future__ import annotations

from pathlib import Path

import pytest

from hubtui.cli import demo_connector
from hubtui.config import Settings
from hubtui.core.batch import Intent, Wanted, prepare
from hubtui.core.workspace import NoSnapshots, Workspace, open_workspace

CHLOE = "chloe.moreau@acme-build.com"


def demo_workspace(**settings: object) -> Workspace:
    return open_workspace(Settings(**settings), demo=demo_connector)  # type: ignore[arg-type]


async def test_a_snapshot_recorded_is_among_the_snapshots_kept() -> None:
    workspace = demo_workspace()
    client = await workspace.client()
    hub = await client.get_hub_by_name("acme-build")
    info = await workspace.record_snapshot(hub)
    keeper, kept = await workspace.snapshots_kept()
    assert keeper.origin == "demo"
    assert kept[-1].id == info.id  # the newest, after the demo's week-old one
    assert len(kept) == 2
    assert info.counts["users"] > 0
    await workspace.close()


async def test_no_snapshot_offline_or_with_the_store_off_and_the_reason_says_which() -> None:
    off = demo_workspace(store="off")
    with pytest.raises(NoSnapshots, match="The store is off"):
        await off.record_snapshot(None)
    await off.close()


async def test_a_batch_sent_is_reverted_from_the_change_log_to_what_it_was() -> None:
    workspace = demo_workspace()
    client = await workspace.client()
    hub = await client.get_hub_by_name("acme-build")
    row = Wanted(hub.id, hub.name, "1001", None, CHLOE, Intent.SET, role="Admin")
    preview = await prepare(client, [row], workspace.change_log)
    from hubtui.core.batch import Batch

    batch = Batch(preview.steps)
    await batch.send(client, workspace.change_log, concurrency=2)
    back, cannot = workspace.revert_plan(batch.id)
    assert cannot == []
    assert [(r.email, r.role) for r in back] == [(CHLOE, "Reader")]
    await workspace.close()


async def test_a_list_kept_is_what_the_store_answers_offline(tmp_path: Path) -> None:
    workspace = demo_workspace()
    client = await workspace.client()
    hubs = await client.list_hubs()
    await workspace.keep("hubs", "", "", hubs)
    await workspace.close()
    offline = open_workspace(Settings(), demo=demo_connector, offline=True)
    assert offline.read_only  # offline sends nothing
    assert offline.keeper is None  # nothing read offline is kept again
    stored = await (await offline.client()).list_hubs()
    assert [h.name for h in stored] == [h.name for h in hubs]
    await offline.close()


async def test_a_profile_switch_moves_the_change_log_and_the_store_together() -> None:
    def settings_for(profile: str | None) -> Settings:
        return Settings(base_url="https://b.example", profile=profile, token="t")

    first = Settings(base_url="https://a.example", profile="a", token="t")
    workspace = open_workspace(first, settings_for=settings_for)
    label = await workspace.reconnect("b")
    assert label == "b.example"
    keeper = workspace.keeper
    assert keeper is not None
    assert (workspace.change_log.server, workspace.change_log.profile) == (
        "https://b.example:443",
        "b",
    )
    assert (keeper.origin, keeper.profile) == ("https://b.example:443", "b")
    await workspace.close()


async def test_the_demo_stays_the_demo_when_its_token_is_read_again() -> None:
    def settings_for(profile: str | None) -> Settings:
        return Settings(profile=profile)

    workspace = open_workspace(Settings(), demo=demo_connector, settings_for=settings_for)
    await workspace.reconnect("ops")
    keeper = workspace.keeper
    assert keeper is not None
    assert (workspace.change_log.server, workspace.change_log.profile) == ("demo", None)
    assert (keeper.origin, keeper.profile) == ("demo", None)
    assert keeper.path.name == "demo-store.sqlite3"  # never a real server's store
    await workspace.close()
