"""The store of what was read: each record kept once, a snapshot seen whole or not at all, and
a file it cannot trust refused by name while hubtui runs on."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from hubtui.core.store import ListKey, Snapshot, Store, StoreError, now

USERS = ListKey("users", "h1", "1001")


def users(count: int, role: str = "Reader") -> list[dict[str, object]]:
    return [
        {"User": {"Id": n, "Email": f"person{n}@acme-build.com"}, "Role": role, "IsLimited": False}
        for n in range(count)
    ]


def snapshot(listed: list[dict[str, object]], *, ok: bool = True, why: str = "") -> Snapshot:
    return Snapshot(
        "https://api.example.com:443", "", "all hubs", now(), {USERS: (ok, why, listed)}
    )


def test_an_unchanged_record_is_kept_once_and_each_snapshot_reads_back_its_own(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "store.sqlite3") as store:
        first = store.write_snapshot(snapshot(users(200)))
        records = store.info().records
        changed = users(200)
        changed[7] = {**changed[7], "Role": "Editor"}
        second = store.write_snapshot(snapshot(changed[:199]))  # one promoted, one gone
        assert store.info().records == records + 1  # only the promoted record is new
        old, new = store.reads(first.id)[USERS], store.reads(second.id)[USERS]
        assert (len(old.hashes), len(new.hashes)) == (200, 199)
        assert len(old.hashes - new.hashes) == 2
        assert {store.record(h)["Role"] for h in new.hashes - old.hashes} == {"Editor"}


def test_absent_and_null_and_unknown_fields_survive_as_sent(tmp_path: Path) -> None:
    sent: list[dict[str, object]] = [
        {"User": {"Id": 1}, "Role": "Reader", "Teams": None},
        {"User": {"Id": 1}, "Role": "Reader"},  # Teams not sent: another record
        {"User": {"Id": 2}, "Role": "Reader", "FutureField": {"x": [1, None]}},
    ]
    with Store.open(tmp_path / "store.sqlite3") as store:
        taken = store.write_snapshot(snapshot(sent))
        back = [store.record(h) for h in store.reads(taken.id)[USERS].hashes]

    def order(record: dict[str, object]) -> str:
        return json.dumps(record, sort_keys=True)

    assert sorted(back, key=order) == sorted(sent, key=order)


def test_a_snapshot_that_cannot_be_written_whole_is_not_seen_at_all(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with Store.open(path) as store:
        store.write_snapshot(snapshot(users(10)))
        store._db.execute("PRAGMA max_page_count = 40")  # the disk is full past here
        with pytest.raises(StoreError, match="store.sqlite3"):
            store.write_snapshot(snapshot(users(20_000)))
    with Store.open(path) as store:
        assert [s.counts["users"] for s in store.snapshots()] == [10]


def _write_five(path: str, role: str) -> None:
    """One process writing snapshots (run in a process of its own)."""
    with Store.open(Path(path)) as store:
        for _ in range(5):
            store.write_snapshot(snapshot(users(300, role)))


def test_two_processes_writing_at_once_both_land_while_a_third_reads(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with Store.open(path) as store:
        store.save_latest("demo", None, ListKey("hubs"), [{"Id": "h1", "Name": "acme-build"}])
    context = multiprocessing.get_context("spawn")
    writers = [
        context.Process(target=_write_five, args=(str(path), role)) for role in ("Reader", "Editor")
    ]
    for writer in writers:
        writer.start()
    # The app's start reads the hub list meanwhile: never blocked, never a half-written state.
    seen = []
    with Store.open(path, read_only=True) as reader:
        while any(writer.is_alive() for writer in writers):
            kept = reader.latest("demo", None, ListKey("hubs"))
            assert kept is not None
            seen.append(len(reader.snapshots()))
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert seen == sorted(seen)  # snapshots only ever appear, each whole
    with Store.open(path) as store:
        kept_snapshots = store.snapshots()
        assert len(kept_snapshots) == 10
        for info in kept_snapshots:
            assert len(store.reads(info.id)[USERS].hashes) == 300


def test_the_file_is_the_persons_alone_and_a_link_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "data" / "store.sqlite3"
    Store.open(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    link = tmp_path / "link.sqlite3"
    link.symlink_to(path)
    with pytest.raises(StoreError, match=r"link\.sqlite3.*symbolic link"):
        Store.open(link)


def test_a_corrupt_or_newer_store_is_refused_naming_the_file(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.sqlite3"
    corrupt.write_bytes(b"not a database at all" * 100)
    os.chmod(corrupt, 0o600)
    with pytest.raises(StoreError, match=r"corrupt\.sqlite3.*runs without it"):
        Store.open(corrupt)
    newer = tmp_path / "newer.sqlite3"
    Store.open(newer).close()
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match=r"newer\.sqlite3.*newer hubtui"):
        Store.open(newer)


def test_prune_forgets_old_snapshots_but_not_what_a_kept_one_needs(tmp_path: Path) -> None:
    with Store.open(tmp_path / "store.sqlite3") as store:
        old = snapshot(users(50))
        store.write_snapshot(
            Snapshot(old.origin, "", "all hubs", "2026-01-01T00:00:00Z", old.lists)
        )
        kept = store.write_snapshot(snapshot(users(40)))
        assert store.prune("2026-06-01T00:00:00Z") == 1
        assert [s.id for s in store.snapshots()] == [kept.id]
        hashes = store.reads(kept.id)[USERS].hashes
        assert len(hashes) == 40
        assert all(store.record(h)["Role"] == "Reader" for h in hashes)
        assert store.info().records == 40  # the ten only the old one held are gone


def test_the_latest_hub_list_is_kept_per_server_and_profile(tmp_path: Path) -> None:
    hubs = [{"Id": "h1", "Name": "acme-build"}]
    with Store.open(tmp_path / "store.sqlite3") as store:
        store.save_latest("https://a:443", None, ListKey("hubs"), hubs, "2026-11-24T14:02:00Z")
        assert store.latest("https://a:443", None, ListKey("hubs")) == (
            hubs,
            "2026-11-24T14:02:00Z",
        )
        assert store.latest("https://a:443", "test", ListKey("hubs")) is None
        assert store.latest("https://b:443", None, ListKey("hubs")) is None


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/v3/hubs", "hubs"),
        ("/v3/hubs/name/acme-build", "hub_by_name"),
        ("/v3/hubs/h1", "hub"),
        ("/v3/hubs/h1/users", "hub_users"),
        ("/regions/eu/v3/hubs/h1/users", "hub_users"),
        ("/v2/hubs/h1/projects", "projects"),
        ("/v2/hubs/h1/projects/7/users", "users"),
        ("/v3/hubs/h1/projects/7/users/9", "user"),
    ],
)
def test_each_read_of_the_contract_is_read_back_from_its_path(path: str, kind: str) -> None:
    """What the client builds, the offline answers read back (api/paths.py): one layout."""
    from hubtui.api.paths import read_of

    read = read_of(path)
    assert read is not None
    assert read.kind == kind
