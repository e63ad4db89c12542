"""The store's repository: every query, written once in the SQL both engines speak; records kept
once, lists, snapshots as intervals of membership, reviews and the audit trail."""

from __future__ import annotations

import functools
import json
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from hubtui.core.clock import now
from hubtui.core.files import check_existing, make_private
from hubtui.core.store.engines import (
    Engine,
    SQLiteEngine,
    StoreError,
    engine_words,
    first_line,
    store_refusal,
)
from hubtui.core.store.records import (
    PACK_BYTES,
    POINTER,
    ListKey,
    ListRead,
    Packer,
    ReviewInfo,
    Snapshot,
    SnapshotInfo,
    StoreInfo,
    body_digest,
    canonical,
    inflate,
    kept_text,
    list_body,
    list_fingerprint,
    pointed_at,
)
from hubtui.core.store.schema import (
    RECORDS_A_QUERY,
    REVIEW_COLUMNS,
    REVIEW_HEAD,
    STORED_DEPTH,
    STORED_LIST_BYTES,
    STORED_RECORD_BYTES,
    ZDICT,
    migrate,
)
from hubtui.text import nesting

_F = TypeVar("_F", bound=Callable[..., Any])


#: A record's compression window: 4 KB, as large as the store's dictionary needs (1.1 KB).
PACK_WINDOW_BITS = 12


def _read_errors(method: _F) -> _F:
    """A query that fails (a store whose tables are not what they say, a team store gone) raises
    :class:`StoreError` naming the store, never the engine's own error."""

    @functools.wraps(method)
    def guarded(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except self.engine.errors as error:
            raise StoreError(self.engine_words("cannot be read", error)) from None

    return guarded  # type: ignore[return-value]


class Store:
    """An open store; use as a context manager, or :meth:`close`."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: What a message names: the file, or the team store's address.
        self.where = engine.where
        found = engine.run("SELECT value FROM meta WHERE key = 'zdict'").fetchone()
        self._zdict: bytes = bytes(found[0]) if found else ZDICT
        #: zlib's compressor, given the dictionary (:meth:`_pack`).
        self._packer: zlib._Compress | None = None

    # Opening ----------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, *, read_only: bool = False) -> Store:
        """Open (or create) the store; :class:`StoreError` says, naming the file, why it cannot
        be: a symbolic link, a corrupt file, a newer schema, a folder that cannot be written."""
        connection: sqlite3.Connection | None = None
        try:
            check_existing(path)  # no link followed, no file of another's or others can write
            if read_only:
                if not path.exists():
                    raise StoreError(f"There is no store at {path} yet: nothing was kept.")
                target, uri = f"file:{path}?mode=ro", True
            else:
                make_private(path)  # the person's alone, no descriptor of it opened and closed
                target, uri = str(path), False
            connection = sqlite3.connect(
                target, uri=uri, timeout=5.0, check_same_thread=False, isolation_level=None
            )
            connection.execute("PRAGMA foreign_keys = ON")
            connection.execute("PRAGMA busy_timeout = 5000")
            if not read_only:
                connection.execute("PRAGMA journal_mode = WAL")
            engine = SQLiteEngine(path, connection)
            migrate(engine, read_only=read_only)
            return cls(engine)
        except BaseException as error:
            if connection is not None:
                connection.close()
            if isinstance(error, StoreError | sqlite3.DatabaseError | OSError):
                raise store_refusal(path, error) from None
            raise

    @classmethod
    def open_url(cls, url: str, *, read_only: bool = False) -> Store:
        """Open a team's store on PostgreSQL (``store_url``), migrating it unless ``read_only``;
        :class:`StoreError` names the store (never a password) and why it cannot be used."""
        from hubtui.core.store.postgres import connect

        engine = connect(url, read_only=read_only)
        try:
            migrate(engine, read_only=read_only)
            return cls(engine)
        except BaseException as error:
            engine.close()
            if isinstance(error, engine.errors):
                words = engine_words(engine, "cannot be used", error)
                if getattr(error, "sqlstate", None) == "42501":  # insufficient privilege
                    words += (
                        " Its schema's steps are applied by the role that owns it: hubtui store "
                        "migrate --store-url with the owner's role."
                    )
                raise StoreError(words) from None
            raise

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def engine_words(self, what: str, error: BaseException) -> str:
        return engine_words(self.engine, what, error)

    @contextmanager
    def _writing(self) -> Iterator[Engine]:
        """One transaction, taken at once (no other writer meanwhile); undone whole on error."""
        try:
            with self.engine.writing():
                yield self.engine
        except self.engine.errors as error:
            raise StoreError(
                f"Could not write to the store {self.where}: {first_line(error)}."
            ) from None

    # Records ----------------------------------------------------------------------------------

    def _pack(self, body: bytes) -> bytes:
        """A record's canonical JSON, compressed against the store's dictionary."""
        # A record is a few hundred bytes: a copy of one compressor given the dictionary once,
        # the least memory for its state and a window as large as the dictionary needs (its
        # default state, 256 KB for each record, cost up to 50 µs a record; the dictionary
        # given each record, a fifth of what is left). Any zlib reads it back as before.
        packer = self._packer
        if packer is None:
            packer = self._packer = zlib.compressobj(
                6, zlib.DEFLATED, PACK_WINDOW_BITS, 1, zdict=self._zdict
            )
        each = packer.copy()
        return each.compress(body) + each.flush()

    @_read_errors
    def _held(self, origin: str, profile: str, keys: Sequence[ListKey]) -> set[bytes]:
        """The records these lists hold as of their latest snapshots: each is in the store (a
        record is pruned only when no list holds it)."""
        wanted = set(keys)
        ids = [
            int(row[0])
            for row in self.engine.run(
                "SELECT id, kind, hub, project FROM lists WHERE origin=? AND profile=?",
                (origin, profile),
            )
            if ListKey(row[1], row[2], row[3]) in wanted
        ]
        return set().union(*self._present(self.engine, ids).values())

    def record(self, key: bytes) -> dict[str, Any]:
        """One stored record, as the server sent it."""
        return self.records([key])[0]

    @_read_errors
    def records(self, keys: Iterable[bytes]) -> list[dict[str, Any]]:
        """Stored records, as the server sent them, in the order of ``keys``: read a few hundred
        a query (a team store's round trips, not one a record)."""
        wanted = list(keys)
        query = "SELECT hash, body FROM records WHERE hash IN ({})"
        rows = {bytes(key): body for key, body in _in_parts(self.engine, query, wanted)}
        # A record compressed with others (schema step 8) is a pointer into its pack: each pack
        # is read and inflated once, however many of its records are asked for.
        pointers = {}
        for key, body in rows.items():
            if isinstance(body, bytes | memoryview) and bytes(body[:1]) == POINTER:
                try:
                    pointers[key] = pointed_at(bytes(body))
                except ValueError as error:
                    raise StoreError(
                        f"A record kept in {self.where} cannot be read back ({error})."
                    ) from None
        packs = {
            bytes(key): self._inflated(body, "a pack of records", 2 * PACK_BYTES)
            for key, body in _in_parts(
                self.engine, query, sorted({pack for pack, _, _ in pointers.values()})
            )
        }
        found: dict[bytes, dict[str, Any]] = {}
        for key, body in rows.items():
            if key in pointers:
                pack, offset, size = pointers[key]
                text = packs.get(pack, b"")[offset : offset + size]
                if len(text) != size:
                    raise StoreError(f"The store {self.where} lacks a record it refers to.")
                decoded = self._decoded(text, "a record")
            else:
                decoded = self._decode(body, "a record", STORED_RECORD_BYTES)
            if not isinstance(decoded, dict):
                raise StoreError(f"A record kept in {self.where} is not an object.")
            found[key] = decoded
        if len(found) < len(set(wanted)):
            raise StoreError(f"The store {self.where} lacks a record it refers to.")
        return [found[key] for key in wanted]

    def _inflated(self, body: object, what: str, limit: int, zdict: bytes | None = None) -> bytes:
        """What the store kept, inflated within ``limit`` (StoreError as :meth:`_decode`)."""
        try:
            return inflate(bytes(body) if isinstance(body, memoryview) else body, limit, zdict)
        except ValueError as error:
            raise StoreError(
                f"{what.capitalize()} kept in {self.where} cannot be read back ({error})."
            ) from None

    def _decoded(self, text: bytes, what: str) -> Any:
        """JSON the store kept, once inflated, checked in depth (StoreError as :meth:`_decode`)."""
        try:
            if nesting(text) > STORED_DEPTH:
                raise ValueError(f"it nests deeper than {STORED_DEPTH} levels, as no record does")
            return json.loads(text)
        except ValueError as error:
            raise StoreError(
                f"{what.capitalize()} kept in {self.where} cannot be read back ({error})."
            ) from None

    def _decode(self, body: object, what: str, limit: int) -> Any:
        """What the store kept, checked as it is read back: bounded when inflated and in depth,
        and JSON; :class:`StoreError` names the store and the bound broken."""
        zdict = self._zdict if what == "a record" else None
        return self._decoded(self._inflated(body, what, limit, zdict), what)

    def _list_id(self, db: Engine, origin: str, profile: str, key: ListKey) -> int:
        db.run(
            "INSERT INTO lists (origin, profile, kind, hub, project) VALUES (?,?,?,?,?) "
            "ON CONFLICT DO NOTHING",
            (origin, profile, key.kind, key.hub, key.project),
        )
        row = db.run(
            "SELECT id FROM lists WHERE origin=? AND profile=? AND kind=? AND hub=? AND project=?",
            (origin, profile, key.kind, key.hub, key.project),
        ).fetchone()
        return int(row[0])

    # The latest state of a list ---------------------------------------------------------------

    def save_latest(
        self,
        origin: str,
        profile: str | None,
        key: ListKey,
        records: Iterable[Mapping[str, Any]],
        read_at: str | None = None,
    ) -> None:
        """Keep this list as last read (replacing what was kept)."""
        self.save_latest_lists(origin, profile, [(key, records)], read_at)

    def save_latest_lists(
        self,
        origin: str,
        profile: str | None,
        lists: Iterable[tuple[ListKey, Iterable[Mapping[str, Any]]]],
        read_at: str | None = None,
    ) -> None:
        """:meth:`save_latest` of each of these lists, in one transaction: what one read took
        in (``P``'s 2,001 lists) is one commit, not a commit a list. Each list is encoded
        before the store is taken."""
        bodies = [(key, list_body(records)) for key, records in lists]
        when = read_at or now()
        with self._writing() as db:
            db.run_many(
                "INSERT INTO latest (list, read_at, body) VALUES (?,?,?) ON CONFLICT (list) "
                "DO UPDATE SET read_at = excluded.read_at, body = excluded.body, "
                "records_digest = NULL, read_by = NULL",
                [
                    (self._list_id(db, origin, profile or "", key), when, body)
                    for key, body in bodies
                ],
            )

    @_read_errors
    def latest(
        self, origin: str, profile: str | None, key: ListKey
    ) -> tuple[list[dict[str, Any]], str] | None:
        """The list as last read, and when; None if it was never kept."""
        row = self.engine.run(
            "SELECT latest.body, latest.read_at FROM latest JOIN lists ON lists.id = latest.list "
            "WHERE origin=? AND profile=? AND kind=? AND hub=? AND project=?",
            (origin, profile or "", key.kind, key.hub, key.project),
        ).fetchone()
        if row is None:
            return None
        records = self._decode(row[0], "the list", STORED_LIST_BYTES)
        if not isinstance(records, list):
            raise StoreError(f"The list kept in {self.where} is not a list.")
        return records, str(row[1])

    @_read_errors
    def last_known(
        self, origin: str, profile: str | None, key: ListKey
    ) -> tuple[list[dict[str, Any]], str] | None:
        """The list as last read, from its latest state or the newest snapshot that read it,
        whichever is newer, and when; None if it was never read."""
        kept = self.latest(origin, profile, key)
        row = self.engine.run(
            "SELECT reads.snapshot, snapshots.taken, lists.id FROM reads "
            "JOIN lists ON lists.id = reads.list JOIN snapshots ON snapshots.id = reads.snapshot "
            "WHERE lists.origin=? AND lists.profile=? AND kind=? AND hub=? AND project=? AND ok=1 "
            "ORDER BY reads.snapshot DESC LIMIT 1",
            (origin, profile or "", key.kind, key.hub, key.project),
        ).fetchone()
        if row is None or (kept is not None and kept[1] >= row[1]):
            return kept
        snapshot_id, taken, list_id = row
        return self.records(self._members(list_id, snapshot_id)), str(taken)

    @_read_errors
    def kept_hubs(self, origin: str, profile: str | None) -> list[str]:
        """The Ids of the hubs kept one by one (a snapshot of chosen hubs keeps each hub it
        read): what names a hub offline when the hub list was never read."""
        rows = self.engine.run(
            "SELECT DISTINCT hub FROM lists WHERE origin=? AND profile=? AND kind='hub' "
            "ORDER BY hub",
            (origin, profile or ""),
        )
        return [kept_text(row[0]) for row in rows]

    # Snapshots --------------------------------------------------------------------------------

    def write_snapshot(self, snapshot: Snapshot) -> SnapshotInfo:
        """Record a snapshot in one transaction: seen whole, or not at all. Its records are
        encoded before the transaction begins, and each step writes every list at once (a team
        store's round trips a snapshot, not a list), so the store is held the least time."""
        counts = snapshot.counts()
        lists = sorted(snapshot.lists.items())
        read_lists = {key: records for key, (ok, _, records) in lists if ok}
        #: Each list's records in the order sent, named by one digest: a list found as its
        #: latest state holds is not encoded and written again (the daily snapshot's lists).
        named = {key: list_fingerprint(records) for key, records in read_lists.items()}
        as_kept = self._latest_named(snapshot.origin, snapshot.profile)
        # A list found as the last snapshot that read it read it (the daily snapshot finds most
        # so) holds the same records: they are not hashed again, and nothing of it is written
        # but its new read. Checked again inside the write, where it is hashed after all if
        # another snapshot, a prune or the app moved it meanwhile.
        found_as_read = {
            key for key, digest in named.items() if _still_read(as_kept.get(key), digest)
        }
        # A record these lists held at their last snapshot is in the store, so only the others
        # are compressed, which after the first snapshot of a hub is the few that changed. They
        # go into packs as they are hashed: no list's canonical text is held beyond a pack's.
        held = self._held(
            snapshot.origin, snapshot.profile, [k for k in read_lists if k not in found_as_read]
        )
        packed: dict[bytes, bytes] = {}
        #: The new records, compressed many together (schema step 8): their rows.
        packer = Packer(self._pack)
        new: set[bytes] = set()
        #: The records held, not compressed here: one pruned meanwhile is made from its record.
        unpacked: dict[bytes, Mapping[str, Any]] = {}

        def hashed(
            records: Iterable[Mapping[str, Any]], held: set[bytes], order: list[bytes] | None
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
                    unpacked[digest] = record
                elif digest not in new:
                    new.add(digest)
                    packer.add(digest, body)
            return hashes

        # Each list hashed.
        encoded: dict[ListKey, set[bytes]] = {}
        for key, records in read_lists.items():
            if key in found_as_read:
                continue
            # The records' hashes in order name a list only where its fingerprint cannot.
            order: list[bytes] | None = [] if named[key] is None else None
            encoded[key] = hashed(records, held, order)
            if order is not None:
                named[key] = body_digest(b"".join(order))
        packer.close()  # before the store is taken: a list moved meanwhile packs the rest
        # Its latest state in the order sent: what is read offline is the list as sent.
        bodies = {
            key: list_body(records)
            for key, records in read_lists.items()
            if (state := as_kept.get(key)) is None or state[0] != named[key]
        }
        with self._writing() as db:
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
            ids = {
                key: self._list_id(db, snapshot.origin, snapshot.profile, key) for key, _ in lists
            }
            db.add_rows(
                "reads",
                ("snapshot", "list", "ok", "why"),
                [(snapshot_id, ids[key], int(ok), why) for key, (ok, why, _) in lists],
                keep=False,
            )
            previous = self._previous(db, [ids[key] for key in read_lists], snapshot_id)
            now_named = self._named_now(db, [ids[key] for key in read_lists])
            moved = [
                key
                for key in found_as_read
                if not _still_read(_with_previous(now_named, previous, ids[key]), named[key])
            ]
            read = [ids[key] for key in [*encoded, *moved]]
            present = self._present(db, read)
            for key in moved:  # hashed after all: packed unless the list holds it now
                encoded[key] = hashed(read_lists[key], present.get(ids[key], set()), None)
            packer.close()  # what those lists brought
            # What the lists held has moved since it was read above (another snapshot, a
            # prune): each record held then and not now is compressed here.
            for h in unpacked.keys() - set().union(*present.values()):
                packed[h] = self._pack(canonical(unpacked[h]))
            # In key order: the pages of the tables fill up instead of splitting half-empty.
            rows = sorted([*packed.items(), *packer.rows])
            db.add_rows("records", ("hash", "body"), rows, keep=True)
            gone = []
            for key, kept in encoded.items():
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
                for key, kept in encoded.items():
                    list_id = ids[key]
                    for h in sorted(kept - present.get(list_id, set())):
                        yield (list_id, snapshot_id, h)

            db.add_rows("members", ("list", "since", "record"), came(), keep=False)
            # A list found unchanged before the write may have been replaced meanwhile (the
            # app keeping what it read): its state is written after all.
            for key, records in read_lists.items():
                if key not in bodies and (now_named.get(ids[key]) or (None,))[0] != named[key]:
                    bodies[key] = list_body(records)
            db.run_many(
                "INSERT INTO latest (list, read_at, body, records_digest, read_by) "
                "VALUES (?,?,?,?,?) ON CONFLICT (list) DO UPDATE SET "
                "read_at = excluded.read_at, body = excluded.body, "
                "records_digest = excluded.records_digest, read_by = excluded.read_by "
                "WHERE excluded.read_at >= latest.read_at",
                [
                    (ids[key], snapshot.taken, body, named[key], snapshot_id)
                    for key, body in bodies.items()
                ],
            )
            db.run_many(
                "UPDATE latest SET read_at = ?, read_by = ? WHERE list = ? AND read_at <= ?",
                [
                    (snapshot.taken, snapshot_id, ids[key], snapshot.taken)
                    for key in read_lists
                    if key not in bodies
                ],
            )
        return SnapshotInfo(
            snapshot_id, snapshot.taken, snapshot.origin, snapshot.profile, snapshot.scope, counts
        )

    @_read_errors
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
            for list_id, digest, read_by in _in_parts(db, query, list_ids)
            if isinstance(digest, bytes | memoryview)  # anything else names nothing
        }

    def _present(self, db: Engine, list_ids: Sequence[int]) -> dict[int, set[bytes]]:
        """The records each list holds as of its latest snapshot."""
        found: dict[int, set[bytes]] = {}
        query = "SELECT list, record FROM members WHERE list IN ({}) AND until IS NULL"
        for list_id, record in _in_parts(db, query, list_ids):
            found.setdefault(int(list_id), set()).add(bytes(record))
        return found

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
            for list_id, before in _in_parts(db, query, list_ids, (snapshot_id,))
        }

    @_read_errors
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

    @_read_errors
    def snapshot(self, snapshot_id: int) -> SnapshotInfo:
        for info in self.engine.run(
            "SELECT id, taken, origin, profile, scope, counts FROM snapshots WHERE id = ?",
            (snapshot_id,),
        ):
            return _snapshot_info(info)
        raise StoreError(f"There is no snapshot #{snapshot_id} in {self.where}.")

    @_read_errors
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

    @_read_errors
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

    def _members(self, list_id: int, snapshot_id: int) -> frozenset[bytes]:
        """The records of a list as a snapshot read it."""
        return frozenset(
            bytes(row[0])
            for row in self.engine.run(
                "SELECT record FROM members WHERE list = ? AND since <= ? "
                "AND (until IS NULL OR until >= ?)",
                (list_id, snapshot_id, snapshot_id),
            )
        )

    # Reviews ----------------------------------------------------------------------------------

    def save_review(
        self,
        origin: str,
        profile: str | None,
        head: Mapping[str, str],
        rows: Sequence[Mapping[str, str]],
    ) -> int:
        """Keep a review (its :data:`REVIEW_HEAD` values) and its rows (:data:`REVIEW_COLUMNS`),
        whole or not at all; its number."""
        with self._writing() as db:
            number = db.insert(
                "INSERT INTO reviews (origin, profile, hub, hub_name, reviewer, started, ended, "
                "batch, criteria) VALUES (?,?,?,?,?,?,?,?,?)",
                (origin, profile or "", *(str(head.get(c, "")) for c in REVIEW_HEAD)),
            )
            db.run_many(
                "INSERT INTO review_rows (review, position, email, name, decision, reason, seen, "
                "marks, access, outcome) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    (number, position, *(str(row.get(c, "")) for c in REVIEW_COLUMNS))
                    for position, row in enumerate(rows)
                ],
            )
        return number

    @_read_errors
    def reviews(self, origin: str | None, profile: str | None) -> list[ReviewInfo]:
        """The reviews kept of this server and profile (None: of every server), oldest first,
        with their decisions counted."""
        found = []
        query = (
            "SELECT id, hub, hub_name, reviewer, started, ended, batch, criteria, origin, "
            "profile, db_role FROM reviews"
        )
        args: tuple[str, ...] = ()
        if origin is not None:
            query, args = query + " WHERE origin = ? AND profile = ?", (origin, profile or "")
        for row in self.engine.run(query + " ORDER BY id", args).fetchall():
            counts = {
                kept_text(decision): int(count)
                for decision, count in self.engine.run(
                    "SELECT decision, count(*) FROM review_rows WHERE review = ? "
                    "GROUP BY decision ORDER BY decision",
                    (row[0],),
                )
            }
            hub, hub_name, reviewer, started, ended, batch, criteria, at, as_, role = map(
                kept_text, row[1:]
            )
            found.append(
                ReviewInfo(
                    hub,
                    hub_name,
                    reviewer,
                    started,
                    ended,
                    batch,
                    criteria,
                    int(row[0]),
                    counts,
                    at,
                    as_,
                    role,
                )
            )
        return found

    @_read_errors
    def review_rows(self, review_id: int) -> list[dict[str, str]]:
        """A kept review's rows, in the order decided (each value text, as kept)."""
        return [
            dict(zip(REVIEW_COLUMNS, (kept_text(v) for v in row), strict=True))
            for row in self.engine.run(
                f"SELECT {', '.join(REVIEW_COLUMNS)} FROM review_rows "  # noqa: S608
                "WHERE review = ? ORDER BY position",
                (review_id,),
            )
        ]

    # The audit trail --------------------------------------------------------------------------

    def add_audit_lines(self, lines: Sequence[str]) -> int:
        """Keep change-log lines in the audit trail, each once whatever how often it is given
        (keyed by the line's hash), in one transaction; how many were new. A line that is not a
        change is not kept."""
        rows: list[tuple[Any, ...]] = []
        for line in lines:
            fields = _audit_fields(line)
            if fields is not None:
                rows.append((body_digest(line.encode()), *fields, line))
        if not rows:
            return 0
        fresh = list({row[0]: row for row in rows}.values())  # a line given twice, once
        with self._writing() as db:  # the sole writer: what is there now stays so until done
            query = "SELECT line_hash FROM audit WHERE line_hash IN ({})"
            there = {bytes(h) for (h,) in _in_parts(db, query, [row[0] for row in fresh])}
            new = [row for row in fresh if row[0] not in there]
            # Each line chained to the one before it (its hash over the last one's, its own and
            # the role it is written under): an edit or a deletion is found as the trail is read.
            role = db.role()
            last = db.run(
                "SELECT chain FROM audit WHERE chain IS NOT NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
            chain = b"" if last is None else bytes(last[0])
            chained = []
            for row in new:
                chain = trail_link(chain, row[0], role)
                chained.append((*row, role, chain))
            db.run_many(
                "INSERT INTO audit (line_hash, server, profile, change_id, hub, project, what, "
                "operator, moment, line, db_role, chain) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT DO NOTHING",
                chained,
            )
        return len(new)

    def seal_trail(self) -> None:
        """The trail and the reviews append-only for every role but the owner's, each row
        attributed by the database (``store migrate`` sets it again each time: a grant given
        since is taken back). StoreError when this role may not (only the owner may)."""
        with self._writing() as db:
            db.seal_trail()

    @_read_errors
    def audit_check(self) -> str | None:
        """Whether the trail is as it was written: each line's hash and chain read again in
        order. None: it is; else where it was changed (an edit or a deletion by whoever could),
        in words. Lines kept before the chain began (schema 3) are not checked."""
        chain = b""
        last_good = 0
        for number, line_hash, role, link, line in self.engine.run(
            "SELECT id, line_hash, db_role, chain, line FROM audit WHERE chain IS NOT NULL "
            "ORDER BY id"
        ):
            said = kept_text(line)
            if body_digest(said.encode()) != bytes(line_hash):
                return (
                    f"the team trail was changed after line {last_good}: line {number} is not "
                    "as written"
                )
            chain = trail_link(chain, bytes(line_hash), str(role))
            if chain != bytes(link):
                return (
                    f"the team trail was changed after line {last_good}: line {number} does not "
                    "follow the one before it (a line edited or deleted)"
                )
            last_good = int(number)
        return None

    @_read_errors
    def audit_lines(
        self,
        servers: Sequence[str],
        *,
        hub: str | None = None,
        project: str | None = None,
        what: str | None = None,
    ) -> list[str]:
        """The change-log lines of these servers (a server and its older names) in the order
        they were kept, of one project's changes of one kind when asked."""
        if not servers:
            return []
        query = f"SELECT line, db_role FROM audit WHERE server IN ({','.join('?' * len(servers))})"
        args: list[str] = list(servers)
        for column, value in (("hub", hub), ("project", project), ("what", what)):
            if value is not None:
                query += f" AND {column} = ?"
                args.append(value)
        return [
            _with_role(kept_text(line), str(role or ""))
            for line, role in self.engine.run(query + " ORDER BY id", args)
        ]

    # Upkeep -----------------------------------------------------------------------------------

    @_read_errors
    def check(self) -> None:
        """Read the whole store once (SQLite's ``quick_check``): :class:`StoreError` naming
        the file when a page of it is damaged, never an answer read from what is left."""
        if not isinstance(self.engine, SQLiteEngine):
            return  # the PostgreSQL server answers for its own pages
        try:
            said = [str(row[0]) for row in self.engine.run("PRAGMA quick_check(5)").fetchall()]
        except self.engine.errors as error:
            raise StoreError(self.engine_words("is damaged", error)) from None
        if said != ["ok"]:
            lines = [x for row in said for x in row.splitlines() if x and not x.startswith("***")]
            raise StoreError(
                f"The store {self.where} is damaged ({'; '.join(lines[:2]) or 'not whole'}). "
                "Move the file away to start a new one."
            )

    def info(self) -> StoreInfo:
        def count(table: str) -> int:
            return int(self.engine.run(f"SELECT count(*) FROM {table}").fetchone()[0])  # noqa: S608

        return StoreInfo(
            self.where,
            self.engine.size(),
            count("snapshots"),
            count("records WHERE length(hash) = 16"),  # a record's key, not a pack's
            count("lists"),
            count("reviews"),
            count("audit"),
        )

    @_read_errors
    def prune(self, before: str) -> int:
        """Forget the snapshots taken before this time (ISO), and what only they held; how many
        snapshots were forgotten."""
        with self._writing() as db:
            gone = db.run("DELETE FROM snapshots WHERE taken < ?", (before,)).rowcount
            oldest = db.run("SELECT min(id) FROM snapshots").fetchone()[0]
            if oldest is None:
                db.run("DELETE FROM members")
            else:
                db.run("DELETE FROM members WHERE until IS NOT NULL AND until < ?", (oldest,))
            db.run(
                "DELETE FROM records WHERE length(hash) = 16 AND "
                "hash NOT IN (SELECT record FROM members)"
            )
            # A pack no record points into any more (a record's key is 16 bytes, a pack's 17).
            db.run(
                "DELETE FROM records WHERE length(hash) <> 16 AND hash NOT IN (SELECT "
                "substr(body, 2, 17) FROM records WHERE length(hash) = 16 AND "
                "substr(body, 1, 1) = ?)",
                (POINTER,),
            )
        return int(gone)

    @_read_errors
    def vacuum(self) -> None:
        """Give the space of what was forgotten back to the disk."""
        self.engine.vacuum()


#: A list's latest state as a snapshot weighs it: the digest of its records in order, the
#: snapshot that read it so (None: the app kept it, or an older hubtui wrote it), and the newest
#: snapshot that read the list.
LatestNamed = tuple[bytes, int | None, int | None]


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


def _in_parts(
    db: Engine, query: str, values: Sequence[Any], more: Sequence[Any] = ()
) -> Iterator[Any]:
    """The rows of ``query`` whose ``IN ({})`` is each part of ``values`` in turn (a few hundred
    a query: SQLite's bound on values, a team store's round trips), ``more`` bound after."""
    for at in range(0, len(values), RECORDS_A_QUERY):
        part = values[at : at + RECORDS_A_QUERY]
        yield from db.run(query.format(",".join("?" * len(part))), [*part, *more])


def _audit_fields(line: str) -> tuple[str, ...] | None:
    """What the audit trail is searched by, from a change line: server, profile, change id,
    hub, project, action, operator and time (None: not a change line, as the change log reads
    it: :func:`~hubtui.core.changes.record.parse_line`; or of the demo API, whose history is its
    own and never a team's)."""
    from hubtui.core.changes.record import parse_line  # when audit lines are copied, not at start

    change = parse_line(line)
    if change is None or change.server == "demo":
        return None
    return (
        change.server, change.profile or "", change.id, change.hub_id, change.project_id,
        change.action, change.operator, change.time,
    )  # fmt: skip


def trail_link(before: bytes, line_hash: bytes, role: str) -> bytes:
    """A trail line's chain: over the one before it, its line's hash and its database role."""
    import hashlib  # when a trail is written or checked, not at start

    return hashlib.sha256(before + line_hash + role.encode()).digest()


def _with_role(line: str, role: str) -> str:
    """A trail line as read back, with the database role it was written under (``db_role``),
    where the engine has one: what the database says, beside what the line says (a role the
    line itself names is dropped)."""
    if not role and '"db_role"' not in line:
        return line
    try:
        fields = json.loads(line)
    except ValueError:
        return line  # not a change line: shown as it is, never dropped
    if not isinstance(fields, dict):
        return line
    fields.pop("db_role", None)  # a line's own claim is not the database's word
    return json.dumps({**fields, "db_role": role} if role else fields, ensure_ascii=True)
