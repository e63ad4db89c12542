"""What changed between two reads of a server, as a person asks it: promotions, removals, a
project switched to Limited, a renamed hub; a list not read is "not compared", never "removed"."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.core.history import (
    SnapshotFileError,
    read_snapshot_file,
    take_snapshot,
    write_snapshot_file,
)
from hubtui.core.history.diff import Kind, Side, compare
from hubtui.core.store import ListKey, Snapshot, Store
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app, last_week
from tests.harness.demo_api import DEMO_URL


async def read(data: DemoStore, faults: Faults | None = None) -> Snapshot:
    transport = httpx.ASGITransport(app=create_app(data, faults or Faults()))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        hubs = list(await client.list_hubs())
        return await take_snapshot(
            client, hubs, every_hub=True, origin="demo", profile=None, concurrency=4, deadline=60
        )


def said(side_old: Side, side_new: Side) -> set[tuple[str, str, str, str]]:
    return {
        (d.kind.value, d.level, d.who or d.project_name or d.hub_name, d.what)
        for d in compare(side_old, side_new)
    }


async def test_a_week_of_changes_is_said_person_by_person(tmp_path: Path) -> None:
    with Store.open(tmp_path / "store.sqlite3") as store:
        before = store.write_snapshot(await read(last_week()))
        after = store.write_snapshot(await read(DemoStore()))
        found = said(Side.from_store(store, before.id), Side.from_store(store, after.id))
    assert ("changed", "user", "aiko.tanaka@acme-build.com", "Role: Reader → Editor") in found
    assert ("removed", "user", "ulla.berg@acme-build.com", "Editor, direct member") in found
    assert (
        "changed",
        "project",
        "Harbour Bridge Retrofit",
        "ProjectAccess: Private → Limited; this changes who reads it as a limited reader",
    ) in found
    # The switch made the whitelisted domain's people its limited readers.
    assert ("added", "user", "grace.osei@northwind-eng.com", "Reader, limited reader") in found
    assert (
        "changed",
        "hub",
        "nordic-rail",
        "DisplayName: Nordic Rail Consortium → Nordic Rail Alliance",
    ) in found
    # The project whose users are refused (409) on both sides is not compared, not emptied.
    not_compared = [f for f in found if f[0] == "not compared"]
    assert [f[2] for f in not_compared] == ["Bergen Tunnel Survey"]
    assert not any(f[0] == "removed" and "nordic" in f[2] for f in found)


async def test_nothing_changed_is_no_difference_and_costs_no_new_record(tmp_path: Path) -> None:
    with Store.open(tmp_path / "store.sqlite3") as store:
        first = store.write_snapshot(await read(DemoStore()))
        records = store.info().records
        second = store.write_snapshot(await read(DemoStore()))
        assert store.info().records == records
        found = compare(Side.from_store(store, first.id), Side.from_store(store, second.id))
    assert [d.kind for d in found] == [Kind.NOT_COMPARED]  # the 409 project, on both sides


async def test_a_project_not_read_now_is_not_compared_never_everyone_removed() -> None:
    old = await read(DemoStore())
    lists = dict(old.lists)
    key = next(k for k in lists if k.kind == "users" and lists[k][2])
    lists[key] = (False, "HTTP 503", [])
    new = Snapshot(old.origin, old.profile, old.scope, old.taken, lists)
    found = compare(Side.from_snapshot(old, "before"), Side.from_snapshot(new, "now"))
    about = [d for d in found if d.project_id == key.project]
    assert [(d.kind, d.level) for d in about] == [(Kind.NOT_COMPARED, "project")]
    assert "not read in now (HTTP 503)" in about[0].what


async def test_a_snapshot_file_reads_back_whole_and_a_changed_one_is_refused(
    tmp_path: Path,
) -> None:
    snapshot = await read(DemoStore())
    path = tmp_path / "evidence.json"
    digest, written = write_snapshot_file(snapshot, path)
    assert written == path
    manifest = json.loads(path.read_text().splitlines()[0])
    assert (manifest["sha256"], manifest["server"]) == (digest, "demo")
    back = read_snapshot_file(path)
    assert compare(Side.from_snapshot(snapshot, "a"), Side.from_snapshot(back, "b")) == compare(
        Side.from_snapshot(snapshot, "a"), Side.from_snapshot(snapshot, "b")
    )
    assert back.lists[ListKey("hubs")] == snapshot.lists[ListKey("hubs")]
    text = path.read_text().replace('"Role": "Reader"', '"Role": "Admin"', 1)
    path.write_text(text)
    with pytest.raises(SnapshotFileError, match="does not match the sha256"):
        read_snapshot_file(path)


def _one_project(*people: dict[str, object]) -> Snapshot:
    key = ListKey("users", "h1", "1001")
    return Snapshot("demo", "", "all hubs", "2026-11-17T14:02:00Z", {key: (True, "", list(people))})


def test_a_server_that_sends_more_or_less_of_the_same_record_is_said_only_where_access_moves() -> (
    None
):
    before = {
        "User": {"Id": 7, "Email": "ana@acme-build.com", "AvatarUrl": "https://a.example/7.png"},
        "Role": "Reader",
        "IsReviewer": False,
        "IsLimited": False,
        "Teams": [{"Id": 1, "Name": "MEP"}, {"Id": 2, "Name": "Civil"}],
    }
    # A newer server: a field unknown to hubtui appears, the avatar goes absent, the teams come
    # in another order. Nothing of the person's access moved: no difference.
    richer = {
        **before,
        "User": {"Id": 7, "Email": "ana@acme-build.com"},
        "AccessExpires": "2027-01-01",
        "Teams": [{"Id": 2, "Name": "Civil"}, {"Id": 1, "Name": "MEP"}],
    }
    old = Side.from_snapshot(_one_project(before), "#1")
    assert compare(old, Side.from_snapshot(_one_project(richer), "now")) == []
    # A field of access that goes absent is said as not sent, never as "no" or "(none)".
    poorer = {k: v for k, v in before.items() if k not in ("IsReviewer", "IsLimited")}
    found = compare(old, Side.from_snapshot(_one_project(poorer), "now"))
    assert [(d.kind, d.what) for d in found] == [
        (Kind.CHANGED, "IsReviewer: no → (not sent); direct member → access not sent")
    ]


async def test_a_new_person_given_a_removed_person_s_id_is_two_people(tmp_path: Path) -> None:
    """The demo gives a new person the Id ulla.berg had last week: matched by Id and address
    together, ulla is removed and the new person added (the Id's earlier holder said), never
    one person whose role changed."""
    now = DemoStore()
    transport = httpx.ASGITransport(app=create_app(now, Faults()))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        hub = await client.get_hub_by_name("acme-build")
        added = await client.create_project_user(
            hub.id, "1001", email="new.person@acme-build.com", role="Reader"
        )
    earlier = last_week()
    ulla = next(u for u in earlier.users.values() if u.email == "ulla.berg@acme-build.com")
    assert str(added.user.id) == str(ulla.id)  # the Id reused, as the demo does
    with Store.open(tmp_path / "store.sqlite3") as store:
        before = store.write_snapshot(await read(earlier))
        after = store.write_snapshot(await read(now))
        found = said(Side.from_store(store, before.id), Side.from_store(store, after.id))
    assert ("removed", "user", "ulla.berg@acme-build.com", "Editor, direct member") in found
    assert (
        "added",
        "user",
        "new.person@acme-build.com",
        f"Reader, direct member (Id {ulla.id} was ulla.berg@acme-build.com before)",
    ) in found
    assert not any(
        who == "new.person@acme-build.com" for kind, _, who, _ in found if kind == "changed"
    )
