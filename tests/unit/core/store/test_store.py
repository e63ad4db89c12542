"""The store of what was read: each record kept once, a snapshot seen whole or not at all, and
a store it cannot trust refused by name while hubtui runs on. The same tests run on both engines
(``store_at``): the local SQLite file and a team's PostgreSQL."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import stat
from pathlib import Path

import pytest

from hubtui.core.store import SCHEMA, ListKey, Snapshot, Store, StoreError, now
from tests.harness.stores import StoreAt, change_line, open_target

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
    store_at: StoreAt,
) -> None:
    with store_at.open() as store:
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


def test_absent_and_null_and_unknown_fields_survive_as_sent(store_at: StoreAt) -> None:
    sent: list[dict[str, object]] = [
        {"User": {"Id": 1}, "Role": "Reader", "Teams": None},
        {"User": {"Id": 1}, "Role": "Reader"},  # Teams not sent: another record
        {"User": {"Id": 2}, "Role": "Reader", "FutureField": {"x": [1, None]}},
        {"User": {"Id": 3, "FirstName": "Nul\x00byte"}, "Role": "Reader"},
    ]
    with store_at.open() as store:
        taken = store.write_snapshot(snapshot(sent))
        back = [store.record(h) for h in store.reads(taken.id)[USERS].hashes]

    def order(record: dict[str, object]) -> str:
        return json.dumps(record, sort_keys=True)

    assert sorted(back, key=order) == sorted(sent, key=order)


def test_a_snapshot_that_cannot_be_written_whole_is_not_seen_at_all(store_at: StoreAt) -> None:
    with store_at.open() as store:
        store.write_snapshot(snapshot(users(10)))
        if store_at.engine == "sqlite":
            store.engine.run("PRAGMA max_page_count = 40")  # the disk is full past here
        else:  # the team server cuts a statement that takes longer than a millisecond
            store.engine.run("SET statement_timeout = 1")
        with pytest.raises(StoreError, match=re.escape(store_at.named)):
            store.write_snapshot(snapshot(users(20_000)))
    with store_at.open() as store:
        assert [s.counts["users"] for s in store.snapshots()] == [10]


def _write_five(target: str, role: str) -> None:
    """One process writing snapshots (run in a process of its own)."""
    with open_target(target) as store:
        for _ in range(5):
            store.write_snapshot(snapshot(users(300, role)))


def test_two_processes_writing_at_once_both_land_while_a_third_reads(store_at: StoreAt) -> None:
    with store_at.open() as store:
        store.save_latest("demo", None, ListKey("hubs"), [{"Id": "h1", "Name": "acme-build"}])
    context = multiprocessing.get_context("spawn")
    writers = [
        context.Process(target=_write_five, args=(store_at.target, role))
        for role in ("Reader", "Editor")
    ]
    for writer in writers:
        writer.start()
    # The app's start reads the hub list meanwhile: never blocked, never a half-written state.
    seen = []
    with store_at.open(read_only=True) as reader:
        while any(writer.is_alive() for writer in writers):
            kept = reader.latest("demo", None, ListKey("hubs"))
            assert kept is not None
            found = reader.snapshots()
            seen.append(len(found))
            for info in found:  # each snapshot seen is whole
                assert len(reader.reads(info.id)[USERS].hashes) == 300
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert seen == sorted(seen)  # snapshots only ever appear, each whole
    with store_at.open() as store:
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


def test_a_corrupt_store_is_refused_naming_the_file(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.sqlite3"
    corrupt.write_bytes(b"not a database at all" * 100)
    os.chmod(corrupt, 0o600)
    with pytest.raises(StoreError, match=r"corrupt\.sqlite3.*Move the file away"):
        Store.open(corrupt)


def test_a_store_of_a_newer_schema_is_refused_naming_both_versions(store_at: StoreAt) -> None:
    store_at.open().close()
    if store_at.engine == "sqlite":
        store_at.run_as_owner("PRAGMA user_version = 99")
    else:
        store_at.run_as_owner("UPDATE hubtui_schema SET version = 99")
    with pytest.raises(StoreError) as refused:
        store_at.open()
    said = str(refused.value)
    assert store_at.named in said
    assert f"schema 99; this one reads {SCHEMA}" in said


def test_prune_forgets_old_snapshots_but_not_what_a_kept_one_needs(store_at: StoreAt) -> None:
    with store_at.open() as store:
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


def test_a_record_pruned_after_a_write_looked_is_written_again(
    store_at: StoreAt, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot compresses only the records its lists did not hold at their last snapshot,
    looked at before it takes the store. If a prune removed some in between (another process,
    ``hubtui store prune``), they are written all the same: every record reads back."""
    with store_at.open() as store:
        old = snapshot(users(50))
        store.write_snapshot(
            Snapshot(old.origin, "", "all hubs", "2026-01-01T00:00:00Z", old.lists)
        )
        looked = store._held(old.origin, "", [USERS])  # what a writer saw before the prune
        assert len(looked) == 50
        store.write_snapshot(snapshot(users(40)))
        assert store.prune("2026-06-01T00:00:00Z") == 1  # the ten only the old one held go
        monkeypatch.setattr(store, "_held", lambda *_: looked)
        again = store.write_snapshot(snapshot(users(50)))
        hashes = store.reads(again.id)[USERS].hashes
        assert len(hashes) == 50
        assert sorted(store.record(h)["User"]["Id"] for h in hashes) == list(range(50))


def test_a_list_read_again_unchanged_is_its_latest_state_as_of_the_new_read(
    store_at: StoreAt,
) -> None:
    """The daily snapshot finds most lists as they were: each reads back as last read, at the
    new read's time; a list the app kept meanwhile, or one that changed, as the snapshot read
    it, in the order sent."""
    origin = "https://api.example.com:443"

    def taken(at: str, listed: list[dict[str, object]]) -> Snapshot:
        return Snapshot(origin, "", "all hubs", at, {USERS: (True, "", listed)})

    with store_at.open() as store:
        store.write_snapshot(taken("2026-11-27T09:00:00Z", users(3)))
        store.write_snapshot(taken("2026-11-28T09:00:00Z", users(3)))
        assert store.latest(origin, None, USERS) == (users(3), "2026-11-28T09:00:00Z")
        # The app keeps what it read later: the snapshot after it is what reads back.
        store.save_latest(origin, None, USERS, users(1), "2026-11-28T10:00:00Z")
        store.write_snapshot(taken("2026-11-28T11:00:00Z", users(3)))
        assert store.latest(origin, None, USERS) == (users(3), "2026-11-28T11:00:00Z")
        reordered = list(reversed(users(3)))  # the same records, in another order
        store.write_snapshot(taken("2026-11-28T12:00:00Z", reordered))
        assert store.latest(origin, None, USERS) == (reordered, "2026-11-28T12:00:00Z")
        # A snapshot older than the state kept does not take its place, changed or not.
        store.write_snapshot(taken("2026-11-01T09:00:00Z", users(3)))
        store.write_snapshot(taken("2026-11-01T09:00:00Z", reordered))
        assert store.latest(origin, None, USERS) == (reordered, "2026-11-28T12:00:00Z")


def read_back(store: Store, snapshot_id: int) -> list[object]:
    """The Ids of the users a snapshot holds, as it reads back."""
    return sorted(store.record(h)["User"]["Id"] for h in store.reads(snapshot_id)[USERS].hashes)


def taken_at(at: str, listed: list[dict[str, object]]) -> Snapshot:
    return Snapshot("https://api.example.com:443", "", "all hubs", at, {USERS: (True, "", listed)})


def test_a_list_found_as_its_last_snapshot_read_it_is_held_by_the_new_one_too(
    store_at: StoreAt, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily snapshot finds most lists as the last one read them: none of their records is
    hashed or written again, and each snapshot reads back what it read. A list the app kept
    meanwhile, a prune that forgot every snapshot, or an older snapshot written after a newer
    one leaves nothing to trust: the list is hashed again and reads back whole."""
    import hubtui.core.store.snapshots as snapshots
    from hubtui.core.store.records import canonical

    hashed: list[object] = []

    def counted(record: dict[str, object]) -> bytes:
        hashed.append(record)
        return canonical(record)

    monkeypatch.setattr(snapshots, "canonical", counted)
    with store_at.open() as store:
        first = store.write_snapshot(taken_at("2026-11-26T09:00:00Z", users(30)))
        assert len(hashed) == 30
        second = store.write_snapshot(taken_at("2026-11-27T09:00:00Z", users(30)))
        assert len(hashed) == 30  # found as the first read it: nothing hashed
        assert read_back(store, first.id) == read_back(store, second.id) == list(range(30))
        assert store.latest("https://api.example.com:443", None, USERS) == (
            users(30),
            "2026-11-27T09:00:00Z",
        )
        # The app keeps what it read: the next snapshot cannot tell what the list holds.
        store.save_latest(
            "https://api.example.com:443", None, USERS, users(30), "2026-11-27T10:00:00Z"
        )
        third = store.write_snapshot(taken_at("2026-11-28T09:00:00Z", users(30)))
        assert len(hashed) == 60
        # An older read written after: the list holds its 20; the newer state says 30.
        store.write_snapshot(taken_at("2026-11-27T12:00:00Z", users(20)))
        fifth = store.write_snapshot(taken_at("2026-11-28T10:00:00Z", users(30)))
        assert len(hashed) == 110  # hashed again: its ten came back
        assert read_back(store, third.id) == read_back(store, fifth.id) == list(range(30))
        # Every snapshot forgotten: the members are gone, so the list is written again.
        assert store.prune("2026-12-01T00:00:00Z") == 5
        sixth = store.write_snapshot(taken_at("2026-12-02T09:00:00Z", users(30)))
        assert read_back(store, sixth.id) == list(range(30))
        # A changed record names the list anew.
        changed = users(30)
        changed[3] = {**changed[3], "Role": "Editor"}
        seventh = store.write_snapshot(taken_at("2026-12-03T09:00:00Z", changed))
        roles = {store.record(h)["Role"] for h in store.reads(seventh.id)[USERS].hashes}
        assert roles == {"Reader", "Editor"}


def test_a_list_moved_after_a_snapshot_looked_is_hashed_inside_the_write(
    store_at: StoreAt, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot looks at the lists' latest states before it takes the store; another
    snapshot that reads a list meanwhile (another process) moves what the list holds. The
    write sees it, and the list is hashed there: it reads back what it read."""
    with store_at.open() as store:
        store.write_snapshot(taken_at("2026-11-26T09:00:00Z", users(30)))
        looked = store._latest_named("https://api.example.com:443", "")
        store.write_snapshot(taken_at("2026-11-27T09:00:00Z", users(10)))
        monkeypatch.setattr(store, "_latest_named", lambda *_: looked)
        again = store.write_snapshot(taken_at("2026-11-28T09:00:00Z", users(30)))
        assert read_back(store, again.id) == list(range(30))
        assert store.latest("https://api.example.com:443", None, USERS) == (
            users(30),
            "2026-11-28T09:00:00Z",
        )


def test_the_latest_hub_list_is_kept_per_server_and_profile(store_at: StoreAt) -> None:
    hubs = [{"Id": "h1", "Name": "acme-build"}]
    with store_at.open() as store:
        store.save_latest("https://a:443", None, ListKey("hubs"), hubs, "2026-11-24T14:02:00Z")
        assert store.latest("https://a:443", None, ListKey("hubs")) == (
            hubs,
            "2026-11-24T14:02:00Z",
        )
        assert store.latest("https://a:443", "test", ListKey("hubs")) is None
        assert store.latest("https://b:443", None, ListKey("hubs")) is None


@pytest.mark.parametrize("count", [0, 1, 999, 1000, 1001, 2500])
def test_a_list_kept_from_its_records_one_at_a_time_reads_back_whole_in_order(
    store_at: StoreAt, count: int
) -> None:
    users = [
        {"User": {"Id": n, "FirstName": "Zoë ✓ 𝄞" if n % 2 else None}, "Role": "Reader", "X": [n]}
        for n in range(count)
    ]
    with store_at.open() as store:
        # As the app keeps a list read: each record written out as sent only when it is taken.
        store.save_latest("https://a:443", None, ListKey("users", "h1", "p1"), iter(users))
        kept = store.latest("https://a:443", None, ListKey("users", "h1", "p1"))
    assert kept is not None
    assert kept[0] == users


def test_each_change_line_is_kept_once_however_often_it_is_given(store_at: StoreAt) -> None:
    line = change_line("c1", outcome="unknown")
    settled = change_line("c1", checked="found")
    with store_at.open() as store:
        assert store.add_audit_lines([line, "not a change", line]) == 1
        assert store.add_audit_lines([line, settled]) == 1
        read = [json.loads(kept) for kept in store.audit_lines(["https://a:443"])]
        role = store.engine.role()
        # Each as it was given, and the role the database wrote it under (a file has none).
        assert [{k: v for k, v in r.items() if k != "db_role"} for r in read] == [
            json.loads(line),
            json.loads(settled),
        ]
        assert [r.get("db_role") for r in read] == [role or None] * 2
        assert store.audit_lines(["https://b:443"]) == []
        assert store.info().audit == 2
        assert store.audit_check() is None


def test_a_line_s_own_db_role_is_never_taken_for_the_database_s(store_at: StoreAt) -> None:
    forged = json.dumps({**json.loads(change_line("c1")), "db_role": "someone_else"})
    with store_at.open() as store:
        assert store.add_audit_lines([forged]) == 1
        (read,) = store.audit_lines(["https://a:443"])
        assert json.loads(read).get("db_role") == (store.engine.role() or None)


def test_an_edit_or_a_deletion_of_the_trail_is_found_and_where(store_at: StoreAt) -> None:
    lines = [change_line(f"c{n}") for n in range(1, 5)]
    with store_at.open() as store:
        assert store.add_audit_lines(lines) == 4
        assert store.audit_check() is None
        first, second = (
            int(r[0]) for r in store.engine.run("SELECT id FROM audit ORDER BY id LIMIT 2")
        )
        edited = lines[2].replace("acme-build", "other-hub")
        with store.writing() as db:  # whoever can write the table: the owner
            db.run("UPDATE audit SET line = ? WHERE id = ?", (edited, second + 1))
        said = store.audit_check()
        assert said == (
            f"the team trail was changed after line {second}: line {second + 1} is not as written"
        )
        with store.writing() as db:
            db.run("UPDATE audit SET line = ? WHERE id = ?", (lines[2], second + 1))
            db.run("DELETE FROM audit WHERE id = ?", (second,))
        said = store.audit_check()
        assert said is not None
        assert said.startswith(f"the team trail was changed after line {first}: line {second + 1}")


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


def test_a_new_snapshot_s_records_are_kept_in_packs_and_each_reads_back(
    store_at: StoreAt,
) -> None:
    """A snapshot's new records are compressed many together, each record's row pointing into
    its pack; a record larger than a pack is kept alone. Every one reads back as sent, and the
    store counts records, not packs."""
    from hubtui.core.store.records import PACK_BYTES

    many = users(3000)
    large: dict[str, object] = {"User": {"Id": 9999}, "Note": "x" * (PACK_BYTES + 1)}
    with store_at.open() as store:
        taken = store.write_snapshot(snapshot([*many, large]))
        hashes = sorted(store.reads(taken.id)[USERS].hashes)
        assert len(hashes) == 3001
        back = store.records(hashes)
        assert sorted(json.dumps(r, sort_keys=True) for r in back) == sorted(
            json.dumps(r, sort_keys=True) for r in [*many, large]
        )
        assert store.info().records == 3001
        packs = store.engine.run("SELECT count(*) FROM records WHERE length(hash) <> 16")
        assert packs.fetchone()[0] >= 2  # 3,000 records of some 90 bytes: several packs


def test_records_kept_alone_by_an_older_hubtui_and_packed_read_back_side_by_side(
    store_at: StoreAt, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store of schema 7 kept each record compressed alone: read back as before, beside the
    packed records of the snapshots written since."""
    import hubtui.core.store.snapshots as snapshots

    class Alone:  # what schema 7 wrote: every record compressed on its own
        def __init__(self, alone: object) -> None:
            self.rows: list[tuple[bytes, bytes]] = []
            self._alone = alone

        def add(self, digest: bytes, body: bytes) -> None:
            self.rows.append((digest, self._alone(body)))  # type: ignore[operator]

        def close(self) -> None:
            pass

    with store_at.open() as store:
        with monkeypatch.context() as older:
            older.setattr(snapshots, "Packer", Alone)
            first = store.write_snapshot(taken_at("2026-11-26T09:00:00Z", users(20)))
        changed = users(40, role="Editor")
        second = store.write_snapshot(taken_at("2026-11-27T09:00:00Z", changed))
        assert read_back(store, first.id) == list(range(20))
        assert read_back(store, second.id) == list(range(40))
        roles = {store.record(h)["Role"] for h in store.reads(second.id)[USERS].hashes}
        assert roles == {"Editor"}


def test_a_pack_no_record_points_into_is_pruned(store_at: StoreAt) -> None:
    with store_at.open() as store:
        store.write_snapshot(taken_at("2026-01-01T00:00:00Z", users(500)))
        kept = store.write_snapshot(taken_at("2026-11-27T09:00:00Z", users(500, role="Editor")))
        before = store.engine.run("SELECT count(*) FROM records").fetchone()[0]
        assert store.prune("2026-06-01T00:00:00Z") == 1
        left = store.engine.run("SELECT count(*) FROM records").fetchone()[0]
        assert store.info().records == 500
        assert left < before - 500  # the old records and their packs are gone
        packs = store.engine.run("SELECT count(*) FROM records WHERE length(hash) <> 16")
        pointed = store.engine.run(
            "SELECT count(DISTINCT substr(body, 2, 17)) FROM records WHERE length(hash) = 16"
        )
        assert packs.fetchone()[0] == pointed.fetchone()[0]  # each pack left is pointed into
        assert {store.record(h)["Role"] for h in store.reads(kept.id)[USERS].hashes} == {"Editor"}


def test_a_record_that_points_nowhere_is_said_naming_the_store(store_at: StoreAt) -> None:
    with store_at.open() as store:
        taken = store.write_snapshot(snapshot(users(3)))
        (one, *_) = sorted(store.reads(taken.id)[USERS].hashes)
        store.engine.run(
            "DELETE FROM records WHERE length(hash) <> 16"
        )  # the packs lost (a damaged file)
        with pytest.raises(StoreError) as caught:
            store.record(one)
        assert "lacks a record it refers to" in str(caught.value)
        assert store.where in str(caught.value)


@pytest.mark.parametrize(
    "record",
    [
        {"b": 1, "a": [True, False, None], "c": {"z": "Zoë ✓ 𝄞", "y": 1.5, "x": 10**30}},
        {"Nul": "a\x00b\n\t\u2028", "Quote": '"\\', "Empty": {}, "List": []},
        {"NaN": float("nan"), "Inf": float("inf"), "Small": -0.0, "Exp": 1e-7},
    ],
)
def test_a_record_s_canonical_json_is_json_dumps_sorted_and_compact(
    record: dict[str, object],
) -> None:
    from hubtui.core.store.records import canonical

    expected = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical(record) == expected.encode()
    assert canonical(record) == canonical(record)  # the encoder is used again, the same
