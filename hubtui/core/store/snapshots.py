"""Snapshots: every list read at a moment, kept as intervals of membership of records kept
once; read back by date, by list, and compared."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from hubtui.core.store.base import StoreBase, in_parts, read_errors
from hubtui.core.store.engines import (
    Engine,
    StoreError,
)
from hubtui.core.store.records import (
    ListKey,
    ListRead,
    Packer,
    Snapshot,
    SnapshotInfo,
    body_digest,
    canonical,
    kept_text,
    list_body,
    list_fingerprint,
)

#: A list's latest state as a snapshot weighs it: the digest of its records in order, the
#: snapshot that read it so (None: the app kept it, or an older hubtui wrote it), and the newest
#: snapshot that read the list.
LatestNamed = tuple[bytes, int | None, int | None]


class Snapshots(StoreBase):
    # Snapshots --------------------------------------------------------------------------------

    def write_snapshot(self, snapshot: Snapshot) -> SnapshotInfo:
        """Record a snapshot in one transaction: seen whole, or not at all. Its records are
        encoded before the transaction begins, and each step writes every list at once (a team
        store's round trips a snapshot, not a list), so the store is held the least time."""
        counts = snapshot.counts()
        writing = _SnapshotWrite(self, snapshot)
        writing.encode()
        with self.writing() as db:
            snapshot_id = db.insert(
                "INSERT INTO snapshots (taken, origin, profile, scope, counts) VALUES (?,?,?,?,?)",
                (
                    snapshot.taken,
                    snapshot.origin,
                    snapshot.profile,
                    snapshot.scope,
                    json.dumps(counts),
                ),
            )
            writing.write(db, snapshot_id)
        return SnapshotInfo(
            snapshot_id, snapshot.taken, snapshot.origin, snapshot.profile, snapshot.scope, counts
        )

    @read_errors
    def _latest_named(self, origin: str, profile: str) -> dict[ListKey, LatestNamed]:
        """Each list's latest state: the digest of its records in order (a state the app kept,
        or one an older hubtui wrote, has none), the snapshot that read it that way, and the
        newest snapshot that read the list."""
        return {
            ListKey(kept_text(kind), kept_text(hub), kept_text(project)): (
                bytes(digest),
                _snapshot_id(read_by),
                _snapshot_id(newest),
            )
            for kind, hub, project, digest, read_by, newest in self.engine.run(
                "SELECT lists.kind, lists.hub, lists.project, latest.records_digest, "
                "latest.read_by, (SELECT max(reads.snapshot) FROM reads WHERE "
                "reads.list = lists.id AND reads.ok = 1) FROM latest "
                "JOIN lists ON lists.id = latest.list WHERE lists.origin = ? AND "
                "lists.profile = ? AND latest.records_digest IS NOT NULL",
                (origin, profile),
            )
            if isinstance(digest, bytes | memoryview)  # anything else names nothing
        }

    def _named_now(
        self, db: Engine, list_ids: Sequence[int]
    ) -> dict[int, tuple[bytes, int | None]]:
        """Each list's latest state as :meth:`_latest_named` says it, inside the write (the
        newest snapshot that read it is :meth:`_previous`'s)."""
        query = "SELECT list, records_digest, read_by FROM latest WHERE list IN ({})"
        return {
            int(list_id): (bytes(digest), _snapshot_id(read_by))
            for list_id, digest, read_by in in_parts(db, query, list_ids)
            if isinstance(digest, bytes | memoryview)  # anything else names nothing
        }

    def _previous(
        self, db: Engine, list_ids: Sequence[int], snapshot_id: int
    ) -> dict[int, int | None]:
        """The snapshot before this one that read each list."""
        query = (
            "SELECT list, max(snapshot) FROM reads WHERE list IN ({}) AND ok = 1 "
            "AND snapshot < ? GROUP BY list"
        )
        return {
            int(list_id): None if before is None else int(before)
            for list_id, before in in_parts(db, query, list_ids, (snapshot_id,))
        }

    @read_errors
    def snapshots(
        self, origin: str | None = None, profile: str | None = None
    ) -> list[SnapshotInfo]:
        """The snapshots kept (of this server and profile, when given), oldest first."""
        query = "SELECT id, taken, origin, profile, scope, counts FROM snapshots"
        args: tuple[str, ...] = ()
        if origin is not None:
            query += " WHERE origin = ? AND profile = ?"
            args = (origin, profile or "")
        return [_snapshot_info(row) for row in self.engine.run(query + " ORDER BY id", args)]

    @read_errors
    def snapshot(self, snapshot_id: int) -> SnapshotInfo:
        for info in self.engine.run(
            "SELECT id, taken, origin, profile, scope, counts FROM snapshots WHERE id = ?",
            (snapshot_id,),
        ):
            return _snapshot_info(info)
        raise StoreError(f"There is no snapshot #{snapshot_id} in {self.where}.")

    @read_errors
    def reads(self, snapshot_id: int) -> dict[ListKey, ListRead]:
        """Every list the snapshot read (or tried to), with its records' hashes."""
        found: dict[ListKey, ListRead] = {}
        rows = self.engine.run(
            "SELECT lists.id, kind, hub, project, ok, why FROM reads "
            "JOIN lists ON lists.id = reads.list WHERE reads.snapshot = ?",
            (snapshot_id,),
        ).fetchall()
        for list_id, kind, hub, project, ok, why in rows:
            hashes = self._members(list_id, snapshot_id) if ok else frozenset()
            found[ListKey(kind, hub, project)] = ListRead(bool(ok), why, hashes)
        return found

    @read_errors
    def snapshots_of_list(
        self, origin: str, profile: str | None, key: ListKey, *, at_most: int
    ) -> list[tuple[SnapshotInfo, frozenset[bytes]]]:
        """The latest ``at_most`` snapshots of this server and profile that read one list, each
        with its records' hashes, oldest first: one query for that list, not every list of
        each snapshot."""
        rows = self.engine.run(
            "SELECT snapshots.id, taken, snapshots.origin, snapshots.profile, scope, counts, "
            "lists.id FROM reads JOIN lists ON lists.id = reads.list "
            "JOIN snapshots ON snapshots.id = reads.snapshot "
            "WHERE lists.origin=? AND lists.profile=? AND kind=? AND hub=? AND project=? "
            "AND ok=1 ORDER BY snapshots.id DESC LIMIT ?",
            (origin, profile or "", key.kind, key.hub, key.project, at_most),
        ).fetchall()
        found = []
        for *snapshot, list_id in reversed(rows):
            info = _snapshot_info(snapshot)
            found.append((info, self._members(list_id, info.id)))
        return found


class _SnapshotWrite:
    """One snapshot's write, step by step: its lists named and hashed before the store is
    taken (:meth:`encode`), then in the transaction (:meth:`write`) its reads, its new
    records, the intervals of membership that ended and began, and each list's latest
    state."""

    def __init__(self, store: Snapshots, snapshot: Snapshot) -> None:
        self.store, self.snapshot = store, snapshot
        self.lists = sorted(snapshot.lists.items())
        self.read_lists = {key: records for key, (ok, _, records) in self.lists if ok}
        #: Each list's records in the order sent, named by one digest: a list found as its
        #: latest state holds is not encoded and written again (the daily snapshot's lists).
        self.named = {key: list_fingerprint(records) for key, records in self.read_lists.items()}
        self.as_kept = store._latest_named(snapshot.origin, snapshot.profile)
        # A list found as the last snapshot that read it read it (the daily snapshot finds
        # most so) holds the same records: they are not hashed again, and nothing of it is
        # written but its new read. Checked again inside the write, where it is hashed after
        # all if another snapshot, a prune or the app moved it meanwhile.
        self.found_as_read = {
            key for key, digest in self.named.items() if _still_read(self.as_kept.get(key), digest)
        }
        self.packed: dict[bytes, bytes] = {}
        #: The new records, compressed many together (schema step 8): their rows.
        self.packer = Packer(store._pack)
        self.new: set[bytes] = set()
        #: The records held, not compressed here: one pruned meanwhile is made from its record.
        self.unpacked: dict[bytes, Mapping[str, Any]] = {}
        self.encoded: dict[ListKey, set[bytes]] = {}
        self.bodies: dict[ListKey, bytes] = {}

    def hashed(
        self, records: Iterable[Mapping[str, Any]], held: set[bytes], order: list[bytes] | None
    ) -> set[bytes]:
        """A list's records by hash (a snapshot keeps a set), in ``order`` too when given;
        each not ``held`` by the store packed once."""
        hashes = set()
        for record in records:
            body = canonical(record)
            digest = body_digest(body)
            if order is not None:
                order.append(digest)
            hashes.add(digest)
            if digest in held:
                self.unpacked[digest] = record
            elif digest not in self.new:
                self.new.add(digest)
                self.packer.add(digest, body)
        return hashes

    def encode(self) -> None:
        """Each list not found as read hashed, its new records packed, before the store is
        taken. A record these lists held at their last snapshot is in the store, so only the
        others are compressed, which after the first snapshot of a hub is the few that
        changed. They go into packs as they are hashed: no list's canonical text is held
        beyond a pack's."""
        snapshot = self.snapshot
        held = self.store._held(
            snapshot.origin,
            snapshot.profile,
            [k for k in self.read_lists if k not in self.found_as_read],
        )
        for key, records in self.read_lists.items():
            if key in self.found_as_read:
                continue
            # The records' hashes in order name a list only where its fingerprint cannot.
            order: list[bytes] | None = [] if self.named[key] is None else None
            self.encoded[key] = self.hashed(records, held, order)
            if order is not None:
                self.named[key] = body_digest(b"".join(order))
        self.packer.close()  # before the store is taken: a list moved meanwhile packs the rest
        # Its latest state in the order sent: what is read offline is the list as sent.
        self.bodies = {
            key: list_body(records)
            for key, records in self.read_lists.items()
            if (state := self.as_kept.get(key)) is None or state[0] != self.named[key]
        }

    def write(self, db: Engine, snapshot_id: int) -> None:
        """The snapshot's rows, in the transaction that inserted it as ``snapshot_id``."""
        snapshot, store = self.snapshot, self.store
        ids = {
            key: store._list_id(db, snapshot.origin, snapshot.profile, key) for key, _ in self.lists
        }
        db.add_rows(
            "reads",
            ("snapshot", "list", "ok", "why"),
            [(snapshot_id, ids[key], int(ok), why) for key, (ok, why, _) in self.lists],
            keep=False,
        )
        previous = store._previous(db, [ids[key] for key in self.read_lists], snapshot_id)
        now_named = store._named_now(db, [ids[key] for key in self.read_lists])
        present = self._records(db, ids, previous, now_named)
        self._members(db, ids, previous, present, snapshot_id)
        self._latest(db, ids, now_named, snapshot_id)

    def _records(
        self,
        db: Engine,
        ids: dict[ListKey, int],
        previous: dict[int, int | None],
        now_named: dict[int, tuple[bytes, int | None]],
    ) -> dict[int, set[bytes]]:
        """The records new to the store written; what each list read holds now returned."""
        moved = [
            key
            for key in self.found_as_read
            if not _still_read(_with_previous(now_named, previous, ids[key]), self.named[key])
        ]
        present = self.store._present(db, [ids[key] for key in [*self.encoded, *moved]])
        for key in moved:  # hashed after all: packed unless the list holds it now
            self.encoded[key] = self.hashed(
                self.read_lists[key], present.get(ids[key], set()), None
            )
        self.packer.close()  # what those lists brought
        # What the lists held has moved since it was read above (another snapshot, a prune):
        # each record held then and not now is compressed here.
        for h in self.unpacked.keys() - set().union(*present.values()):
            self.packed[h] = self.store._pack(canonical(self.unpacked[h]))
        # In key order: the pages of the tables fill up instead of splitting half-empty.
        rows = sorted([*self.packed.items(), *self.packer.rows])
        db.add_rows("records", ("hash", "body"), rows, keep=True)
        return present

    def _members(
        self,
        db: Engine,
        ids: dict[ListKey, int],
        previous: dict[int, int | None],
        present: dict[int, set[bytes]],
        snapshot_id: int,
    ) -> None:
        """Each interval of membership that ended closed, each that began opened."""
        gone = []
        for key, kept in self.encoded.items():
            list_id = ids[key]
            now_in = present.get(list_id, set())
            gone += [(previous.get(list_id), list_id, h) for h in sorted(now_in - kept)]
        if gone:
            db.run_many(
                "UPDATE members SET until = ? WHERE list = ? AND record = ? AND until IS NULL",
                gone,
            )

        def came() -> Iterator[tuple[int, int, bytes]]:
            """Each list's records new to it, made as they are written (a new store's
            200,000 rows are not held at once)."""
            for key, kept in self.encoded.items():
                list_id = ids[key]
                for h in sorted(kept - present.get(list_id, set())):
                    yield (list_id, snapshot_id, h)

        db.add_rows("members", ("list", "since", "record"), came(), keep=False)

    def _latest(
        self,
        db: Engine,
        ids: dict[ListKey, int],
        now_named: dict[int, tuple[bytes, int | None]],
        snapshot_id: int,
    ) -> None:
        """Each list's latest state: written where it changed, else only its new read."""
        taken, bodies = self.snapshot.taken, self.bodies
        # A list found unchanged before the write may have been replaced meanwhile (the app
        # keeping what it read): its state is written after all.
        for key, records in self.read_lists.items():
            if key not in bodies and (now_named.get(ids[key]) or (None,))[0] != self.named[key]:
                bodies[key] = list_body(records)
        db.run_many(
            "INSERT INTO latest (list, read_at, body, records_digest, read_by) "
            "VALUES (?,?,?,?,?) ON CONFLICT (list) DO UPDATE SET "
            "read_at = excluded.read_at, body = excluded.body, "
            "records_digest = excluded.records_digest, read_by = excluded.read_by "
            "WHERE excluded.read_at >= latest.read_at",
            [(ids[key], taken, body, self.named[key], snapshot_id) for key, body in bodies.items()],
        )
        db.run_many(
            "UPDATE latest SET read_at = ?, read_by = ? WHERE list = ? AND read_at <= ?",
            [(taken, snapshot_id, ids[key], taken) for key in self.read_lists if key not in bodies],
        )


def _still_read(kept: LatestNamed | None, digest: bytes | None) -> bool:
    """Whether a list whose records are named ``digest`` holds what the store says it holds:
    its latest state has that digest and was read by the newest snapshot that read the list,
    whose records are then the list's members now (no snapshot since moved them)."""
    if kept is None or digest is None:
        return False
    return kept[0] == digest and kept[1] is not None and kept[1] == kept[2]


def _with_previous(
    named: Mapping[int, tuple[bytes, int | None]], previous: Mapping[int, int | None], list_id: int
) -> LatestNamed | None:
    found = named.get(list_id)
    return None if found is None else (found[0], found[1], previous.get(list_id))


def _snapshot_id(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _snapshot_info(row: Sequence[Any]) -> SnapshotInfo:
    """A snapshot as its row says (id, taken, origin, profile, scope, counts, in that order)."""
    counts, unread = _counts(row[5])
    return SnapshotInfo(row[0], str(row[1]), row[2], row[3], str(row[4]), counts, unread)


def _counts(kept: object) -> tuple[dict[str, int], str | None]:
    """A snapshot's counts as kept, or none and why: a row any colleague of a team store can
    write is read as data, and what cannot be read is said, never a crash."""
    try:
        counts = json.loads(kept)  # type: ignore[arg-type]
    except (TypeError, ValueError) as error:
        return {}, f"its counts are not JSON ({type(error).__name__})"
    if not isinstance(counts, dict) or not all(
        isinstance(k, str) and type(v) is int for k, v in counts.items()
    ):
        return {}, "its counts are not numbers by name"
    return counts, None
